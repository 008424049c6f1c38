/* ThreadSanitizer harness for the threaded kernels: a plain main, because Criterion aborts under TSan.
 * Runs matvec and matmul through kern_run_pool on every policy with static and dynamic chunks, re-preparing
 * the activation between runs on the caller: a missing happens-before between the caller's activation
 * writes and the workers' reads, or between the workers' output writes and the caller's compare, is a race
 * TSan reports. Exits non-zero when a threaded result differs from the one-thread result in any bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"

#define ROWS 37
#define COLS 512
#define BATCH 3

int main(void)
{
    kern_isa v = kern_isa_best();
    const kern_format fs[] = { KERN_Q8_0, KERN_TQ2_0, KERN_F16 };
    int bad = 0;
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
        kern_format f = fs[k];
        size_t rb = (size_t)kern_format_matrix_bytes(f, 1, COLS);
        char *w = malloc(ROWS * rb);
        float *x = malloc(BATCH * COLS * sizeof(float)), ref[BATCH * ROWS], y[BATCH * ROWS];
        for (size_t i = 0; i < BATCH * COLS; i++)
            x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
        for (size_t r = 0; r < ROWS; r++)
            kern_quantize_row(f, x + (r % BATCH) * COLS, w + r * rb, COLS);
        kern_act a;
        if (kern_act_init(&a, f, COLS, BATCH) != 0 || kern_act_set(&a, x, BATCH) != 0)
            return 2;
        kern_job job = { .fmt = f, .isa = v, .w = w, .rows = ROWS, .act = &a, .y = ref, .ldy = ROWS };
        if (kern_run(&job) != 0)
            return 2;
        job.y = y;
        for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
            pool_config cfg = pool_config_default();
            cfg.threads = 3;
            cfg.policy = (pool_policy)pol;
            pool *p = pool_create(&cfg);
            if (!p)
                return 2;
            for (size_t chunk = 0; chunk < 4; chunk++) {
                for (int rep = 0; rep < 3; rep++) {
                    kern_act_set(&a, x, BATCH); /* the caller rewrites the activation between dispatches */
                    memset(y, 0, sizeof y);
                    if (kern_run_pool(p, chunk, &job) != 0 || memcmp(y, ref, sizeof y) != 0) {
                        fprintf(stderr, "tsan_kernels: %s/%s %s chunk %zu differs from one thread\n",
                                kern_format_names[f], kern_isa_name(v), pool_policy_name((pool_policy)pol), chunk);
                        bad = 1;
                    }
                }
            }
            pool_destroy(p);
        }
        kern_act_free(&a);
        free(x);
        free(w);
    }
    if (!bad)
        printf("tsan_kernels: threaded matvec/matmul bit-identical on every policy and chunking\n");
    return bad;
}
