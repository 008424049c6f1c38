#!/bin/sh
# CI check of a `make report` run directory: sh scripts/check_run.sh RUN_DIR [BIN_DIR]
# Every suite harness built in BIN_DIR (default build/bin) ran; bench_report --check finds every CSV as its schema
# says (header, rows, cells, machine.csv's keys, every file of a harness that ran, no partial file); every PNG
# is non-empty; results.json is there; report.md has its sections and names no malformed CSV or failed plot.
# Prints report.md's headline table. Exit 1 on the first problem list, 0 when all is well.
set -u
dir=${1:?usage: check_run.sh RUN_DIR [BIN_DIR]}
BIN=${2:-build/bin}
bad=0
fail() { echo "check: $*" >&2; bad=1; }

# harness | the CSV that shows it ran (the rest of its files, and every column, are bench_report --check's)
ran() {
    [ -x "$BIN/$1" ] || return 0
    [ -e "$dir/$2" ] || fail "$2 is missing: $1 is built but did not run"
}
ran bench_pool_overhead pool_overhead.csv
ran bench_memory_floor memory_floor.csv
ran bench_kernels kernels.csv
ran bench_sweep sweep.csv
ran bench_overlap overlap.csv
if [ ! -x "$BIN/bench_report" ]; then
    fail "$BIN/bench_report is not built: the CSVs are not checked"
else
    "$BIN/bench_report" --check "$dir" >&2 || fail "bench_report --check $dir found the problems above"
fi

npng=0
for p in "$dir"/*.png; do
    [ -e "$p" ] || continue
    npng=$((npng + 1))
    [ -s "$p" ] || fail "${p##*/} is empty"
done
[ "$npng" -gt 0 ] || fail "no PNG in $dir"
[ -s "$dir/results.json" ] || fail "results.json is missing or empty (bench_report writes it)"

md="$dir/report.md"
if [ ! -s "$md" ]; then
    fail "report.md is missing"
else
    for s in Machine Sources Headline Findings Noise Plots "Among reference machines"; do
        grep -q "^## $s\$" "$md" || fail "report.md has no '## $s' section"
    done
    grep -q "| zen3-2vcpu: " "$md" || fail "report.md does not place the run beside the Zen 3 reference (refs/zen3-2vcpu)"
    grep -q "MALFORMED" "$md" && fail "report.md names a malformed CSV: $(grep MALFORMED "$md")"
    grep -q "PLOT FAILED" "$md" && fail "report.md names a failed plot: $(grep 'PLOT FAILED' "$md")"
    grep -q "NOT READ" "$md" && fail "report.md names a CSV it could not read: $(grep 'NOT READ' "$md")"
    grep -q "INCOMPLETE RUN" "$md" && fail "report.md says the run is incomplete: $(grep -A3 'INCOMPLETE RUN' "$md")"
    echo "== report.md headline ($md)"
    sed -n '/^## Headline$/,/^## Findings$/p' "$md" | sed '$d'
fi
# make report keeps the run in the results database beside results/<host>/ (bench_db; its log bench_db.txt says it
# tried: a harness run by hand has neither).
if [ -x "$BIN/bench_db" ] && [ -e "$dir/bench_db.txt" ]; then
    db="$dir/../../poolbench.sqlite"
    id=$(sed -n 's/^run_id,//p' "$dir/machine.csv" | head -1)
    "$BIN/bench_db" --db "$db" list 2>/dev/null | grep -q " $id " || fail "$db does not hold run $id (bench_db list)"
fi
[ $bad -eq 0 ] && echo "check: $dir holds every CSV of the built harnesses, $npng PNGs and report.md"
exit $bad
