/* pb_memread.h — the memory-floor kernels as a table (likwid-bench style: a kernel is data, and rates are
 * computed from its declared traffic, never by the kernel). One file per ISA: pb_memread.c (baseline
 * x86-64: the scalar kernels and this table), and in bench/measure's ISA folders x86/pb_memread_avx2.c,
 * x86/pb_memread_avx512.c, arm/pb_memread_neon.c (reads only); each row names its ISA (kern_isa.h) and runs only where
 * kern_isa_supported says the CPU has it.
 *
 * Every kernel returns the byte sum (each byte as an unsigned value, added into a uint64_t) of the data it
 * moved: what it read (read, copy) or what it wrote (write). The sum is the same for any alignment, size
 * and ISA, so the scalar kernel is the oracle for all of them, a harness can check every pass against the
 * sum it expects, and no compiler can drop a read whose value is used. Sizes and alignments are arbitrary:
 * the wide kernels align on 64 bytes (the destination for stores) and do the head and tail bytewise. */
#ifndef PB_MEMREAD_H
#define PB_MEMREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern_isa.h"

typedef enum pb_memop {
    PB_MEMOP_READ,  /* reads src */
    PB_MEMOP_COPY,  /* reads src, writes dst */
    PB_MEMOP_WRITE, /* writes dst (PB_MEMWRITE_BYTE in every byte) */
    PB_MEMOP_COUNT
} pb_memop;

#define PB_MEMWRITE_BYTE 0x5A

/* dst and src do not overlap; read ignores dst, write ignores src. */
typedef uint64_t (*pb_memkern_fn)(void *dst, const void *src, size_t bytes);

typedef struct pb_memkern {
    const char *name;   /* --kernel name, unique across ops: "avx512-nt", "copy-avx2", "write-avx512-nt" */
    pb_memop op;
    kern_isa isa;       /* what it is written for; kern_isa_needs(isa) says what the CPU must have */
    pb_memkern_fn fn;
    int traffic;        /* bytes moved per byte of `bytes`: 1 read/write, 2 copy (read + write) */
    const char *what;   /* one line for --help and the report */
} pb_memkern;

/* The table, in order (reads first), NULL-name terminated. Within an op, an ISA's plain kernel comes before its
 * variants (-nt, -4s). */
extern const pb_memkern pb_memkerns[];
/* Kernels in the table. */
int pb_memkern_count(void);

/* NULL for an unknown name. */
const pb_memkern *pb_memkern_find(const char *name);
/* The CPU can run k (kern_isa_supported(k->isa)). */
bool pb_memkern_supported(const pb_memkern *k);
/* k is a read kernel the CPU runs: what every floor may be measured with (the walks that pick the best). */
bool pb_memkern_reads_here(const pb_memkern *k);
/* The plain kernel of op ("avx512", "copy-avx2", "write-scalar") for want or the best ISA below it that has
 * one; NULL when want cannot run here. The kernel's isa says which ran. */
const pb_memkern *pb_memkern_for(pb_memop op, kern_isa want);
/* "read", "copy", "write". */
const char *pb_memop_name(pb_memop op);

/* The oracle: the byte sum of p[0..bytes), one byte at a time. */
uint64_t pb_memsum(const void *p, size_t bytes);
/* The same sum eight bytes at a time (the scalar read kernel): for sums over large buffers. */
uint64_t pb_memsum_words(const void *p, size_t bytes);

#endif
