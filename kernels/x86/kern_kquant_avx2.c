/* kern_kquant_avx2.c — q4_K and q6_K x q8_K with AVX2: kern_kquant256.h's kernels, exported for the AVX2 table
 * (kern_avx2.c). */
#include "kern_kquant256.h"

void kern_rows_q4_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q4_K(w, rb, n, a, m, y);
}

void kern_rows_q6_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q6_K(w, rb, n, a, m, y);
}
