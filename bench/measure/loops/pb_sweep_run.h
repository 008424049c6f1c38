/* pb_sweep_run.h — bench_sweep's measuring loop. For each format the weights are built once (or a model file's
 * loaded: copied or mapped), by every cpu of the largest set (first-touched where the points read them); every
 * core set x thread count is a block (its placement, its round-trip pair and its read floor); in a block every
 * cache type x context gets its KV cache filled by the block's cpus, and every batch x policy x schedule x glue
 * mode there is one point (pb_sweep_measure). Each point's row goes to the caller as the point ends (plan->row: the CSVs)
 * and stays in the run for the table.
 *
 * Measuring only, and it never exits: a failure returns -1 with the reason, the rows measured so far kept (the
 * harness publishes them); a signal (pb_stop_signal) ends the loop at the next point with 0. */
#ifndef PB_SWEEP_RUN_H
#define PB_SWEEP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"
#include "pb_cpusets.h"
#include "pb_model.h"
#include "pb_model_file.h"
#include "pb_placement.h"
#include "pb_sweep.h"
#include "pb_vec.h"

#define PB_SWEEP_MAX_SCHED 16

/* What to measure: the options, defaults applied. The lists are the caller's (they outlive the run). */
typedef struct pb_sweep_plan {
    const char *prog;                 /* heads the warnings on stderr */
    const pb_model *model;            /* a preset, or file's shape */
    const pb_model_file *file;        /* --model FILE: its weights, in their types (formats: its first only) */
    bool mmap;                        /* with file: read through its mapping, not copied into the arena */
    const pb_list *contexts, *kv_types; /* the cache depths and types: every block runs each pair */
    kern_variant variant;
    const pb_topo *topo;              /* the live machine */
    const pb_cpusets *sets;
    const pb_list *formats, *policies, *glues, *threads, *batches;
    pb_sched sched[PB_SWEEP_MAX_SCHED]; /* the schedules (pb_sweep_schedules) */
    int nsched;
    bool sched_given;                 /* --schedule was given: every schedule on every set (pb_sweep_sched_runs) */
    const pb_emulate *emulate;        /* --emulate-slow (NULL: none) */
    const pb_where *where;            /* placement tags: the topology or the round trips (NULL: the round trips) */
    int tokens, warmup, interval_ms, floor_passes;
    unsigned spin_us;
    uint64_t seed;
    bool quick;                       /* shorter round trips */
    const char *run_dir;              /* its memory_floor.csv, if any, names each block's read kernel */
    int (*row)(void *ctx, const pb_sweep_row *r); /* each point as it ends: 0, or -1 with errno (it stops) */
    void *ctx;
} pb_sweep_plan;

typedef struct pb_sweep_run {
    pb_vec rows;                      /* pb_sweep_row, in measuring order */
    pb_vec refs;                      /* the first point's logits per format, batch, cache type and context */
    int done, total;                  /* points, for the progress line */
    uint64_t t0;
} pb_sweep_run;

/* --schedule's words: "static", "weighted" or "dynamic:N" (1 <= N <= 1e9), comma-separated, into p->sched /
 * p->nsched. NULL: static, and where the run has unequal cores (more than one core kind in its sets, or
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

/* Every point of the plan (see the top). 0, or -1 with the reason in err; run->rows holds what was measured
 * either way. */
int pb_sweep_run_all(pb_sweep_run *run, const pb_sweep_plan *p, char *err, size_t errlen);

/* Points whose last logits differed from the first point's of their format and batch. */
int pb_sweep_run_unverified(const pb_sweep_run *run);

void pb_sweep_run_free(pb_sweep_run *run);

#endif
