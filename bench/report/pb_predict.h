/* pb_predict.h — predict.csv (`make predict`, scripts/predict.sh: llvm-mca's cycles for each kernel's hot loop on
 * several cores) read back, and report.md's section on it: per chip, whether one core's kernel outruns that
 * chip's single-core memory bandwidth (the figure and its source travel in the CSV, from expect/predict_cpus.csv).
 *
 * Which rows count: status ok and branchy (a loop GCC laid out with out-of-line blocks: its straight-line text
 * modelled once) give a prediction; element-loop and nested give a lower bound on the cycles, so an upper bound on
 * the GB/s (it settles "does not outrun", never "outruns"); every other status (overlap, none, function-*,
 * mca-error, cpu-lacks-*) gives nothing. */
#ifndef PB_PREDICT_H
#define PB_PREDICT_H

#include <stdbool.h>
#include <stdio.h>

#include "kern_format.h"
#include "pb_csvread.h"
#include "pb_rundata.h"

#define PB_PREDICT_CHIPS 32
/* A column per format of KERN_FORMATS, in its order: a format with no SIMD kernel in predict.sh has no row, and
 * its column says none. */
#define PB_PREDICT_FORMATS KERN_FORMAT_COUNT

/* One chip's best prediction for one format: the fastest variant with a usable row (a prediction before a bound). */
typedef struct pb_predict_cell {
    double gbs;      /* NaN: no usable row */
    bool bound;      /* gbs is an upper bound (element-loop, nested) */
    char kernel[32]; /* its ISA, and its layout when not the file's ("avx512 q8_0_r16") */
    char status[24];
} pb_predict_cell;

typedef struct pb_predict_chip {
    char arch[16], cpu[32], chip[128], model[24], bw_kind[16], bw_source[256];
    double clock_ghz, bw_gbs; /* bw_gbs NaN: the row gave none */
    pb_predict_cell f[PB_PREDICT_FORMATS];
} pb_predict_chip;

typedef struct pb_predict {
    int n;              /* chips, in the order of their first row */
    int rows, unusable; /* rows read; rows that gave nothing (their statuses are in the CSV) */
    bool truncated;     /* more chips than PB_PREDICT_CHIPS: the rest left out */
    pb_predict_chip c[PB_PREDICT_CHIPS];
} pb_predict;

/* A row's status: 0 a prediction, 1 a lower bound on the cycles (so an upper bound on the GB/s), -1 nothing. */
int pb_predict_status_kind(const char *status);
/* The format name of index i < PB_PREDICT_FORMATS. */
const char *pb_predict_format_name(int i);
/* Row r's weight layout in column col of a predict.csv or kernels.csv: "file" when the column is absent (a table
 * from before repacked layouts had rows) or the cell empty. */
const char *pb_predict_layout(const pb_table *t, size_t r, int col);
/* Reads a predict.csv. 0; -1 with e filled (e->missing when the file is absent, or a column missing). */
int pb_predict_read(pb_predict *p, const char *path, pb_csverr *e);
/* 1: the cell outruns bw; 0: it does not (a bound below bw counts); -1: unknown (no usable row, no bandwidth,
 * or an upper bound at or above bw). */
int pb_predict_outruns(const pb_predict_cell *c, double bw);
/* The report.md section when dir holds predict.csv (nothing when it does not; one line naming the problem when
 * it cannot be read). */
void pb_report_predict(FILE *o, const char *dir);
/* Beside it, when kernels.csv has cycles per block (pb_predict_measured.c): per format and variant bench_kernels ran
 * in L2 on one thread at batch 1, the cycles a block took here beside llvm-mca's for each core of this
 * architecture in predict.csv. Nothing without both. */
void pb_report_predict_measured(FILE *o, const pb_rundata *rd);

#endif
