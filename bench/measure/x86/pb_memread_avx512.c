/* pb_memread_avx512.c — 512-bit kernels (built with the AVX-512 flags; run where the CPU has avx512f and
 * avx512bw). Byte sums come from vpsadbw against zero, as in pb_memread_avx2.c. */
#include "pb_memread_isa.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <stdbool.h>

#include "kern.h" /* kern_prefetch_stream: the decode passes' prefetch, so the floor reads as they do */
#include "pb_memread.h"

#define PB_V 64 /* bytes per vector: one cache line */

static inline __m512i pb_sad(__m512i v) { return _mm512_sad_epu8(v, _mm512_setzero_si512()); }

/* p is 64-byte aligned (the callers do the head bytewise). vmovntdqa does not write: the cast only drops
 * the const the intrinsic's prototype lacks. */
static inline __m512i pb_load(const uint8_t *p, bool nt)
{
    return nt ? _mm512_stream_load_si512((void *)(uintptr_t)p) : _mm512_load_si512((const void *)p);
}

/* Eight independent accumulators, one cache line each per step (512 bytes per iteration). */
static inline __attribute__((always_inline)) uint64_t pb_read(void *dst, const void *src, size_t bytes, bool nt)
{
    (void)dst; /* the kernels' shape: dst, src, bytes (pb_memkern_fn) */
    const uint8_t *p = src;
    uint64_t sum = pb_memsum_head(&p, &bytes, PB_V);
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (; bytes >= 8 * PB_V; p += 8 * PB_V, bytes -= 8 * PB_V) {
        a0 = _mm512_add_epi64(a0, pb_sad(pb_load(p, nt)));
        a1 = _mm512_add_epi64(a1, pb_sad(pb_load(p + PB_V, nt)));
        a2 = _mm512_add_epi64(a2, pb_sad(pb_load(p + 2 * PB_V, nt)));
        a3 = _mm512_add_epi64(a3, pb_sad(pb_load(p + 3 * PB_V, nt)));
        a4 = _mm512_add_epi64(a4, pb_sad(pb_load(p + 4 * PB_V, nt)));
        a5 = _mm512_add_epi64(a5, pb_sad(pb_load(p + 5 * PB_V, nt)));
        a6 = _mm512_add_epi64(a6, pb_sad(pb_load(p + 6 * PB_V, nt)));
        a7 = _mm512_add_epi64(a7, pb_sad(pb_load(p + 7 * PB_V, nt)));
    }
    __m512i a = _mm512_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)),
                                 _mm512_add_epi64(_mm512_add_epi64(a4, a5), _mm512_add_epi64(a6, a7)));
    sum += (uint64_t)_mm512_reduce_add_epi64(a);
    return sum + pb_memsum_tail(p, bytes);
}

uint64_t pb_memread_avx512(void *dst, const void *src, size_t bytes) { return pb_read(dst, src, bytes, false); }
uint64_t pb_memread_avx512_nt(void *dst, const void *src, size_t bytes) { return pb_read(dst, src, bytes, true); }

_Static_assert(KERN_PREFETCH_BYTES == 1536, "pb_memread.c's table says the *-4s kernels prefetch 1.5 KiB ahead");
_Static_assert(PB_V == PB_MR_LINE, "a step of the 4-stream loop is two lines, one vector each");

/* PB_MR_STREAMS streams a quarter of the range apart, two accumulators per stream, each asking for the line
 * KERN_PREFETCH_BYTES ahead where pf says. Each quarter is a whole number of steps (two lines) from the 64-byte
 * aligned start (pb_memread_split_of), so every load is aligned; the rest after the fourth quarter goes through
 * pb_read. */
static inline __attribute__((always_inline)) uint64_t pb_read4(const void *src, size_t bytes, bool pf)
{
    pb_memread_split q = pb_memread_split_of(src, bytes, 2 * PB_V);
    size_t quarter = q.quarter;
    const uint8_t *s0 = q.s0, *s1 = s0 + quarter, *s2 = s1 + quarter, *s3 = s2 + quarter;
    uint64_t sum = q.head_sum;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (size_t i = 0; i < quarter; i += 2 * PB_V) {
        if (pf) {
            kern_prefetch_stream(s0 + i);
            kern_prefetch_stream(s0 + i + PB_V);
            kern_prefetch_stream(s1 + i);
            kern_prefetch_stream(s1 + i + PB_V);
            kern_prefetch_stream(s2 + i);
            kern_prefetch_stream(s2 + i + PB_V);
            kern_prefetch_stream(s3 + i);
            kern_prefetch_stream(s3 + i + PB_V);
        }
        a0 = _mm512_add_epi64(a0, pb_sad(pb_load(s0 + i, false)));
        a1 = _mm512_add_epi64(a1, pb_sad(pb_load(s0 + i + PB_V, false)));
        a2 = _mm512_add_epi64(a2, pb_sad(pb_load(s1 + i, false)));
        a3 = _mm512_add_epi64(a3, pb_sad(pb_load(s1 + i + PB_V, false)));
        a4 = _mm512_add_epi64(a4, pb_sad(pb_load(s2 + i, false)));
        a5 = _mm512_add_epi64(a5, pb_sad(pb_load(s2 + i + PB_V, false)));
        a6 = _mm512_add_epi64(a6, pb_sad(pb_load(s3 + i, false)));
        a7 = _mm512_add_epi64(a7, pb_sad(pb_load(s3 + i + PB_V, false)));
    }
    __m512i a = _mm512_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)),
                                 _mm512_add_epi64(_mm512_add_epi64(a4, a5), _mm512_add_epi64(a6, a7)));
    sum += (uint64_t)_mm512_reduce_add_epi64(a);
    return sum + pb_read(NULL, q.rest, q.rest_bytes, false);
}

PB_MEMREAD_FOUR_STREAMS(avx512) /* pb_memread_avx512_4s, the decode passes' pattern, and pb_memread_avx512_4b */

static inline void pb_store(uint8_t *d, __m512i v, bool nt)
{
    /* d is 64-byte aligned by the callers' head */
    if (nt)
        _mm512_stream_si512((void *)d, v);
    else
        _mm512_store_si512((void *)d, v);
}

/* Aligned on the destination (non-temporal stores need it); the source is loaded unaligned. */
static inline __attribute__((always_inline)) uint64_t pb_copy(uint8_t *d, const uint8_t *s, size_t bytes, bool nt)
{
    uint64_t sum = pb_memcopy_head(&d, &s, &bytes, PB_V);
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (; bytes >= 4 * PB_V; d += 4 * PB_V, s += 4 * PB_V, bytes -= 4 * PB_V) {
        __m512i v0 = _mm512_loadu_si512((const void *)s), v1 = _mm512_loadu_si512((const void *)(s + PB_V));
        __m512i v2 = _mm512_loadu_si512((const void *)(s + 2 * PB_V));
        __m512i v3 = _mm512_loadu_si512((const void *)(s + 3 * PB_V));
        pb_store(d, v0, nt);
        pb_store(d + PB_V, v1, nt);
        pb_store(d + 2 * PB_V, v2, nt);
        pb_store(d + 3 * PB_V, v3, nt);
        a0 = _mm512_add_epi64(a0, pb_sad(v0));
        a1 = _mm512_add_epi64(a1, pb_sad(v1));
        a2 = _mm512_add_epi64(a2, pb_sad(v2));
        a3 = _mm512_add_epi64(a3, pb_sad(v3));
    }
    if (nt)
        _mm_sfence(); /* orders the weakly-ordered streaming stores before whatever the caller does next */
    sum += (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)));
    return sum + pb_memcopy_tail(d, s, bytes);
}

uint64_t pb_memcopy_avx512(void *dst, const void *src, size_t bytes) { return pb_copy(dst, src, bytes, false); }
uint64_t pb_memcopy_avx512_nt(void *dst, const void *src, size_t bytes) { return pb_copy(dst, src, bytes, true); }

static inline __attribute__((always_inline)) uint64_t pb_write(void *dst, const void *src, size_t bytes, bool nt)
{
    (void)src;
    uint8_t *d = dst;
    size_t n = bytes;
    pb_memwrite_head(&d, &n, PB_V);
    const __m512i v = _mm512_set1_epi8((char)PB_MEMWRITE_BYTE);
    for (; n >= 4 * PB_V; d += 4 * PB_V, n -= 4 * PB_V) {
        pb_store(d, v, nt);
        pb_store(d + PB_V, v, nt);
        pb_store(d + 2 * PB_V, v, nt);
        pb_store(d + 3 * PB_V, v, nt);
    }
    if (nt)
        _mm_sfence(); /* as in pb_copy */
    pb_memwrite_tail(d, n);
    return (uint64_t)bytes * PB_MEMWRITE_BYTE;
}

uint64_t pb_memwrite_avx512(void *dst, const void *src, size_t bytes) { return pb_write(dst, src, bytes, false); }
uint64_t pb_memwrite_avx512_nt(void *dst, const void *src, size_t bytes) { return pb_write(dst, src, bytes, true); }

#else
typedef int pb_memread_avx512_not_x86; /* ISO C wants a translation unit to declare something */
#endif
