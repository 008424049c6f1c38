#!/bin/sh
# CI check of a `make report` run directory: sh scripts/check_run.sh RUN_DIR [BIN_DIR]
# For every suite harness built in BIN_DIR (default build/bin): its CSVs are there, each with its header; every
# PNG is non-empty and each drawn plot has its SVG; report.md has its sections and names no malformed CSV or
# failed plot. Prints report.md's headline table. Exit 1 on the first problem list, 0 when all is well.
set -u
dir=${1:?usage: check_run.sh RUN_DIR [BIN_DIR]}
BIN=${2:-build/bin}
bad=0
fail() { echo "check: $*" >&2; bad=1; }

# csv | columns its header must hold
need_header() {
    f="$dir/$1"
    if [ ! -s "$f" ]; then
        fail "$1 is missing or empty"
        return
    fi
    head=$(head -n 1 "$f")
    for col in $(echo "$2" | tr ',' ' '); do
        case ",$head," in
        *",$col,"*) ;;
        *) fail "$1: header lacks column '$col' (header: $head)" ;;
        esac
    done
    [ "$(wc -l <"$f")" -ge 2 ] || fail "$1 has a header but no rows"
}

need_header machine.csv key,value
[ -x "$BIN/bench_pool_overhead" ] && need_header pool_overhead.csv run_id,host,policy,threads,gap_us,job_ns,ns_batch_mean,rt_ns_before,rt_ns_after,placement,ratio_to_rt,ratio_to_omp
if [ -x "$BIN/bench_memory_floor" ]; then
    need_header memory_floor.csv run_id,host,op,kernel,threads,gbps_best,gbps_median,gbps_min,rt_ns,placement
    need_header token_floor.csv run_id,host,model,format,threads,weight_bytes,ms_per_token,tok_per_s_ceiling
fi
[ -x "$BIN/bench_kernels" ] && need_header kernels.csv run_id,host,format,variant,threads,level,gbps_median
if [ -x "$BIN/bench_sweep" ]; then
    need_header sweep.csv run_id,host,model,format,policy,threads,tok_per_s,pct_of_floor
    need_header cpu_util.csv run_id,host,cpu,busy_pct
fi
[ -x "$BIN/bench_overlap" ] && need_header overlap.csv run_id,host,mode,ratio,speedup,pct_of_ceiling

for p in "$dir"/*.partial-*; do
    [ -e "$p" ] && fail "${p##*/}: a harness was killed before it published this CSV"
done

npng=0
for p in "$dir"/*.png; do
    [ -e "$p" ] || continue
    npng=$((npng + 1))
    [ -s "$p" ] || fail "${p##*/} is empty"
done
[ "$npng" -gt 0 ] || fail "no PNG in $dir"

md="$dir/report.md"
if [ ! -s "$md" ]; then
    fail "report.md is missing"
else
    for s in Machine Sources Headline Findings Noise Plots; do
        grep -q "^## $s\$" "$md" || fail "report.md has no '## $s' section"
    done
    grep -q "MALFORMED" "$md" && fail "report.md names a malformed CSV: $(grep MALFORMED "$md")"
    grep -q "PLOT FAILED" "$md" && fail "report.md names a failed plot: $(grep 'PLOT FAILED' "$md")"
    grep -q "NOT READ" "$md" && fail "report.md names a CSV it could not read: $(grep 'NOT READ' "$md")"
    grep -q "INCOMPLETE RUN" "$md" && fail "report.md says the run is incomplete: $(grep -A3 'INCOMPLETE RUN' "$md")"
    echo "== report.md headline ($md)"
    sed -n '/^## Headline$/,/^## Findings$/p' "$md" | sed '$d'
fi
[ $bad -eq 0 ] && echo "check: $dir holds every CSV of the built harnesses, $npng PNGs and report.md"
exit $bad
