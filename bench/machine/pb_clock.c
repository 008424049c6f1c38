/* pb_clock.c — the dependent-add chain; see pb_clock.h. */
#include "pb_clock.h"

#include "pb_time.h"

#include <math.h>

/* Eight adds of the one register, each the next's input: the chain's text, repeated to 64 a loop trip so the
 * loop's own counter and branch (a separate chain) hide beside it. */
#if defined(__x86_64__)
#define CHAIN8 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
#elif defined(__aarch64__)
#define CHAIN8 "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t" \
               "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
#endif

bool pb_clock_measures(void)
{
#ifdef CHAIN8
    return true;
#else
    return false;
#endif
}

uint64_t pb_clock_chain(uint64_t adds)
{
    uint64_t x = 0;
#ifdef CHAIN8
    /* The step is a register the compiler cannot see is 1: Golden Cove and later cores fold chains of
     * add-immediate at rename (several a cycle), never a register-register add. */
    uint64_t one = 1;
    __asm__ volatile("" : "+r"(one));
    for (uint64_t trips = adds / 64; trips; trips--)
        __asm__ volatile(CHAIN8 CHAIN8 CHAIN8 CHAIN8 CHAIN8 CHAIN8 CHAIN8 CHAIN8 : "+r"(x) : "r"(one));
#else
    (void)adds;
#endif
    return x;
}

double pb_clock_ghz(void)
{
    if (!pb_clock_measures())
        return NAN;
    double best = 0;
    for (int t = 0; t < PB_CLOCK_TRIES; t++) {
        uint64_t t0 = pb_now_ns();
        uint64_t ran = pb_clock_chain(PB_CLOCK_CHAIN_ADDS);
        uint64_t dt = pb_now_ns() - t0;
        if (dt > 0 && (double)ran / (double)dt > best)
            best = (double)ran / (double)dt;
    }
    return best > 0 ? best : NAN;
}
