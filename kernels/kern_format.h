/* kern_format.h — the weight formats (ggml's byte layouts) as data: every rate and byte count in poolbench
 * is computed from this table, never by each kernel. */
#ifndef KERN_FORMAT_H
#define KERN_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every weight format, written once: X(ID, name, weights per block, bytes per block, activation format its dot
 * product takes) gives KERN_ID and its row of the table. */
#define KERN_FORMATS(X)                \
    X(F32, f32, 1, 4, f32)             \
    X(F16, f16, 1, 2, f32)             \
    X(Q8_0, q8_0, 32, 34, q8_0)        \
    X(Q4_0, q4_0, 32, 18, q8_0)        \
    X(Q1_0, q1_0, 128, 18, q8_0)       \
    X(TQ2_0, tq2_0, 256, 66, q8_K)     \
    X(Q4_K, q4_K, 256, 144, q8_K)      \
    X(Q6_K, q6_K, 256, 210, q8_K)

typedef enum kern_format {
#define KERN_FORMAT_ENUM(id, name, block, bytes, act) KERN_##id,
    KERN_FORMATS(KERN_FORMAT_ENUM)
#undef KERN_FORMAT_ENUM
    KERN_FORMAT_COUNT
} kern_format;

typedef struct kern_format_info {
    const char *name;  /* KERN_FORMATS' name */
    int block;         /* weights per block */
    int block_bytes;   /* bytes per block */
    const char *act;   /* activation format its dot product takes: "f32", "q8_0", "q8_K" */
} kern_format_info;

/* NULL for an unknown format. */
const kern_format_info *kern_format_get(kern_format f);
/* 0 and *out on a known name, -1 otherwise. */
int kern_format_parse(const char *name, kern_format *out);
/* Whether n values are whole blocks of f: a known format and n a multiple of its block (0 is). */
bool kern_format_whole_blocks(kern_format f, uint64_t n);
/* Bytes of a rows x cols weight matrix; 0 when cols is not a multiple of the block. */
uint64_t kern_format_matrix_bytes(kern_format f, uint64_t rows, uint64_t cols);
/* The names, NULL-terminated, in enum order (for option tables). */
extern const char *const kern_format_names[KERN_FORMAT_COUNT + 1];

#endif
