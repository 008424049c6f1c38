/* pb_chase.h — memory latency by pointer chasing (lmbench's lat_mem_rd, made random): a buffer's cache lines
 * linked into one random cycle, each line's first word the address of the next, walked one dependent load at a
 * time. A random order defeats the prefetchers; one line a hop makes every hop a new line; one cycle through
 * every line means a walk of any length never settles into a smaller set that a cache would hold.
 *
 *   pb_chase_build(buf, lines, seed, err, len);   // writes the cycle into buf[0 .. lines x PB_CHASE_LINE)
 *   const void *p = buf;  p = pb_chase_walk(p, hops);   // time it: ns per hop */
#ifndef PB_CHASE_H
#define PB_CHASE_H

#include <stddef.h>
#include <stdint.h>

#define PB_CHASE_LINE 64u /* bytes a hop moves to: one cache line on every x86-64 and arm64 core poolbench knows */
#define PB_CHASE_MAX_LINES 0xFFFFFFFFu /* a line number is 32 bits while the cycle is built */

/* A single cycle through lines lines of buf (Sattolo's shuffle, from seed: the same seed, the same cycle).
 * lines >= 2 and <= PB_CHASE_MAX_LINES, buf aligned to PB_CHASE_LINE. 0, or -1 with the reason in err (the scratch
 * array of 4 bytes a line could not be allocated). */
int pb_chase_build(uint8_t *buf, size_t lines, uint64_t seed, char *err, size_t errlen);

/* Follows hops links from p; returns where it stopped (use it: that keeps the loads). */
const void *pb_chase_walk(const void *p, uint64_t hops);

/* The length of the cycle through buf's line 0, checked hop by hop: every link lands on the start of a line of
 * buf. 0 when a link leaves buf or lands inside a line, or the walk has not come back after lines hops. */
size_t pb_chase_cycle_len(const uint8_t *buf, size_t lines);

#endif
