/* pb_clock.h — the clock a core runs at, measured without privileges: a chain of dependent integer adds timed
 * with CLOCK_MONOTONIC. Each add waits for the one before, and a register-register add has a latency of one cycle on
 * every x86-64 core (Intel since the P6, AMD since K8, Atom/E-cores included) and every arm64 core poolbench
 * knows (Cortex-A53 to X4, Neoverse N1/V1/V2, Apple M1-M4), so adds / ns is the clock in GHz: what turbostat's
 * Bzy_MHz and likwid's CLOCK report from APERF/MPERF, here for the thread that runs the chain, on its cpu.
 * A hypervisor that steals the vCPU during the chain lowers the figure; taking the best of a few short tries
 * keeps the clock and drops most of that. */
#ifndef PB_CLOCK_H
#define PB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The adds of one try: about 1 ms at 4 GHz, short next to a measured point and long next to the timer. */
#define PB_CLOCK_CHAIN_ADDS (4u << 20)
#define PB_CLOCK_TRIES 3

/* Runs a chain of adds (a multiple of 64; others are rounded down) and returns how many ran: the result
 * depends on every add, so the compiler cannot drop or shorten the chain. */
uint64_t pb_clock_chain(uint64_t adds);

/* The calling thread's clock in GHz: the best of PB_CLOCK_TRIES chains of PB_CLOCK_CHAIN_ADDS. NAN where this
 * architecture has no chain here. */
double pb_clock_ghz(void);

/* Whether pb_clock_ghz measures on this architecture. */
bool pb_clock_measures(void);

#endif
