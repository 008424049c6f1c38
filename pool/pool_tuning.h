/* pool_tuning.h — every tunable of the pool in one place: the spin and sleep budgets of the policies, and when
 * a spinning waiter yields its cpu. Each says why. pool.h includes this file (the default budgets are part of the
 * API); bench/ echoes the values into machine.csv (pb_tunings), so a run says what it ran with.
 *
 * Units are in the names: _US microseconds, SPINS pauses (one x86 `pause`, whose length differs by core
 * several-fold, or an arm64 `yield` hint). */
#ifndef POOL_TUNING_H
#define POOL_TUNING_H

/* spin policy: an idle worker sleeps after this long without a job. Long enough that a decode's dispatches
 * (a few hundred per token, tens of µs apart) never find a sleeper; short enough that a pool left idle
 * between harness points stops burning its cpus within a blink. */
#define POOL_DEFAULT_IDLE_US 5000u
/* hybrid policy's default spin budget: about the gap between two matvecs of a small model's decode, so a
 * caller with that gap still finds its workers awake, and one with a longer gap sees them fall asleep. */
#define POOL_DEFAULT_SPIN_US 50u

/* Pauses before a spinning waiter starts yielding its cpu (under a millisecond). Bounded so that a waiter
 * never holds a cpu another thread needs for long; not shorter, because a yielding waiter sees the next job a
 * syscall late, which doubles a dispatch after a short caller gap. */
#define POOL_SPINS_BEFORE_YIELD 32768u
/* When threads outnumber their cpus: the thread a spinner waits for is likely waiting for this very cpu, so
 * such a waiter never yields (a yield may give the cpu away for a whole scheduler slice, long after the thread it
 * waited for answered); it pauses up to POOL_OVERSUBSCRIBED_SPIN_US, reading the clock every this many pauses,
 * then sleeps. */
#define POOL_SPINS_OVERSUBSCRIBED 16u
/* µs: the most a waiter of a pool whose threads outnumber their cpus spins (spin and hybrid) before it sleeps.
 * There the thread it waits for most likely waits for this very cpu, and a yield does not hand it over (the
 * scheduler may pick the yielder again), so a pool that only yielded decoded far below condvar's. Sleeping gives
 * the cpu away for certain; a few µs still catch a thread on another cpu about to answer. OpenMP's runtime does
 * the same (libgomp's throttled spin count). */
#define POOL_OVERSUBSCRIBED_SPIN_US 5u
/* Polls a spinning waiter makes without a pause before its paused spin (a microsecond or two of L1 hits). On
 * some cores one pause lasts as long as the one-line round trip a dispatch is made of, so a paused poll that
 * just missed the publish adds up to a round trip per side. Right after a publish or a job the other side is most
 * likely about to answer; a waiter still waiting after the hot polls pauses between polls (an SMT sibling gets the
 * core back, a long wait burns less). */
#define POOL_HOT_POLLS 1024u
/* How often (in pauses) a spinning waiter reads the clock to check its budget; once it yields, every time
 * (a yield can take microseconds, so 64 of them would overshoot a hybrid budget by far). */
#define POOL_CLOCK_EVERY 64u

#endif
