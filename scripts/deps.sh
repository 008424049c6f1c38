#!/bin/sh
# Installs the Debian packages poolbench needs, only when something is missing, and says what it does.
# Run by `make deps`, which `make test`, `make check` and `make report` depend on. `deps.sh likwid` (make
# deps-likwid) installs likwid instead, for scripts/likwid_compare.sh only.
set -eu
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

case "${1:-}" in
"") missing=$(base_missing) ;;
likwid)
    PKGS="likwid"
    missing=""
    command -v likwid-bench >/dev/null 2>&1 || missing=" likwid-bench" ;;
*) echo "deps: unknown argument '$1' (accepted: likwid)" >&2; exit 2 ;;
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
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $PKGS
echo "deps: done"
