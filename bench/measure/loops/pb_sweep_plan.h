/* pb_sweep_plan.h — what a sweep measures (bench_sweep's options, defaults applied) and the questions asked of
 * it before anything runs: which schedules, which of them run on a block, the capacities a weighted split starts
 * from, whether the weights fit in memory, the walk over its points and how many there are. Apart from
 * pb_sweep_run.c, which measures along the walk: these are answered from the options and the topology alone,
 * without measuring (tests ask them directly). */
#ifndef PB_SWEEP_PLAN_H
#define PB_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"
#include "pb_counters.h"
#include "pb_cpusets.h"
#include "pb_kernel_choice.h"
#include "pb_model.h"
#include "pb_model_file.h"
#include "pb_placement.h"
#include "pb_sweep.h"
#include "pb_weight_format.h"

#define PB_SWEEP_MAX_SCHED 16

/* A plan in five concerns, each function below taking the ones it reads. The lists are the caller's (they
 * outlive the run). */

/* What is measured: the model's weights in each format, and the steps every block runs at every depth. */
typedef struct pb_sweep_work {
    const pb_model *model;            /* a preset, or file's shape */
    const pb_model_file *file;        /* --model FILE: its weights, in their types (formats: its first only) */
    bool mmap;                        /* with file: read through its mapping, not copied into the arena */
    const pb_list *formats;
    const pb_list *contexts, *kv_types; /* the cache depths and types: every block runs each pair */
    const pb_list *batches;           /* a decode step's rows */
    const pb_list *prompts;           /* --prompt: prompts of these tokens after the batches (NULL: none) */
    uint64_t seed;
} pb_sweep_work;

/* Where: the cores, and the thread counts placed on them. */
typedef struct pb_sweep_cores {
    const pb_topo *topo;              /* the live machine */
    const pb_cpusets *sets;
    const pb_list *threads;
    bool oversubscribe;               /* --threads was given: a count above a set's PUs runs there oversubscribed
                                       * (pb_sweep_place), where the default counts skip it */
    const pb_emulate *emulate;        /* --emulate-slow (NULL: none) */
    const pb_where *where;            /* placement tags: the topology or the round trips (NULL: the round trips) */
    const char *co_runner;            /* --co-runner's spec ("": none): every row's co_runner */
} pb_sweep_cores;

/* How a point's dispatches run. */
typedef struct pb_sweep_dispatch {
    const pb_list *policies, *glues;
    const pb_list *prompt_policies;   /* the policies a prompt's points run (a prompt's step is long; NULL: policies) */
    pb_sched sched[PB_SWEEP_MAX_SCHED]; /* the schedules (pb_sweep_schedules) */
    int nsched;
    bool sched_given;                 /* --schedule was given: every schedule on every set (pb_sweep_sched_runs) */
    pb_kernel_picker kernels;         /* each format's kernel: wisdom's, by rank, or forced (pb_kernel_choice.h) */
    bool tuned_shape;                 /* spin points run the pool shape kernels.wisdom measured faster at their
                                       * thread count (pb_sweep_point_kind): no policy was forced */
    unsigned spin_us;
} pb_sweep_dispatch;

/* How long a point measures, and what it measures beside its tokens. */
typedef struct pb_sweep_timing {
    int tokens, warmup;               /* a decode point's timed and untimed steps */
    int prompt_tokens, prompt_warmup; /* a prompt point's */
    int interval_ms, floor_passes;
    bool quick;                       /* shorter round trips */
    double pair_s;                    /* seconds of interleaved rounds per block and batch (0: none) */
    pb_counters *counters;            /* --counters, open on the calling thread, the points' caller (NULL: none) */
    const char *procstat;             /* /proc/stat's path for the rounds' steal (NULL: the real one) */
    const char *run_dir;              /* its memory_floor.csv, if any, names each block's read kernel */
} pb_sweep_timing;

/* Where the rows go. */
typedef struct pb_sweep_sink {
    const char *prog;                 /* heads the warnings on stderr */
    int (*row)(void *ctx, const pb_sweep_row *r); /* each point as it ends: 0, or -1 with errno (it stops) */
    int (*pair_row)(void *ctx, const pb_sweep_pair *pr); /* each interleaved token: 0, or -1 with errno */
    void *ctx;
} pb_sweep_sink;

typedef struct pb_sweep_plan {
    pb_sweep_work work;
    pb_sweep_cores cores;
    pb_sweep_dispatch dispatch;
    pb_sweep_timing timing;
    pb_sweep_sink sink;
} pb_sweep_plan;

/* A point's place in the plan, outermost first: its weights' format; its block (core set, thread count); its depth
 * (cache type, context); its step (each batch, then each prompt); its policy, then schedule x glue mode. */
typedef enum pb_sweep_dim {
    PB_SWEEP_FORMAT,
    PB_SWEEP_SET,
    PB_SWEEP_THREADS,
    PB_SWEEP_KV,
    PB_SWEEP_CONTEXT,
    PB_SWEEP_STEP,
    PB_SWEEP_POLICY,
    PB_SWEEP_SCHED_GLUE,
    PB_SWEEP_DIMS
} pb_sweep_dim;

/* One point of the walk: its indices, the values they name, and its block's threads placed. */
typedef struct pb_sweep_point {
    int at[PB_SWEEP_DIMS];
    int changed;                      /* the outermost dimension whose index changed since the last point */
    bool started;
    pb_weight_format fmt;
    const pb_cpuset *set;
    int threads;
    pb_cpulist held, place;           /* pb_sweep_place's, for the block */
    pb_kv_type kv;
    size_t context;
    size_t rows;                      /* a decode's batch, or a prompt's tokens */
    bool prompt;
    int policy;                       /* as listed (pb_sweep_point_kind: the kind it runs) */
    int sched;                        /* into dispatch.sched */
    pb_glue_mode glue;
} pb_sweep_point;

/* Moves pt (zeroed: before the first point) to the next point in the order above, a block whose threads do not
 * fit its set (pb_sweep_place) passed over. 1 at a point, with pt->changed (the first: PB_SWEEP_FORMAT); 0 past
 * the last; -1 with the reason in err when a block's threads cannot be placed. */
int pb_sweep_next(const pb_sweep_plan *p, pb_sweep_point *pt, char *err, size_t errlen);

/* --schedule's words: "static", "weighted", "dynamic:N" or "steal:N" (1 <= N <= 1e9), comma-separated, into
 * d->sched / d->nsched. NULL: static, and where the run has unequal cores (more than one core kind in c's sets, or
 * c->emulate: set it first) also weighted and dynamic:PB_SWEEP_DYNAMIC_ROWS. 0, or -1 with the reason (no head:
 * the caller names the option) in err. */
int pb_sweep_schedules(pb_sweep_dispatch *d, const pb_sweep_cores *c, const char *spec, char *err, size_t errlen);

/* Whether schedule s runs on a block placed on `place`: always when --schedule was given or s is static; the
 * default weighted and dynamic schedules only where the block's cores are unequal (two core kinds, or an
 * emulated slow cpu), since on equal cores they split as static does and only cost time. So a hybrid
 * machine's default sweep has P-only static beside P+E static, weighted and dynamic. */
bool pb_sweep_sched_runs(const pb_sweep_plan *p, int s, const pb_cpulist *place);

/* Each placed thread's capacity from the topology's cpukinds (Linux's cpu_capacity, which hwloc reports as
 * LinuxCapacity; 0 where the OS gives none) into cap[0..place->n), for a weighted split's fixed shares
 * (pb_shares_init measures instead unless every one is known and they differ). -1 where the topology does not
 * hold a cpu or a cpu is emulated (its capacity is then not the OS's figure). */
int pb_sweep_capacities(const pb_sweep_cores *c, const pb_cpulist *place, double *cap);

/* Refuses a format whose weights would not fit: a width that is not a multiple of its block, or weights larger
 * than half of MemAvailable (the run would swap, or push the rest of the machine out of the page cache). 0, or
 * -1 with the line (naming --model and --format) in err. */
int pb_sweep_check_memory(const pb_sweep_work *w, char *err, size_t errlen);

/* The kind a point of policy kind at threads threads runs: kind itself, but for spin when d->tuned_shape and the
 * wisdom holds a dispatch entry at exactly threads saying tree (bench_tune measured the tree-shaped spin pool's
 * dispatch faster there): tree. Flat without such an entry (the baseline). */
int pb_sweep_point_kind(const pb_sweep_dispatch *d, int kind, int threads);

/* Where `threads` threads of a point on set run: pb_topo_place's placement into both held and place when the set
 * holds that many; else, with c->oversubscribe, every PU of the set placed into held (the distinct cpus: the
 * floor's and the core counts') and the threads wrapped around them into place (thread i on held[i % n]): the
 * point is oversubscribed. 0, 1 (skipped: more threads than the set holds, and no oversubscription), or -1 with
 * the reason in err. */
int pb_sweep_place(const pb_sweep_cores *c, const pb_cpuset *set, int threads, pb_cpulist *held, pb_cpulist *place,
                   char *err, size_t errlen);

/* A step's timed and untimed tokens, and the policies its points run: a prompt's own, else the decode's. */
int pb_sweep_tokens(const pb_sweep_timing *t, bool prompt);
int pb_sweep_warmup(const pb_sweep_timing *t, bool prompt);
const pb_list *pb_sweep_policies(const pb_sweep_dispatch *d, bool prompt);

/* Every point of the walk that runs (a schedule that does not run on its block left out: pb_sweep_sched_runs). */
int pb_sweep_plan_points(const pb_sweep_plan *p);

#endif
