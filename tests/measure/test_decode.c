/* A decode token (pb_decode) on a tiny model: weights built on 1 or 3 threads are the same bytes, and one
 * token's lm_head outputs are bit-identical at 1 and N threads for every policy (OpenMP included), every split
 * (static, dynamic claims, stealing claims) and both glue modes (serial, fused; fused q, k, v split by key/value
 * head and not), for every format, at batch 1 and 3. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern_repack.h"
#include "pb_decode.h"

/* Every width a multiple of 256 (tq2_0's block); 2 layers; lm_head rows not a multiple of anything. */
static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };

static void build(pb_decode_weights *w, kern_format f, int threads)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, threads, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_weights_build(w, &tiny, f, 42, &e, NULL, NULL), 0, "%s", kern_format_names[f]);
    cr_assert_eq(e.dispatches, 7 * tiny.layers + 1, "one dispatch per matrix");
    pb_exec_close(&e);
}

/* Logits of token 5 through an executor; returns a malloc'd copy. */
static const pb_sched split_static = { .kind = PB_SCHED_STATIC };

static float *token(const pb_decode_weights *w, size_t batch, int kind, int threads, pb_sched s, pb_glue_mode glue)
{
    pb_decode d;
    cr_assert_eq(pb_decode_init(&d, w, kern_isa_best(), batch), 0);
    d.glue = glue;
    pb_exec e;
    pb_exec_cfg cfg = { .kind = kind, .threads = threads, .sched = s, .spin_us = 50 };
    cr_assert_eq(pb_exec_open_cfg(&e, &cfg), 0);
    cr_assert_eq(pb_decode_token(&d, &e, 5), 0);
    /* serial: one per matvec; fused: q, k, v one, gate and up one; attention one (context 0: one chunk), or none
     * split by head (fused, the key/value heads a multiple of the threads): inside q, k, v's */
    bool by_head = glue == PB_GLUE_FUSED && tiny.n_kv_head % threads == 0;
    int mv = glue == PB_GLUE_FUSED ? 4 : 7, attn = by_head ? 0 : 1;
    cr_assert_eq(e.dispatches, (mv + attn) * tiny.layers + 1, "%s at %d threads: %ld dispatches",
                 pb_glue_mode_names[glue], threads, e.dispatches);
    cr_assert_eq(d.dispatches, e.dispatches, "the decode counts its own");
    cr_assert_eq(d.mv_dispatches, mv * tiny.layers + 1);
    cr_assert(d.attn_ns > 0, "attention timed");
    cr_assert_eq(d.attn_mv_ns > 0, by_head, "attention inside the matvecs' dispatches: %s", by_head ? "yes" : "no");
    pb_exec_close(&e);
    size_t n = batch * tiny.vocab;
    float *out = malloc(n * sizeof *out);
    memcpy(out, d.logits, n * sizeof *out);
    pb_decode_free(&d);
    return out;
}

Test(decode, weights_do_not_depend_on_threads)
{
    pb_decode_weights a, b;
    build(&a, KERN_Q8_0, 1);
    build(&b, KERN_Q8_0, 3);
    cr_assert_eq(a.bytes, pb_model_token_bytes(&tiny, KERN_Q8_0));
    cr_assert(memcmp(a.arena, b.arena, a.bytes) == 0, "weights built on 1 and 3 threads differ");
    cr_assert(((uintptr_t)a.arena & ((2u << 20) - 1)) == 0, "arena 2 MiB aligned");
    pb_decode_weights_free(&a);
    pb_decode_weights_free(&b);
}

Test(decode, logits_bit_identical_across_threads_policies_schedules, .timeout = 120)
{
    static const pb_sched splits[] = { { PB_SCHED_STATIC, 0 }, { PB_SCHED_DYNAMIC, 3 }, { PB_SCHED_STEAL, 3 } };
    static const size_t batches[] = { 1, 3 };
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        pb_decode_weights w;
        build(&w, (kern_format)f, 2);
        for (size_t b = 0; b < sizeof batches / sizeof *batches; b++) {
            size_t n = batches[b] * tiny.vocab;
            float *ref = token(&w, batches[b], POOL_SPIN, 1, split_static, PB_GLUE_SERIAL);
            double rms = 0;
            for (size_t i = 0; i < n; i++) {
                cr_assert(isfinite(ref[i]), "%s: logit %zu is %g", kern_format_names[f], i, ref[i]);
                rms += (double)ref[i] * ref[i];
            }
            cr_assert(rms > 0, "%s: logits all zero", kern_format_names[f]);
            /* 2 threads split fused q, k, v by key/value head; 3 do not */
            for (int t = 2; t <= 3; t++)
                for (int kind = 0; kind < PB_EXEC_KINDS; kind++)
                    for (size_t c = 0; c < sizeof splits / sizeof *splits; c++)
                        for (int g = 0; g < PB_GLUE_MODES; g++) {
                            float *got = token(&w, batches[b], kind, t, splits[c], (pb_glue_mode)g);
                            cr_assert(memcmp(ref, got, n * sizeof *got) == 0,
                                      "%s M=%zu %s split %d:%zu glue %s at %d threads differs",
                                      kern_format_names[f], batches[b], pb_exec_kind_names[kind], (int)splits[c].kind,
                                      splits[c].chunk, pb_glue_mode_names[g], t);
                            free(got);
                        }
            float *one = token(&w, batches[b], POOL_SPIN, 1, split_static, PB_GLUE_FUSED);
            cr_assert(memcmp(ref, one, n * sizeof *one) == 0, "%s M=%zu: fused at 1 thread differs",
                      kern_format_names[f], batches[b]);
            free(one);
            free(ref);
        }
        pb_decode_weights_free(&w);
    }
}

Test(decode, tokens_differ_and_repeat)
{
    pb_decode_weights w;
    build(&w, KERN_Q4_0, 1);
    float *a = token(&w, 1, POOL_SPIN, 1, split_static, PB_GLUE_SERIAL),
          *b = token(&w, 1, POOL_CONDVAR, 2, split_static, PB_GLUE_FUSED);
    cr_assert(memcmp(a, b, tiny.vocab * sizeof *a) == 0, "the same token twice gives the same logits");
    pb_decode d;
    pb_exec e;
    cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 1), 0);
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_token(&d, &e, 6), 0);
    cr_assert(memcmp(a, d.logits, tiny.vocab * sizeof *a) != 0, "another token gives other logits");
    pb_exec_close(&e);
    pb_decode_free(&d);
    free(a);
    free(b);
    pb_decode_weights_free(&w);
}

Test(decode, bad_batch_and_shape)
{
    pb_decode_weights w;
    build(&w, KERN_Q8_0, 1);
    pb_decode d;
    cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 0), -1);
    cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), KERN_BATCH_MAX + 1), -1);
    pb_decode_weights_free(&w);
    pb_model odd = tiny;
    odd.hidden = 100; /* not a multiple of q8_0's 32 */
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_weights_build(&w, &odd, KERN_Q8_0, 1, &e, NULL, NULL), -1);
    pb_exec_close(&e);
}

/* A dynamic schedule's claim of C rows means C rows in a fused step and in attention too: a step split by head
 * dispatches one unit per key/value head, attention one item per head and chunk, and a claim counted in units took
 * every head of a layer at once, so one thread ran them alone. With C = 256 (one head group of q here) each claim
 * of a fused token takes 256 rows of its widest matrix: q's head groups one by one (by head at 2 threads; at 3,
 * q, k, v's rows, then attention's items in their own dispatch, one a claim: pb_exec_items), o and down whole,
 * gate and up in three, lm_head in four. */
Test(decode, a_dynamic_claim_takes_rows_of_a_step_not_its_units)
{
    pb_decode_weights w;
    build(&w, KERN_Q8_0, 2);
    const size_t C = 256;
    static const int kinds[] = { PB_EXEC_SPIN, PB_EXEC_OMP };
    for (int k = 0; k < 4; k++) {
        int threads = 2 + k / 2;
        size_t q = (tiny.q_dim + C - 1) / C, attn = threads == 2 ? 0 : (size_t)tiny.n_kv_head; /* an item a claim */
        size_t per_layer = q + attn + 2 * ((tiny.hidden + C - 1) / C) + (tiny.ffn + C - 1) / C;
        uint64_t want = per_layer * tiny.layers + (tiny.vocab + C - 1) / C;
        pb_decode d;
        cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 1), 0);
        d.glue = PB_GLUE_FUSED;
        pb_exec e;
        cr_assert_eq(pb_exec_open(&e, kinds[k % 2], threads, NULL, C, 50), 0);
        cr_assert_eq(pb_decode_token(&d, &e, 5), 0);
        uint64_t claims = 0;
        for (int t = 0; t < e.slices.n; t++)
            claims += e.slices.t[t].slices;
        cr_assert_eq(claims, want, "%s at %d threads: %llu claims of %zu rows in a token, %llu expected",
                     pb_exec_kind_names[kinds[k % 2]], threads, (unsigned long long)claims, C,
                     (unsigned long long)want);
        pb_exec_close(&e);
        pb_decode_free(&d);
    }
    pb_decode_weights_free(&w);
}

/* A decode whose q1_0 kernel runs the repacked layout: every kernel of it gives the scalar reference's bits, so its
 * logits are the scalar file kernels' exactly, at 1 and 3 threads (rows split mid-group by dynamic claims of 3),
 * batch 1 and 3, serial and fused glue. */
Test(decode, a_repacked_layout_gives_the_reference_logits, .timeout = 120)
{
    pb_decode_weights w;
    build(&w, KERN_Q1_0, 2);
    pb_kernel_choice ref_k[KERN_FORMAT_COUNT], rp_k[KERN_FORMAT_COUNT];
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        ref_k[f] = (pb_kernel_choice){ .isa = KERN_ISA_SCALAR, .prefetch = true, .why = PB_KERNEL_WHY_FORCED };
        rp_k[f] = (pb_kernel_choice){ .isa = kern_isa_best(), .prefetch = true, .why = PB_KERNEL_WHY_TUNED,
                                      .layout = f == KERN_Q1_0 ? KERN_LAYOUT_Q1_0_R32LUT : KERN_LAYOUT_FILE };
    }
    static const size_t batches[] = { 1, 3 };
    for (size_t b = 0; b < 2; b++) {
        for (int pass = 0; pass < 3; pass++) {
            const pb_kernel_choice *k[2] = { ref_k, rp_k };
            float *out[2];
            for (int j = 0; j < 2; j++) {
                pb_decode d;
                cr_assert_eq(pb_decode_init_with(&d, &w, k[j], batches[b]), 0);
                cr_assert_eq(d.repacked != NULL, j == 1, "only the repacked choice makes a copy");
                d.glue = pass == 2 ? PB_GLUE_FUSED : PB_GLUE_SERIAL;
                pb_exec e;
                cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, pass == 0 ? 1 : 3, NULL, pass == 0 ? 0 : 3, 50), 0);
                cr_assert_eq(pb_decode_token(&d, &e, 5), 0);
                pb_exec_close(&e);
                size_t n = batches[b] * tiny.vocab;
                out[j] = malloc(n * sizeof *out[j]);
                memcpy(out[j], d.logits, n * sizeof *out[j]);
                pb_decode_free(&d);
            }
            cr_assert(memcmp(out[0], out[1], batches[b] * tiny.vocab * sizeof(float)) == 0,
                      "M=%zu pass %d: repacked logits differ from the scalar file kernels'", batches[b], pass);
            free(out[0]);
            free(out[1]);
        }
    }
    pb_decode_weights_free(&w);
}

/* With one format repacked, a token reads that format's matrices from the decode's copy and the others from the
 * weights' arena, the memory its floor reads (pb_decode_read_spans): the copy holds only the re-laid matrices, the
 * spans cover every matrix once where its job reads it, and with the arena's q1_0 matrices wiped after init a mix
 * of q1_0 re-laid and q8_0 as it is still gives the scalar file kernels' logits bit for bit. Without a repacked
 * format the floor reads the arena whole. */
Test(decode, a_repacked_decode_reads_its_copy_and_the_rest_in_place, .timeout = 60)
{
    pb_matvec mv[2 * PB_MODEL_MATVECS_PER_LAYER + 1];
    int n = pb_model_matvecs(&tiny, mv, 2 * PB_MODEL_MATVECS_PER_LAYER + 1);
    cr_assert_eq(n, 2 * PB_MODEL_MATVECS_PER_LAYER + 1);
    kern_format fmts[2 * PB_MODEL_MATVECS_PER_LAYER + 1];
    for (int i = 0; i < n; i++)
        fmts[i] = i % 2 ? KERN_Q8_0 : KERN_Q1_0;
    pb_decode_weights w;
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_weights_build_fmts(&w, &tiny, fmts, 42, &e, NULL, NULL), 0);
    pb_kernel_choice ref_k[KERN_FORMAT_COUNT], rp_k[KERN_FORMAT_COUNT];
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        ref_k[f] = (pb_kernel_choice){ .isa = KERN_ISA_SCALAR, .prefetch = true, .why = PB_KERNEL_WHY_FORCED };
        rp_k[f] = ref_k[f];
    }
    rp_k[KERN_Q1_0] = (pb_kernel_choice){ .isa = kern_isa_best(), .prefetch = true, .why = PB_KERNEL_WHY_TUNED,
                                          .layout = KERN_LAYOUT_Q1_0_R32LUT };
    pb_decode ref, rp;
    int nspans;
    cr_assert_eq(pb_decode_init_with(&ref, &w, ref_k, 1), 0);
    const pb_memspan *sp = pb_decode_read_spans(&ref, &nspans);
    cr_assert(nspans == 1 && sp[0].p == w.arena && sp[0].bytes == w.bytes, "no copy: the arena is read whole");
    cr_assert_eq(pb_decode_token(&ref, &e, 5), 0);
    cr_assert_eq(pb_decode_init_with(&rp, &w, rp_k, 1), 0);
    uint64_t copy = 0, read = 0;
    sp = pb_decode_read_spans(&rp, &nspans);
    for (int i = 0; i < n; i++) {
        bool relaid = fmts[i] == KERN_Q1_0;
        uint64_t b = kern_repack_bytes(relaid ? KERN_LAYOUT_Q1_0_R32LUT : KERN_LAYOUT_FILE, fmts[i],
                                       (size_t)mv[i].rows, (size_t)mv[i].cols);
        copy += relaid ? (b + 63) / 64 * 64 : 0;
        read += b;
        const unsigned char *at = relaid ? rp.repacked + rp.repacked_off[i] : w.arena + w.off[i];
        int in = 0;
        for (int s = 0; s < nspans; s++)
            in += at >= sp[s].p && at + b <= sp[s].p + sp[s].bytes;
        cr_assert_eq(in, 1, "matrix %d (%s) lies in one span where its job reads it", i, relaid ? "copy" : "arena");
    }
    cr_assert_eq(rp.repacked_bytes, copy, "the copy holds the re-laid matrices only: %llu bytes, %llu expected",
                 (unsigned long long)rp.repacked_bytes, (unsigned long long)copy);
    cr_assert_eq(sp[nspans - 1].at + sp[nspans - 1].bytes, read, "the spans hold every matrix once");
    for (int i = 0; i < n; i += 2) /* the q1_0 matrices the copy replaces */
        memset(w.arena + w.off[i], 0, (size_t)kern_format_matrix_bytes(KERN_Q1_0, (size_t)mv[i].rows,
                                                                         (size_t)mv[i].cols));
    cr_assert_eq(pb_decode_token(&rp, &e, 5), 0);
    cr_assert(memcmp(ref.logits, rp.logits, tiny.vocab * sizeof(float)) == 0, "a q1_0 matrix was read from the arena");
    pb_decode_free(&ref);
    pb_decode_free(&rp);
    pb_exec_close(&e);
    pb_decode_weights_free(&w);
}
