/* A token's time budget (pb_budget): the median token's own pieces, parts that add up to it, each from its own
 * figure; and on a tiny decode, the serial timers and the attention's tagged slices that feed it. */
#include <criterion/criterion.h>
#include <math.h>

#include "pb_budget.h"
#include "pb_decode.h"
#include "pb_stats.h"
#include "pb_time.h"

/* Tokens whose wait comes from their totals (no per-dispatch sum: wait_ms NaN). */
static const pb_budget_token toks[] = {
    { .ms = 12, .glue_ms = 1.2, .quant_ms = 0.2, .attn_ms = 1.0, .busy_mean_ms = 9, .busy_max_ms = 10, .wait_ms = NAN },
    { .ms = 10, .glue_ms = 1.0, .quant_ms = 0.1, .attn_ms = 0.8, .busy_mean_ms = 7, .busy_max_ms = 8, .wait_ms = NAN },
    { .ms = 30, .glue_ms = 9.0, .quant_ms = 3.0, .attn_ms = 5.0, .busy_mean_ms = 9, .busy_max_ms = 12, .wait_ms = NAN },
    { .ms = 11, .glue_ms = 1.1, .quant_ms = 0.3, .attn_ms = 0.9, .busy_mean_ms = 8, .busy_max_ms = 9, .wait_ms = NAN },
};

static double sum(const pb_budget *b)
{
    double s = 0;
    for (int p = 0; p < PB_BUDGET_NPARTS; p++)
        s += b->ms[p];
    return s;
}

/* Odd count: the middle token's own pieces, not each piece's own median (an outlier's glue stays out). */
Test(budget, median_token_is_one_token)
{
    pb_budget_token m = pb_budget_median(toks, 3);
    cr_expect_eq(m.ms, 12);
    cr_expect_eq(m.glue_ms, 1.2);
    cr_expect_eq(m.busy_max_ms, 10);
    double ms[] = { 12, 10, 30 };
    cr_expect_eq(m.ms, pb_summarize(ms, 3).median, "the summary's median, exactly");
}

/* Even count: the mean of the two middle tokens (11 and 12 ms), as pb_summarize's median. */
Test(budget, even_count_means_the_two_middle_tokens)
{
    pb_budget_token m = pb_budget_median(toks, 4);
    double ms[] = { 12, 10, 30, 11 };
    cr_expect_eq(m.ms, pb_summarize(ms, 4).median);
    cr_expect_float_eq(m.glue_ms, 1.15, 1e-12);
    cr_expect_float_eq(m.busy_mean_ms, 8.5, 1e-12);
    cr_expect(isnan(pb_budget_median(toks, 0).ms));
}

/* Each part from its own figure, and the parts add up to the token; the floor only moves time between the floor
 * and the parts over it. */
Test(budget, parts_add_up_to_the_token)
{
    /* 8 MB of weights and 1 MB of KV at 2 GB/s: 4 and 0.5 ms */
    const pb_budget_in in = { .floor_gbps = 2, .weight_bytes = 8e6, .kv_bytes = 1e6, .calls = 100, .dispatch_ns = 2000 };
    pb_budget b;
    pb_budget_split(&toks[0], &in, &b);
    cr_expect_float_eq(b.ms[PB_BUDGET_floor], 4.5, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_kernel], 9 - 4, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_quant], 0.2, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_glue], 1.2, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_attn], 1.0 - 0.5, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_dispatch], 0.2, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_wait], 1, 1e-12);
    /* 12 - (10 slowest + 0.2 + 1.2 + 1.0 + 0.2) */
    cr_expect_float_eq(b.ms[PB_BUDGET_unexplained], -0.6, 1e-12);
    cr_expect_float_eq(sum(&b), 12, 1e-12);
    cr_expect_float_eq(pb_budget_unexplained_pct(&b), -5, 1e-9);
    pb_budget_in fast = in;
    fast.floor_gbps = 4;
    pb_budget c;
    pb_budget_split(&toks[0], &fast, &c);
    cr_expect_float_eq(c.ms[PB_BUDGET_unexplained], b.ms[PB_BUDGET_unexplained], 1e-12);
    cr_expect_float_eq(c.ms[PB_BUDGET_kernel], 7, 1e-12, "a faster floor leaves more to the kernel");
}

/* A token's wait summed dispatch by dispatch replaces its totals' (the slowest thread changed between dispatches:
 * 1.6 ms against the totals' 1), and the unexplained part shrinks by as much; the parts still add up. */
Test(budget, a_wait_summed_per_dispatch_is_the_wait)
{
    const pb_budget_in in = { .floor_gbps = 2, .weight_bytes = 8e6, .kv_bytes = 1e6, .calls = 100, .dispatch_ns = 2000 };
    pb_budget_token t = toks[0];
    pb_budget a, b;
    pb_budget_split(&t, &in, &a);
    t.wait_ms = 1.6;
    pb_budget_split(&t, &in, &b);
    cr_expect_float_eq(b.ms[PB_BUDGET_wait], 1.6, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_unexplained], a.ms[PB_BUDGET_unexplained] - 0.6, 1e-12);
    cr_expect_float_eq(sum(&b), 12, 1e-12);
}

/* Where the multiply-adds at the roof take longer than the weights at the floor (a prompt), the roof is the bound:
 * its part is theirs, the floor keeps the KV bytes alone and the kernel is the slices beyond the roof; where they
 * do not, the roof's part is 0 and nothing else moves. */
Test(budget, the_longer_bound_is_the_part)
{
    pb_budget_in in = { .floor_gbps = 2, .weight_bytes = 8e6, .kv_bytes = 1e6, .calls = 100, .dispatch_ns = 2000,
                        .macs = 6e9, .roof_gmacs = 1000 }; /* 6 ms at the roof against 4 at the floor */
    pb_budget b;
    pb_budget_split(&toks[0], &in, &b);
    cr_expect_float_eq(b.ms[PB_BUDGET_roof], 6, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_floor], 0.5, 1e-12, "the KV bytes alone");
    cr_expect_float_eq(b.ms[PB_BUDGET_kernel], 9 - 6, 1e-12);
    cr_expect_float_eq(sum(&b), 12, 1e-12);
    in.macs = 2e9; /* 2 ms: the floor binds */
    pb_budget_split(&toks[0], &in, &b);
    cr_expect_eq(b.ms[PB_BUDGET_roof], 0);
    cr_expect_float_eq(b.ms[PB_BUDGET_floor], 4.5, 1e-12);
    cr_expect_float_eq(b.ms[PB_BUDGET_kernel], 5, 1e-12);
}

Test(budget, no_floor_no_budget)
{
    const pb_budget_in in = { .floor_gbps = NAN, .weight_bytes = 8e6, .calls = 10, .dispatch_ns = 100 };
    pb_budget b;
    pb_budget_split(&toks[1], &in, &b);
    for (int p = 0; p < PB_BUDGET_NPARTS; p++)
        cr_expect(isnan(b.ms[p]), "part %s", pb_budget_part_name((pb_budget_part)p));
    cr_expect(isnan(pb_budget_unexplained_pct(&b)));
}

/* Parts and their sweep.csv columns come from one list, in order. */
Test(budget, part_names_are_the_columns)
{
    for (int p = 0; p < PB_BUDGET_NPARTS; p++) {
        char col[64];
        snprintf(col, sizeof col, "budget_%s_ms", pb_budget_part_name((pb_budget_part)p));
        cr_expect_str_eq(pb_schema_name(PB_K_SWEEP, pb_budget_col((pb_budget_part)p)), col);
    }
}

static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };

/* A token's serial pieces are timed, each inside the token; attention's slices are tagged, the matvecs' not, or,
 * split by head (fused glue; 2 threads split the 2 key/value heads), attention's share of q, k, v's slices is
 * timed in attn_mv_ns and nothing is tagged. */
Test(budget, decode_times_its_pieces_and_tags_attention, .timeout = 60)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    pb_decode_weights w;
    cr_assert_eq(pb_decode_weights_build(&w, &tiny, KERN_Q8_0, 42, &e, NULL, NULL), 0);
    for (int glue = 0; glue < PB_GLUE_MODES; glue++) {
        pb_decode d;
        cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 1), 0);
        d.glue = (pb_glue_mode)glue;
        cr_assert_eq(pb_decode_set_context(&d, 64, PB_KV_F16, &e), 0);
        pb_slices_reset(&e.slices);
        uint64_t t0 = pb_now_ns();
        cr_assert_eq(pb_decode_token(&d, &e, 1), 0);
        uint64_t token = pb_now_ns() - t0;
        cr_expect_gt(d.glue_ns, 0);
        cr_expect_gt(d.quant_ns, 0);
        cr_expect_gt(d.attn_ns, 0);
        /* disjoint stretches of the token: none counted twice */
        cr_expect_leq(d.glue_ns + d.quant_ns + d.dispatch_ns, token);
        cr_expect_eq(e.slices.tag, 0, "untagged after the token");
        uint64_t tagged = 0, busy = 0, mv_max = 0;
        for (int i = 0; i < e.slices.n; i++) {
            tagged += e.slices.t[i].tagged_ns;
            busy += e.slices.t[i].busy_ns;
            uint64_t mv = e.slices.t[i].busy_ns - e.slices.t[i].tagged_ns;
            mv_max = mv > mv_max ? mv : mv_max;
        }
        /* the wait summed dispatch by dispatch is at least the totals' (each dispatch's slowest is at least any
         * thread's share of it), less a nanosecond a dispatch of rounding, and inside the dispatches' time */
        uint64_t totals = mv_max - (busy - tagged) / (uint64_t)e.slices.n;
        cr_expect_geq(d.wait_ns + (uint64_t)d.mv_dispatches, totals, "%s glue: wait %llu ns against the totals' %llu",
                      pb_glue_mode_names[glue], (unsigned long long)d.wait_ns, (unsigned long long)totals);
        cr_expect_leq(d.wait_ns, d.dispatch_ns);
        bool by_head = glue == PB_GLUE_FUSED;
        if (by_head) {
            cr_expect_eq(tagged, 0, "no attention dispatch split by head");
            cr_expect_gt(d.attn_mv_ns, 0, "attention's share of the matvecs' slices");
            cr_expect_leq(d.attn_mv_ns, d.attn_ns, "and part of attention's time");
            cr_expect_lt(d.attn_mv_ns * (uint64_t)e.threads, busy, "less than the slices it ran in");
        } else {
            cr_expect_gt(tagged, 0, "attention's slices are tagged");
            cr_expect_lt(tagged, busy, "the matvecs' are not");
            cr_expect_eq(d.attn_mv_ns, 0);
        }
        pb_decode_free(&d);
    }
    pb_decode_weights_free(&w);
    pb_exec_close(&e);
}

/* One thread waits for nobody: a token's wait is 0 there. */
Test(budget, one_thread_waits_for_nobody, .timeout = 60)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
    pb_decode_weights w;
    cr_assert_eq(pb_decode_weights_build(&w, &tiny, KERN_Q8_0, 42, &e, NULL, NULL), 0);
    pb_decode d;
    cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 1), 0);
    cr_assert_eq(pb_decode_token(&d, &e, 1), 0);
    cr_expect_eq(d.wait_ns, 0);
    pb_decode_free(&d);
    pb_decode_weights_free(&w);
    pb_exec_close(&e);
}
