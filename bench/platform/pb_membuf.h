/* pb_membuf.h — the OS side of a bandwidth buffer: free memory (MemAvailable), a 2 MiB-aligned anonymous
 * mapping that asks for transparent huge pages, and how many huge pages it actually got (AnonHugePages in
 * /proc/self/smaps). Nothing here touches the buffer: the harness first-touches it from the threads that
 * will read it. The file-path variants exist so tests can feed fixtures. */
#ifndef PB_MEMBUF_H
#define PB_MEMBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_HUGE_PAGE (2u << 20) /* x86-64's transparent huge page: the alignment asked for */

typedef struct pb_membuf {
    uint8_t *p;       /* PB_HUGE_PAGE-aligned start */
    size_t bytes;     /* as asked */
    void *map;        /* the whole mapping (p rounded down to where mmap put it) */
    size_t map_bytes;
} pb_membuf;

/* MemAvailable in bytes, from /proc/meminfo (or path). 0, or -1 when absent or unreadable. */
int pb_mem_available(uint64_t *out);
int pb_mem_available_from(const char *path, uint64_t *out);

/* Maps bytes at a PB_HUGE_PAGE-aligned address; with huge, madvise(MADV_HUGEPAGE) on it (a kernel without
 * THP is not an error: the buffer then has small pages, which thp reports). 0, or -1 with errno. */
int pb_membuf_map(pb_membuf *b, size_t bytes, bool huge);
void pb_membuf_unmap(pb_membuf *b);

/* Bytes of AnonHugePages in the mappings of /proc/self/smaps (or path) that overlap [lo, hi). 0, or -1 when
 * the file cannot be read. A mapping that extends past the range (the kernel merged it with a neighbour
 * of the same flags) counts whole. */
int pb_thp_bytes(uintptr_t lo, uintptr_t hi, uint64_t *out);
int pb_thp_bytes_from(const char *path, uintptr_t lo, uintptr_t hi, uint64_t *out);

#endif
