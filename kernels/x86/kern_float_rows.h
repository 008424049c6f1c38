/* kern_float_rows.h — f32's and f16's four passes (streaming and cached) and their rows functions, over the
 * including file's pass_float(w, rs, nr, a, m, y, ys, f16, pf) and its rows per pass KERN_FLOAT_ROWS. Compiled
 * twice, as kern_int256.h is: by kern_avx2.c (8 lanes) and kern_avx512.c (16); no include guard. */

INLINE void pass_f32(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_float(w, rs, nr, a, m, y, ys, false, true);
}

INLINE void pass_f16(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_float(w, rs, nr, a, m, y, ys, true, true);
}

INLINE void pass_f32_cached(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_float(w, rs, nr, a, m, y, ys, false, false);
}

INLINE void pass_f16_cached(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_float(w, rs, nr, a, m, y, ys, true, false);
}

KERN_QUARTER_ROWS_FN(f32, KERN_FLOAT_ROWS)
KERN_QUARTER_ROWS_FN(f16, KERN_FLOAT_ROWS)
KERN_QUARTER_ROWS_FN(f32_cached, KERN_FLOAT_ROWS)
KERN_QUARTER_ROWS_FN(f16_cached, KERN_FLOAT_ROWS)
