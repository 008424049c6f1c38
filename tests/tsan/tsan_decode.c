/* ThreadSanitizer harness for a decode token with fused glue: a plain main, because Criterion aborts under
 * TSan. Fused glue has every thread write its own rows' SiLU(gate)*up and its own blocks of the next matvec's
 * activation (quants, scales, the per-lane arrays: neighbours in one cache line), and the caller read them in
 * the next dispatch; the jobs are built once and the activation's batch stored only on a change. At 2 threads
 * fused q, k, v split by key/value head: each thread also attends its heads and writes their cache rows, partials,
 * output and blocks of o's activation. A missing happens-before anywhere there is a race TSan reports. Every pool
 * policy at 2 and 3 threads, static, dynamic and stealing claims, both glue modes, three formats (q8_0, q8_K and f32
 * activations); and a prompt of PROMPT rows after the same context the same ways (its rows normed and quantized a
 * slice a thread, stored in the cache and attended four at a time). Exits non-zero when a token's logits differ in
 * any bit from the one-thread serial token's (a prompt's from the one-thread serial prompt's). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_decode.h"

/* Widths a multiple of 256 (tq2_0's block); q_dim 512 rows over 3 threads would split mid-block (170 2/3 rows
 * each) if the grain did not keep the fused slices whole; vocab not a multiple of anything. */
static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };
/* Attention over 300 cached positions: two chunks per key/value head, merged after the threads wrote them. */
#define CONTEXT 300
#define PROMPT 21 /* five blocks of four rows and one of one, at positions 300..320 */

/* Token 5's logits (prompt: a prompt of PROMPT rows) through a fresh executor into out (vocab floats); 0, or -1 on
 * any failure. */
static int token(const pb_decode_weights *w, bool prompt, int kind, int threads, pb_sched split, pb_glue_mode glue,
                 float *out)
{
    pb_decode d;
    pb_kernel_choice k[KERN_FORMAT_COUNT];
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        k[f] = (pb_kernel_choice){ .isa = kern_isa_best(), .prefetch = true, .why = PB_KERNEL_WHY_FORCED };
    if ((prompt ? pb_decode_init_prompt(&d, w, k, PROMPT) : pb_decode_init(&d, w, kern_isa_best(), 1)) != 0)
        return -1;
    d.glue = glue;
    pb_exec e;
    pb_exec_cfg cfg = { .kind = kind, .threads = threads, .sched = split, .spin_us = 50 };
    int rc = pb_exec_open_cfg(&e, &cfg);
    if (rc == 0 && pb_decode_set_context(&d, CONTEXT, PB_KV_F16, &e) != 0) {
        pb_exec_close(&e);
        rc = -1;
    }
    if (rc == 0) {
        /* two tokens: the second reuses the jobs and the activations the first left */
        rc = pb_decode_token(&d, &e, 4) | pb_decode_token(&d, &e, 5);
        pb_exec_close(&e);
    }
    if (rc == 0)
        memcpy(out, d.logits, (size_t)tiny.vocab * sizeof *out);
    pb_decode_free(&d);
    return rc;
}

int main(void)
{
    const kern_format fs[] = { KERN_Q8_0, KERN_TQ2_0, KERN_F32 };
    static const pb_sched splits[] = { { PB_SCHED_STATIC, 0 }, { PB_SCHED_DYNAMIC, 40 }, { PB_SCHED_STEAL, 40 } };
    float *ref = malloc((size_t)tiny.vocab * sizeof *ref), *got = malloc((size_t)tiny.vocab * sizeof *got);
    int bad = 0, runs = 0;
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
        pb_decode_weights w;
        pb_exec gen;
        if (pb_exec_open(&gen, PB_EXEC_SPIN, 2, NULL, 0, 0) != 0 ||
            pb_decode_weights_build(&w, &tiny, fs[k], 7, &gen, NULL, NULL) != 0)
            return 2;
        pb_exec_close(&gen);
        for (int prompt = 0; prompt < 2; prompt++) {
            if (token(&w, prompt, POOL_SPIN, 1, splits[0], PB_GLUE_SERIAL, ref) != 0)
                return 2;
            for (int t = 2; t <= 3; t++)
                for (int pol = 0; pol < POOL_POLICY_COUNT; pol++)
                    for (size_t c = 0; c < sizeof splits / sizeof splits[0]; c++)
                        for (int g = 0; g < PB_GLUE_MODES; g++) {
                            runs++;
                            if (token(&w, prompt, pol, t, splits[c], (pb_glue_mode)g, got) != 0 ||
                                memcmp(ref, got, (size_t)tiny.vocab * sizeof *got) != 0) {
                                fprintf(stderr, "tsan_decode: %s%s, %d threads, policy %d, split %d:%zu, %s glue: "
                                        "logits differ\n", kern_format_names[fs[k]], prompt ? " prompt" : "", t, pol,
                                        (int)splits[c].kind, splits[c].chunk, pb_glue_mode_names[g]);
                                bad++;
                            }
                        }
        }
        pb_decode_weights_free(&w);
    }
    free(ref);
    free(got);
    printf("tsan_decode: %d token pairs and prompts, %d differing from the one-thread serial one\n", runs, bad);
    return bad != 0;
}
