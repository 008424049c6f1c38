/* pb_tuning.h — every threshold and factor by which poolbench judges a figure, in one place: what counts as a
 * far placement, a noisy point, a memory-bound decode, an imbalanced point, a loaded machine. Each has its unit
 * in its name (or beside it) and says why it is where it is. The table of them all (pb_tunings, in
 * bench/measure, where the pool's and the kernels' tunables are visible too) is echoed into every run's
 * machine.csv as `key,value` rows and listed in report.md's noise section, so a result says by which lines it
 * was judged.
 *
 * The pool's own tunables (spin budgets, when a waiter yields) live in pool/pool_tuning.h and the kernels'
 * prefetch distance in kernels/kern.h (KERN_PREFETCH_BYTES): lower layers that cannot see this file. The
 * table references their values; it does not copy them. */
#ifndef PB_TUNING_H
#define PB_TUNING_H

/* Turns a macro's value into a string literal (PB_STR(25) is "25"), so a printed limit comes from its macro. */
#define PB_STR_(x) #x
#define PB_STR(x) PB_STR_(x)

/* ns: a core-to-core round trip above this tags a pair "far" (another chiplet or package), at or below it
 * "near". The development EPYC VM measures ≈ 150–170 ns within a chiplet and ≈ 600–850 ns across, so the cut
 * sits above the near pairs with little margin (their noise reaches it): the topology decides where hwloc can
 * tell (pb_topo_pair_place: same core, same L3, same package), and this cut only where it cannot, or where a
 * hypervisor makes the guest's topology a request rather than a fact. */
#define PB_FAR_RT_NS 200.0

/* percent of the median: a point whose repetitions spread (max - min) more than this is marked noisy, in every
 * harness's table and CSV-derived report alike. A quarter of the median is where a point stops being able to
 * carry the differences the findings read from it (a 1.2x floor scaling, a 15% gap to the floor). */
#define PB_NOISY_SPREAD_PCT 25
#define PB_NOISY_SPREAD (PB_NOISY_SPREAD_PCT / 100.0) /* the same, as the fraction pb_summary.spread is */
/* What a table prints after a noisy point's row. */
#define PB_NOISY_NOTE "  (noisy: spread > " PB_STR(PB_NOISY_SPREAD_PCT) "%)"

/* percent of the read floor: a decode at or above it is called memory-bound. Not 100: the floor is the best
 * read kernel on a bare buffer, and a decode also pays its dispatches, glue and activations; the last 15% is
 * what those cost at best on the machines measured. */
#define PB_MEMORY_BOUND_PCT 85.0

/* x (N-thread floor / 1-thread floor): below this, more threads barely read faster, and the finding says one
 * thread nearly saturates the memory path. 1.2 leaves room for the run-to-run noise of a floor (~10%). */
#define PB_SATURATED_FACTOR 1.2

/* x (hybrid's cost over spin's at the longest caller gap / the same at the shortest): above this, hybrid's
 * workers went to sleep between dispatches. A sleeping worker's wake-up costs tens of µs against a spin
 * dispatch's ~100 ns, so the jump is one or two orders of magnitude; 4x is far above noise and far below it. */
#define PB_ASLEEP_FACTOR 4.0

/* percentage points of busy %: a point whose busiest and least busy pinned cpus differ by more than this did
 * not spread its work over the cpus it claims (the "multi-core decode on one core" bug shows ~100). /proc/stat's
 * 10 ms ticks make one sample good to ~10 points, and a barrier's slowest thread idles the others by ~20. */
#define PB_IMBALANCE_POINTS 40.0

/* load average per cpu: above this at start, other work shares the machine and the header and report say so.
 * Half the cpus busy leaves a pinned harness likely to share a core with someone. */
#define PB_LOADED_PER_CPU 0.5

/* x the last-level cache: a read buffer smaller than this measures the cache, not memory (warned about). */
#define PB_BUFFER_MIN_LLC_FACTOR 4

/* One row of the table (pb_tunings): its machine.csv key, its value, its unit and why. */
typedef struct pb_tuning {
    const char *key;  /* machine.csv key: threshold_* (how figures are judged), tuning_* (how things run) */
    double value;
    const char *unit; /* "ns", "fraction of median", "pauses" ... */
    const char *why;  /* one line */
} pb_tuning;

#endif
