/* bench_memory_floor — the streaming read floor: GB/s of a buffer far larger than the last-level cache, read
 * by 1..N pinned threads of one spin pool (first-touched by the same threads), for every read kernel the CPU
 * has; copy and write figures beside it, never mixed into the floor. The floor (the best read kernel's best
 * pass at each thread count) becomes a per-token floor for every model preset and weight format. The
 * cache-line round trip between the first two cpus, before and after each thread count, tags every figure
 * near or far: on shared VMs the vCPUs move, and two threads on two chiplets read faster than on one.
 * --latency measures latency instead (pb_latency_run.h): a pointer chase on the set's first cpu, idle by working
 * set and while the others stream reads at each --duty, into latency.csv. */
#include <stdio.h>

#include "kern_isa.h"
#include "pb_cli.h"
#include "pb_harness.h"
#include "pb_latency_report.h"
#include "pb_membuf.h"
#include "pb_memfloor_report.h"
#include "pb_model_arg.h"
#include "pb_memfloor_run.h"
#include "pb_schema.h"
#include "pb_tuning.h"

#define PROG "bench_memory_floor"

typedef struct bmf_opts {
    pb_list threads, kernels, contexts, kv_types, duties;
    const char *model;
    const char *wisdom;
    const char *cpus;
    long size_mib, passes;
    bool no_thp, latency;
} bmf_opts;

typedef struct bmf_run {
    bmf_opts o;
    const char *kern_names[PB_MEMFLOOR_MAX_KERNS + 1]; /* the table's names: --kernel's choices */
    pb_cpulist set;    /* --cpus, in logical order */
    pb_model_arg marg; /* --model: a file adds its token floors */
    pb_memfloor_plan plan;
    pb_memfloor_run run;    /* the rows, floors and token floors (64 KiB of per-thread slots: not for the stack) */
    pb_harness h;
    pb_memfloor_report report; /* memory_floor.csv (a block's rows as the block ends), token_floor.csv */
    pb_wisdom wisdom;     /* --wisdom's streaming settings, which the 4-stream reads run with */
    pb_latency_plan lplan;    /* --latency: the chase instead of the floor */
    pb_latency_run lrun;
    pb_latency_report lrep;   /* latency.csv */
} bmf_run;

/* ---------------------------------------------------------------- options and checks (before any work) */

static int bmf_parse(bmf_run *r, int argc, char **argv)
{
    bmf_opts *o = &r->o;
    for (int i = 0; i < pb_memkern_count() && i < PB_MEMFLOOR_MAX_KERNS; i++)
        r->kern_names[i] = pb_memkerns[i].name;
    const pb_opt opts[] = {
        PB_OPT_THREADS(&o->threads, "", "1..the cpus in --cpus"),
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &o->cpus, .metavar = "SET",
          .help = "where threads run: all, physical, p, e, p+e, numa:N, or OS cpu ids (0-3,8)", .dflt = "all" },
        { .name = "kernel", .kind = PB_OPT_CHOICES, .dest = &o->kernels, .choices = r->kern_names,
          .metavar = "LIST", .help = "kernels to run (read, then copy-*, write-*)", .dflt = "all this CPU has",
          .env = "POOLBENCH_READ_KERNEL" }, /* POOLBENCH_ISA is the ISA, in every harness */
        { .name = "size", .kind = PB_OPT_INT, .dest = &o->size_mib, .min = 1, .max = 1L << 24, .metavar = "MiB",
          .help = "buffer size (at most half of MemAvailable)", .dflt = "max(768, 8 x last-level cache; 2 x with --quick)" },
        { .name = "passes", .kind = PB_OPT_INT, .dest = &o->passes, .min = 10, .max = 100000, .metavar = "N",
          .help = "timed passes per point, after one untimed warm-up", .dflt = "20 (10 with --quick)" },
        { .name = "no-thp", .kind = PB_OPT_FLAG, .dest = &o->no_thp,
          .help = "do not ask for transparent huge pages (madvise)" },
        PB_OPT_MODEL(&o->model), PB_OPT_CONTEXT(&o->contexts), PB_OPT_WISDOM(&o->wisdom),
        { .name = "latency", .kind = PB_OPT_FLAG, .dest = &o->latency,
          .help = "latency instead of bandwidth: a pointer chase on the first cpu of --cpus, idle by working set and "
                  "while the others stream reads at each --duty (latency.csv)" },
        { .name = "duty", .kind = PB_OPT_LIST, .dest = &o->duties, .min = 1, .max = 100, .metavar = "LIST",
          .help = "--latency: the streamers' duties, percent of every 100 µs busy reading",
          .dflt = "10,20,30,45,60,80,100 (10,25,40,60,80,100 with --quick)" },
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Streaming read bandwidth of a buffer far larger than the last-level cache, per\n"
                                    "thread count and kernel, with the round trip that says where the threads ran;\n"
                                    "the floor it sets per decode token for every model preset and format (and a\n"
                                    "GGUF file's, with --model FILE), weights and f16 KV cache at each --context." };
    return pb_harness_setup(&r->h, &cli, "a short run (CI): 10 passes, a buffer of max(768 MiB, 2 x LLC)", NULL, argc,
                            argv);
}

/* --latency takes the set, the size, the duties and the pages; the floor's own options are refused beside it, and
 * --duty without it. */
static int bmf_check_latency_opts(bmf_run *r)
{
    const bmf_opts *o = &r->o;
    const char *floor_opt = o->threads.n ? "threads" : o->kernels.n ? "kernel" : o->model ? "model"
                          : o->contexts.n ? "context" : o->passes ? "passes" : NULL;
    if (o->latency && floor_opt)
        return pb_harness_refusef(&r->h, "--%s is the bandwidth floor's; with --latency the options are --cpus (the "
                                  "first chases, the others stream), --size, --duty, --no-thp, --quick", floor_opt);
    if (!o->latency && o->duties.n)
        return pb_harness_refusef(&r->h, "--duty %s: the streamers' duty is --latency's (add --latency, or leave "
                                  "--duty out)", o->duties.text);
    return 0;
}

/* The checks against this machine and the defaults, into r->plan (before anything is written). */
static int bmf_check(bmf_run *r, const pb_topo *topo)
{
    bmf_opts *o = &r->o;
    pb_memfloor_plan *p = &r->plan;
    char err[1024];
    pb_list formats = { 0 }; /* --model's: unused here (every preset format has its floor) */
    if (bmf_check_latency_opts(r) != 0 || pb_harness_wisdom_path(&r->h, o->wisdom, false) != 0)
        return -1;
    if (pb_model_arg_resolve(&r->marg, o->model, &formats, &o->contexts, &o->kv_types, err, sizeof err) != 0)
        return pb_harness_refusef(&r->h, "%s", err);
    if (pb_topo_set(topo, o->cpus ? o->cpus : "all", &r->set, err, sizeof err) != 0)
        return pb_harness_refuse_opt(&r->h, "cpus", o->cpus, "%s", err);
    if (o->duties.n && r->set.n < 2) /* one cpu only chases: a duty would be neither measured nor refused */
        return pb_harness_refusef(&r->h, "--duty %s: the cpu set '%s' has one cpu, which chases; the streamers' duty "
                                  "needs --cpus of 2 or more (the first chases, the others stream)", o->duties.text,
                                  o->cpus ? o->cpus : "all");
    if (o->threads.n == 0)
        for (int t = 1; t <= r->set.n && o->threads.n < PB_LIST_MAX; t++)
            o->threads.v[o->threads.n++] = t;
    for (int i = 0; i < o->threads.n; i++)
        if (o->threads.v[i] > r->set.n)
            return pb_harness_refuse_opt(&r->h, "threads", o->threads.text,
                                         "%ld: the cpu set '%s' has %d cpus; accepted: 1..%d (one thread per cpu)",
                                         o->threads.v[i], o->cpus ? o->cpus : "all", r->set.n, r->set.n);
    *p = (pb_memfloor_plan){ .prog = PROG, .topo = topo, .set = &r->set, .threads = &o->threads, .quick = r->h.quick,
                        .file = r->marg.is_file ? &r->marg.file : NULL, .contexts = &o->contexts,
                        .no_thp = o->no_thp, .passes = (int)(o->passes ? o->passes : r->h.quick ? 10 : 20),
                        .where = &r->h.where };
    if (pb_memfloor_run_pick_kernels(p, &o->kernels, err, sizeof err) != 0)
        return pb_harness_refusef(&r->h, "%s", err);
    uint64_t llc = r->report.llc_bytes = pb_memfloor_run_llc_bytes(topo);
    p->size_mib = o->size_mib ? (uint64_t)o->size_mib
                : o->latency ? pb_latency_run_default_mib(llc, r->h.quick) : pb_memfloor_default_mib(llc, r->h.quick);
    uint64_t avail;
    if (pb_mem_available(&avail) == 0) {
        if (pb_memfloor_check_size(p->size_mib, avail, err, sizeof err) != 0)
            return pb_harness_refusef(&r->h, "%s", err);
    } else {
        fprintf(stderr, PROG ": warning: MemAvailable unreadable; the buffer size is not checked\n");
    }
    if (llc && (p->size_mib << 20) < PB_BUFFER_MIN_LLC_FACTOR * llc)
        fprintf(stderr, PROG ": warning: a %llu MiB buffer is less than " PB_STR(PB_BUFFER_MIN_LLC_FACTOR) "x the last-level cache (%llu MiB): "
                        "this measures the cache, not memory\n",
                (unsigned long long)p->size_mib, (unsigned long long)(llc >> 20));
    return 0;
}

/* --latency's plan, from the floor's checked one: the set, the size and the pages. */
static void bmf_latency_plan(bmf_run *r)
{
    static const long full[] = { 10, 20, 30, 45, 60, 80, 100 }, quick[] = { 10, 25, 40, 60, 80, 100 };
    pb_list *d = &r->o.duties;
    if (d->n == 0)
        for (size_t i = 0; i < (r->h.quick ? sizeof quick : sizeof full) / sizeof *full; i++)
            d->v[d->n++] = r->h.quick ? quick[i] : full[i];
    r->lplan = (pb_latency_plan){ .prog = PROG, .topo = r->h.topo, .set = &r->set, .size_mib = r->plan.size_mib,
                              .duties = d, .quick = r->h.quick, .no_thp = r->o.no_thp };
}

/* --latency's run: the ladder, then the loaded curve, each row written as it is measured. */
static int bmf_latency(bmf_run *r)
{
    pb_latency_report *rep = &r->lrep;
    bmf_latency_plan(r);
    if (pb_harness_open(&r->h) != 0 ||
        !(rep->csv = pb_harness_csv(&r->h, "latency.csv", pb_schema_header(PB_K_LATENCY))))
        return pb_harness_refused(&r->h);
    rep->run = &r->h.run;
    char err[512];
    pb_latency_run *run = &r->lrun;
    int rc = pb_latency_run_begin(run, &r->lplan, err, sizeof err);
    for (int i = 0; rc == 0 && i < run->nladder && pb_harness_going(&r->h); i++) {
        rc = pb_latency_run_ladder(run, i, err, sizeof err);
        pb_latency_report_rows(rep, run);
    }
    for (int i = 0; rc == 0 && i < r->lplan.duties->n && pb_harness_going(&r->h); i++) {
        rc = pb_latency_run_loaded(run, (int)r->lplan.duties->v[i], err, sizeof err);
        pb_latency_report_rows(rep, run);
    }
    if (rc != 0)
        pb_harness_fail(&r->h, "%s", err);
    pb_progress_done(run->nrows, "points", run->t0);
    pb_latency_report_print(stdout, run);
    pb_latency_run_free(run);
    static const char *const plots[] = { "latency.png", NULL };
    return pb_harness_close(&r->h, "latency.gp", plots);
}

int main(int argc, char **argv)
{
    static bmf_run r;
    pb_memfloor_report *rep = &r.report;
    if (bmf_parse(&r, argc, argv) != 0 || bmf_check(&r, r.h.topo) != 0)
        return pb_harness_refused(&r.h);
    if (r.o.latency)
        return bmf_latency(&r);
    if (pb_harness_open(&r.h) != 0 ||
        !(rep->csv = pb_harness_csv(&r.h, "memory_floor.csv", pb_schema_header(PB_K_MEMORY))) ||
        !(rep->token_csv = pb_harness_csv(&r.h, "token_floor.csv", pb_schema_header(PB_K_TOKEN))))
        return pb_harness_refused(&r.h);
    rep->run = &r.h.run;
    pb_harness_wisdom_stream(&r.h, &r.wisdom); /* the 4-stream reads prefetch as a tuned decode's passes */
    char err[512];
    if (pb_memfloor_run_begin(&r.run, &r.plan, err, sizeof err) != 0)
        pb_harness_fail(&r.h, "%s", err);
    for (int t = 0; t < r.o.threads.n && pb_harness_going(&r.h); t++) {
        if (pb_memfloor_run_block(&r.run, (int)r.o.threads.v[t], err, sizeof err) != 0)
            pb_harness_fail(&r.h, "%s", err);
        pb_memfloor_report_rows(rep, &r.run); /* the block's rows are complete: what a failure left too */
    }
    pb_progress_done(r.run.nrows, "points", r.run.t0);
    if (r.run.invalid) {
        pb_harness_drop_csv(&r.h, rep->csv);
        pb_harness_drop_csv(&r.h, rep->token_csv);
        fprintf(stderr, PROG ": validation failed: no results written\n");
        pb_memfloor_run_free(&r.run);
        return 1;
    }
    if (pb_memfloor_run_derive(&r.run, err, sizeof err) == 0) /* from the blocks measured, whatever stopped the loop */
        pb_memfloor_report_tokens(rep, &r.run);
    else
        pb_harness_fail(&r.h, "%s", err);
    pb_memfloor_report_print(stdout, rep, &r.run);
    static const char *const plots[] = { "memory_floor.png", "token_floor.png", NULL };
    int rc = pb_harness_close(&r.h, "memory_floor.gp", plots);
    pb_memfloor_run_free(&r.run);
    pb_model_arg_close(&r.marg);
    return rc;
}
