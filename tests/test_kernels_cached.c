/* kern_job.cached only drops the software prefetch: the cached and the streaming kernels give the same bits,
 * for every variant this CPU runs, on the formats that have both. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"

static void run_both(kern_format f, kern_variant v, size_t rows, size_t cols)
{
    float *wf = malloc(rows * cols * sizeof *wf), *x = malloc(cols * sizeof *x);
    size_t wbytes = (size_t)kern_format_matrix_bytes(f, rows, cols);
    void *w = malloc(wbytes);
    float *y0 = calloc(rows, sizeof *y0), *y1 = calloc(rows, sizeof *y1);
    srand(7);
    for (size_t i = 0; i < rows * cols; i++)
        wf[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    for (size_t i = 0; i < cols; i++)
        x[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    for (size_t r = 0; r < rows; r++)
        cr_assert_eq(kern_quantize_row(f, wf + r * cols, (char *)w + r * (wbytes / rows), cols), 0);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    kern_job job = { .fmt = f, .variant = v, .w = w, .rows = rows, .act = &a, .y = y0, .ldy = rows };
    cr_assert_eq(kern_run(&job), 0);
    job.y = y1;
    job.cached = true;
    cr_assert_eq(kern_run(&job), 0);
    cr_assert_eq(memcmp(y0, y1, rows * sizeof *y0), 0, "%s/%s: cached and streaming rows differ",
                 kern_format_get(f)->name, kern_variant_name(v));
    kern_act_free(&a);
    free(wf);
    free(x);
    free(w);
    free(y0);
    free(y1);
}

Test(kernels_cached, same_bits_as_streaming)
{
    static const kern_format formats[] = { KERN_Q8_0, KERN_Q4_0, KERN_F32, KERN_TQ2_0 };
    for (int v = 0; v < KERN_VARIANT_COUNT; v++) {
        if (!kern_variant_supported((kern_variant)v))
            continue;
        for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
            run_both(formats[i], (kern_variant)v, 37, 512);
    }
}
