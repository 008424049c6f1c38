#!/bin/sh
# `make manycore` (sh scripts/manycore.sh [--print]): dispatch, barriers and the decode at 2-16 threads on a machine
# with at least 16 cpus this process may use. Into one new run directory results/<host>/manycore-<stamp>/:
# bench_pool_overhead at 2,4,8,16 threads (the flat spin pool, the tree, OpenMP's region; every barrier: central,
# tree, dissemination, omp), then bench_sweep q8_0 at 1-16 threads on all cpus (spin, tree, omp). Its CSVs are then
# copied under tests/data/manycore/<host>/ (a new folder: -2, -3 ... when that one exists) as that machine's fixture.
# With fewer cpus it says so in one line and exits 0 without running anything. --print: the commands, not run.
# About 3 minutes on 16 cores. Needs only sh, coreutils and the project's binaries (build/bin or $POOLBENCH_BIN).
set -u
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"
common_flag manycore.sh --print "--print, --help" "$@"
PRINT=$common_flag_set
NEED=16

# Only letters, digits, dot, dash and underscore of the host name reach a path.
host=$(uname -n 2>/dev/null | cut -d. -f1 | tr -c 'A-Za-z0-9._\n-' '_')
[ -n "$host" ] || host=unknown
OVERHEAD="--threads 2,4,8,16 --policy spin,tree,omp --barrier all --gap-us 0,20"
SWEEP="--format q8_0 --threads 1-16 --cpus all --policy spin,tree,omp --tokens 10"
if [ "$PRINT" = 1 ]; then
    echo "$BIN/bench_pool_overhead $OVERHEAD --run-dir DIR"
    echo "$BIN/bench_sweep $SWEEP --run-dir DIR"
    echo "cp DIR/*.csv tests/data/manycore/$host/"
    exit 0
fi
cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ "$cpus" -lt "$NEED" ] 2>/dev/null; then
    echo "manycore: $cpus cpus here, fewer than the $NEED it measures at: nothing run"
    exit 0
fi

for prog in bench_pool_overhead bench_sweep; do
    [ -x "$BIN/$prog" ] || { echo "manycore: $BIN/$prog is not built (make first)" >&2; exit 1; }
done

dir=$(common_new_path "$RESULTS/$host/manycore-$(date +%Y%m%d-%H%M%S)")
mkdir -p "$dir" || { echo "manycore: cannot create $dir" >&2; exit 1; }
echo "manycore: $cpus cpus, run directory $dir (load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))" >&2

failed=""
# shellcheck disable=SC2086 # the argument lists are word lists
"$BIN/bench_pool_overhead" $OVERHEAD --run-dir "$dir" </dev/null || failed="$failed bench_pool_overhead"
# shellcheck disable=SC2086
"$BIN/bench_sweep" $SWEEP --run-dir "$dir" </dev/null || failed="$failed bench_sweep"

fixture=$(common_new_path "tests/data/manycore/$host")
mkdir -p "$fixture" || { echo "manycore: cannot create $fixture" >&2; exit 1; }
for f in "$dir"/*.csv; do
    [ -f "$f" ] && cp "$f" "$fixture/"
done
echo "manycore: CSVs copied to $fixture (commit them as this machine's fixture)" >&2
if [ -n "$failed" ]; then
    echo "manycore: failed:$failed (see above)" >&2
    exit 1
fi
exit 0
