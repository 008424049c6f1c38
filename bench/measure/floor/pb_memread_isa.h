/* pb_memread_isa.h — internal to pb_memread*.c: the per-ISA kernels the table points at, and the bytewise
 * head/tail helpers the wide kernels share. */
#ifndef PB_MEMREAD_ISA_H
#define PB_MEMREAD_ISA_H

#include <stddef.h>
#include <stdint.h>

/* Bytewise helpers for heads and tails shorter than a vector loop's step. */
uint64_t pb_memsum_tail(const uint8_t *p, size_t bytes);
uint64_t pb_memcopy_tail(uint8_t *dst, const uint8_t *src, size_t bytes);
uint64_t pb_memwrite_tail(uint8_t *dst, size_t bytes);
/* Bytes from p up to the next multiple of align (a power of two), at most bytes. */
size_t pb_mem_head(const void *p, size_t align, size_t bytes);

/* The wide kernels' bytewise head: the bytes before *p (for a copy, *d: its stores are the aligned ones)
 * reaches a multiple of align, at most *bytes, read (or copied, or written) one by one; the pointers and *bytes
 * then stand past them, where the vector loop starts aligned. The read and copy forms return the head's sum. */
static inline uint64_t pb_memsum_head(const uint8_t **p, size_t *bytes, size_t align)
{
    size_t head = pb_mem_head(*p, align, *bytes);
    uint64_t sum = pb_memsum_tail(*p, head);
    *p += head;
    *bytes -= head;
    return sum;
}

static inline uint64_t pb_memcopy_head(uint8_t **d, const uint8_t **s, size_t *bytes, size_t align)
{
    size_t head = pb_mem_head(*d, align, *bytes);
    uint64_t sum = pb_memcopy_tail(*d, *s, head);
    *d += head;
    *s += head;
    *bytes -= head;
    return sum;
}

static inline void pb_memwrite_head(uint8_t **d, size_t *bytes, size_t align)
{
    size_t head = pb_mem_head(*d, align, *bytes);
    pb_memwrite_tail(*d, head);
    *d += head;
    *bytes -= head;
}

/* Streams of the multi-stream read kernels (*_4s, *_4b): the decode passes read 4 rows a quarter of a call apart. */
#define PB_MR_STREAMS 4

/* How a *_4s kernel splits its range: a bytewise head up to a line boundary (PB_MR_LINE), PB_MR_STREAMS
 * streams a quarter apart, each a whole number of the kernel's steps (step bytes a stream per iteration) so
 * every load is aligned, and the rest after the last quarter (under PB_MR_STREAMS steps), which the kernel
 * reads with its one-stream loop. */
#define PB_MR_LINE 64 /* a cache line: what one prefetch fetches */
typedef struct pb_memread_split {
    uint64_t head_sum;   /* the head's bytes, summed */
    const uint8_t *s0;   /* the first stream's first byte: stream k starts k quarters on */
    size_t quarter;      /* bytes per stream, a multiple of step */
    const uint8_t *rest; /* the bytes after the last stream */
    size_t rest_bytes;
} pb_memread_split;

static inline pb_memread_split pb_memread_split_of(const void *src, size_t bytes, size_t step)
{
    const uint8_t *p = src;
    pb_memread_split q;
    q.head_sum = pb_memsum_head(&p, &bytes, PB_MR_LINE);
    q.s0 = p;
    q.quarter = bytes / PB_MR_STREAMS / step * step;
    q.rest = p + PB_MR_STREAMS * q.quarter;
    q.rest_bytes = bytes - PB_MR_STREAMS * q.quarter;
    return q;
}

/* The block of the blocked multi-stream read kernels (*_4b): four streams a quarter of each MiB apart, block after
 * block, with no software prefetch. Streams near each other can read faster than streams a quarter of the range
 * apart (a Zen 3 decode, its repacked groups tens of KiB apart, out-read that floor: docs/history/memory.md); the
 * floor is the best of every read kernel, so it has both. */
#define PB_MR_BLOCK ((size_t)1 << 20)

/* An ISA's four-stream reader without prefetch, over one block (or the last, shorter one). */
typedef uint64_t pb_memread_block_fn(const void *src, size_t bytes);

/* The *_4b kernels' walk: the head up to a line read bytewise, so every block starts aligned, then block after
 * block through read4. */
static inline uint64_t pb_memread_blocks(const void *src, size_t bytes, pb_memread_block_fn *read4)
{
    const uint8_t *p = src;
    uint64_t sum = pb_memsum_head(&p, &bytes, PB_MR_LINE);
    for (size_t n; bytes; p += n, bytes -= n) {
        n = bytes < PB_MR_BLOCK ? bytes : PB_MR_BLOCK;
        sum += read4(p, n);
    }
    return sum;
}

/* An ISA's pb_memread_<isa>_4s (the decode passes' pattern: four streams a quarter of the range apart, with their
 * prefetch) and pb_memread_<isa>_4b (four streams a quarter of each PB_MR_BLOCK apart, block after block, without
 * it), both over the including file's always-inline pb_read4(src, bytes, prefetch), constant in each. */
#define PB_MEMREAD_FOUR_STREAMS(isa)                                                                          \
    uint64_t pb_memread_##isa##_4s(void *dst, const void *src, size_t bytes)                                  \
    {                                                                                                         \
        (void)dst;                                                                                            \
        return pb_read4(src, bytes, true);                                                                    \
    }                                                                                                         \
    static uint64_t pb_read4_block(const void *src, size_t bytes) { return pb_read4(src, bytes, false); }     \
    uint64_t pb_memread_##isa##_4b(void *dst, const void *src, size_t bytes)                                  \
    {                                                                                                         \
        (void)dst;                                                                                            \
        return pb_memread_blocks(src, bytes, pb_read4_block);                                                 \
    }

uint64_t pb_memread_scalar(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_scalar(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_scalar(void *dst, const void *src, size_t bytes);

uint64_t pb_memread_avx2(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx2_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx2_4s(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx2_4b(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx2(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx2_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx2(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx2_nt(void *dst, const void *src, size_t bytes);

uint64_t pb_memread_avx512(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx512_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx512_4s(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx512_4b(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx512(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx512_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx512(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx512_nt(void *dst, const void *src, size_t bytes);

uint64_t pb_memread_neon(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_neon_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_neon_4s(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_neon_4b(void *dst, const void *src, size_t bytes);

#endif
