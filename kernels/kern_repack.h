/* kern_repack.h — weights re-laid at load from the file's blocks (kern_layout.h names the layouts), so that a
 * format whose file layout is ALU-bound streams faster; every result is bit for bit the scalar reference's dot
 * of the file's blocks (kern_scalar.c), whatever ISA runs it.
 *
 * q1_0_r32lut: q1_0's blocks of 32 rows interleaved, block by block. For a group of 32 rows and block b (weights
 * 128b .. 128b + 127 of every row) 576 bytes: the 32 rows' d (halves, rows in order), then 8 x 64 bytes, chunk j
 * (j < 8) holding weights 16j .. 16j + 15 of every row as 32 words: word 2i is row i's bytes qs[2j], qs[2j + 1],
 * word 2i + 1 row 16 + i's. The same bytes as the file's 32 rows, only moved. A group is one sequential stream,
 * and its kernels read a row's four weights of a nibble as an index: the activation is turned into tables
 * (kern_act.lut: for every 4 activation values, the 16 signed sums +-x0 +-x1 +-x2 +-x3), and one 32-word table
 * look-up adds 4 weights x 32 rows, where the file's kernels spend two instructions per 64 weights on the bits.
 *
 * q1_0_r32lut256: q1_0_r32lut with each chunk's 64 bytes as the 256-bit kernels look them up: per 16-byte lane of a
 * half, the low bytes (half 0) or high bytes (half 1) of that lane's 8 words of q1_0_r32lut's first 32 bytes, then
 * of its last 32 (kern_lut256.h's row bytes). The same tables; no AVX-512 kernel.
 *
 * q4_0_r16: q4_0's blocks of 16 rows interleaved, block by block. For a group of 16 rows and block b, 288 bytes:
 * the 16 rows' d (halves, rows in order), then 4 x 64 bytes, chunk c (c < 4) holding bytes qs[4c .. 4c + 3] of
 * every row, row r's at 4r: the same bytes as the file's 16 rows, only moved. Its kernels keep one row in one
 * 32-bit lane from the weights' bytes to the float sums, with the activation's quants broadcast (kern_act's own
 * arrays: no tables).
 *
 * q8_0_r16, tq2_0_r16, q4_K_r16: the same interleaving of 16 rows 4 bytes at a time for q8_0 (544 bytes a group's
 * block: 16 d, 8 chunks; each quant stored XOR 0x80, q + 128, the unsigned side of vpdpbusd), tq2_0 (1056: 16 d,
 * 16 chunks of code bytes) and q4_K (2304: 16 d, 16 dmin, 3 chunks of the packed scale bytes, 32 of code bytes).
 * q6_K_r16: q6_K's the same way (3360: 16 d, then 52 chunks), the chunks in its kernel's order: the 4 of scales,
 * then per quarter of the block (half n = u / 2, elements 16 (u % 2) .. + 15 of each 32) and i < 4, qh chunk
 * 8n + 4 (u % 2) + i and ql chunks 16n + 4 (u % 2) + i and that + 8 (chunk j: the file's payload bytes 4j..4j+3).
 *
 * q6_K_r1: q6_K's blocks in the file's order and sizes, a group one row, each half's codes moved and re-coded: byte p
 * of a half's chunk k (k < 4, 32 bytes) holds element 16 (p / 4) + 4k + p % 4, so 32-bit lane i of every chunk is
 * sub-block i of the half; ql's bytes 0-31 (A) and 32-63 (B) hold chunks 0 and 1 in their low 6 bits and the top 2
 * bits of chunks 2 and 3 in their top 2, qh's 32 (C) those two's low nibbles; the 16 scales as sub-blocks 0-3, 8-11,
 * 4-7, 12-15; d as the file's. Its activations carry their quants in the same order (kern_act.q6r1_qs).
 *
 * Using one: kern_repack_bytes, kern_repack once at load; kern_act_use_layout on each activation that will feed it
 * (before kern_act_set; one activation may be readied for several layouts, one of them with tables); then a
 * kern_job with .layout set and .w at the repacked matrix. A job's rows may start anywhere (a group is computed
 * whole, only its asked rows written); its .w is the group holding its row 0, which must be a group's first row.
 * Errors as kern.h's. */
#ifndef KERN_REPACK_H
#define KERN_REPACK_H

#include "kern.h"

/* Whether layout l holds weights of format f at cols columns (file: always, for a known format). */
bool kern_layout_fits(kern_layout l, kern_format f, size_t cols);
/* Bytes of the repacked form of rows x cols weights of format f: rows rounded up to whole groups (padding rows
 * are zero weights). 0 when the layout does not fit. For file, kern_format_matrix_bytes. */
uint64_t kern_repack_bytes(kern_layout l, kern_format f, size_t rows, size_t cols);
/* Re-lays rows x cols weights w (the file's blocks, rows back to back) into out (kern_repack_bytes of them).
 * 0, or -1 with errno EINVAL (the layout does not fit f and cols, or l is file: nothing to do). */
int kern_repack(kern_layout l, kern_format f, const void *w, size_t rows, size_t cols, void *out);
/* Readies activation a to feed layout l (allocating its tables where the layout has them; file needs nothing).
 * 0, or -1 with errno EINVAL (a cannot feed l's format, or a already has another layout's tables) or ENOMEM. Call
 * before kern_act_set; a's later sets fill the tables. */
int kern_act_use_layout(kern_act *a, kern_layout l);
/* The ISA whose kernel runs for layout l when want is asked for (want's own, else the first down its chain
 * that has one: kern_isa_below); KERN_ISA_COUNT when want cannot run here. For file, kern_matvec_isa's answer. */
kern_isa kern_repack_isa(kern_layout l, kern_format f, kern_isa want);
/* Whether the kernel that runs layout l of f when want is asked for issues the streaming passes' software prefetch
 * (kern_prefetch_stream, with the process's hint and distance; a repacked layout's kernel has no twin without
 * it, kern_job.cached or not). For file, kern_matvec_prefetches's answer; false when nothing runs. */
bool kern_repack_prefetches(kern_layout l, kern_format f, kern_isa want);
/* The layout of f whose GEMM tile (a weight group loaded once for several activation rows) runs at want or the
 * best ISA below it that has the layout's kernels (kern_repack_isa); KERN_LAYOUT_FILE when none has one. A prompt's
 * matmuls take it: wisdom chose its layouts timing matvecs. */
kern_layout kern_gemm_layout(kern_format f, kern_isa want);

#endif
