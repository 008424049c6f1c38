/* pb_memread_neon.c — arm64 Advanced SIMD read kernels for the floor (built with -march=armv8-a; run where the
 * CPU has asimd, kern_isa.c): one stream, one stream of non-temporal pair loads (LDNP), and the decode passes'
 * four streams with PRFM, and four streams a MiB at a time without it. Byte sums: UADALP adds a load's 16
 * bytes pairwise into eight 16-bit lanes of an accumulator, which is folded into 64-bit lanes (UADDLP, UADALP)
 * every PB_FOLD steps, before a lane can pass 65535. Copies and writes have no NEON rows: they run the scalar ones
 * (pb_memkern_for). */
#include "pb_memread_isa.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <stdbool.h>

#include "kern.h" /* kern_prefetch_stream: the decode passes' prefetch, so the floor reads as they do */
#include "pb_memread.h"

#define PB_V 16     /* bytes per vector */
#define PB_STEP 128 /* bytes per step of the one-stream kernels: two pair loads per accumulator pair */
#define PB_FOLD 64  /* steps between folds: pb_add32 adds at most 2 x 510 to a lane, 64 x 1020 = 65280 */

/* 32 bytes as two vectors: plain loads, or LDNP, the non-temporal hint (no intrinsic has it). The "m" operand
 * tells the compiler which bytes the asm reads; the cast only gives those 32 bytes an array type. */
static inline uint8x16x2_t pb_ld32(const uint8_t *p, bool nt)
{
    uint8x16x2_t v;
    if (nt)
        __asm__("ldnp %q0, %q1, [%2]" : "=w"(v.val[0]), "=w"(v.val[1]) : "r"(p), "m"(*(const uint8_t(*)[32])p));
    else
        v = vld1q_u8_x2(p);
    return v;
}

/* acc + the pairwise byte sums of the 32 bytes at p. */
static inline uint16x8_t pb_add32(uint16x8_t acc, const uint8_t *p, bool nt)
{
    uint8x16x2_t v = pb_ld32(p, nt);
    return vpadalq_u8(vpadalq_u8(acc, v.val[0]), v.val[1]);
}

static inline uint64x2_t pb_fold(uint64x2_t total, uint16x8_t acc)
{
    return vpadalq_u32(total, vpaddlq_u16(acc));
}

/* Four accumulators, 32 bytes each per step: the loads never wait on an add. p is aligned on 16 after the
 * bytewise head. */
static inline __attribute__((always_inline)) uint64_t pb_read(const void *src, size_t bytes, bool nt)
{
    const uint8_t *p = src;
    uint64_t sum = pb_memsum_head(&p, &bytes, PB_V);
    uint64x2_t total = vdupq_n_u64(0);
    while (bytes >= PB_STEP) {
        size_t steps = bytes / PB_STEP < PB_FOLD ? bytes / PB_STEP : PB_FOLD;
        uint16x8_t a0 = vdupq_n_u16(0), a1 = a0, a2 = a0, a3 = a0;
        for (size_t i = 0; i < steps; i++, p += PB_STEP) {
            a0 = pb_add32(a0, p, nt);
            a1 = pb_add32(a1, p + 32, nt);
            a2 = pb_add32(a2, p + 64, nt);
            a3 = pb_add32(a3, p + 96, nt);
        }
        total = pb_fold(pb_fold(pb_fold(pb_fold(total, a0), a1), a2), a3);
        bytes -= steps * PB_STEP;
    }
    return sum + vaddvq_u64(total) + pb_memsum_tail(p, bytes);
}

uint64_t pb_memread_neon(void *dst, const void *src, size_t bytes)
{
    (void)dst; /* the kernels' shape: dst, src, bytes (pb_memkern_fn) */
    return pb_read(src, bytes, false);
}

uint64_t pb_memread_neon_nt(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    return pb_read(src, bytes, true);
}

_Static_assert(KERN_PREFETCH_BYTES == 1536, "pb_memread.c's table says the *-4s kernels prefetch 1.5 KiB ahead");

/* PB_MR_STREAMS streams a quarter of the range apart, two accumulators per stream, each asking for the line
 * KERN_PREFETCH_BYTES ahead where pf says (kern_prefetch_stream: PRFM PLDL3KEEP, the hint's locality 1 on every
 * arm64 core). A step is one line per stream (PB_MR_LINE: a cache line on most arm64 cores) from the 64-byte
 * aligned start (pb_memread_split_of); the rest goes through pb_read. */
static inline __attribute__((always_inline)) uint64_t pb_read4(const void *src, size_t bytes, bool pf)
{
    pb_memread_split q = pb_memread_split_of(src, bytes, PB_MR_LINE);
    size_t quarter = q.quarter;
    const uint8_t *s[PB_MR_STREAMS];
    for (int k = 0; k < PB_MR_STREAMS; k++)
        s[k] = q.s0 + (size_t)k * quarter;
    uint64x2_t total = vdupq_n_u64(0);
    for (size_t i = 0; i < quarter;) {
        size_t end = quarter - i < PB_FOLD * PB_MR_LINE ? quarter : i + PB_FOLD * PB_MR_LINE;
        uint16x8_t a[2 * PB_MR_STREAMS];
#pragma GCC unroll 8
        for (int k = 0; k < 2 * PB_MR_STREAMS; k++)
            a[k] = vdupq_n_u16(0);
        for (; i < end; i += PB_MR_LINE) {
#pragma GCC unroll 4
            for (int k = 0; k < PB_MR_STREAMS; k++) {
                if (pf)
                    kern_prefetch_stream(s[k] + i);
                a[2 * k] = pb_add32(a[2 * k], s[k] + i, false);
                a[2 * k + 1] = pb_add32(a[2 * k + 1], s[k] + i + 32, false);
            }
        }
#pragma GCC unroll 8
        for (int k = 0; k < 2 * PB_MR_STREAMS; k++)
            total = pb_fold(total, a[k]);
    }
    return q.head_sum + vaddvq_u64(total) + pb_read(q.rest, q.rest_bytes, false);
}

PB_MEMREAD_FOUR_STREAMS(neon) /* pb_memread_neon_4s, the decode passes' pattern, and pb_memread_neon_4b */

#else
typedef int pb_memread_neon_not_arm64; /* ISO C wants a translation unit to declare something */
#endif
