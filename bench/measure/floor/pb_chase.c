/* pb_chase.c — see pb_chase.h. */
#include "pb_chase.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"

/* splitmix64: a whole 64-bit state a call, good enough to shuffle and cheap beside the cache miss of a swap. */
static uint64_t chase_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A uniform draw in [0, n), n > 0 (Lemire's multiply-shift; the bias for n < 2^32 is below 2^-32). */
static uint32_t chase_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((chase_next(s) >> 32) * (uint64_t)n) >> 32);
}

int pb_chase_build(uint8_t *buf, size_t lines, uint64_t seed, char *err, size_t errlen)
{
    if (lines < 2 || lines > PB_CHASE_MAX_LINES)
        return pb_errf(err, errlen, "pointer chase: %zu lines (accepted: 2..%u)", lines, PB_CHASE_MAX_LINES);
    uint32_t *next = malloc(lines * sizeof *next);
    if (!next)
        return pb_errf(err, errlen, "pointer chase: the %zu MiB order of its lines: %s",
                       (lines * sizeof *next) >> 20, strerror(errno));
    for (size_t i = 0; i < lines; i++)
        next[i] = (uint32_t)i;
    /* Sattolo: swapping i with a j strictly below it makes the permutation one cycle (Fisher-Yates allows j = i,
     * and then a permutation of several cycles) */
    uint64_t s = seed;
    for (size_t i = lines - 1; i > 0; i--) {
        uint32_t j = chase_below(&s, (uint32_t)i);
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    for (size_t i = 0; i < lines; i++) /* in line order: the stores stream */
        *(void **)(buf + i * PB_CHASE_LINE) = buf + (size_t)next[i] * PB_CHASE_LINE;
    free(next);
    return 0;
}

const void *pb_chase_walk(const void *p, uint64_t hops)
{
    /* eight links an iteration: the loop's own branch is one in eight hops */
    for (; hops >= 8; hops -= 8) {
        p = *(const void *const *)p;
        p = *(const void *const *)p;
        p = *(const void *const *)p;
        p = *(const void *const *)p;
        p = *(const void *const *)p;
        p = *(const void *const *)p;
        p = *(const void *const *)p;
        p = *(const void *const *)p;
    }
    for (; hops > 0; hops--)
        p = *(const void *const *)p;
    return p;
}

size_t pb_chase_cycle_len(const uint8_t *buf, size_t lines)
{
    uintptr_t lo = (uintptr_t)buf, hi = lo + lines * PB_CHASE_LINE;
    const uint8_t *p = buf;
    for (size_t n = 1; n <= lines; n++) {
        uintptr_t q = (uintptr_t) * (const void *const *)p;
        if (q < lo || q >= hi || (q - lo) % PB_CHASE_LINE != 0)
            return 0;
        if (q == lo)
            return n;
        p = (const uint8_t *)q;
    }
    return 0;
}
