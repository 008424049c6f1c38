/* kern_layout.h — the weight layouts a matvec can stream: the file's own (ggml's blocks, row after row) or one
 * re-laid at load from those blocks (kern_repack.h makes them and says what each holds). Data, as kern_format.h:
 * a CSV's `layout` column and a wisdom file name them from this table. */
#ifndef KERN_LAYOUT_H
#define KERN_LAYOUT_H

#include "kern_format.h"

typedef enum kern_layout {
    KERN_LAYOUT_FILE,        /* the file's blocks as they are: every format */
    KERN_LAYOUT_Q1_0_R32LUT, /* q1_0, 32 rows interleaved, dotted through 4-weight look-up tables */
    KERN_LAYOUT_Q4_0_R16,    /* q4_0, 16 rows interleaved 4 bytes at a time, a row a dword lane */
    KERN_LAYOUT_COUNT
} kern_layout;

typedef struct kern_layout_info {
    const char *name;   /* "file", "q1_0_r32lut", "q4_0_r16" */
    kern_format fmt;    /* the format it re-lays; KERN_FORMAT_COUNT for file (any) */
    int rows;           /* rows interleaved in one group: the unit a job's rows start at (1 for file) */
    bool tables;        /* its activations need kern_act.lut (kern_act_use_layout allocates them) */
} kern_layout_info;

/* NULL for an unknown layout. */
const kern_layout_info *kern_layout_get(kern_layout l);
/* 0 and *out on a known name, -1 otherwise. */
int kern_layout_parse(const char *name, kern_layout *out);
/* The names, NULL-terminated, in enum order. */
extern const char *const kern_layout_names[KERN_LAYOUT_COUNT + 1];

#endif
