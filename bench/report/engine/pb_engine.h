/* pb_engine.h — another engine beside the run: llama-bench's results found in the run directory
 * (llama-bench.*) or named with --engine FILE, and each of their token-generation points (n_prompt 0, n_gen > 0)
 * placed against this machine's read floor for the model's bytes at the same threads (memory_floor.csv) and
 * against poolbench's own decode of the same model at the same threads and depth (sweep.csv); and each of their
 * prompt-processing points (ppN) beside poolbench's own prompt of N tokens (bench_sweep --prompt). Computing the
 * points (pb_engine_points) is kept apart from writing them (pb_report_engine). */
#ifndef PB_ENGINE_H
#define PB_ENGINE_H

#include <stdbool.h>
#include <stdio.h>

#include "pb_digest.h"

/* DIR's llama-bench.* files (by name; at most PB_ENGINE_FILES with extra) and extra (NULL: none) into rd->eng.
 * 0; -1 with the first bad file's one line in err ("FILE:LINE:COL: what"), nothing kept. */
int pb_engines_load(pb_rundata *rd, const char *extra, char *err, size_t len);

/* One test of an engine file as a tg and a pp point both read it: where it stands, and its repetitions. */
typedef struct pb_engine_test {
    const pb_llamabench *file;
    const pb_llamabench_test *t;
    int threads;
    long long depth;
    double tok_s, sd;              /* llama-bench's mean over repetitions, and its standard deviation */
    double lo, hi;                 /* the slowest and fastest repetition (json, jsonl: its samples) */
    size_t reps;                   /* repetitions behind lo and hi (0: the format has no samples) */
    double spread;                 /* (hi - lo) / median, or 2 sd / mean without samples */
    bool noisy;                    /* spread over PB_NOISY_SPREAD */
} pb_engine_test;

/* One tg point of an engine file, placed. NaN where a figure has no source. */
typedef struct pb_engine_pt {
    pb_engine_test e;
    long long n_gen;
    double bytes;                  /* model_size: the bytes the file says the model's tensors hold */
    double floor_gbps;             /* the read floor at these threads: its median pass (best where none) */
    bool floor_is_best;
    double floor_tok_s;            /* floor_gbps / bytes */
    double pct_floor;              /* tok_s / floor_tok_s */
    /* poolbench's fastest decode of the same model at the same threads and depth (batch 1, no emulation) */
    const char *pb_match;          /* "the same file", "the same shape and format"; NULL: no such point */
    char pb_model[PB_DIGEST_NAME], pb_format[PB_DIGEST_NAME], pb_policy[PB_DIGEST_NAME], pb_schedule[PB_DIGEST_NAME];
    double pb_tok_s, pb_pct_floor, pb_weight_bytes;
} pb_engine_pt;

/* One pp test (n_prompt > 0, n_gen 0) beside poolbench's fastest prompt of as many tokens of the same model at the
 * same threads and depth (sweep.csv's prompt column; no emulated slow cpu). NaN where a figure has no source. */
typedef struct pb_engine_pp {
    pb_engine_test e;
    long long n_prompt;
    const char *pb_match;          /* as pb_engine_pt's; NULL: sweep.csv has no such prompt */
    char pb_policy[PB_DIGEST_NAME], pb_schedule[PB_DIGEST_NAME];
    double pb_tok_s, pb_roof_share;
} pb_engine_pp;

#define PB_ENGINE_POINTS 64

/* The tg points of rd's engine files in file order, at most max; the tests that are not tg are counted in
 * *skipped (NULL allowed). */
int pb_engine_points(const pb_rundata *rd, const pb_digest *d, pb_engine_pt *out, int max, int *skipped);

/* The pp tests of rd's engine files in file order, at most max. */
int pb_engine_pp_points(const pb_rundata *rd, pb_engine_pp *out, int max);

/* report.md's "Your engine beside the floor" (nothing when the run has no engine file). */
void pb_report_engine(FILE *o, const pb_rundata *rd, const pb_digest *d);
/* Its body under a heading line of the caller's (compare.md's per machine): the files, the table, the
 * sentences. */
void pb_report_engine_body(FILE *o, const pb_rundata *rd, const pb_digest *d);

#endif
