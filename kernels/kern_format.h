/* kern_format.h — the weight formats (ggml's byte layouts) as data: every rate and byte count in poolbench
 * is computed from this table, never by each kernel. */
#ifndef KERN_FORMAT_H
#define KERN_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum kern_format {
    KERN_F32,
    KERN_F16,
    KERN_Q8_0,
    KERN_Q4_0,
    KERN_Q1_0,
    KERN_TQ2_0,
    KERN_Q4_K,
    KERN_Q6_K,
    KERN_FORMAT_COUNT
} kern_format;

typedef struct kern_format_info {
    const char *name;  /* "f32", "f16", "q8_0", "q4_0", "q1_0", "tq2_0", "q4_K", "q6_K" */
    int block;         /* weights per block */
    int block_bytes;   /* bytes per block */
    const char *act;   /* activation format its dot product takes: "f32", "q8_0", "q8_K" */
} kern_format_info;

/* NULL for an unknown format. */
const kern_format_info *kern_format_get(kern_format f);
/* 0 and *out on a known name, -1 otherwise. */
int kern_format_parse(const char *name, kern_format *out);
/* Bytes of a rows x cols weight matrix; 0 when cols is not a multiple of the block. */
uint64_t kern_format_matrix_bytes(kern_format f, uint64_t rows, uint64_t cols);
/* The names, NULL-terminated, in enum order (for option tables). */
extern const char *const kern_format_names[KERN_FORMAT_COUNT + 1];

#endif
