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

/* Streams of the multi-stream read kernels (*_4s): the decode passes read 4 rows a quarter of a call apart. */
#define PB_MR_STREAMS 4

uint64_t pb_memread_scalar(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_scalar(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_scalar(void *dst, const void *src, size_t bytes);

uint64_t pb_memread_avx2(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx2_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx2_4s(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx2(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx2_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx2(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx2_nt(void *dst, const void *src, size_t bytes);

uint64_t pb_memread_avx512(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx512_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_avx512_4s(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx512(void *dst, const void *src, size_t bytes);
uint64_t pb_memcopy_avx512_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx512(void *dst, const void *src, size_t bytes);
uint64_t pb_memwrite_avx512_nt(void *dst, const void *src, size_t bytes);

uint64_t pb_memread_neon(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_neon_nt(void *dst, const void *src, size_t bytes);
uint64_t pb_memread_neon_4s(void *dst, const void *src, size_t bytes);

#endif
