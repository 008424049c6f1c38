/* libFuzzer target for the expect-file grammar of bench_check (`make fuzz`): any bytes must parse or fail with one
 * line naming the input and its line, never crash, read out of bounds or leak; what parses names only the
 * families, figures and attributes pb_schema.h declares, each filter and bound well formed. Built by clang with
 * -fsanitize=fuzzer,address,undefined; not part of the Criterion binary (its name is not test_*). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pb_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A refusal: "fuzz.txt:LINE: what" (or "fuzz.txt: no invariant in it"), terminated, printable, one line. */
static void check_refusal(const char *msg, size_t cap)
{
    size_t n = strnlen(msg, cap);
    if (n == cap || strncmp(msg, "fuzz.txt:", 9) != 0)
        __builtin_trap();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
            __builtin_trap();
}

/* An invariant that parsed: every name declared, every number finite, its reason and text there. */
static void check_invariant(const pb_invariant *inv)
{
    const pb_family *f = pb_family_find(inv->family);
    if (!f || pb_family_fig(f, inv->figure) < 0 || (inv->op != '>' && inv->op != '<') || !isfinite(inv->bound) ||
        !inv->why[0] || !inv->text[0] || inv->line < 1 || inv->nfilter < 0 || inv->nfilter > PB_EXPECT_FILTERS)
        __builtin_trap();
    for (int i = 0; i < inv->nfilter; i++) {
        const pb_expect_filter *x = &inv->filter[i];
        const pb_family_attr *a = pb_family_attr_find(f, x->key);
        if (!a || !x->val[0] || (x->op != '=' && x->op != '>' && x->op != '<'))
            __builtin_trap();
        if (x->op != '=' && !pb_family_attr_numeric(f, a))
            __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pb_expect e; /* 4 KiB of path: off the stack */
    char err[1024];
    if (pb_expect_parse(&e, "fuzz.txt", (const char *)data, size, err, sizeof err) != 0) {
        check_refusal(err, sizeof err);
        if (e.inv || e.n) /* a refusal keeps nothing */
            __builtin_trap();
        return 0;
    }
    if (e.n < 1)
        __builtin_trap();
    for (int i = 0; i < e.n; i++)
        check_invariant(&e.inv[i]);
    pb_expect_free(&e);
    return 0;
}
