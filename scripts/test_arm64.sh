#!/bin/sh
# `make test-arm64` (sh scripts/test_arm64.sh [CPU...]): every Criterion test of an arm64 build, run under qemu-user
# on an x86-64 Debian machine, once per CPU model (default: max, then cortex-a72), and a summary with the wall time.
#
#   installs      scripts/deps.sh, then scripts/deps.sh arm64 (cross gcc, qemu-user-static, arm64 hwloc; Criterion's
#                 arm64 runtime unpacked into build-arm64/sysroot), only what is missing
#   builds        build-arm64/ with CC=aarch64-linux-gnu-gcc: x86/ folders left out, arm/ folders in, no libcpuid
#   runs          build-arm64/bin/poolbench_tests -j2 under qemu-aarch64-static: 'max' has every extension qemu
#                 emulates (asimd, dotprod, i8mm, sve...), 'cortex-a72' is ARMv8.0 (asimd only: the kernels fall back)
#
# qemu is called explicitly, binfmt_misc is not needed: POOLBENCH_BIN names build-arm64/qemu-bin/, one script per
# harness that execs qemu on it (the CLI tests run the harnesses through it), and POOLBENCH_QEMU lets the test
# binary's execve (tests/arm/qemu_exec.c) re-run itself under qemu, which Criterion does for every test.
# POOLBENCH_EMULATED=1 tells the tests that time things to skip, saying why. Logs: build-arm64/test-CPU.log.
# The summary gives each step's wall time and the CPU seconds it used (a shared machine stretches the first only).
set -eu
cd "$(dirname "$0")/.."
CPUS=${*:-max cortex-a72}
B=build-arm64
JOBS=$(nproc)
start=$(date +%s)

# CPU seconds (user + system) of this shell's finished children so far. `times` runs here, not in a subshell,
# whose children's times would start at zero.
cpu_now() {
    awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}

sh scripts/deps.sh
sh scripts/deps.sh arm64
mkdir -p $B
times >$B/times.txt
cpu0=$(cpu_now $B/times.txt)
# Every directory the unpacked packages put a shared library in: zlib1g's is lib/aarch64-linux-gnu, the others'
# usr/lib/aarch64-linux-gnu, and libgit2 (Criterion's) needs libz.so.1, so the link and qemu must name them all.
LIB=$PWD/$B/sysroot/usr/lib/aarch64-linux-gnu
LIBDIRS=$(find "$PWD/$B/sysroot" \( -type f -o -type l \) -name 'lib*.so*' -exec dirname {} \; | sort -u)
RPATH_LINK=$(for d in $LIBDIRS; do printf ' -Wl,-rpath-link,%s' "$d"; done)
LIBPATH=$(printf '%s\n' $LIBDIRS | paste -sd: -)
QEMU=$(command -v qemu-aarch64-static)

echo "== build $B/ (CC=aarch64-linux-gnu-gcc)"
PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig make --no-print-directory BUILD=$B CC=aarch64-linux-gnu-gcc \
    CRIT_LIBS="$LIB/libcriterion.so.3$RPATH_LINK" -j"$JOBS" $B/bin/poolbench_tests
sh scripts/check_prefetch.sh $B aarch64 aarch64-linux-gnu-objdump
built=$(date +%s)
times >$B/times.txt
cpu1=$(cpu_now $B/times.txt)

# One wrapper per harness: the CLI tests start $POOLBENCH_BIN/NAME through a shell or execv, which cannot run an
# arm64 ELF on this host. exec keeps the pid, so the signals the tests send reach qemu, which forwards them.
W=$B/qemu-bin
rm -rf "$W"
mkdir -p "$W"
for p in "$B"/bin/bench_*; do
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$QEMU" "$PWD/$p" >"$W/${p##*/}"
    chmod +x "$W/${p##*/}"
done

# The suite on CPU model $1 into log $2, in a session of its own. Its exit status, or 124 when the log grew by
# nothing for STALL_S seconds: then every process of the session is killed. qemu-user can hang there, every thread
# asleep on a futex, no CPU used (docs/arm64.md); a whole run is about 5 minutes.
STALL_S=${ARM64_STALL_S:-600}
run_suite() {
    setsid env LD_LIBRARY_PATH="$LIBPATH" QEMU_CPU="$1" POOLBENCH_QEMU="$QEMU" POOLBENCH_EMULATED=1 \
        POOLBENCH_BIN="$W" "$QEMU" $B/bin/poolbench_tests -j"$JOBS" --verbose >"$2" 2>&1 &
    pid=$!
    # the session does not get the terminal's ^C or a timeout's TERM: pass them on
    trap 'kill -KILL "-$pid" 2>/dev/null; exit 130' INT TERM
    size=-1
    still=0
    while kill -0 "$pid" 2>/dev/null; do
        sleep 5
        now=$(wc -c <"$2")
        if [ "$now" = "$size" ]; then still=$((still + 5)); else still=0; size=$now; fi
        if [ "$still" -ge "$STALL_S" ]; then
            kill -KILL "-$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            trap - INT TERM
            return 124
        fi
    done
    trap - INT TERM
    wait "$pid"
}

# Runs the suite on one CPU model; its log's [SKIP] and [FAIL] lines and Criterion's synthesis are echoed. A stalled
# run is said so and run once more (a stall again fails).
# Criterion lists filtered-out tests as skipped "Test is disabled": not ours, not counted.
status=0
summary=""
for cpu in $CPUS; do
    log=$B/test-$cpu.log
    echo "== poolbench_tests under qemu-aarch64-static -cpu $cpu (log: $log)"
    t0=$(date +%s)
    rc=0
    again=""
    run_suite "$cpu" "$log" || rc=$?
    if [ "$rc" -eq 124 ]; then
        mv "$log" "$log.stalled"
        echo "== -cpu $cpu: its log grew by nothing for $STALL_S s (a qemu-user stall, docs/arm64.md): stopped, kept" \
            "as $log.stalled; once more"
        again=" (run twice: the first stalled)"
        rc=0
        run_suite "$cpu" "$log" || rc=$?
        [ "$rc" -ne 124 ] || echo "== -cpu $cpu: stalled again: a failure"
    fi
    t1=$(date +%s)
    times >$B/times.txt
    c1=$(cpu_now $B/times.txt)
    grep -E '^\[(SKIP|FAIL)\]|^\[----\].*(: error|failed|Unexpected)' "$log" | grep -v 'Test is disabled' || true
    synth=$(grep 'Synthesis' "$log" | tail -n 1 | sed 's/^\[====\] Synthesis: //')
    skipped=$(grep '^\[SKIP\]' "$log" | grep -vc 'Test is disabled' || true)
    [ "$rc" -eq 0 ] || status=1
    summary="$summary
  -cpu $cpu: ${synth:-no synthesis (exit $rc)} | Skipped: $skipped | $((t1 - t0)) s wall, $((c1 - cpu1)) s CPU$again"
    cpu1=$c1
done
end=$(date +%s)
echo "== test-arm64:$summary
  build $((built - start)) s wall (deps included), $(($(cpu_now $B/times.txt) - cpu0)) s CPU in all; $((end - start)) s wall in all"
exit $status
