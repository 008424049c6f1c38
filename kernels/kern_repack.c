/* kern_repack.c — the repacked layouts (kern_repack.h): their table, the re-laying at load, the activation
 * tables, which ISA's kernel runs, the job's row loop over groups, and the scalar kernel (the reference's
 * arithmetic on the moved bytes: any CPU, and the oracle the SIMD kernels are held to, bit for bit). */
#include "kern_impl.h"
#include "kern_kquant.h"
#include "kern_repack_impl.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const kern_layout_info kern_layouts[KERN_LAYOUT_COUNT] = {
#define KERN_LAYOUT_ROW(id, nm, f, r, af) \
    [KERN_LAYOUT_##id] = { .name = #nm, .fmt = KERN_##f, .rows = r, .form = KERN_ACT_FORM_##af },
    KERN_LAYOUTS(KERN_LAYOUT_ROW)
#undef KERN_LAYOUT_ROW
};

const char *const kern_layout_names[KERN_LAYOUT_COUNT + 1] = {
#define KERN_LAYOUT_NAME(id, nm, f, r, af) [KERN_LAYOUT_##id] = #nm,
    KERN_LAYOUTS(KERN_LAYOUT_NAME)
#undef KERN_LAYOUT_NAME
    [KERN_LAYOUT_COUNT] = NULL,
};

static void kern_group_scalar(kern_layout l, const char *w, size_t stride, int n, const kern_act *a, size_t m,
                              float *y);

/* Layout ID's scalar kernel, a kern_group_fn: kern_group_scalar on its shape (an activation may feed several). */
#define KERN_GROUP_SCALAR(id)                                                                                      \
    static void kern_group_scalar_##id(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y) \
    {                                                                                                              \
        kern_group_scalar(KERN_LAYOUT_##id, w, stride, n, a, m, y);                                                \
    }
KERN_GROUP_SCALAR(Q1_0_R32LUT)
KERN_GROUP_SCALAR(Q4_0_R16)
KERN_GROUP_SCALAR(Q8_0_R16)
KERN_GROUP_SCALAR(TQ2_0_R16)
KERN_GROUP_SCALAR(Q4_K_R16)
KERN_GROUP_SCALAR(Q6_K_R16)
KERN_GROUP_SCALAR(Q6_K_R1)
KERN_GROUP_SCALAR(Q1_0_R32LUT256)

/* The group kernels of a repacked layout by ISA (fn NULL: none; the job falls back down the ISA's chain), whether
 * each issues the streaming prefetch (kern_prefetch_stream: the process's hint and distance), and its GEMM tile
 * for a batch (NULL: the group kernel once per activation row). */
typedef struct kern_group_kernel {
    kern_group_fn fn;
    bool prefetches;
    kern_gemm_fn gemm;
    kern_rows_fn rows; /* a one-row layout's matvec over a range of rows (NULL: group by group) */
} kern_group_kernel;
static const kern_group_kernel kern_group_kernels[KERN_LAYOUT_COUNT][KERN_ISA_COUNT] = {
    [KERN_LAYOUT_Q1_0_R32LUT] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q1_0_R32LUT, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_q1_0_r32lut_avx2, true },
        [KERN_ISA_AVXVNNI] = { kern_group_q1_0_r32lut_avxvnni, true },
        [KERN_ISA_AVX512] = { kern_group_q1_0_r32lut_avx512, true },
#endif
    },
    [KERN_LAYOUT_Q4_0_R16] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q4_0_R16, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_q4_0_r16_avx2, true, kern_gemm_q4_0_r16_avx2 },
        [KERN_ISA_AVXVNNI] = { kern_group_q4_0_r16_avxvnni, true, kern_gemm_q4_0_r16_avxvnni },
        [KERN_ISA_AVX512] = { kern_group_q4_0_r16_avx512, true, kern_gemm_q4_0_r16_avx512 },
#endif
    },
    [KERN_LAYOUT_Q8_0_R16] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q8_0_R16, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_q8_0_r16_avx2, true, kern_gemm_q8_0_r16_avx2 },
        [KERN_ISA_AVXVNNI] = { kern_group_q8_0_r16_avxvnni, true, kern_gemm_q8_0_r16_avxvnni },
        [KERN_ISA_AVX512] = { kern_group_q8_0_r16_avx512, true, kern_gemm_q8_0_r16_avx512 },
#endif
    },
    [KERN_LAYOUT_TQ2_0_R16] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_TQ2_0_R16, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_tq2_0_r16_avx2, true },
        [KERN_ISA_AVXVNNI] = { kern_group_tq2_0_r16_avxvnni, true },
        [KERN_ISA_AVX512] = { kern_group_tq2_0_r16_avx512, true },
#endif
    },
    [KERN_LAYOUT_Q4_K_R16] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q4_K_R16, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_q4_K_r16_avx2, true },
        [KERN_ISA_AVXVNNI] = { kern_group_q4_K_r16_avxvnni, true },
        [KERN_ISA_AVX512] = { kern_group_q4_K_r16_avx512, true, kern_gemm_q4_K_r16_avx512 },
#endif
    },
    [KERN_LAYOUT_Q6_K_R16] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q6_K_R16, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX512] = { kern_group_q6_K_r16_avx512, true, kern_gemm_q6_K_r16_avx512 },
#endif
    },
    [KERN_LAYOUT_Q6_K_R1] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q6_K_R1, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_q6_K_r1_avx2, false, NULL, kern_rows_q6_K_r1_avx2 },
        [KERN_ISA_AVXVNNI] = { kern_group_q6_K_r1_avxvnni, false, NULL, kern_rows_q6_K_r1_avxvnni },
#endif
    },
    [KERN_LAYOUT_Q1_0_R32LUT256] = {
        [KERN_ISA_SCALAR] = { kern_group_scalar_Q1_0_R32LUT256, false },
#if defined(__x86_64__)
        [KERN_ISA_AVX2] = { kern_group_q1_0_r32lut256_avx2, true },
        [KERN_ISA_AVXVNNI] = { kern_group_q1_0_r32lut256_avxvnni, true },
#endif
    },
};

static int fail(int err)
{
    errno = err;
    return -1;
}

const kern_layout_info *kern_layout_get(kern_layout l)
{
    return (unsigned)l < KERN_LAYOUT_COUNT ? &kern_layouts[l] : NULL;
}

int kern_layout_parse(const char *name, kern_layout *out)
{
    int i = kern_name_index(kern_layout_names, name);
    return i < 0 ? -1 : (*out = (kern_layout)i, 0);
}

bool kern_layout_fits(kern_layout l, kern_format f, size_t cols)
{
    const kern_layout_info *li = kern_layout_get(l);
    if (!li || cols == 0 || !kern_format_whole_blocks(f, cols))
        return false;
    return l == KERN_LAYOUT_FILE || li->fmt == f;
}

uint64_t kern_repack_bytes(kern_layout l, kern_format f, size_t rows, size_t cols)
{
    if (!kern_layout_fits(l, f, cols))
        return 0;
    uint64_t group = (uint64_t)kern_layouts[l].rows;
    return kern_format_matrix_bytes(f, (rows + group - 1) / group * group, cols);
}

/* Every repacked layout re-lays blocks of halves (halves x 2 bytes: a d, and q4_K's dmin after it) and payload bytes
 * of codes (q1_0's, q4_0's, q8_0's, q4_K's: the halves first; tq2_0's: the codes first, d_at 64): rows r0 .. r0 +
 * group - 1 as one group, block by block: the rows' first halves in order, then their second halves, then payload /
 * width chunks of 64 bytes (group x width), chunk j holding bytes width x j .. of each row's payload at width x
 * slot(r), every byte XORed with flip (q8_0_r16's 0x80 turns a signed quant q into the unsigned q + 128 that
 * vpdpbusd multiplies; 0 moves bytes only). q4_K's payload is its 12 bytes of scales, then its codes. Chunk j
 * goes to the chunk place(j) says (NULL: j itself), so a kernel that reads a block out of the payload's order
 * still streams its lines in order. With spread, a row's width bytes of a chunk lie spread bytes apart, the first
 * at slot(r) (q1_0_r32lut256: a row's two bytes in the chunk's two halves). */
typedef struct repack_shape {
    size_t group, width, payload, d_at, halves;
    unsigned char flip;
    size_t (*slot)(size_t r);
    size_t (*place)(size_t j);
    void (*recode)(const unsigned char *from, unsigned char *to, bool back); /* a group of one re-coded whole */
    size_t spread;
} repack_shape;
_Static_assert(sizeof(block_q1_0) == 18 && offsetof(block_q1_0, qs) == 2, "q1_0: a half, then its codes");
_Static_assert(sizeof(block_q4_0) == 18 && offsetof(block_q4_0, qs) == 2, "q4_0: a half, then its codes");
_Static_assert(sizeof(block_q8_0) == 34 && offsetof(block_q8_0, qs) == 2, "q8_0: a half, then its codes");
_Static_assert(sizeof(block_tq2_0) == 66 && offsetof(block_tq2_0, d) == 64, "tq2_0: its codes, then a half");
_Static_assert(sizeof(block_q4_K) == 144 && offsetof(block_q4_K, scales) == 4, "q4_K: two halves, then the rest");
_Static_assert(sizeof(block_q6_K) == 210 && offsetof(block_q6_K, qh) == 128 && offsetof(block_q6_K, scales) == 192 &&
                   offsetof(block_q6_K, d) == 208,
               "q6_K: 32 chunks of ql, 16 of qh, 4 of scales, then a half");

/* Where a block's payload starts: after its halves, unless they come last. */
static size_t codes_at(const repack_shape *s)
{
    return s->d_at == 0 ? 2 * s->halves : 0;
}

/* q1_0_r32lut (kern_repack.h): row i's word is 2i, row 16 + i's 2i + 1. */
static size_t r32lut_word(size_t r)
{
    return 2 * (r % 16) + r / 16;
}

/* q1_0_r32lut256 (kern_repack.h): row r's byte in each half of a chunk, where the 256-bit kernels' row bytes of
 * q1_0_r32lut's words put it (kern_lut256.h): per 16-byte lane, the lane's 8 words of the chunk's first 32 bytes,
 * then those of its last 32. */
static size_t r32lut256_byte(size_t r)
{
    size_t word = r32lut_word(r), w = word % 16;
    return 16 * (w / 8) + 8 * (word / 16) + w % 8;
}

/* q4_0_r16 and q8_0_r16 (kern_repack.h): row r's dword is r. */
static size_t r16_dword(size_t r)
{
    return r;
}

/* q6_K_r16 (kern_repack.h): the scales' 4 chunks first, then for each quarter u of the block (half u / 2, its
 * elements 16 (u % 2) .. + 15 of every 32) and i < 4: qh chunk 8 (u / 2) + 4 (u % 2) + i, then the ql chunks
 * holding the same elements' low bits, 16 (u / 2) + 4 (u % 2) + i and that + 8: the order its kernel reads. */
static size_t q6k_place(size_t j)
{
    if (j >= 48)
        return j - 48;
    if (j >= 32)
        return 4 + 12 * (2 * ((j - 32) / 8) + (j - 32) % 8 / 4) + 3 * (j % 4);
    return 4 + 12 * (2 * (j / 16) + j % 8 / 4) + 3 * (j % 4) + 1 + j % 16 / 8;
}

/* Half h's codes as q6_K_r1 holds them: A (bytes 64h ..) = chunk 0 | (chunk 2 >> 4) << 6, B (64h + 32 ..) =
 * chunk 1 | (chunk 3 >> 4) << 6, C (128 + 32h ..) = (chunk 2 & 15) | (chunk 3 & 15) << 4. */
static void q6k_r1_codes(const unsigned char *blk, size_t h, unsigned char c[128])
{
    const unsigned char *a = blk + 64 * h, *b = a + 32, *q = blk + 128 + 32 * h;
    for (size_t p = 0; p < 32; p++) {
        c[kern_q6_K_r1_element(0, p)] = a[p] & 63;
        c[kern_q6_K_r1_element(1, p)] = b[p] & 63;
        c[kern_q6_K_r1_element(2, p)] = (unsigned char)((q[p] & 15) | (a[p] >> 6) << 4);
        c[kern_q6_K_r1_element(3, p)] = (unsigned char)((q[p] >> 4) | (b[p] >> 6) << 4);
    }
}

static void q6k_r1_store(unsigned char *blk, size_t h, const unsigned char c[128])
{
    unsigned char *a = blk + 64 * h, *b = a + 32, *q = blk + 128 + 32 * h;
    for (size_t p = 0; p < 32; p++) {
        unsigned c0 = c[kern_q6_K_r1_element(0, p)], c1 = c[kern_q6_K_r1_element(1, p)];
        unsigned c2 = c[kern_q6_K_r1_element(2, p)], c3 = c[kern_q6_K_r1_element(3, p)];
        a[p] = (unsigned char)(c0 | (c2 >> 4) << 6);
        b[p] = (unsigned char)(c1 | (c3 >> 4) << 6);
        q[p] = (unsigned char)((c2 & 15) | (c3 & 15) << 4);
    }
}

/* q6_K_r1 (kern_repack.h) from the file's block, or back: each half's codes moved and re-coded, the scales as
 * sub-blocks 0-3, 8-11, 4-7, 12-15 (scale i and sub-block g swap the middle quads: the same map both ways). The
 * file's side through kern_q6_K_code and its setter, on a copy (the bytes may lie at any address). */
static void q6k_r1_recode(const unsigned char *from, unsigned char *to, bool back)
{
    memcpy(to + 208, from + 208, 2);
    for (size_t i = 0; i < 16; i++)
        to[192 + i] = from[192 + (i / 4 == 1 ? i + 4 : i / 4 == 2 ? i - 4 : i)];
    block_q6_K file;
    unsigned char c[QK_K];
    if (back) {
        memset(&file, 0, sizeof file);
        for (size_t h = 0; h < 2; h++)
            q6k_r1_codes(from, h, c + 128 * h);
        for (int e = 0; e < QK_K; e++)
            kern_q6_K_set_code(&file, e, c[e]);
        memcpy(to, &file, 192); /* ql, then qh */
    } else {
        memcpy(&file, from, sizeof file);
        for (int e = 0; e < QK_K; e++)
            c[e] = (unsigned char)kern_q6_K_code(&file, e);
        for (size_t h = 0; h < 2; h++)
            q6k_r1_store(to, h, c + 128 * h);
    }
}

/* Where chunk j of s's payload lands in a group's block. */
static size_t chunk_at(const repack_shape *s, size_t j)
{
    return s->place ? s->place(j) : j;
}

static const repack_shape repack_shapes[KERN_LAYOUT_COUNT] = {
    [KERN_LAYOUT_Q1_0_R32LUT] = { KERN_R32, 2, 16, 0, 1, 0, r32lut_word },
    [KERN_LAYOUT_Q4_0_R16] = { KERN_R16, 4, 16, 0, 1, 0, r16_dword },
    [KERN_LAYOUT_Q8_0_R16] = { KERN_R16, 4, 32, 0, 1, 0x80, r16_dword },
    [KERN_LAYOUT_TQ2_0_R16] = { KERN_R16, 4, 64, 64, 1, 0, r16_dword },
    [KERN_LAYOUT_Q4_K_R16] = { KERN_R16, 4, 140, 0, 2, 0, r16_dword },
    [KERN_LAYOUT_Q6_K_R16] = { KERN_R16, 4, 208, 208, 1, 0, r16_dword, q6k_place },
    [KERN_LAYOUT_Q6_K_R1] = { .group = 1, .payload = 208, .d_at = 208, .halves = 1, .recode = q6k_r1_recode },
    [KERN_LAYOUT_Q1_0_R32LUT256] = { KERN_R32, 2, 16, 0, 1, 0, r32lut256_byte, .spread = 32 },
};

/* Where byte i of row r's share of a chunk lies in the chunk. */
static inline __attribute__((always_inline)) size_t chunk_byte(const repack_shape *s, size_t r, size_t i)
{
    return s->spread ? s->spread * i + s->slot(r) : s->width * s->slot(r) + i;
}

/* Row r's share of a chunk, its width bytes each XORed with flip: into the chunk, and back out of it. */
static inline __attribute__((always_inline)) void share_in(const repack_shape *s, size_t r, unsigned char *chunk,
                                                           const unsigned char *bytes)
{
    for (size_t i = 0; i < s->width; i++)
        chunk[chunk_byte(s, r, i)] = bytes[i] ^ s->flip;
}
static inline __attribute__((always_inline)) void share_out(const repack_shape *s, size_t r,
                                                            const unsigned char *chunk, unsigned char *bytes)
{
    for (size_t i = 0; i < s->width; i++)
        bytes[i] = chunk[chunk_byte(s, r, i)] ^ s->flip;
}

/* Rows r0 .. r0 + group - 1 of w (nb blocks a row; rows past rows are zero weights) as one group at out. Inlined
 * into one function per layout, where the shape is a constant: through a pointer to the table a gigabyte took
 * seconds, a call per 4 bytes. */
static inline __attribute__((always_inline)) void repack_group(const repack_shape *s, const unsigned char *w,
                                                               size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    size_t bb = 2 * s->halves + s->payload, hg = 2 * s->halves * s->group; /* a block; a group block's halves */
    bool part = r0 + s->group > rows; /* a last group with padding rows: cleared first, whole groups are written once */
    for (size_t b = 0; b < nb; b++, out += bb * s->group) {
        if (s->recode) { /* a group of one row, never a padding one */
            s->recode(w + (r0 * nb + b) * bb, out, false);
            continue;
        }
        if (part) {
            memset(out, 0, hg);
            memset(out + hg, s->flip, s->payload * s->group);
        }
        for (size_t r = 0; r < s->group && r0 + r < rows; r++) {
            const unsigned char *blk = w + ((r0 + r) * nb + b) * bb;
            for (size_t h = 0; h < s->halves; h++)
                memcpy(out + 2 * (h * s->group + r), blk + s->d_at + 2 * h, 2);
            for (size_t j = 0; j < s->payload / s->width; j++)
                share_in(s, r, out + hg + 64 * chunk_at(s, j), blk + codes_at(s) + s->width * j);
        }
    }
}

/* The file's block of row r from a group's block blk, as repack_group laid it out: the inverse. */
static void gather_block(const repack_shape *s, const unsigned char *blk, size_t r, unsigned char *out)
{
    if (s->recode) {
        s->recode(blk, out, true);
        return;
    }
    size_t hg = 2 * s->halves * s->group;
    for (size_t h = 0; h < s->halves; h++)
        memcpy(out + s->d_at + 2 * h, blk + 2 * (h * s->group + r), 2);
    for (size_t j = 0; j < s->payload / s->width; j++)
        share_out(s, r, blk + hg + 64 * chunk_at(s, j), out + codes_at(s) + s->width * j);
}

static void repack_group_q1_0_r32lut(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q1_0_R32LUT], w, rows, r0, nb, out);
}

static void repack_group_q4_0_r16(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q4_0_R16], w, rows, r0, nb, out);
}

static void repack_group_q8_0_r16(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q8_0_R16], w, rows, r0, nb, out);
}

static void repack_group_tq2_0_r16(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_TQ2_0_R16], w, rows, r0, nb, out);
}

static void repack_group_q4_k_r16(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q4_K_R16], w, rows, r0, nb, out);
}

static void repack_group_q6_k_r16(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q6_K_R16], w, rows, r0, nb, out);
}

static void repack_group_q6_k_r1(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q6_K_R1], w, rows, r0, nb, out);
}

static void repack_group_q1_0_r32lut256(const unsigned char *w, size_t rows, size_t r0, size_t nb,
                                        unsigned char *out)
{
    repack_group(&repack_shapes[KERN_LAYOUT_Q1_0_R32LUT256], w, rows, r0, nb, out);
}

typedef void (*repack_group_fn)(const unsigned char *w, size_t rows, size_t r0, size_t nb, unsigned char *out);
static const repack_group_fn repack_groups[KERN_LAYOUT_COUNT] = {
    [KERN_LAYOUT_Q1_0_R32LUT] = repack_group_q1_0_r32lut,
    [KERN_LAYOUT_Q4_0_R16] = repack_group_q4_0_r16,
    [KERN_LAYOUT_Q8_0_R16] = repack_group_q8_0_r16,
    [KERN_LAYOUT_TQ2_0_R16] = repack_group_tq2_0_r16,
    [KERN_LAYOUT_Q4_K_R16] = repack_group_q4_k_r16,
    [KERN_LAYOUT_Q6_K_R16] = repack_group_q6_k_r16,
    [KERN_LAYOUT_Q6_K_R1] = repack_group_q6_k_r1,
    [KERN_LAYOUT_Q1_0_R32LUT256] = repack_group_q1_0_r32lut256,
};

int kern_repack(kern_layout l, kern_format f, const void *w, size_t rows, size_t cols, void *out)
{
    if (l == KERN_LAYOUT_FILE || !kern_layout_fits(l, f, cols) || (rows > 0 && (!w || !out)))
        return fail(EINVAL);
    size_t group = (size_t)kern_layouts[l].rows, nb = cols / kern_format_get(f)->block;
    size_t gb = (size_t)kern_format_matrix_bytes(f, group, cols);
    for (size_t g = 0; g * group < rows; g++)
        repack_groups[l](w, rows, g * group, nb, (unsigned char *)out + g * gb);
    return 0;
}

int kern_act_use_layout(kern_act *a, kern_layout l)
{
    if (l == KERN_LAYOUT_FILE)
        return 0;
    if (!kern_layout_get(l) || !kern_act_feeds(a, kern_layouts[l].fmt) ||
        !kern_layout_fits(l, kern_layouts[l].fmt, a->cols))
        return fail(EINVAL);
    const kern_act_form form = kern_layouts[l].form;
    if (form == KERN_ACT_FORM_Q6R1 && !a->q6r1_qs && !(a->q6r1_qs = calloc(a->cap, a->cols)))
        return fail(ENOMEM);
    if (form != KERN_ACT_FORM_LUT || (a->lut && kern_layouts[a->layout].fmt == kern_layouts[l].fmt)) {
        a->layouts |= 1u << l; /* no tables to make, or its format's made already */
        return 0;
    }
    if (a->lut) /* one format's table layouts an activation (q1_0's read the same tables) */
        return fail(EINVAL);
    a->lut = calloc(a->cap * a->cols * 4, sizeof(int16_t));
    if (!a->lut)
        return fail(ENOMEM);
#if defined(__x86_64__)
    if (kern_isa_supported(KERN_ISA_AVX2) && !(a->lut256 = calloc(a->cap * a->cols * 8, 1))) {
        free(a->lut);
        a->lut = NULL;
        return fail(ENOMEM);
    }
#endif
    a->layout = l;
    a->layouts |= 1u << l;
    return 0;
}

kern_isa kern_repack_isa(kern_layout l, kern_format f, kern_isa want)
{
    if (l == KERN_LAYOUT_FILE)
        return kern_matvec_isa(f, want);
    if (!kern_layout_get(l) || kern_layouts[l].fmt != f || !kern_isa_supported(want))
        return KERN_ISA_COUNT;
    kern_isa i = want;
    while ((unsigned)i < KERN_ISA_COUNT && !kern_group_kernels[l][i].fn)
        i = kern_isa_below(i);
    return i;
}

bool kern_repack_prefetches(kern_layout l, kern_format f, kern_isa want)
{
    if (l == KERN_LAYOUT_FILE)
        return kern_matvec_prefetches(f, want);
    kern_isa i = kern_repack_isa(l, f, want);
    return i < KERN_ISA_COUNT && kern_group_kernels[l][i].prefetches;
}

kern_layout kern_gemm_layout(kern_format f, kern_isa want)
{
    for (int l = 0; l < KERN_LAYOUT_COUNT; l++) {
        kern_isa i = kern_repack_isa((kern_layout)l, f, want);
        if (l != KERN_LAYOUT_FILE && i < KERN_ISA_COUNT && kern_group_kernels[l][i].gemm)
            return (kern_layout)l;
    }
    return KERN_LAYOUT_FILE;
}

int kern_repack_job_check(const kern_job *job)
{
    const kern_act *a = job->act;
    if (!kern_layout_fits(job->layout, job->fmt, a->cols) || !(a->layouts >> job->layout & 1u) ||
        (kern_layouts[job->layout].form == KERN_ACT_FORM_LUT && (!a->lut || kern_layouts[a->layout].fmt != job->fmt)))
        return fail(EINVAL);
    return kern_repack_isa(job->layout, job->fmt, job->isa) < KERN_ISA_COUNT ? 0 : fail(ENOTSUP);
}

/* Activation rows m0..m1 of a GEMM over weight rows r0..r1 (kern_repack_gemm_rows), t the tile's scratch. */
static void kern_repack_gemm_block(const kern_job *job, kern_gemm_fn gemm, size_t r0, size_t r1, size_t m0, size_t m1,
                                   float *t)
{
    const kern_act *a = job->act;
    size_t rows = (size_t)kern_layouts[job->layout].rows;
    size_t gb = (size_t)kern_format_matrix_bytes(job->fmt, rows, a->cols);
    for (size_t g = r0 / rows; g * rows < r1; g++) {
        size_t lo = g * rows > r0 ? g * rows : r0, hi = g * rows + rows < r1 ? g * rows + rows : r1;
        for (size_t m = m0; m < m1; m += KERN_GEMM_TILE) {
            size_t nm = m1 - m < KERN_GEMM_TILE ? m1 - m : KERN_GEMM_TILE;
            gemm((const char *)job->w + g * gb, a, m, nm, t);
            for (size_t k = 0; k < nm; k++)
                memcpy(job->y + (m + k) * job->ldy + lo, t + k * rows + (lo - g * rows), (hi - lo) * sizeof(float));
        }
    }
}

/* A batch through the layout's GEMM tiles, group by group: every tile of activation rows passes over a group while
 * it is in cache; the activation rows in blocks of KERN_GEMM_MBLOCK, each block over all the groups, so that the
 * block stays in L2 while the groups pass (a prompt's 512 rows of a 3072-column input are 1.7 MB). Only rows
 * r0..r1 are written, as kern_repack_job_rows'; each output is one tile's, whatever the order. */
static void kern_repack_gemm_rows(const kern_job *job, kern_gemm_fn gemm, size_t r0, size_t r1)
{
    size_t batch = job->act->batch;
    float t[KERN_GEMM_TILE * KERN_GROUP_ROWS_MAX];
    for (size_t mb = 0; mb < batch; mb += KERN_GEMM_MBLOCK)
        kern_repack_gemm_block(job, gemm, r0, r1, mb, mb + KERN_GEMM_MBLOCK < batch ? mb + KERN_GEMM_MBLOCK : batch, t);
}


void kern_repack_job_rows(const kern_job *job, size_t r0, size_t r1)
{
    const kern_act *a = job->act;
    kern_isa isa = kern_repack_isa(job->layout, job->fmt, job->isa);
    const kern_group_kernel *gk = &kern_group_kernels[job->layout][isa];
    if (a->batch > 1 && gk->gemm) {
        kern_repack_gemm_rows(job, gk->gemm, r0, r1);
        return;
    }
    size_t rows = (size_t)kern_layouts[job->layout].rows;
    size_t gb = (size_t)kern_format_matrix_bytes(job->fmt, rows, a->cols);
    if (a->batch == 1 && gk->rows) { /* one-row groups: rows r0..r1 are groups r0..r1, as the file's rows */
        gk->rows((const char *)job->w + r0 * gb, gb, r1 - r0, a, 0, job->y + r0);
        return;
    }
    kern_group_fn fn = gk->fn;
    const char *w = job->w;
    float t[KERN_GROUPS_STEP * KERN_GROUP_ROWS_MAX];
    /* the groups holding rows r0..r1: a quarter of them apart in steps of four (four streams, as kern_impl.h's
     * passes read rows), the rest one at a time */
    size_t g0 = r0 / rows, ng = (r1 + rows - 1) / rows - g0, q = ng / KERN_GROUPS_STEP;
    for (size_t i = 0; i < ng - q * KERN_GROUPS_STEP + q; i++) {
        size_t first = i < q ? g0 + i : g0 + q * KERN_GROUPS_STEP + (i - q);
        int n = i < q ? KERN_GROUPS_STEP : 1;
        for (size_t m = 0; m < a->batch; m++) {
            fn(w + first * gb, q * gb, n, a, m, t);
            for (int k = 0; k < n; k++) {
                size_t g = first + (size_t)k * q, lo = g * rows > r0 ? g * rows : r0;
                size_t hi = g * rows + rows < r1 ? g * rows + rows : r1;
                memcpy(job->y + m * job->ldy + lo, t + (size_t)k * rows + (lo - g * rows), (hi - lo) * sizeof(float));
            }
        }
    }
}

/* Every layout's scalar kernel (its oracle): each row's blocks gathered back from the group into the file's form,
 * then the scalar reference's step (kern_scalar_steps) folded over them in order from 0, as its dot does: the
 * reference's bits by construction. */
static void kern_group_scalar(kern_layout l, const char *w, size_t stride, int n, const kern_act *a, size_t m,
                              float *y)
{
    const repack_shape *s = &repack_shapes[l];
    kern_format f = kern_layouts[l].fmt;
    kern_scalar_step_fn step = kern_scalar_steps[f];
    size_t nb = a->cols / (size_t)kern_format_get(f)->block, gb = s->group * (2 * s->halves + s->payload);
    for (int i = 0; i < n; i++, w += stride)
        for (size_t r = 0; r < s->group; r++) {
            union {
                block_q1_0 q1;
                block_q4_0 q4;
                block_q8_0 q8;
                block_tq2_0 tq2;
                block_q4_K q4k;
                block_q6_K q6k;
            } blk; /* room for any layout's block, aligned for its type; gather_block writes its bytes */
            float sum = 0.0f;
            for (size_t b = 0; b < nb; b++) {
                gather_block(s, (const unsigned char *)w + b * gb, r, (unsigned char *)&blk);
                sum = step(&blk, a, m, b, sum);
            }
            y[s->group * (size_t)i + r] = sum;
        }
}
