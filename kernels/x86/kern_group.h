/* kern_group.h — what every ISA's group kernels of the repacked layouts share, none of it an ISA's own: a group's
 * prefetch, the pass that runs n groups four in step (kern_repack512.h's AVX-512 kernels, kern_repack256.h's
 * 256-bit ones) and a GEMM's activation rows in whole tiles. Not public. */
#ifndef KERN_GROUP_H
#define KERN_GROUP_H

#include <string.h>

#include "kern_impl.h"
#include "kern_repack_impl.h"

#define INLINE static inline __attribute__((always_inline))

/* One line's prefetch, hinted as s says, kept where the source puts it: beside its load. The empty volatile asm is
 * a barrier to GCC's instruction scheduler only (no operands, no clobbers: values stay in registers); without it,
 * in a loop with no hint branch left to fence them, GCC gathers a block's prefetches in bursts. */
INLINE void group_prefetch(const void *p, const kern_stream s)
{
    kern_prefetch_stream_as(p, s);
    __asm__ volatile("");
}

/* The four activation quants at p (one dword, any alignment) as one int32: what each ISA broadcasts to every lane,
 * so one product step meets four weights of every row. */
INLINE int32_t group_quads(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* q4_0_r16 (bits 4) and q8_0_r16 (bits 8) as their group kernels and GEMM tiles read them, bits a constant where
 * inlined: a group's block in bytes, its 64-byte chunks of codes, and a chain's seed, the activation block's negated
 * sum times the codes' offset (q4_0's nibbles are q + 8, q8_0_r16's bytes q + 128), which takes the offset out. */
INLINE size_t r16_block_bytes(const int bits) { return bits == 4 ? KERN_R16_BLOCK_BYTES : KERN_R16_Q8_BLOCK_BYTES; }
INLINE int r16_chunks(const int bits) { return bits == 4 ? 4 : 8; }
INLINE int32_t r16_seed(const int bits, int32_t nsumb) { return (bits == 4 ? 8 : 128) * nsumb; }

/* A q4_K activation block's mins side, as the dwords each ISA broadcasts: bytes H_j and L_j of the sub-block sums
 * S_j = 256 H_j + L_j (w[0]: H_0..3, w[1]: H_4..7, w[2]: L_0..3, w[3]: L_4..7). */
INLINE void q4k_mins_words(const block_q8_K *xb, int32_t w[4])
{
    uint8_t h[8], l[8];
    for (int j = 0; j < 8; j++) {
        int sum = xb->bsums[2 * j] + xb->bsums[2 * j + 1];
        h[j] = (uint8_t)(sum >> 8); /* arithmetic: H = floor(S / 256), so S = 256 H + L exactly */
        l[j] = (uint8_t)(sum & 255);
    }
    memcpy(w, h, 8);
    memcpy(w + 2, l, 8);
}

/* A layout's pass over n <= 4 groups of R rows stride bytes apart, its prefetches hinted as s says, y: n x R (n and
 * s constants where it is inlined). */
typedef void group_pass_fn(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y, kern_stream s);

/* n groups through pass: four in step, fewer one at a time (a group's rows get the same instructions either way).
 * Inlined with a constant pass, as kern_impl.h's kern_quarter_rows. With per_setting the four-group pass, where
 * the time goes, is inlined once per prefetch setting, each a constant (kern_stream), its loop free of hint
 * branches; without, once, testing the setting at each prefetch. */
INLINE void groups_in_step(group_pass_fn *pass, const int rows, const bool per_setting, const char *w, size_t stride,
                           int n, const kern_act *a, size_t m, float *y)
{
    const kern_stream now = kern_stream_now();
    if (n < 4)
        for (int r = 0; r < n; r++)
            pass(w + (size_t)r * stride, stride, 1, a, m, y + rows * r, now);
    else if (!per_setting)
        pass(w, stride, 4, a, m, y, now);
    else if (now.near && now.temporal)
        pass(w, stride, 4, a, m, y, (kern_stream){ .near = true, .temporal = true });
    else if (now.near)
        pass(w, stride, 4, a, m, y, (kern_stream){ .near = true, .temporal = false });
    else if (now.temporal)
        pass(w, stride, 4, a, m, y, (kern_stream){ .near = false, .temporal = true });
    else
        pass(w, stride, 4, a, m, y, (kern_stream){ .near = false, .temporal = false });
}

/* One group against activation rows m0 .. m0 + nm - 1 (nm a constant where it is inlined). y: nm x 16. */
typedef void gemm_tile_fn(const char *g, const kern_act *a, size_t m0, int nm, float *y);

/* A kern_gemm_fn's rows through tile: whole tiles of `rows`, the rest one row at a time (a row gets the same
 * instructions either way). Inlined with a constant tile, so each call is its own copy with nm constant. */
INLINE void gemm_in_tiles(gemm_tile_fn *tile, const int rows, const char *g, const kern_act *a, size_t m0, size_t nm,
                          float *y)
{
    size_t m = 0;
    for (; m + (size_t)rows <= nm; m += (size_t)rows)
        tile(g, a, m0 + m, rows, y + KERN_R16 * m);
    for (; m < nm; m++)
        tile(g, a, m0 + m, 1, y + KERN_R16 * m);
}

#endif
