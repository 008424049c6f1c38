/* libFuzzer target for the GGUF reader (`make fuzz`): any bytes must parse or fail with a one-line message naming
 * the input, never crash, read out of bounds or leak; a parsed file must be fully readable (every key through
 * the typed getters, every tensor's bytes). Built by clang with -fsanitize=fuzzer,address,undefined; not part of
 * the Criterion binary (its name is not test_*). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pb_gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads every value a caller could ask for: a getter on a key of another type must fail, not misread. */
static size_t read_all(const pb_gguf *g)
{
    size_t sink = 0;
    char err[512], key[300];
    for (uint64_t i = 0; i < g->nkv; i++) {
        pb_gguf_text(key, sizeof key, g->kv[i].key);
        uint64_t u;
        double f;
        pb_gguf_str s;
        if (pb_gguf_find(g, key) == NULL && !memchr(g->kv[i].key.p, '\0', g->kv[i].key.n) &&
            memchr(key, '?', strlen(key)) == NULL)
            __builtin_trap(); /* a printable key is found by its own name */
        sink += pb_gguf_get_uint(g, key, &u, err, sizeof err) == 0 ? (size_t)u : 0;
        sink += pb_gguf_get_float(g, key, &f, err, sizeof err) == 0 && f > 0;
        if (pb_gguf_get_str(g, key, &s, err, sizeof err) == 0)
            for (uint64_t k = 0; k < s.n; k++)
                sink += (unsigned char)s.p[k];
    }
    for (uint64_t i = 0; i < g->ntensors; i++) {
        const pb_gguf_tensor *t = &g->t[i];
        if (t->data < g->base || t->data + t->bytes > g->base + g->size || !pb_ggml_type(t->type))
            __builtin_trap();
        for (uint64_t k = 0; k < t->bytes; k += 61)
            sink += t->data[k];
        if (t->bytes)
            sink += t->data[t->bytes - 1];
    }
    return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_gguf g;
    char err[512];
    if (pb_gguf_parse(&g, data, size, "fuzz.gguf", err, sizeof err) != 0) {
        /* A failure always says where, on one line. */
        if (strncmp(err, "fuzz.gguf: ", 11) != 0 || strchr(err, '\n'))
            __builtin_trap();
        return 0;
    }
    volatile size_t sink = read_all(&g);
    (void)sink;
    pb_gguf_close(&g);
    return 0;
}
