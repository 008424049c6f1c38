/* pb_memread_avx2.c — 256-bit kernels (built with -mavx2). Byte sums come from vpsadbw against zero, which
 * adds each 8-byte group into a 64-bit lane: one extra µop per load, far below what memory allows. */
#include "pb_memread_isa.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <stdbool.h>

#include "kern.h" /* kern_prefetch_stream: the decode passes' prefetch, so the floor reads as they do */
#include "pb_memread.h"

#define PB_V 32 /* bytes per vector */

static inline __m256i pb_sad(__m256i v) { return _mm256_sad_epu8(v, _mm256_setzero_si256()); }

static inline uint64_t pb_hsum(__m256i a)
{
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

/* p is 32-byte aligned (the callers do the head bytewise). */
static inline __m256i pb_load(const uint8_t *p, bool nt)
{
    const __m256i *v = (const __m256i *)(const void *)p;
    return nt ? _mm256_stream_load_si256(v) : _mm256_load_si256(v);
}

/* Four independent accumulators, one 32-byte load each per step: the loads never wait on an add. */
static inline __attribute__((always_inline)) uint64_t pb_read(void *dst, const void *src, size_t bytes, bool nt)
{
    (void)dst; /* the kernels' shape: dst, src, bytes (pb_memkern_fn) */
    const uint8_t *p = src;
    uint64_t sum = pb_memsum_head(&p, &bytes, PB_V);
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (; bytes >= 4 * PB_V; p += 4 * PB_V, bytes -= 4 * PB_V) {
        a0 = _mm256_add_epi64(a0, pb_sad(pb_load(p, nt)));
        a1 = _mm256_add_epi64(a1, pb_sad(pb_load(p + PB_V, nt)));
        a2 = _mm256_add_epi64(a2, pb_sad(pb_load(p + 2 * PB_V, nt)));
        a3 = _mm256_add_epi64(a3, pb_sad(pb_load(p + 3 * PB_V, nt)));
    }
    sum += pb_hsum(_mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3)));
    return sum + pb_memsum_tail(p, bytes);
}

uint64_t pb_memread_avx2(void *dst, const void *src, size_t bytes) { return pb_read(dst, src, bytes, false); }
uint64_t pb_memread_avx2_nt(void *dst, const void *src, size_t bytes) { return pb_read(dst, src, bytes, true); }

/* PB_MR_STREAMS streams a quarter of the range apart, two accumulators per stream, each asking for the line
 * KERN_PREFETCH_BYTES ahead where pf says. A step is one line per stream (two vectors) from the 64-byte aligned
 * start (pb_memread_split_of), so every load is aligned and each line gets one prefetch; the rest goes through
 * pb_read. */
static inline __attribute__((always_inline)) uint64_t pb_read4(const void *src, size_t bytes, bool pf)
{
    pb_memread_split q = pb_memread_split_of(src, bytes, PB_MR_LINE);
    size_t quarter = q.quarter;
    const uint8_t *s0 = q.s0, *s1 = s0 + quarter, *s2 = s1 + quarter, *s3 = s2 + quarter;
    uint64_t sum = q.head_sum;
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (size_t i = 0; i < quarter; i += PB_MR_LINE) {
        if (pf) {
            kern_prefetch_stream(s0 + i);
            kern_prefetch_stream(s1 + i);
            kern_prefetch_stream(s2 + i);
            kern_prefetch_stream(s3 + i);
        }
        a0 = _mm256_add_epi64(a0, pb_sad(pb_load(s0 + i, false)));
        a1 = _mm256_add_epi64(a1, pb_sad(pb_load(s0 + i + PB_V, false)));
        a2 = _mm256_add_epi64(a2, pb_sad(pb_load(s1 + i, false)));
        a3 = _mm256_add_epi64(a3, pb_sad(pb_load(s1 + i + PB_V, false)));
        a4 = _mm256_add_epi64(a4, pb_sad(pb_load(s2 + i, false)));
        a5 = _mm256_add_epi64(a5, pb_sad(pb_load(s2 + i + PB_V, false)));
        a6 = _mm256_add_epi64(a6, pb_sad(pb_load(s3 + i, false)));
        a7 = _mm256_add_epi64(a7, pb_sad(pb_load(s3 + i + PB_V, false)));
    }
    sum += pb_hsum(_mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3)),
                                    _mm256_add_epi64(_mm256_add_epi64(a4, a5), _mm256_add_epi64(a6, a7))));
    return sum + pb_read(NULL, q.rest, q.rest_bytes, false);
}

PB_MEMREAD_FOUR_STREAMS(avx2) /* pb_memread_avx2_4s, the decode passes' pattern, and pb_memread_avx2_4b */

static inline void pb_store(uint8_t *d, __m256i v, bool nt)
{
    __m256i *o = (__m256i *)(void *)d; /* 32-byte aligned by the callers' head */
    if (nt)
        _mm256_stream_si256(o, v);
    else
        _mm256_store_si256(o, v);
}

/* Aligned on the destination (non-temporal stores need it); the source is loaded unaligned. */
static inline __attribute__((always_inline)) uint64_t pb_copy(uint8_t *d, const uint8_t *s, size_t bytes, bool nt)
{
    uint64_t sum = pb_memcopy_head(&d, &s, &bytes, PB_V);
    __m256i a0 = _mm256_setzero_si256(), a1 = a0;
    for (; bytes >= 2 * PB_V; d += 2 * PB_V, s += 2 * PB_V, bytes -= 2 * PB_V) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + PB_V));
        pb_store(d, v0, nt);
        pb_store(d + PB_V, v1, nt);
        a0 = _mm256_add_epi64(a0, pb_sad(v0));
        a1 = _mm256_add_epi64(a1, pb_sad(v1));
    }
    if (nt)
        _mm_sfence(); /* orders the weakly-ordered streaming stores before whatever the caller does next */
    return sum + pb_hsum(_mm256_add_epi64(a0, a1)) + pb_memcopy_tail(d, s, bytes);
}

uint64_t pb_memcopy_avx2(void *dst, const void *src, size_t bytes) { return pb_copy(dst, src, bytes, false); }
uint64_t pb_memcopy_avx2_nt(void *dst, const void *src, size_t bytes) { return pb_copy(dst, src, bytes, true); }

static inline __attribute__((always_inline)) uint64_t pb_write(void *dst, const void *src, size_t bytes, bool nt)
{
    (void)src;
    uint8_t *d = dst;
    size_t n = bytes;
    pb_memwrite_head(&d, &n, PB_V);
    const __m256i v = _mm256_set1_epi8((char)PB_MEMWRITE_BYTE);
    for (; n >= 2 * PB_V; d += 2 * PB_V, n -= 2 * PB_V) {
        pb_store(d, v, nt);
        pb_store(d + PB_V, v, nt);
    }
    if (nt)
        _mm_sfence(); /* as in pb_copy */
    pb_memwrite_tail(d, n);
    return (uint64_t)bytes * PB_MEMWRITE_BYTE;
}

uint64_t pb_memwrite_avx2(void *dst, const void *src, size_t bytes) { return pb_write(dst, src, bytes, false); }
uint64_t pb_memwrite_avx2_nt(void *dst, const void *src, size_t bytes) { return pb_write(dst, src, bytes, true); }

#else
typedef int pb_memread_avx2_not_x86; /* ISO C wants a translation unit to declare something */
#endif
