#!/bin/sh
# `make report` (sh scripts/report.sh [--quick]): the default suite into one run directory
# results/<host>/<YYYYmmdd-HHMMSS>/ (results/<host>/latest points at it), then bench_report on it.
#
# Each harness that is built (build/bin, or $POOLBENCH_BIN) joins the run directory with --run-dir; one that is
# not built is skipped with a line, never faked; one that fails is reported, the others still run, and the exit
# status is non-zero at the end. Sized for about 5 minutes on 2 cores (--quick: under 2). Progress on stderr.
# Needs only sh, coreutils and the project's binaries (a fresh machine has no python3 or git).
set -u
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/common.sh"
common_flag report.sh --quick "--quick" "$@"
QUICK=$common_flag_set

# The suite: harness | about the seconds it takes on a 2-core VM, only for the progress line's time left |
# arguments [| the log's name, when a harness runs twice: bench_memory_floor's --latency run]. The sweep covers
# qwen3-0.6b x q8_0,q4_0,q1_0,tq2_0 x every policy x thread counts x the core sets the machine has (the
# harness's defaults for threads and sets), each point with serial and with fused glue; and a 256-token prompt
# of each format through the spin pool beside it (128 tokens with --quick). The kernels at batch 1 and 16 (their
# default adds 4), 110 ms a point (their default 150): with bench_tune's first run, 150 kept the suite past 5 minutes.
SWEEP_FULL="--model qwen3-0.6b --format q8_0,q4_0,q1_0,tq2_0 --policy spin,condvar,hybrid,spawn,omp --glue serial,fused --tokens 10 --prompt 256 --prompt-policy spin --prompt-tokens 2"
if [ "$QUICK" = 1 ]; then
    SUITE="bench_pool_overhead|8|--quick --gap-us 0,100
bench_memory_floor|20|--quick
bench_memory_floor|16|--latency --quick|bench_memory_floor_latency
bench_kernels|30|--quick
bench_sweep|15|--quick --tokens 5 --prompt 128 --prompt-policy spin
bench_overlap|5|--quick"
else
    SUITE="bench_pool_overhead|20|
bench_memory_floor|100|
bench_memory_floor|19|--latency|bench_memory_floor_latency
bench_kernels|90|--batch 1,16 --budget-ms 110
bench_sweep|45|$SWEEP_FULL
bench_overlap|15|"
fi

# POOLBENCH_ISA (or its old name POOLBENCH_KERNEL) names the wisdom file (below): an ISA's name, checked before
# anything is made.
ISA=${POOLBENCH_ISA:-${POOLBENCH_KERNEL:-}}
case "$ISA" in
*[!a-z0-9]*)
    echo "report: POOLBENCH_ISA=$ISA: an ISA's name is lowercase letters and digits" >&2
    exit 2
    ;;
esac

host=$(uname -n 2>/dev/null)
host=${host%%.*}
[ -n "$host" ] || host=unknown
base="$RESULTS/$host"
dir=$(common_new_path "$base/$(date +%Y%m%d-%H%M%S)")
mkdir -p "$dir" || { echo "report: cannot create $dir" >&2; exit 1; }
rm -f "$base/latest" && ln -s "${dir##*/}" "$base/latest" 2>/dev/null
echo "report: run directory $dir" >&2

total=0
count=0
for line in $(printf '%s\n' "$SUITE" | cut -d'|' -f1,2); do
    count=$((count + 1))
    total=$((total + ${line#*|}))
done

# Wisdom first (bench_tune): the kernels every harness then runs, chosen by measurement on this machine and build,
# measured only when $base/wisdom holds none for them (at most 30 s, 10 with --quick); delete the file to measure
# again. Without it (not built, or failed) the harnesses go by ISA rank, and their rows say so.
# Under POOLBENCH_ISA (a cap: an AVX2 core's figures on any x86) the tuning is capped alike, so its choices go to
# a file of their own (wisdom.ISA), never over this machine's best.
POOLBENCH_WISDOM="$base/wisdom${ISA:+.$ISA}"
export POOLBENCH_WISDOM
if [ -x "$BIN/bench_tune" ]; then
    if [ "$QUICK" = 1 ]; then tune_args="--quick"; else tune_args=""; fi
    echo "report: wisdom $POOLBENCH_WISDOM (bench_tune $tune_args --if-missing)" >&2
    # shellcheck disable=SC2086 # tune_args is a word list
    # Beside the run directory until the harnesses have joined it (see the harness loop below).
    "$BIN/bench_tune" $tune_args --if-missing >"$dir.bench_tune.txt" </dev/null ||
        echo "report: bench_tune failed (see $dir/bench_tune.txt); kernels go by ISA rank" >&2
else
    echo "report: bench_tune is not built: kernels go by ISA rank" >&2
fi

start=$(date +%s)
i=0
failed=""
left=$total
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
printf '%s\n' "$SUITE" | {
    # Ctrl-C (or a TERM/HUP from a supervisor) reaches the running harness too: it publishes the rows it
    # measured and exits 128 + signal. The suite then stops, and bench_report still reads what is there (the
    # report says the run is incomplete); the exit status is the harness's.
    stop=0
    trap 'stop=130' INT
    trap 'stop=143' TERM
    trap 'stop=129' HUP
    while IFS='|' read -r h est args log; do
        [ -n "$log" ] || log=$h
        [ "$stop" -ne 0 ] && break
        i=$((i + 1))
        now=$(date +%s)
        elapsed=$((now - start))
        if [ ! -x "$BIN/$h" ]; then
            echo "report: [$i/$count] $h: not built ($BIN/$h is missing): skipped, no figures from it" >&2
            left=$((left - est))
            continue
        fi
        echo "report: [$i/$count] $h $args (elapsed $(mmss $elapsed), about $(mmss $left) left)" >&2
        # The output goes beside the run directory until the harness ends: --run-dir joins only an empty directory
        # or a run with a machine.csv, and a log already inside would make the first harness's directory neither.
        out="$dir.$log.txt"
        # shellcheck disable=SC2086 # args is a word list
        "$BIN/$h" $args --run-dir "$dir" >"$out" </dev/null
        rc=$?
        mv "$out" "$dir/$log.txt"
        left=$((left - est))
        [ $left -lt 0 ] && left=0
        case $rc in
        129 | 130 | 143)
            stop=$rc
            echo "report: [$i/$count] $h stopped by a signal (exit $rc): the suite stops here" >&2
            break ;;
        esac
        if [ $rc -ne 0 ]; then
            echo "report: [$i/$count] $h FAILED (exit $rc); its output is in $dir/$log.txt; going on" >&2
            failed="$failed $h"
        fi
    done
    [ -f "$dir.bench_tune.txt" ] && mv "$dir.bench_tune.txt" "$dir/bench_tune.txt"
    end=$(date +%s)
    echo "report: harnesses done in $(mmss $((end - start)))" >&2
    status=0
    if [ -n "$failed" ]; then
        echo "report: failed:$failed" >&2
        status=1
    fi
    # The results database: the reference runs (once) and this run into $RESULTS/poolbench.sqlite, then the trend
    # of the q8_0 decode over this host's runs there, drawn into the run directory (report.md embeds it).
    if [ -x "$BIN/bench_db" ]; then
        db="$RESULTS/poolbench.sqlite"
        if "$BIN/bench_db" --db "$db" import --reference "$(dirname "$0")"/../refs/*/ >"$dir/bench_db.txt" 2>&1 &&
            "$BIN/bench_db" --db "$db" import "$dir" >>"$dir/bench_db.txt" 2>&1; then
            echo "report: $dir added to $db" >&2
            "$BIN/bench_db" --db "$db" trend decode.qwen3-0.6b.q8_0 "$dir" --host "$host" >>"$dir/bench_db.txt" 2>&1 ||
                echo "report: no trend drawn (see $dir/bench_db.txt)" >&2
        else
            echo "report: the run could not be added to $db (see $dir/bench_db.txt); going on" >&2
        fi
    fi
    if [ -x "$BIN/bench_report" ]; then
        "$BIN/bench_report" "$dir" </dev/null >/dev/null || { echo "report: bench_report reported a problem (see above)" >&2; status=1; }
        echo "report: $dir/report.md"
    else
        echo "report: bench_report is not built; the CSVs are in $dir" >&2
        status=1
    fi
    [ "$stop" -ne 0 ] && status=$stop
    exit $status
}
