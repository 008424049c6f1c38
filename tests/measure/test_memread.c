/* Memory-floor kernels against the bytewise oracle: every kernel the CPU has, on odd sizes at every
 * alignment within a cache line, with guard bytes around the range. All bytes are non-zero, so a byte
 * skipped (or read twice) changes the sum. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pb_memread.h"
#include "pb_memread_isa.h" /* PB_MR_BLOCK */

#define GUARD 64
#define MAXN 20000
#define BUFN ((MAXN + 2 * GUARD + 128 + 63) / 64 * 64) /* aligned_alloc wants a multiple of the alignment */
static const size_t sizes[] = { 0,   1,   7,   8,   31,   63,   64,   65,   127,   255,
                                511, 512, 513, 1023, 2049, 4095, 4097, 12345, MAXN };

static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(1 + (seed >> 16) % 255);
    }
}

/* 64-byte aligned storage so offset k means alignment k. */
static uint8_t *alloc_buf(void)
{
    uint8_t *p = aligned_alloc(64, BUFN);
    cr_assert_not_null(p);
    return p;
}

Test(memread, table_is_consistent)
{
    cr_assert_gt(pb_memkern_count(), 0);
    for (int i = 0; i < pb_memkern_count(); i++) {
        const pb_memkern *k = &pb_memkerns[i];
        cr_assert_eq(pb_memkern_find(k->name), k, "%s", k->name);
        cr_assert_eq(k->traffic, k->op == PB_MEMOP_COPY ? 2 : 1);
        cr_assert_not_null(k->fn);
        cr_assert_not_null(k->what);
    }
    cr_assert_null(pb_memkerns[pb_memkern_count()].name);
    cr_assert_null(pb_memkern_find("avx1024"));
    cr_assert_null(pb_memkern_find(NULL));
    cr_assert(pb_memkern_supported(pb_memkern_find("scalar")));
    cr_assert_str_eq(pb_memop_name(PB_MEMOP_COPY), "copy");
}

Test(memread, oracle_sums_bytes)
{
    uint8_t b[5] = { 1, 2, 255, 0, 10 };
    cr_assert_eq(pb_memsum(b, 5), 268);
    cr_assert_eq(pb_memsum(b, 0), 0);
}

Test(memread, read_kernels_match_the_oracle)
{
    uint8_t *buf = alloc_buf();
    fill(buf, BUFN, 7);
    int tested = 0;
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_READ || !pb_memkern_supported(k))
            continue;
        tested++;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t off = 0; off < 66; off++) {
                const uint8_t *p = buf + GUARD + off;
                cr_assert_eq(k->fn(NULL, p, sizes[s]), pb_memsum(p, sizes[s]), "%s size %zu offset %zu", k->name,
                             sizes[s], off);
            }
    }
    cr_assert_geq(tested, 1);
    free(buf);
}

/* Every size across a few whole steps of the multi-stream kernels (*-4s: 4 streams of up to 128-byte steps):
 * each split into quarters and a tail under 4 steps, so a tail byte skipped or also read by a stream shows. */
Test(memread, read_kernels_match_the_oracle_across_the_stream_split)
{
    uint8_t *buf = alloc_buf();
    fill(buf, BUFN, 11);
    static const size_t offs[] = { 0, 1, 31, 63 };
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_READ || !pb_memkern_supported(k))
            continue;
        for (size_t n = 3 * 512; n <= 5 * 512 + 64; n++)
            for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
                const uint8_t *p = buf + GUARD + offs[o];
                cr_assert_eq(k->fn(NULL, p, n), pb_memsum(p, n), "%s size %zu offset %zu", k->name, n, offs[o]);
            }
    }
    free(buf);
}

/* Sizes past a few blocks of the blocked multi-stream kernels (*-4b: 4 streams in each MiB, MiB after MiB), at
 * every alignment class: a block's head, quarters or rest skipped or read twice changes the sum. */
Test(memread, read_kernels_match_the_oracle_across_blocks)
{
    static const size_t extra[] = { 0, 1, 63, 64 * 7 + 5, PB_MR_BLOCK - 1 };
    static const size_t offs[] = { 0, 1, 63 };
    size_t cap = 3 * PB_MR_BLOCK + 2 * GUARD + 64;
    uint8_t *buf = aligned_alloc(64, cap);
    cr_assert_not_null(buf);
    fill(buf, cap, 5);
    int tested = 0;
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_READ || !pb_memkern_supported(k))
            continue;
        for (size_t e = 0; e < sizeof extra / sizeof *extra; e++)
            for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
                size_t n = 2 * PB_MR_BLOCK + extra[e];
                const uint8_t *p = buf + GUARD + offs[o];
                cr_assert_eq(k->fn(NULL, p, n), pb_memsum(p, n), "%s size %zu offset %zu", k->name, n, offs[o]);
            }
        tested++;
    }
    cr_assert_geq(tested, 1);
    free(buf);
}

Test(memread, the_decode_read_pattern_is_in_the_table)
{
#if defined(__x86_64__)
    static const char *const names[] = { "avx2-4s", "avx512-4s", "avx2-4b", "avx512-4b" }; /* and the blocked ones */
#elif defined(__aarch64__)
    static const char *const names[] = { "neon-4s", "neon-nt", "neon-4b" }; /* and the non-temporal pair loads */
#endif
#if defined(__x86_64__) || defined(__aarch64__)
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const pb_memkern *k = pb_memkern_find(names[i]);
        cr_assert_not_null(k, "%s", names[i]);
        cr_assert_eq(k->op, PB_MEMOP_READ, "%s", names[i]);
    }
#endif
}

Test(memread, copy_kernels_copy_exactly_the_range)
{
    uint8_t *src = alloc_buf(), *dst = alloc_buf();
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_COPY || !pb_memkern_supported(k))
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t off = 0; off < 66; off += 5) {
                size_t soff = (off * 7) % 64, n = sizes[s];
                fill(src, BUFN, (unsigned)(s + off));
                memset(dst, 0, BUFN);
                uint64_t sum = k->fn(dst + GUARD + off, src + GUARD + soff, n);
                cr_assert_eq(sum, pb_memsum(src + GUARD + soff, n), "%s size %zu", k->name, n);
                cr_assert_eq(memcmp(dst + GUARD + off, src + GUARD + soff, n), 0, "%s size %zu offset %zu", k->name,
                             n, off);
                cr_assert_eq(pb_memsum(dst, GUARD + off), 0, "%s wrote before the range", k->name);
                cr_assert_eq(pb_memsum(dst + GUARD + off + n, GUARD), 0, "%s wrote after the range", k->name);
            }
    }
    free(src);
    free(dst);
}

Test(memread, write_kernels_write_exactly_the_range)
{
    uint8_t *dst = alloc_buf();
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_WRITE || !pb_memkern_supported(k))
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t off = 0; off < 66; off += 3) {
                size_t n = sizes[s];
                memset(dst, 0, BUFN);
                cr_assert_eq(k->fn(dst + GUARD + off, NULL, n), (uint64_t)n * PB_MEMWRITE_BYTE, "%s", k->name);
                for (size_t i = 0; i < n; i++)
                    cr_assert_eq(dst[GUARD + off + i], PB_MEMWRITE_BYTE, "%s size %zu offset %zu byte %zu", k->name,
                                 n, off, i);
                cr_assert_eq(pb_memsum(dst, GUARD + off), 0, "%s wrote before the range", k->name);
                cr_assert_eq(pb_memsum(dst + GUARD + off + n, GUARD), 0, "%s wrote after the range", k->name);
            }
    }
    free(dst);
}

Test(memread, scalar_lane_accumulators_do_not_overflow)
{
    /* All 0xFF over many fold periods: the worst case for the 16-bit SWAR lanes. */
    size_t n = 1 << 20;
    uint8_t *p = malloc(n + 8);
    cr_assert_not_null(p);
    memset(p, 0xFF, n + 8);
    for (const pb_memkern *k = pb_memkerns; k->name; k++)
        if (k->op == PB_MEMOP_READ && pb_memkern_supported(k))
            cr_assert_eq(k->fn(NULL, p + 3, n), (uint64_t)n * 255, "%s", k->name);
    free(p);
}
