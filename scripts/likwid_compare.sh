#!/bin/sh
# likwid_compare.sh — bench_memory_floor against likwid-bench's load kernels, back to back, on the same cpus.
#
#   sh scripts/likwid_compare.sh [--threads 1,2] [--rounds 3] [--size MiB] [--out DIR | --run-dir DIR]
#   sh scripts/likwid_compare.sh --summary likwid_compare.csv     (the table of an earlier run)
#
# Per round and thread count T: likwid-bench -t K -W N:<size>:T for every load kernel K it runs here (load,
# load_sse, load_avx, load_avx512, load_mem), then bench_memory_floor --threads T --cpus <the cpus likwid used>
# --size <size> over its read kernels. Rounds alternate the order (likwid first, then ours first), so a drift
# of the machine's bandwidth does not always favour one side. Writes likwid_compare.csv (one row per kernel per
# round: tool, kernel, threads, cpus (space-separated), GB/s; ours also median/best/min of its passes, round trip and
# placement around it; its columns come from bench_report --header, and are filled and read here by name) and prints, per thread count, likwid's best against our one-stream kernels (what likwid's load
# kernels do: one sequential stream per thread) and against our floor (the best of all our kernels, including
# the 4-stream ones a decode's matvecs read with). GB/s = 1e9 B/s on both sides (likwid's MByte/s is 1e6 B/s).
# likwid's figure is the mean rate over its whole run; ours are per-pass statistics: compare medians.
set -u
THREADS=1,2
ROUNDS=3
SIZE=1024
OUT=""
RUNDIR=""
# The summary: per thread count and round, likwid's best kernel against our best one-stream kernel (median of
# its passes) and our floor (the best median of all read kernels).
summary() { # csv
    awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { t = $c["threads"]; r = $c["round"]; tool = $c["tool"]; kern = $c["kernel"]; med = $c["gbps_median"] }
    { key = t SUBSEP r; th[t] = 1; rd[r] = 1 }
    tool == "likwid" && $c["gbps"] > lk[key] { lk[key] = $c["gbps"]; lkk[key] = kern }
    tool == "poolbench" && kern !~ /-4[sb]$/ && med > one[key] { one[key] = med; onek[key] = kern }
    tool == "poolbench" && med > fl[key] { fl[key] = med; flk[key] = kern; pl[key] = $c["placement"] }
    END {
        printf "%-7s %-5s %-6s %-22s %-26s %-26s\n", "threads", "round", "place", "likwid best GB/s", "ours one-stream (x likwid)", "ours floor (x likwid)"
        for (t = 1; t <= 1024; t++) if (t in th) for (r = 1; r <= 1000; r++) if (r in rd) {
            k = t SUBSEP r
            if (!(k in lk) || !(k in fl)) continue
            printf "%-7d %-5d %-6s %6.2f %-15s %6.2f %-9s (%5.3f)  %6.2f %-9s (%5.3f)\n", t, r, pl[k], lk[k], lkk[k],
                one[k], onek[k], one[k] / lk[k], fl[k], flk[k], fl[k] / lk[k]
        }
    }' "$1"
}

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
fail() { echo "likwid_compare: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --threads) [ $# -ge 2 ] || fail "--threads needs a list like 1,2"; THREADS=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] || fail "--rounds needs a count"; ROUNDS=$2; shift 2 ;;
    --size) [ $# -ge 2 ] || fail "--size needs MiB"; SIZE=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || fail "--out needs a directory"; OUT=$2; shift 2 ;;
    --run-dir) [ $# -ge 2 ] || fail "--run-dir needs a directory"; RUNDIR=$2; shift 2 ;;
    --summary) [ $# -ge 2 ] || fail "--summary needs a likwid_compare.csv"; summary "$2"; exit $? ;;
    -h | --help) usage; exit 0 ;;
    *) fail "unknown argument '$1' (accepted: --threads LIST, --rounds N, --size MiB, --out DIR, --run-dir DIR)" ;;
    esac
done
case "$THREADS" in *[!0-9,]* | "" | ,* | *, | *,,*) fail "--threads '$THREADS': give counts like 1,2" ;; esac
case "$ROUNDS" in *[!0-9]* | "" | 0) fail "--rounds '$ROUNDS': give a count from 1" ;; esac
case "$SIZE" in *[!0-9]* | "" | 0) fail "--size '$SIZE': give MiB from 1" ;; esac
[ -n "$OUT" ] && [ -n "$RUNDIR" ] && fail "give --out or --run-dir, not both"
command -v likwid-bench >/dev/null 2>&1 || fail "likwid-bench not found: make deps-likwid (Debian package likwid)"
BIN=${POOLBENCH_BIN:-build/bin}
[ -x "$BIN/bench_memory_floor" ] || fail "$BIN/bench_memory_floor not built: make all"
HEADER=$("$BIN/bench_report" --header likwid_compare.csv) || fail "$BIN/bench_report not built: make all"

if [ -n "$RUNDIR" ]; then
    [ -d "$RUNDIR" ] || fail "--run-dir $RUNDIR is not a directory"
    dir=$RUNDIR
else
    if [ -z "$OUT" ]; then
        host=$(uname -n); host=${host%%.*}
        OUT=${POOLBENCH_RESULTS:-results}/$host/$(date +%Y%m%d-%H%M%S)-likwid
    fi
    if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then fail "--out $OUT exists and is not empty"; fi
    mkdir -p "$OUT" || fail "cannot create $OUT"
    dir=$OUT
fi
csv=$dir/likwid_compare.csv
[ -e "$csv" ] && fail "$csv already exists: not replacing it"
tmp=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT INT TERM
host=$(uname -n); host=${host%%.*}
echo "$HEADER" >"$tmp/rows"

# One row from NAME=VALUE arguments, in the header's order (a column not given is empty; a name the header lacks
# is a bug here, and stops the script).
row() {
    awk -v hdr="$HEADER" 'BEGIN {
        n = split(hdr, h, ","); for (i = 1; i <= n; i++) known[h[i]] = 1
        for (a = 1; a < ARGC; a++) {
            k = ARGV[a]; sub(/=.*/, "", k)
            if (!(k in known)) { print "likwid_compare: no column " k " in " hdr > "/dev/stderr"; exit 1 }
            v[k] = substr(ARGV[a], length(k) + 2)
        }
        for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), v[h[i]]
        printf "\n"
        exit
    }' "$@"
}

# likwid-bench once: prints "gbps cpus" (cpus as likwid pinned them, comma-separated) or nothing on failure.
likwid_run() { # kernel threads
    likwid-bench -t "$1" -W "N:${SIZE}MB:$2" >"$tmp/lk.out" 2>&1 || return 1
    awk '/^MByte\/s:/ { mb = $2 } /^Group:.*running on hwthread/ { for (i = 1; i <= NF; i++) if ($i == "hwthread") c = c (c == "" ? "" : ",") $(i + 1) }
         END { if (mb != "") printf "%.3f %s\n", mb / 1000, c }' "$tmp/lk.out"
}

likwid_round() { # round threads
    for k in load load_sse load_avx load_avx512 load_mem; do
        lk=$(likwid_run "$k" "$2") || { echo "likwid_compare: likwid-bench -t $k failed here; skipped" >&2; continue; }
        [ -n "$lk" ] || continue
        gbps=${lk%% *}
        cpus=${lk#* }
        row round="$1" threads="$2" cpus="$(echo "$cpus" | tr ',' ' ')" tool=likwid kernel="$k" gbps="$gbps" \
            >>"$tmp/rows" || fail "cannot write a row"
        [ -n "$cpus" ] && echo "$cpus" >"$tmp/cpus.$2"
    done
}

ours_round() { # round threads
    cpus=$(cat "$tmp/cpus.$2" 2>/dev/null)
    [ -n "$cpus" ] || cpus=$(seq -s, 0 $(($2 - 1)))
    o=$tmp/ours.$1.$2
    if ! "$BIN/bench_memory_floor" --threads "$2" --cpus "$cpus" --size "$SIZE" --kernel "$READ_KERNELS" --out "$o" \
        >"$tmp/ours.log" 2>&1; then
        # a read kernel this CPU lacks is refused up front: retry with the default set (every kernel this CPU
        # has, copies and writes too; only the reads are kept below)
        "$BIN/bench_memory_floor" --threads "$2" --cpus "$cpus" --size "$SIZE" --out "$o.2" >"$tmp/ours.log" 2>&1 ||
            { sed -n '$p' "$tmp/ours.log" >&2; fail "bench_memory_floor failed at $2 threads"; }
        o=$o.2
    fi
    # memory_floor.csv's read rows as likwid_compare.csv's, column by name; gbps is the median, the figure
    # comparable with likwid's
    awk -F, -v hdr="$HEADER" -v r="$1" -v t="$2" -v c="$(echo "$cpus" | tr ',' ' ')" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(hdr, h, ","); next }
        $col["op"] == "read" {
            delete v
            v["round"] = r; v["threads"] = t; v["cpus"] = c; v["tool"] = "poolbench"; v["gbps"] = $col["gbps_median"]
            for (i = 1; i <= n; i++) if (!(h[i] in v) && (h[i] in col)) v[h[i]] = $col[h[i]]
            for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), v[h[i]]
            printf "\n"
        }' "$o/memory_floor.csv" >>"$tmp/rows"
}

# Every read kernel bench_memory_floor knows (its --help lists them), once for all rounds.
READ_KERNELS=$("$BIN/bench_memory_floor" --help | sed -n 's/.*--kernel.*\[one of \(.*\); env.*/\1/p' | tr -d ' ' |
    tr ',' '\n' | grep -v -e '^copy-' -e '^write-' | paste -sd, -)
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for t in $(echo "$THREADS" | tr ',' ' '); do
        echo "likwid_compare: round $r/$ROUNDS, $t thread(s)" >&2
        if [ $((r % 2)) -eq 1 ]; then likwid_round "$r" "$t"; ours_round "$r" "$t"; else ours_round "$r" "$t"; likwid_round "$r" "$t"; fi
    done
    r=$((r + 1))
done
cp "$tmp/rows" "$csv.tmp" && mv "$csv.tmp" "$csv" || fail "cannot write $csv"

summary "$csv"
echo "likwid_compare: $csv" >&2
