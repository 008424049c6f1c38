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

/* ns: a tightest core-to-core round trip (pb_pingpong_tight) above this tags a pair "far" (another chiplet or
 * package), at or below it "near": well between a round trip within a chiplet and one across chiplets, which a
 * VM's vCPUs can swap between within seconds. The topology decides where hwloc can tell (pb_topo_pair_place:
 * same core, same L3, same package), and this cut only where it cannot, or where a hypervisor makes the guest's
 * topology a request rather than a fact. */
#define PB_FAR_RT_NS 200.0

/* ns: a tightest round trip (pb_pingpong_tight) below this between two cpus the topology does not call SMT
 * siblings tags the pair "smt?": most likely two hyperthreads of one core that a hypervisor presents as two
 * cores. One line between two real cores crosses at least the core's private caches, so it cannot be that fast. */
#define PB_HIDDEN_SMT_RT_NS 60.0

/* --schedule weighted, shares measured per thread: the weight of the newest token in each thread's rate (an
 * exponentially weighted mean). A token's rate moves by a few % from noise alone on a shared VM; a quarter lets
 * three or four tokens outvote one noisy one, and still follows a core that slows down within a few tokens. */
#define PB_WEIGHTED_EWMA 0.25
/* The same: below this spread of the measured rates (fastest / slowest - 1), the split stays equal. Chasing a
 * difference the noise makes costs a token more than it saves (a 51/49 split whose 51 lands on the thread
 * that was only unlucky once); 5% is about a token's noise here. */
#define PB_WEIGHTED_DEADBAND 0.05
/* ms: the period of a --co-runner's duty cycle (1:50 = cpu 1 busy 5 of every 10 ms). Shorter than a scheduler's
 * slice would let the busy process and a pool's threads take turns within one slice, longer would make a point of
 * a few tokens land wholly in a busy or an idle phase; 10 ms is a compiler's or a second model's typical burst. */
#define PB_CORUNNER_PERIOD_MS 10
/* x the largest core set's PUs: bench_sweep's most threads. Beyond the PUs threads take the cpus in turn, and a
 * dispatch waits for each of them to get one (a time slice, milliseconds, once a spinner yields): at 8x a token of
 * a small model's hundreds of dispatches already takes seconds; further is a run of hours, not a measurement. */
#define PB_SWEEP_OVERSUBSCRIBE_MAX 8
/* rows: the claim of the dynamic schedule a sweep adds by default where cores are unequal (dynamic:N). Each
 * claim moves the shared counter's line between cores (a round trip or a few); 64 rows of a 3072-wide q8_0 matrix are
 * ~200 KB, ~10 µs of streaming, so claims cost a few % while a 1024-row matrix still splits into 16 of them
 * for the slow core to take fewer of. */
#define PB_SWEEP_DYNAMIC_ROWS 64

/* percent of the median: a point whose repetitions spread (max - min) more than this is marked noisy, in every
 * harness's table and CSV-derived report alike. A quarter of the median is where a point stops being able to
 * carry the differences the findings read from it (a 1.2x floor scaling, a 15% gap to the floor). */
#define PB_NOISY_SPREAD_PCT 25
#define PB_NOISY_SPREAD (PB_NOISY_SPREAD_PCT / 100.0) /* the same, as the fraction pb_summary.spread is */
/* What a table prints after a noisy point's row. */
#define PB_NOISY_NOTE "  (noisy: spread > " PB_STR(PB_NOISY_SPREAD_PCT) "%)"

/* percent of the read floor measured beside it: a DRAM kernel point that streams faster than this read faster than
 * the floor's best read, which a kernel that also computes cannot; then the floor is not this machine's best read,
 * and every % of floor beside it is too high (a read kernel whose prefetches the compiler dropped reads 10-20%
 * low, which scripts/check_prefetch.sh guards against). 10% over: the two medians' noise, as decode.x_best_floor's. */
#define PB_KERNELS_OVER_FLOOR_PCT 110

/* percent of the median token: a point's budget (pb_budget.h) whose unexplained part is larger than this (either
 * sign) did not account for its token; the table and the report mark it. Each part is its own clock reads, so
 * what is left is the instrument's gaps (~30 clock reads a layer) and the machine moving under the point. */
#define PB_BUDGET_UNEXPLAINED_PCT 5.0
/* percent of a pinned cpu's time taken by the hypervisor (steal) over a sweep point: above this the point also
 * measured a neighbour, so the report marks it noisy and gives a slowest thread's wait to the machine. A few %
 * is a quiet shared host's usual; a loaded one steals far more. */
#define PB_STEAL_NOISY_PCT 5.0
/* The clock's range over a run (lowest to highest of the add chain around every point), in % of its highest,
 * past which the report says the clock moved: a steady core varies by a percent or two between chains. */
#define PB_CLOCK_MOVED_PCT 10
/* ms: bench_report --check holds sweep.csv's budget parts to ms_per_token_median within this: each of the nine
 * cells is printed to 0.0001 ms, so honest parts round apart by at most 0.00045. */
#define PB_BUDGET_SUM_TOL_MS 0.001

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

/* %: hwloc's NUMA nodes' memory and the OS kernel's own count (pb_machine.os_memory) further apart than this are
 * both printed on the machine line. On bare metal they agree (both are the kernel's managed pages); under a VM's
 * balloon or hot-plugged memory they part by tens of % or more, enough for hwloc's figure alone to cap
 * bench_kernels' DRAM buffer under 4x the L3. 2% is well above a rounding. */
#define PB_MEMORY_MISMATCH_PCT 2.0

/* bench_tune leaves the rank's default (its kernel and the vendor's streaming settings) for a candidate only when the
 * candidate and the default, timed interleaved PB_TUNE_CONFIRM_ROUNDS times (A/B, then B/A), give per-pair ratios
 * whose median beats 1 + the larger of this gain and the pairs' own spread (pb_tune_judge): a single timing of each
 * can pick an edge that is noise, and a decode slower than rank's. 3% is below the gains worth having (a twin without
 * prefetch, a repacked layout) and above what two back-to-back timings of one kernel differ by on a quiet core. */
#define PB_TUNE_MIN_GAIN_PCT 3.0
#define PB_TUNE_MIN_GAIN (PB_TUNE_MIN_GAIN_PCT / 100.0)
/* Pairs each such comparison times. Three is the fewest whose median ignores one pair a neighbour disturbed, and
 * whose spread says something; each pair costs two points of the tuning's fixed budget. */
#define PB_TUNE_CONFIRM_ROUNDS 3
/* Pairs timed more where the three left it open (the median past the least gain, the spread past the median's
 * edge): seven in all, whose spread leaves out the lowest and highest pair, so one disturbed pair no longer hides a
 * steady gain. They share the budget's time, so the tuning takes no longer. */
#define PB_TUNE_EXTRA_ROUNDS 4

/* One row of the table (pb_tunings): its machine.csv key, its value, its unit and why. */
typedef struct pb_tuning {
    const char *key;  /* machine.csv key: threshold_* (how figures are judged), tuning_* (how things run) */
    double value;
    const char *unit; /* "ns", "fraction of median", "pauses" ... */
    const char *why;  /* one line */
} pb_tuning;

/* A latency point whose chase thread was on its cpu less than this share of its rounds' wall time shared the cpu
 * with other work: report.md says so beside the idle latency. */
#define PB_LATENCY_ON_CPU_PCT 90.0

#endif
