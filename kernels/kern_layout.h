/* kern_layout.h — the weight layouts a matvec can stream: the file's own (ggml's blocks, row after row) or one
 * re-laid at load from those blocks (kern_repack.h makes them and says what each holds). Data, as kern_format.h:
 * a CSV's `layout` column and a wisdom file name them from this table. */
#ifndef KERN_LAYOUT_H
#define KERN_LAYOUT_H

#include "kern_format.h"

/* What a layout's activations carry besides their own arrays (kern_act_use_layout allocates it): nothing, q1_0's
 * look-up tables (kern_act.lut, and lut256 where AVX2 runs), or the quants in q6_K_r1's code order
 * (kern_act.q6r1_qs). */
typedef enum kern_act_form { KERN_ACT_FORM_OWN, KERN_ACT_FORM_LUT, KERN_ACT_FORM_Q6R1 } kern_act_form;

/* Every layout, written once: X(ID, name, format it re-lays (FORMAT_COUNT: any), rows in a group, what its
 * activations carry (kern_act_form)) gives KERN_LAYOUT_ID and its row of kern_layout_get's table. */
#define KERN_LAYOUTS(X)                           \
    X(FILE, file, FORMAT_COUNT, 1, OWN)           \
    X(Q1_0_R32LUT, q1_0_r32lut, Q1_0, 32, LUT)    \
    X(Q4_0_R16, q4_0_r16, Q4_0, 16, OWN)          \
    X(Q8_0_R16, q8_0_r16, Q8_0, 16, OWN)          \
    X(TQ2_0_R16, tq2_0_r16, TQ2_0, 16, OWN)       \
    X(Q4_K_R16, q4_K_r16, Q4_K, 16, OWN)          \
    X(Q6_K_R16, q6_K_r16, Q6_K, 16, OWN)          \
    X(Q6_K_R1, q6_K_r1, Q6_K, 1, Q6R1)            \
    X(Q1_0_R32LUT256, q1_0_r32lut256, Q1_0, 32, LUT)

/* file: the file's blocks as they are, every format; q1_0_r32lut: 32 rows interleaved, dotted through 4-weight
 * look-up tables; q4_0_r16, q8_0_r16, tq2_0_r16, q4_K_r16 and q6_K_r16: 16 rows interleaved 4 bytes at a
 * time, a row a dword lane; q6_K_r1: q6_K's blocks in the file's order, each one's code bits re-laid so that
 * fewer instructions make its 6-bit codes; q1_0_r32lut256: q1_0_r32lut with each chunk's bytes in the order the
 * 256-bit look-ups read them. */
typedef enum kern_layout {
#define KERN_LAYOUT_ENUM(id, nm, fmt, rows, form) KERN_LAYOUT_##id,
    KERN_LAYOUTS(KERN_LAYOUT_ENUM)
#undef KERN_LAYOUT_ENUM
    KERN_LAYOUT_COUNT
} kern_layout;

typedef struct kern_layout_info {
    const char *name;   /* KERN_LAYOUTS' name */
    kern_format fmt;    /* the format it re-lays; KERN_FORMAT_COUNT for file (any) */
    int rows;           /* rows interleaved in one group: the unit a job's rows start at (1 for file) */
    kern_act_form form; /* what its activations carry (kern_act_use_layout allocates it) */
} kern_layout_info;

/* NULL for an unknown layout. */
const kern_layout_info *kern_layout_get(kern_layout l);
/* 0 and *out on a known name, -1 otherwise. */
int kern_layout_parse(const char *name, kern_layout *out);
/* The names, NULL-terminated, in enum order. */
extern const char *const kern_layout_names[KERN_LAYOUT_COUNT + 1];

#endif
