/* bench_sweep — where a decode token's time goes: a model preset's token (every matvec in order, one pool
 * dispatch each, with serial glue between) over formats x core sets x threads x batch x policies x schedules,
 * held against the read floor of the same cpus measured in the same run, with busy % per cpu per point. */
#include <stdio.h>

#include "pb_cli.h"
#include "pb_cpusets.h"
#include "pb_harness.h"
#include "pb_model_arg.h"
#include "pb_sweep_run.h"
#include "pb_weight_format.h"

#define PROG "bench_sweep"

typedef struct bsweep_opts {
    const char *model;
    pb_list formats, policies, glues, threads, batches, prompts, prompt_policies, contexts, kv_types;
    const char *schedule, *cpus, *emulate, *wisdom, *co_runner, *counters;
    long tokens, warmup, seed, spin_us, interval_ms, floor_passes, prompt_tokens;
    double pair_s;
    bool mmap;
} bsweep_opts;

typedef struct bsweep_run {
    bsweep_opts o;
    pb_model_arg marg; /* --model: a preset, or an open model file */
    pb_cpusets sets;   /* --cpus */
    pb_emulate emu;    /* --emulate-slow */
    pb_corunner co;    /* --co-runner */
    pb_sweep_plan plan;
    pb_harness h;      /* its topo: the live machine */
    pb_sweep_out out;  /* sweep.csv, cpu_util.csv, sweep_cpu.csv: a point's rows as it ends */
    pb_sweep_run run;  /* the rows, for the table */
    pb_wisdom wisdom;  /* --wisdom's, when it is this machine's (plan.kernels points at it) */
    pb_counters counters; /* --counters, on the main thread: every point's caller */
} bsweep_run;

/* pb_sweep_plan's pair hook: ctx is the run's pb_sweep_out. */
static int bsweep_pair_row(void *ctx, const pb_sweep_pair *pr)
{
    return pb_sweep_out_pair(ctx, pr);
}

/* pb_sweep_plan's row hook: ctx is the run's pb_sweep_out. */
static int bsweep_row(void *ctx, const pb_sweep_row *r)
{
    return pb_sweep_out_row(ctx, r);
}

/* ---------------------------------------------------------------- options */

static int bsweep_parse(bsweep_run *sr, int argc, char **argv)
{
    bsweep_opts *o = &sr->o;
    *o = (bsweep_opts){ .tokens = 0, .warmup = 3, .seed = 1, .pair_s = -1,
                    .spin_us = POOL_DEFAULT_SPIN_US, .interval_ms = PB_SAMPLER_INTERVAL_DEFAULT_MS };
    const pb_opt opts[] = {
        PB_OPT_MODEL(&o->model), PB_OPT_MMAP(&o->mmap), PB_OPT_CONTEXT(&o->contexts), PB_OPT_KV_TYPE(&o->kv_types),
        { .name = "format", .kind = PB_OPT_CHOICES, .dest = &o->formats, .choices = pb_weight_format_names(),
          .metavar = "LIST", .help = "weight formats (q4_K_M: q6_K for v and down, q4_K for the rest), or all", .dflt = "q8_0" },
        { .name = "policy", .kind = PB_OPT_CHOICES, .dest = &o->policies, .choices = pb_exec_kind_names,
          .metavar = "LIST", .help = "dispatch policies (omp: OpenMP's parallel for, pinned alike; tree: spin with workers "
          "grouped by shared cache), or all",
          .dflt = "all (spin,condvar,spawn with --quick; unforced, spin without tree beside it runs the shape "
                  "bench_tune's wisdom measured faster at its thread count)" },
        { .name = "schedule", .kind = PB_OPT_WORDS, .dest = &o->schedule, .metavar = "LIST",
          .help = "row split of each matvec: static, weighted (shares by each core's capacity), dynamic:N (claims of N "
          "rows from one counter), steal:N (each thread's static share in claims of N rows, idle threads taking "
          "from the back of the others'), comma-separated",
          .dflt = "static (+ weighted,dynamic:" PB_STR(PB_SWEEP_DYNAMIC_ROWS) " on unequal cores)" },
        PB_OPT_EMULATE_SLOW(&o->emulate),
        PB_OPT_CO_RUNNER(&o->co_runner),
        { .name = "glue", .kind = PB_OPT_CHOICES, .dest = &o->glues, .choices = pb_glue_mode_names,
          .metavar = "LIST", .help = "serial (all glue on the calling thread between dispatches) or fused (row-local "
          "glue in the dispatch that made the rows: SiLU(gate)*up and activation quantization; q, k, v in one dispatch, "
          "gate and up in one), or all",
          .dflt = "fused" },
        PB_OPT_THREADS(&o->threads, " (a count above a set's PUs runs oversubscribed: threads take its cpus in "
                       "turn, rows say so; up to " PB_STR(PB_SWEEP_OVERSUBSCRIBE_MAX) "x the largest set's)",
                       "1..the set's PUs (1..2 with --quick)"),
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &o->cpus, .metavar = "SETS",
          .help = "core sets: p, e, p+e, physical, smt, all, numa:N, or cpu lists (0-3,8; ';' between two lists)",
          .dflt = "this machine's distinct sets among p, e, p+e, physical, smt" },
        { .name = "batch", .kind = PB_OPT_LIST, .dest = &o->batches, .min = 1, .max = KERN_BATCH_MAX,
          .metavar = "LIST", .help = "activation rows per matvec (M; tok/s counts M tokens a step)", .dflt = "1" },
        { .name = "prompt", .kind = PB_OPT_LIST, .dest = &o->prompts, .min = 1, .max = KERN_GEMM_MAX,
          .metavar = "LIST", .help = "also prompts of these many tokens, after the decode's batches: every matvec a "
          "matmul over the prompt's rows, attention causal over them, lm_head over the last (pp tok/s, and the time "
          "to first token: the prompt's median ms)", .dflt = "none" },
        { .name = "prompt-policy", .kind = PB_OPT_CHOICES, .dest = &o->prompt_policies, .choices = pb_exec_kind_names,
          .metavar = "LIST", .help = "the policies a prompt's points run (its step is long: a sweep may keep them "
          "fewer than the decode's)", .dflt = "--policy's" },
        { .name = "prompt-tokens", .kind = PB_OPT_INT, .dest = &o->prompt_tokens, .min = 1, .max = 1000,
          .metavar = "N", .help = "timed prompts per prompt point, after one untimed", .dflt = "3 (2 with --quick)" },
        { .name = "tokens", .kind = PB_OPT_INT, .dest = &o->tokens, .min = 1, .max = 100000, .metavar = "N",
          .help = "timed tokens per point", .dflt = "20 (8 with --quick)" },
        { .name = "warmup", .kind = PB_OPT_INT, .dest = &o->warmup, .min = 0, .max = 1000, .metavar = "N",
          .help = "untimed tokens before each point", .dflt = "3" },
        { .name = "seed", .kind = PB_OPT_INT, .dest = &o->seed, .min = 0, .max = 0, .metavar = "N",
          .help = "seed of the synthetic weights and inputs", .dflt = "1" },
        PB_OPT_SPIN_US(&o->spin_us),
        PB_OPT_WISDOM(&o->wisdom),
        PB_OPT_INTERVAL_MS(&o->interval_ms, " during each point"),
        { .name = "floor-passes", .kind = PB_OPT_INT, .dest = &o->floor_passes, .min = 3, .max = 1000,
          .metavar = "N", .help = "timed passes per read kernel of the memory floor", .dflt = "10 (5 with --quick)" },
        PB_OPT_COUNTERS(&o->counters),
        { .name = "pair-s", .kind = PB_OPT_DOUBLE, .dest = &o->pair_s, .dmin = 0, .dmax = 600, .metavar = "S",
          .help = "after a block's points at each batch (not a prompt's: its steps are long), its alternatives "
                  "(policy x schedule x glue) interleaved for "
                  "about S seconds: one token each a round, the order changing every round, until every interval "
                  "against the first is within 2% or the time ends (pairs.csv: the report's paired intervals); 0: "
                  "none", .dflt = "4 (2 with --quick)" },
        { 0 },
    };
    const pb_cli cli = {
        .prog = PROG,
        .opts = opts,
        .summary =
            "Decode-token budget of a model (a preset's seeded weights, or a GGUF file's): every layer's q, k, v, o,\n"
            "gate, up, down matvecs in order (one dispatch each; with fused glue q, k, v share one and gate, up one),\n"
            "attention over a KV cache of --context positions (one dispatch, two past 256 positions), the glue between\n"
            "them (RMSNorm, RoPE, SiLU(gate)*up, residual adds), then lm_head.\n"
            "Per point: ms/token, tok/s, effective GB/s against the read floor of the same cpus (one read pass of\n"
            "the weights after each timed token, on the point's own pool when its workers spin, else on a spin\n"
            "pool made for the pass; for omp, measured just before the point), busy % per pinned cpu over the\n"
            "tokens alone, the core-to-core round trip. With --run-dir, memory_floor.csv names the read kernel.",
    };
    return pb_harness_setup(&sr->h, &cli, "a short run (CI): spin, condvar, spawn at 1..2 threads, 8 tokens",
                            "add the results to an existing run directory (its memory_floor.csv, if any, chooses "
                            "the floor's read kernel)", argc, argv);
}

/* The options' defaults, and the checks against this machine (before anything is written). */
static int bsweep_defaults(bsweep_run *sr)
{
    bsweep_opts *o = &sr->o;
    pb_sweep_plan *p = &sr->plan;
    char err[1024];
    if (pb_model_arg_resolve(&sr->marg, o->model, &o->formats, &o->contexts, &o->kv_types, err, sizeof err) != 0)
        return pb_harness_refusef(&sr->h, "%s", err);
    bool default_policies = o->policies.n == 0;
    if (default_policies) {
        static const int quick[] = { POOL_SPIN, POOL_CONDVAR, POOL_SPAWN };
        for (int k = 0; k < (sr->h.quick ? 3 : PB_EXEC_KINDS); k++)
            o->policies.v[o->policies.n++] = sr->h.quick ? quick[k] : k;
    }
    if (o->batches.n == 0)
        o->batches.v[o->batches.n++] = 1;
    if (o->glues.n == 0)
        o->glues.v[o->glues.n++] = PB_GLUE_FUSED;
    if (o->tokens == 0)
        o->tokens = sr->h.quick ? 8 : 20;
    if (o->prompt_tokens == 0)
        o->prompt_tokens = sr->h.quick ? 2 : 3;
    if (o->floor_passes == 0)
        o->floor_passes = sr->h.quick ? 5 : 10;
    if (o->pair_s < 0) /* not given: the parser leaves the -1 bsweep_parse set */
        o->pair_s = sr->h.quick ? 2 : 4;
    /* run_dir: filled by pb_harness_open, before the first block reads its memory_floor.csv */
    *p = (pb_sweep_plan){
        .work = { .model = sr->marg.model, .file = sr->marg.is_file ? &sr->marg.file : NULL, .mmap = o->mmap,
                  .formats = &o->formats, .contexts = &o->contexts, .kv_types = &o->kv_types,
                  .batches = &o->batches, .prompts = &o->prompts, .seed = (uint64_t)o->seed },
        .cores = { .topo = sr->h.topo, .sets = &sr->sets, .threads = &o->threads, .emulate = &sr->emu,
                   .where = &sr->h.where },
        .dispatch = { .policies = &o->policies, .glues = &o->glues,
                      .prompt_policies = o->prompt_policies.n ? &o->prompt_policies : NULL,
                      .spin_us = (unsigned)o->spin_us },
        .timing = { .tokens = (int)o->tokens, .warmup = (int)o->warmup, .prompt_tokens = (int)o->prompt_tokens,
                    .prompt_warmup = 1, .interval_ms = (int)o->interval_ms, .floor_passes = (int)o->floor_passes,
                    .quick = sr->h.quick, .pair_s = o->pair_s, .run_dir = sr->h.run.dir },
        .sink = { .prog = PROG, .row = bsweep_row, .pair_row = bsweep_pair_row, .ctx = &sr->out },
    };
    if (pb_harness_emulate(&sr->h, o->emulate, &sr->emu) != 0 || pb_harness_co_runner(&sr->h, o->co_runner, &sr->co) != 0)
        return -1;
    if (o->counters && pb_counters_open(&sr->counters, o->counters, err, sizeof err) != 0)
        return pb_harness_refusef(&sr->h, "%s", err);
    p->timing.counters = o->counters ? &sr->counters : NULL;
    p->cores.co_runner = sr->co.text;
    /* Unforced, spin runs the shape wisdom measured faster; beside tree in the list it stays the flat baseline. */
    p->dispatch.tuned_shape = default_policies;
    for (int k = 0; k < o->policies.n; k++)
        p->dispatch.tuned_shape = p->dispatch.tuned_shape && o->policies.v[k] != PB_EXEC_TREE;
    if (pb_sweep_schedules(&p->dispatch, &p->cores, o->schedule, err, sizeof err) != 0)
        return pb_harness_refuse_opt(&sr->h, "schedule", o->schedule, "%s", err);
    if (pb_harness_wisdom_path(&sr->h, o->wisdom, false) != 0)
        return -1;
    if (pb_cpusets_parse(sr->h.topo, o->cpus, &sr->sets, err, sizeof err) != 0)
        return pb_harness_refuse_opt(&sr->h, "cpus", o->cpus, "%s", err);
    int largest = sr->sets.set[pb_cpusets_largest(&sr->sets)].cpus.n;
    /* Decided once: testing threads.n in the loop would stop it after the first count it adds. */
    bool default_threads = o->threads.n == 0;
    for (int t = 1; default_threads && t <= (sr->h.quick && largest > 2 ? 2 : largest) && t <= PB_LIST_MAX; t++)
        o->threads.v[o->threads.n++] = t;
    /* Counts asked for run, beyond a set's PUs oversubscribed (what -t = logical cores gives a user), up to a
     * bound past which every dispatch is a round of time slices. */
    p->cores.oversubscribe = !default_threads;
    for (int t = 0; t < o->threads.n; t++)
        if (o->threads.v[t] > (long)PB_SWEEP_OVERSUBSCRIBE_MAX * largest)
            return pb_harness_refuse_opt(&sr->h, "threads", o->threads.text,
                                         "%ld is more than " PB_STR(PB_SWEEP_OVERSUBSCRIBE_MAX) " x the largest core "
                                         "set's %d PUs (accepted 1..%d)", o->threads.v[t], largest,
                                         PB_SWEEP_OVERSUBSCRIBE_MAX * largest);
    if (pb_sweep_check_memory(&p->work, err, sizeof err) != 0)
        return pb_harness_refusef(&sr->h, "%s", err);
    return 0;
}

/* One line per thread count whose spin points take wisdom's pool shape. */
static void bsweep_print_shapes(const pb_sweep_plan *p)
{
    for (int t = 0; p->dispatch.tuned_shape && p->dispatch.kernels.wisdom && t < p->cores.threads->n; t++) {
        const pb_wisdom_dispatch *d = pb_wisdom_dispatch_at(p->dispatch.kernels.wisdom, (int)p->cores.threads->v[t]);
        if (d)
            printf("dispatch: spin at %d threads runs %s, tuned (flat %.1f ns, tree %.1f ns)\n", d->threads,
                   d->tree ? "tree" : "flat", d->flat_ns, d->tree_ns);
    }
}

/* Claims the three CSVs before anything is measured; a row's series label names the dimensions the options
 * vary. */
static int bsweep_open_outputs(bsweep_run *sr)
{
    pb_sweep_out *o = &sr->out;
    o->run = &sr->h.run;
    o->varies = (pb_sweep_varies){ .format = sr->o.formats.n > 1, .schedule = sr->plan.dispatch.nsched > 1,
                                   .glue = sr->o.glues.n > 1, .cpuset = sr->sets.n > 1,
                                   .batch = sr->o.batches.n + sr->o.prompts.n > 1,
                                   .context = sr->o.contexts.n > 1, .kv = sr->o.kv_types.n > 1 };
    o->sweep = pb_harness_csv(&sr->h, "sweep.csv", PB_SWEEP_HEADER);
    o->util = o->sweep ? pb_harness_csv(&sr->h, "cpu_util.csv", PB_SWEEP_UTIL_HEADER) : NULL;
    o->cpu = o->util ? pb_harness_csv(&sr->h, "sweep_cpu.csv", PB_SWEEP_CPU_HEADER) : NULL;
    if (o->cpu && sr->plan.timing.pair_s > 0)
        o->pairs = pb_harness_csv(&sr->h, "pairs.csv", pb_schema_header(PB_K_PAIRS));
    return o->cpu && (o->pairs || sr->plan.timing.pair_s <= 0) ? 0 : -1;
}

int main(int argc, char **argv)
{
    static bsweep_run sr;
    if (bsweep_parse(&sr, argc, argv) != 0 || bsweep_defaults(&sr) != 0 || pb_harness_open(&sr.h) != 0 ||
        bsweep_open_outputs(&sr) != 0)
        return pb_harness_refused(&sr.h);
    pb_harness_wisdom(&sr.h, &sr.wisdom, &sr.plan.dispatch.kernels);
    bsweep_print_shapes(&sr.plan);
    printf("model %s, %ld timed tokens after %ld warm-up, seed %ld\n", sr.plan.work.model->name, sr.o.tokens,
           sr.o.warmup, sr.o.seed);
    fflush(stdout);
    char err[1024];
    if (pb_harness_co_start(&sr.h) == 0 && pb_sweep_run_all(&sr.run, &sr.plan, err, sizeof err) != 0)
        pb_harness_fail(&sr.h, "%s", err);
    pb_sweep_print_table(stdout, sr.run.rows.items, (int)sr.run.rows.n);
    int unverified = pb_sweep_run_unverified(&sr.run);
    static const char *const plots[] = { "sweep.png", "sweep.svg", NULL };
    int rc = pb_harness_close(&sr.h, "sweep.gp", plots);
    pb_sweep_out_free(&sr.out);
    pb_sweep_run_free(&sr.run);
    pb_model_arg_close(&sr.marg);
    pb_counters_close(&sr.counters);
    if (unverified)
        fprintf(stderr, PROG ": some points did not reproduce the reference logits (see LOGITS DIFFER)\n");
    return rc ? rc : unverified != 0;
}
