/* test_gguf.c — the GGUF reader (bench/io/gguf): a file written by tests/lib/gguf_writer.h reads back exactly, every
 * supported type's bytes included; each kind of bad file is refused with one line naming the file and what is
 * wrong; every prefix of a good file is refused as truncated, never read past its end. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguf_writer.h"
#include "pb_gguf.h"
#include "test_files.h"

/* A small file of every kind of content: scalars, a string, a string array, tensors of several types. */
static void good_file(gw *w, uint32_t version, uint32_t alignment)
{
    gw_init(w, version);
    gw_string(w, "general.architecture", "qwen3");
    if (alignment)
        gw_u32(w, "general.alignment", alignment);
    gw_u32(w, "qwen3.block_count", 2);
    gw_f32(w, "qwen3.rope.freq_base", 1000000.0f);
    static const char *const vocab[] = { "a", "bb", "" };
    gw_strings(w, "tokenizer.ggml.tokens", vocab, 3);
    static unsigned char bytes[4096];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 7 + 3);
    gw_matrix(w, "f32", GW_F32, 2, 4, bytes, 2 * 4 * 4);
    gw_matrix(w, "f16", GW_F16, 3, 8, bytes + 1, 3 * 8 * 2);
    gw_matrix(w, "q8_0", GW_Q8_0, 2, 64, bytes + 2, 2 * 2 * 34);
    gw_matrix(w, "q4_0", GW_Q4_0, 1, 32, bytes + 3, 18);
    gw_matrix(w, "tq2_0", GW_TQ2_0, 2, 256, bytes + 4, 2 * 66);
    gw_matrix(w, "q4_K", GW_Q4_K, 1, 512, bytes + 5, 2 * 144);
    const uint64_t ne1[1] = { 5 };
    gw_tensor(w, "norm", GW_F32, 1, ne1, bytes + 6, 20);
}

/* good_file(w, version, alignment)'s bytes into *b (the caller's, with w's) and parsed into g, asserted to parse;
 * returns their length. */
static size_t parse_good(gw *w, uint32_t version, uint32_t alignment, unsigned char **b, pb_gguf *g)
{
    char err[512] = "";
    size_t len;
    good_file(w, version, alignment);
    *b = gw_bytes(w, &len);
    cr_assert_eq(pb_gguf_parse(g, *b, len, "t.gguf", err, sizeof err), 0, "%s", err);
    return len;
}

/* What parse_good made, freed. */
static void free_good(gw *w, unsigned char *b, pb_gguf *g)
{
    pb_gguf_close(g);
    free(b);
    gw_free(w);
}

Test(gguf, a_written_file_reads_back_exactly)
{
    static const uint32_t versions[] = { 2, 3 }, aligns[] = { 0, 64 };
    for (int v = 0; v < 2; v++)
        for (int a = 0; a < 2; a++) {
            gw w;
            unsigned char *b;
            pb_gguf g;
            size_t len = parse_good(&w, versions[v], aligns[a], &b, &g);
            cr_assert_eq(g.version, versions[v]);
            cr_assert_eq(g.alignment, aligns[a] ? aligns[a] : 32);
            cr_assert_eq(g.data_offset % g.alignment, 0);
            cr_assert_eq(g.ntensors, 7);
            cr_assert_eq(g.nkv, aligns[a] ? 5 : 4);
            /* every tensor's bytes are where the writer put them, in every type */
            size_t data = len - w.data.n;
            for (uint64_t i = 0; i < g.ntensors; i++) {
                const pb_gguf_tensor *t = &g.t[i];
                cr_assert_eq(t->data, b + data + t->offset);
                cr_assert_eq(memcmp(t->data, w.data.p + t->offset, t->bytes), 0);
            }
            const pb_gguf_tensor *q = pb_gguf_tensor_find(&g, "q8_0");
            cr_assert_not_null(q);
            cr_assert(q->dims == 2 && q->ne[0] == 64 && q->ne[1] == 2 && q->bytes == 136 && q->type == GW_Q8_0);
            cr_assert_eq(pb_gguf_tensor_find(&g, "q4_K")->bytes, 288);
            cr_assert_null(pb_gguf_tensor_find(&g, "absent"));
            free_good(&w, b, &g);
        }
}

Test(gguf, typed_getters)
{
    gw w;
    unsigned char *b;
    pb_gguf g;
    parse_good(&w, 3, 0, &b, &g);
    char err[512] = "";
    uint64_t u = 0;
    double f = 0;
    pb_gguf_str s;
    cr_assert_eq(pb_gguf_get_uint(&g, "qwen3.block_count", &u, err, sizeof err), 0);
    cr_assert_eq(u, 2);
    cr_assert_eq(pb_gguf_get_float(&g, "qwen3.rope.freq_base", &f, err, sizeof err), 0);
    cr_assert_eq(f, 1e6);
    cr_assert_eq(pb_gguf_get_str(&g, "general.architecture", &s, err, sizeof err), 0);
    cr_assert(pb_gguf_str_is(s, "qwen3"));
    cr_assert_eq(pb_gguf_get_uint(&g, "absent", &u, err, sizeof err), 1);
    cr_assert_eq(pb_gguf_get_uint(&g, "general.architecture", &u, err, sizeof err), -1);
    cr_assert_str_eq(err, "t.gguf: key 'general.architecture' is string, not an integer");
    cr_assert_eq(pb_gguf_get_str(&g, "qwen3.block_count", &s, err, sizeof err), -1);
    const pb_gguf_kv *arr = pb_gguf_find(&g, "tokenizer.ggml.tokens");
    cr_assert(arr && arr->type == PB_GGUF_ARRAY && arr->elem == PB_GGUF_STRING && arr->count == 3);
    free_good(&w, b, &g);
}

/* Every prefix of a good file is truncated: refused with a line naming the file, never read past its end
 * (each prefix is copied into a buffer of exactly its size, so ASan sees an overread). */
Test(gguf, every_prefix_is_refused)
{
    gw w;
    good_file(&w, 3, 0);
    size_t len;
    unsigned char *b = gw_bytes(&w, &len);
    for (size_t n = 0; n < len; n++) {
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, b, n);
        pb_gguf g;
        char err[512] = "";
        cr_assert_eq(pb_gguf_parse(&g, cut, n, "t.gguf", err, sizeof err), -1, "a prefix of %zu bytes", n);
        cr_assert(strncmp(err, "t.gguf: ", 8) == 0 && strchr(err, '\n') == NULL, "%zu: %s", n, err);
        cr_assert(strstr(err, "truncated") || strstr(err, "beyond the file") || strstr(err, "cannot fit"),
                  "%zu: %s", n, err);
        free(cut);
    }
    free(b);
    gw_free(&w);
}

/* Parses w (after patch, when given, changed the finished bytes) and expects a refusal containing want. */
static void refused(gw *w, void (*patch)(unsigned char *, size_t), const char *want)
{
    size_t len;
    unsigned char *b = gw_bytes(w, &len);
    if (patch)
        patch(b, len);
    pb_gguf g;
    char err[512] = "";
    cr_assert_eq(pb_gguf_parse(&g, b, len, "bad.gguf", err, sizeof err), -1, "accepted; wanted '%s'", want);
    cr_assert(strncmp(err, "bad.gguf: ", 10) == 0, "%s", err);
    cr_assert_not_null(strstr(err, want), "'%s' lacks '%s'", err, want);
    free(b);
    gw_free(w);
}

static void set_magic(unsigned char *b, size_t n) { (void)n; memcpy(b, "GGML", 4); }
static void set_v1(unsigned char *b, size_t n) { (void)n; b[4] = 1; }
static void set_v4(unsigned char *b, size_t n) { (void)n; b[4] = 4; }
static void set_big_endian(unsigned char *b, size_t n) { (void)n; b[4] = 0; b[7] = 3; }
static void huge_kv_count(unsigned char *b, size_t n) { (void)n; b[16 + 5] = 1; }
static void huge_tensor_count(unsigned char *b, size_t n) { (void)n; b[8 + 4] = 1; }
/* the first key's length (right after the 24-byte header) */
static void huge_key_length(unsigned char *b, size_t n) { (void)n; b[24 + 6] = 1; }

Test(gguf, bad_headers_are_refused)
{
    static const struct {
        void (*patch)(unsigned char *b, size_t n);
        const char *want;
    } cases[] = {
        { set_magic, "not a GGUF file" },
        { set_v1, "version 1 is not supported" },
        { set_v4, "version 4 is not supported" },
        { set_big_endian, "big-endian" },
        { huge_kv_count, "cannot fit in the file" },
        { huge_tensor_count, "cannot fit in the file" },
        { huge_key_length, "beyond the file" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gw w;
        good_file(&w, 3, 0);
        refused(&w, cases[i].patch, cases[i].want);
    }
}

Test(gguf, bad_metadata_is_refused)
{
    gw w;
    gw_init(&w, 3);
    gw_u32(&w, "a", 1);
    gw_u32(&w, "a", 2);
    refused(&w, NULL, "duplicate key 'a'");
    gw_init(&w, 3);
    gw_key(&w, "weird", 13);
    gw_le(&w.kv, 0, 4);
    refused(&w, NULL, "unknown value type 13");
    gw_init(&w, 3);
    gw_key(&w, "nested", GW_T_ARRAY);
    gw_le(&w.kv, GW_T_ARRAY, 4);
    gw_le(&w.kv, 1, 8);
    refused(&w, NULL, "arrays of arrays");
    gw_init(&w, 3);
    gw_key(&w, "long", GW_T_ARRAY);
    gw_le(&w.kv, GW_T_U32, 4);
    gw_le(&w.kv, 1ull << 40, 8);
    refused(&w, NULL, "elements, beyond the file");
    gw_init(&w, 3);
    gw_u32(&w, "general.alignment", 48);
    refused(&w, NULL, "alignment 48 is not a power of two");
    gw_init(&w, 3);
    gw_string(&w, "general.alignment", "32");
    refused(&w, NULL, "general.alignment is a string, not a u32");
    gw_init(&w, 3);
    gw_u32(&w, "", 1);
    refused(&w, NULL, "metadata entry 0 is 0 bytes long");
}

Test(gguf, bad_tensors_are_refused)
{
    static unsigned char data[4096];
    static const uint64_t ne[2] = { 32, 4 }, zero[2] = { 32, 0 }, five[5] = { 32, 1, 1, 1, 1 };
    static const uint64_t overflow[2] = { 1ull << 40, 1ull << 40 }, odd[2] = { 33, 1 };
    gw w;
    gw_init(&w, 3);
    gw_matrix(&w, "x", GW_F32, 1, 32, data, 128);
    gw_matrix(&w, "x", GW_F32, 1, 32, data, 128);
    refused(&w, NULL, "duplicate tensor 'x'");
    gw_init(&w, 3);
    gw_tensor(&w, "x", GW_F32, 2, ne, data, 4 * 32 * 4);
    gw_tensor_at(&w, "y", GW_F32, 2, ne, 4 * 32 * 4);
    refused(&w, NULL, "truncated: tensor 'y'");
    gw_init(&w, 3);
    gw_tensor(&w, "x", GW_F32, 2, ne, data, 4 * 32 * 4 - 1);
    refused(&w, NULL, "ends past the end of the file");
    /* One tensor declared at an offset, without its data: each shape or place the reader refuses. */
    static const struct {
        uint32_t type;
        int dims;
        const uint64_t *ne;
        uint64_t at;
        const char *want;
    } one[] = {
        { GW_F32, 2, ne, 1ull << 62, "truncated: tensor 'x'" },
        { GW_F32, 2, ne, 16, "offset 16 is not a multiple of the alignment 32" },
        { GW_F32, 2, overflow, 0, "the product of its dims overflows" },
        { GW_F32, 2, zero, 0, "has a zero dim" },
        { GW_F32, 5, five, 0, "has 5 dims" },
        { 4, 2, ne, 0, "unknown ggml type 4" }, /* Q4_2, removed from ggml */
        { GW_Q8_0, 2, odd, 0, "rows of 33 elements are not whole q8_0 blocks of 32" },
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        gw_init(&w, 3);
        gw_tensor_at(&w, "x", one[i].type, one[i].dims, one[i].ne, one[i].at);
        refused(&w, NULL, one[i].want);
    }
}

Test(gguf, open_maps_a_file_and_names_it_in_errors)
{
    char dir[64], path[128], err[512];
    tf_tmpdir(dir, sizeof dir, "pbgguf");
    snprintf(path, sizeof path, "%s/m.gguf", dir);
    gw w;
    good_file(&w, 3, 0);
    gw_write(&w, path);
    pb_gguf g;
    cr_assert_eq(pb_gguf_open(&g, path, err, sizeof err), 0, "%s", err);
    cr_assert_not_null(g.map);
    cr_assert_eq(memcmp(pb_gguf_tensor_find(&g, "f16")->data, w.data.p + pb_gguf_tensor_find(&g, "f16")->offset,
                        48), 0);
    pb_gguf_close(&g);
    cr_assert_eq(pb_gguf_open(&g, dir, err, sizeof err), -1);
    cr_assert(strstr(err, "not a regular file") && strncmp(err, dir, strlen(dir)) == 0, "%s", err);
    snprintf(path, sizeof path, "%s/none.gguf", dir);
    cr_assert_eq(pb_gguf_open(&g, path, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "none.gguf: No such file"), "%s", err);
    snprintf(path, sizeof path, "%s/empty.gguf", dir);
    gw_write_bytes(path, (const unsigned char *)"", 0);
    cr_assert_eq(pb_gguf_open(&g, path, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "empty.gguf: truncated"), "%s", err);
    gw_free(&w);
    tf_rmrf(dir);
}

/* A model file is opened as every input is (pb_infile): a FIFO under its name is refused at once, where an open
 * that blocks would wait for a writer forever. */
Test(gguf, open_refuses_a_fifo_at_once, .timeout = 10)
{
    char dir[64], path[128], err[512];
    tf_tmpdir(dir, sizeof dir, "pbgguf");
    snprintf(path, sizeof path, "%s/m.gguf", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    pb_gguf g;
    cr_assert_eq(pb_gguf_open(&g, path, err, sizeof err), -1);
    cr_expect(strstr(err, "m.gguf: not a regular file (a FIFO)"), "%s", err);
    tf_rmrf(dir);
}
