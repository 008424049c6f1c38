/* pb_sweep_plan.h — what a sweep measures (bench_sweep's options, defaults applied) and the questions asked of
 * it before anything runs: which schedules, which of them run on a block, the capacities a weighted split starts
 * from, whether the weights fit in memory, how many points there are. Apart from pb_sweep_run.c, which walks the
 * plan: these are answered from the options and the topology alone, without measuring (tests ask them directly). */
#ifndef PB_SWEEP_PLAN_H
#define PB_SWEEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"
#include "pb_counters.h"
#include "pb_cpusets.h"
#include "pb_kchoice.h"
#include "pb_model.h"
#include "pb_model_file.h"
#include "pb_placement.h"
#include "pb_sweep.h"

#define PB_SWEEP_MAX_SCHED 16

/* What to measure: the options, defaults applied. The lists are the caller's (they outlive the run). */
typedef struct pb_sweep_plan {
    const char *prog;                 /* heads the warnings on stderr */
    const pb_model *model;            /* a preset, or file's shape */
    const pb_model_file *file;        /* --model FILE: its weights, in their types (formats: its first only) */
    bool mmap;                        /* with file: read through its mapping, not copied into the arena */
    const pb_list *contexts, *kv_types; /* the cache depths and types: every block runs each pair */
    pb_kpicker kernels;               /* each format's kernel: wisdom's, by rank, or forced (pb_kchoice.h) */
    bool tuned_shape;                 /* spin points run the pool shape kernels.wisdom measured faster at their
                                       * thread count (pb_sweep_point_kind): no policy was forced */
    const pb_topo *topo;              /* the live machine */
    const pb_cpusets *sets;
    const pb_list *formats, *policies, *glues, *threads, *batches;
    const pb_list *prompts;           /* --prompt: prompts of these tokens after the batches (NULL or none: no prompt) */
    const pb_list *prompt_policies;   /* the policies a prompt's points run (a prompt's step is long) */
    int prompt_tokens, prompt_warmup; /* a prompt point's timed and untimed steps */
    pb_sched sched[PB_SWEEP_MAX_SCHED]; /* the schedules (pb_sweep_schedules) */
    int nsched;
    bool sched_given;                 /* --schedule was given: every schedule on every set (pb_sweep_sched_runs) */
    const char *co_runner;            /* --co-runner's spec ("": none): every row's co_runner */
    bool oversubscribe;               /* --threads was given: a count above a set's PUs runs there oversubscribed
                                       * (pb_sweep_place), where the default counts skip it */
    const pb_emulate *emulate;        /* --emulate-slow (NULL: none) */
    pb_counters *counters;            /* --counters, open on the calling thread, the points' caller (NULL: none) */
    const pb_where *where;            /* placement tags: the topology or the round trips (NULL: the round trips) */
    int tokens, warmup, interval_ms, floor_passes;
    unsigned spin_us;
    uint64_t seed;
    bool quick;                       /* shorter round trips */
    const char *run_dir;              /* its memory_floor.csv, if any, names each block's read kernel */
    int (*row)(void *ctx, const pb_sweep_row *r); /* each point as it ends: 0, or -1 with errno (it stops) */
    double pair_s;                    /* seconds of interleaved rounds per block and batch (0: none) */
    const char *procstat;             /* /proc/stat's path for their steal (NULL: the real one) */
    int (*pair_row)(void *ctx, const pb_sweep_pair *pr); /* each of their tokens: 0, or -1 with errno */
    void *ctx;
} pb_sweep_plan;

/* --schedule's words: "static", "weighted", "dynamic:N" or "steal:N" (1 <= N <= 1e9), comma-separated, into
 * p->sched / p->nsched. NULL: static, and where the run has unequal cores (more than one core kind in its sets, or
 * p->emulate: set it first) also weighted and dynamic:PB_SWEEP_DYNAMIC_ROWS. 0, or -1 with the reason (no head:
 * the caller names the option) in err. */
int pb_sweep_schedules(pb_sweep_plan *p, const char *spec, char *err, size_t errlen);

/* Whether schedule s runs on a block placed on `place`: always when --schedule was given or s is static; the
 * default weighted and dynamic schedules only where the block's cores are unequal (two core kinds, or an
 * emulated slow cpu), since on equal cores they split as static does and only cost time. So a hybrid
 * machine's default sweep has P-only static beside P+E static, weighted and dynamic. */
bool pb_sweep_sched_runs(const pb_sweep_plan *p, int s, const pb_cpulist *place);

/* Each placed thread's capacity from the topology's cpukinds (Linux's cpu_capacity, which hwloc reports as
 * LinuxCapacity; 0 where the OS gives none) into cap[0..place->n), for a weighted split's fixed shares
 * (pb_shares_init measures instead unless every one is known and they differ). -1 where the topology does not
 * hold a cpu or a cpu is emulated (its capacity is then not the OS's figure). */
int pb_sweep_capacities(const pb_sweep_plan *p, const pb_cpulist *place, double *cap);

/* Refuses a format whose weights would not fit: a width that is not a multiple of its block, or weights larger
 * than half of MemAvailable (the run would swap, or push the rest of the machine out of the page cache). 0, or
 * -1 with the line (naming --model and --format) in err. */
int pb_sweep_check_memory(const pb_sweep_plan *p, char *err, size_t errlen);

/* The kind a point of policy kind at threads threads runs: kind itself, but for spin when p->tuned_shape and the
 * wisdom holds a dispatch entry at exactly threads saying tree (bench_tune measured the tree-shaped spin pool's
 * dispatch faster there): tree. Flat without such an entry (the baseline). */
int pb_sweep_point_kind(const pb_sweep_plan *p, int kind, int threads);

/* Where `threads` threads of a point on set run: pb_topo_place's placement into both held and place when the set
 * holds that many; else, with p->oversubscribe, every PU of the set placed into held (the distinct cpus: the
 * floor's and the core counts') and the threads wrapped around them into place (thread i on held[i % n]): the
 * point is oversubscribed. 0, 1 (skipped: more threads than the set holds, and no oversubscription), or -1 with
 * the reason in err. */
int pb_sweep_place(const pb_sweep_plan *p, const pb_cpuset *set, int threads, pb_cpulist *held, pb_cpulist *place,
                   char *err, size_t errlen);

/* A step's timed and untimed tokens, and the policies its points run: a prompt's own, else the decode's. */
int pb_sweep_tokens(const pb_sweep_plan *p, bool prompt);
int pb_sweep_warmup(const pb_sweep_plan *p, bool prompt);
const pb_list *pb_sweep_policies(const pb_sweep_plan *p, bool prompt);

/* The points of p before its depths (blocks x batches x policies x schedules x glue modes, placements that
 * fail left out): every block runs each of them at every cache type x context. */
int pb_sweep_plan_points(const pb_sweep_plan *p);

#endif
