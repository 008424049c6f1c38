/* pb_memfloor_run.h — bench_memory_floor's measuring loop. One block per thread count: a spin pool pinned to the
 * placement, a fresh buffer first-touched by its threads, every selected kernel (pb_memfloor_measure), the round trip
 * between the set's first two cpus before and after (a block's rows are complete, placement and all, when it
 * returns: the caller writes them then). At the end, the floor per thread count (the best read kernel's best
 * pass) and the per-token floor it sets for every model preset and format, and a model file's, at each context:
 * the weights and the f16 KV cache a token at that depth reads.
 *
 * Measuring only, and it never exits: a failure returns -1 with the reason, the rows measured so far kept; a
 * signal (pb_stop_signal) ends a block at the next kernel with 0. */
#ifndef PB_MEMFLOOR_RUN_H
#define PB_MEMFLOOR_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"
#include "pb_memfloor.h"
#include "pb_memread.h"
#include "pb_model.h"
#include "pb_model_file.h"
#include "pb_placement.h"
#include "pb_topo.h"
#include "pb_weight_format.h"

#define PB_MEMFLOOR_MAX_KERNS 32

/* One measured point (one row of memory_floor.csv). */
typedef struct pb_memfloor_row {
    pb_memfloor_point pt;
    uint64_t thp_bytes;
    double rt_before, rt_after;
    char placement[8];
    char cpus[256];
} pb_memfloor_row;

/* The floor at one thread count: the best read kernel's best pass. */
typedef struct pb_memfloor_floor {
    int threads;
    double gbps;
    const pb_memkern *kern;
    char placement[8];
} pb_memfloor_floor;

/* One row of token_floor.csv. */
typedef struct pb_memfloor_token {
    const pb_model *model;
    pb_weight_format format; /* a format or a mix (pb_weight_format.h) */
    const char *format_name; /* the format column: its name, or a model file's own (pb_model_file_format) */
    uint64_t weight_bytes;
    int context;       /* positions in the KV cache */
    uint64_t kv_bytes; /* the f16 cache a token at that context reads */
    const pb_memfloor_floor *floor;
    double ms_per_token, tok_per_s;
} pb_memfloor_token;

/* What to measure: the options, checked and defaulted. */
typedef struct pb_memfloor_plan {
    const char *prog;                         /* heads the lines on stderr */
    const pb_topo *topo;
    const pb_cpulist *set;                    /* --cpus, logical order: placements are taken from it */
    const pb_memkern *kerns[PB_MEMFLOOR_MAX_KERNS]; /* in table order (reads, copies, writes) */
    int nkerns;
    bool kerns_named;                         /* --kernel chose them (forced), not every one this CPU has */
    const pb_list *threads;
    uint64_t size_mib;
    int passes;
    bool quick, no_thp;
    const pb_where *where;                    /* placement tags: the topology or the round trips */
    const pb_model_file *file;                /* --model FILE: its token floors too (NULL: the presets only) */
    const pb_list *contexts;                  /* --context: the depths of every token floor (NULL: 0 only) */
} pb_memfloor_plan;

typedef struct pb_memfloor_run {
    const pb_memfloor_plan *p;
    pb_memfloor_row *rows;                 /* threads x kernels at most */
    int nrows;
    pb_memfloor_floor floors[PB_LIST_MAX];
    int nfloors;
    pb_memfloor_token *tokens;             /* (model x format, then the file) x context x floor */
    int ntokens;
    bool invalid;                     /* a pass's byte sum was wrong: no row is a result */
    int done, total;                  /* points, for the progress line */
    uint64_t t0;
    pb_memfloor_ctx ctx;                    /* the thread count being measured (64 KiB of per-thread slots) */
} pb_memfloor_run;

/* --kernel's list (empty or "all": every kernel this CPU has, else each must run here) into p->kerns. 0, or -1
 * with the line ("--kernel NAME: this CPU lacks ...") in err. */
int pb_memfloor_run_pick_kernels(pb_memfloor_plan *p, pb_list *kernels, char *err, size_t errlen);

/* The last-level cache one thread's reads can hit: the largest instance above any kind's first PU. Not the sum
 * over instances: VMs often report the host's whole L3 once per vCPU, and a sum would double what is already
 * too large. 0 when hwloc knows no cache. */
uint64_t pb_memfloor_run_llc_bytes(const pb_topo *t);

/* 0, or -1 with err (the rows cannot be held). */
int pb_memfloor_run_begin(pb_memfloor_run *run, const pb_memfloor_plan *p, char *err, size_t errlen);

/* One thread count's block. 0, or -1 with err (the rows it measured before the failure are complete all the
 * same). */
int pb_memfloor_run_block(pb_memfloor_run *run, int threads, char *err, size_t errlen);

/* The floors and token floors from the rows measured. 0, or -1 with err. */
int pb_memfloor_run_derive(pb_memfloor_run *run, char *err, size_t errlen);

/* The row is its thread count's floor. */
bool pb_memfloor_run_is_floor(const pb_memfloor_run *run, const pb_memfloor_row *row);

void pb_memfloor_run_free(pb_memfloor_run *run);

/* The formats a per-token floor is given for: every weight format and mix (pb_weight_format, from KERN_FORMATS) but
 * f32, into out (PB_WEIGHT_FORMAT_COUNT entries at most); how many. */
int pb_memfloor_token_formats(pb_weight_format *out);

#endif
