/* kern_kquant_avx2.c — q4_K and q6_K x q8_K with AVX2: kern_kquant256.h's kernels, exported for the AVX2 table
 * (kern_avx2.c) and, q6_K_r1's, for the repacked layouts' table (kern_repack.c). */
/* GCC's temporary-expression replacement (TER) moves each product step's add in a fully unrolled block down to
 * where the block's sum is used, so every step's products are live at once and spill to the stack (q6_K's rows:
 * 71 stack accesses, 42 without). Off for this file's functions; GCC only. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-ter")
#endif
#include "kern_kquant256.h"
#include "kern_repack_impl.h"

void kern_rows_q4_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q4_K(w, rb, n, a, m, y);
}

void kern_rows_q6_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q6_K(w, rb, n, a, m, y);
}

void kern_rows_q6_K_r1_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q6_K_r1(w, rb, n, a, m, y);
}

void kern_group_q6_K_r1_avx2(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    group_q6_K_r1(w, stride, n, a, m, y);
}

void kern_batch_q4_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm, float *y,
                          size_t ldy)
{
    kern_batch_in_steps(bpass_q4_K, w, rb, n, a, m0, nm, y, ldy);
}

void kern_batch_q6_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm, float *y,
                          size_t ldy)
{
    kern_batch_in_steps(bpass_q6_K, w, rb, n, a, m0, nm, y, ldy);
}
