#!/bin/sh
# Installs the Debian packages poolbench needs, only those missing, one line per package group saying what and why.
# With everything present it prints one line and makes no network call. Modes (the argument):
#   (none)   make deps: compiler, pkg-config, hwloc, libcpuid, Criterion, gnuplot, libpfm4, SQLite, jansson
#            (make test, check, report)
#   arm64    make test-arm64: cross gcc, qemu-user-static, arm64 hwloc, SQLite and jansson; Criterion's arm64 runtime unpacked
#   predict  make predict: llvm (llvm-mca) and the arm64 cross compiler
#   likwid   make likwid-compare: likwid
#   fresh    make fresh-root: debootstrap
set -eu
# WARNING (arm64 mode): on Debian 12, installing libcriterion3:arm64 or libcriterion-dev:arm64 REMOVES the amd64
# Criterion packages (`make test` then cannot link). Never apt-get install them: fetch the arm64 .debs with
# `apt-get download` and unpack them with `dpkg -x` into a private sysroot under build-arm64/, and link the tests
# against that copy (the headers are the amd64 package's, which are architecture-independent).

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}
have() {
    command -v "$1" >/dev/null 2>&1
}
pc() {
    have pkg-config && pkg-config --exists "$1"
}

# Each group: the test that it is present (here), its packages and why poolbench needs them (group_table).
# hwloc's XML topologies with comments need the libxml2 plugin (libhwloc-plugins), which no command shows.
group_present() {
    case "$1" in
    compiler) have cc && have make && have pkg-config ;;
    hwloc) pc hwloc && have hwloc-ls && installed libhwloc-plugins ;;
    libcpuid) pc libcpuid ;;
    criterion) pc criterion ;;
    gnuplot) have gnuplot ;;
    counters) [ -e /usr/include/perfmon/pfmlib_perf_event.h ] ;;
    sqlite) pc sqlite3 && have sqlite3 ;;
    jansson) pc jansson ;;
    cross) have aarch64-linux-gnu-gcc && installed libc6-dev-arm64-cross ;;
    qemu) have qemu-aarch64-static ;;
    hwloc-arm64) installed libhwloc-dev:arm64 ;;
    libs-arm64) installed libsqlite3-dev:arm64 && installed libjansson-dev:arm64 ;;
    llvm) for m in llvm-mca llvm-mca-19 llvm-mca-18 llvm-mca-17 llvm-mca-16 llvm-mca-15 llvm-mca-14; do
              have "$m" && return 0
          done
          return 1 ;;
    likwid) have likwid-bench ;;
    debootstrap) have debootstrap ;;
    esac
}
# A line a group: its name|its packages|why poolbench needs them.
group_table() {
    cat <<'EOF'
compiler|build-essential pkg-config|the C compiler, make and pkg-config, to build everything
hwloc|libhwloc-dev libhwloc-plugins hwloc|topology and thread binding (hwloc), and its XML plugin for the tests' topologies
libcpuid|libcpuid-dev|CPU identity (vendor, family/model, caches) on x86
criterion|libcriterion-dev|the unit and property tests (make test)
gnuplot|gnuplot-nox|the plots (PNG and SVG), without Qt
counters|libpfm4-dev|libpfm4, the hardware event names of --counters
sqlite|libsqlite3-dev sqlite3|SQLite, the results database (bench_db) and llama-bench's -o sql files; its shell for by-hand queries
jansson|libjansson-dev|jansson, the JSON reader of llama-bench's -o json and jsonl files
cross|gcc-aarch64-linux-gnu libc6-dev-arm64-cross|the arm64 cross compiler and C library, for the arm64 build and make predict's arm kernels
qemu|qemu-user-static|qemu-user, to run the arm64 tests on this machine
hwloc-arm64|libhwloc-dev:arm64|hwloc for arm64, linked by the arm64 build (adds dpkg's arm64 architecture)
libs-arm64|libsqlite3-dev:arm64 libjansson-dev:arm64|SQLite and jansson for arm64, linked by the arm64 build
llvm|llvm|llvm-mca, the cycle predictions of make predict
likwid|likwid|likwid-bench, the independent check of the memory floor
debootstrap|debootstrap|debootstrap, to make the fresh Debian root of make fresh-root
EOF
}
group_field() {
    group_table | awk -F'|' -v g="$1" -v f="$2" '$1 == g { print $f }'
}
group_packages() {
    group_field "$1" 2
}
group_reason() {
    group_field "$1" 3
}

MODE=${1:-}
case "$MODE" in
"") WANT="compiler hwloc libcpuid criterion gnuplot counters sqlite jansson" ;;
arm64) WANT="cross qemu hwloc-arm64 libs-arm64" ;;
predict) WANT="llvm cross" ;; # the arm kernels include <stdint.h>: the C library's headers, not the compiler alone
likwid) WANT="likwid" ;;
fresh) WANT="debootstrap" ;;
*) echo "deps: unknown argument '$1' (accepted: nothing, arm64, predict, likwid, fresh)" >&2; exit 2 ;;
esac

# arm64 mode. Criterion's arm64 runtime is unpacked, never installed (the warning above): the amd64 and arm64
# libnanomsg5 it needs have different Debian versions (a binNMU), which Multi-Arch: same forbids side by side.
# libgomp comes from the cross toolchain (libgomp1-arm64-cross), linked beside them: no more arm64 packages.
ARM64_SYSROOT=build-arm64/sysroot
ARM64_LIB=$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu
arm64_runtime_present() {
    [ -e "$ARM64_LIB/libcriterion.so.3" ] && [ -e "$ARM64_LIB/libgomp.so.1" ]
}

# libcriterion3:arm64 and those of its arm64 dependencies dpkg does not hold, fetched and unpacked into
# $ARM64_SYSROOT (test_arm64.sh names every library directory there to the cross linker and to qemu).
arm64_runtime() {
    if [ ! -e "$ARM64_LIB/libcriterion.so.3" ]; then
        need=""
        for p in $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances libcriterion3:arm64 | grep -E '^[a-z0-9][a-z0-9.+-]*:arm64$' | sort -u); do
            installed "$p" || need="$need $p"
        done
        echo "deps: apt-get download$need; dpkg-deb -x into $ARM64_SYSROOT (not installed)"
        mkdir -p build-arm64/debs "$ARM64_SYSROOT"
        (cd build-arm64/debs && apt-get download -q -o APT::Sandbox::User=root $need)
        for d in build-arm64/debs/*.deb; do dpkg-deb -x "$d" "$ARM64_SYSROOT"; done
    fi
    ln -sf /usr/aarch64-linux-gnu/lib/libgomp.so.1 "$ARM64_LIB/libgomp.so.1"
}

missing=""
for g in $WANT; do
    group_present "$g" || missing="$missing $g"
done
runtime_missing=0
if [ "$MODE" = arm64 ] && ! arm64_runtime_present; then runtime_missing=1; fi
if [ -z "$missing" ] && [ "$runtime_missing" -eq 0 ]; then
    echo "deps: all present (${MODE:-base}: $WANT)"
    exit 0
fi

PKGS=""
for g in $missing; do
    PKGS="$PKGS $(group_packages "$g")"
    echo "deps: $g: $(group_packages "$g") - $(group_reason "$g")"
done
[ "$runtime_missing" -eq 0 ] || echo "deps: criterion-arm64: libcriterion3:arm64 and its libraries, unpacked into $ARM64_SYSROOT - the arm64 tests' runtime (never installed: it would remove the amd64 Criterion)"
if ! have apt-get; then
    echo "deps: no apt-get here; install the equivalents of:$PKGS" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if have sudo; then SUDO="sudo"; else
        echo "deps: not root and no sudo; run as root: apt-get update && apt-get install -y --no-install-recommends$PKGS" >&2
        exit 1
    fi
fi
APT_OPTS=""
# An arm64 package that would replace an amd64 one stops apt instead.
[ "$MODE" = arm64 ] && APT_OPTS="--no-remove"
if [ "$MODE" = arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "deps: dpkg --add-architecture arm64"
    $SUDO dpkg --add-architecture arm64
fi
echo "deps: apt-get update && apt-get install -y --no-install-recommends$PKGS"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
if [ -n "$PKGS" ]; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $APT_OPTS $PKGS
fi
[ "$MODE" = arm64 ] && arm64_runtime
echo "deps: done"
