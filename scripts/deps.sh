#!/bin/sh
# Installs the Debian packages poolbench needs, only when something is missing, and says what it does.
# Run by `make deps`, which `make test`, `make check` and `make report` depend on. `deps.sh likwid` (make
# deps-likwid) installs likwid instead, for scripts/likwid_compare.sh only. `deps.sh arm64` (make test-arm64)
# installs the arm64 cross toolchain, qemu-user-static and arm64 hwloc, and unpacks Criterion's arm64 runtime.
# `deps.sh predict` (make predict) installs llvm (for llvm-mca) and the arm64 cross compiler.
set -eu
# WARNING (arm64 mode): on Debian 12, installing libcriterion3:arm64 or libcriterion-dev:arm64 REMOVES the amd64
# Criterion packages (seen twice here: `make test` then cannot link). Never apt-get install them: fetch the arm64
# .debs with `apt-get download` and unpack them with `dpkg -x` into a private sysroot under build-arm64/, and link
# the tests against that copy (the headers are the amd64 package's, which are architecture-independent).
PKGS="build-essential pkg-config libhwloc-dev libhwloc-plugins hwloc libcpuid-dev libcriterion-dev gnuplot-nox"
# What of the base set is missing, as words.
base_missing() {
    m=""
    command -v cc >/dev/null 2>&1 || m="compiler"
    command -v pkg-config >/dev/null 2>&1 || m="$m pkg-config"
    if command -v pkg-config >/dev/null 2>&1; then
        for p in hwloc libcpuid criterion; do
            pkg-config --exists "$p" || m="$m $p"
        done
    fi
    command -v gnuplot >/dev/null 2>&1 || m="$m gnuplot"
    command -v hwloc-ls >/dev/null 2>&1 || m="$m hwloc"
    # hwloc's XML topologies with comments need the libxml2 plugin (libhwloc-plugins).
    if command -v dpkg-query >/dev/null 2>&1; then
        dpkg-query -W -f='${Status}' libhwloc-plugins 2>/dev/null | grep -q 'ok installed' || m="$m libhwloc-plugins"
    fi
    echo "$m"
}

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

# arm64 mode. Criterion's arm64 runtime is unpacked, never installed (the warning above): the amd64 and arm64
# libnanomsg5 it needs have different Debian versions (a binNMU), which Multi-Arch: same forbids side by side.
# libgomp comes from the cross toolchain (libgomp1-arm64-cross), linked beside them: no more arm64 packages.
ARM64_SYSROOT=build-arm64/sysroot
ARM64_LIB=$ARM64_SYSROOT/usr/lib/aarch64-linux-gnu
arm64_missing() {
    m=""
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || m="gcc-aarch64-linux-gnu"
    command -v qemu-aarch64-static >/dev/null 2>&1 || m="$m qemu-user-static"
    for p in libc6-dev-arm64-cross libhwloc-dev:arm64; do
        installed "$p" || m="$m $p"
    done
    [ -e "$ARM64_LIB/libcriterion.so.3" ] && [ -e "$ARM64_LIB/libgomp.so.1" ] || m="$m criterion-arm64-runtime"
    echo "$m"
}

# libcriterion3:arm64 and those of its arm64 dependencies dpkg does not hold, fetched and unpacked into
# $ARM64_SYSROOT (the cross linker and qemu find them through -rpath-link and LD_LIBRARY_PATH).
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

APT_OPTS=""
case "${1:-}" in
"") missing=$(base_missing) ;;
arm64)
    PKGS="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static libhwloc-dev:arm64"
    APT_OPTS="--no-remove" # an arm64 package that would replace an amd64 one stops apt instead
    missing=$(arm64_missing) ;;
predict)
    # scripts/predict.sh: llvm-mca (Debian's llvm package installs it as llvm-mca-<version>, and llvm-mca when it is
    # the default version) and the arm64 cross compiler, for the arm kernels' -S output
    PKGS="llvm gcc-aarch64-linux-gnu"
    missing=""
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing=" gcc-aarch64-linux-gnu"
    found=""
    for m in llvm-mca llvm-mca-19 llvm-mca-18 llvm-mca-17 llvm-mca-16 llvm-mca-15 llvm-mca-14; do
        command -v "$m" >/dev/null 2>&1 && found=$m && break
    done
    [ -n "$found" ] || missing="$missing llvm-mca" ;;
likwid)
    PKGS="likwid"
    missing=""
    command -v likwid-bench >/dev/null 2>&1 || missing=" likwid-bench" ;;
*) echo "deps: unknown argument '$1' (accepted: likwid, arm64, predict)" >&2; exit 2 ;;
esac
[ -z "$missing" ] && exit 0
echo "deps: missing:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: no apt-get here; install the equivalents of: $PKGS" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "deps: not root and no sudo; run as root: apt-get update && apt-get install -y --no-install-recommends $PKGS" >&2
        exit 1
    fi
fi
echo "deps: apt-get update && apt-get install -y --no-install-recommends $PKGS"
if [ "${1:-}" = arm64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "deps: dpkg --add-architecture arm64"
    $SUDO dpkg --add-architecture arm64
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $APT_OPTS $PKGS
[ "${1:-}" = arm64 ] && arm64_runtime
echo "deps: done"
