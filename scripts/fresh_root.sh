#!/usr/bin/env bash
# `make fresh-root` (bash scripts/fresh_root.sh [COMMAND...]): the README's commands as a new user runs them, on a
# Debian 12 root made by debootstrap (minbase, plus make) with nothing else installed, as root in a chroot. A step
# that only works because the host has a package installed fails here. Default commands: `make test`,
# `make report QUICK=1`, `make test-arm64`; each prints its exit status and wall time, and the script exits 1 when
# any failed.
#
#   the root      built once and kept as a tarball in build-fresh/ (the cache; delete it to rebuild), unpacked
#                 afresh for every run under /var/tmp and removed at the end, on failure and on a signal too
#   the project   its tracked files as they are in the working tree, copied to /root/poolbench in the root
#   the network   the chroot's apt sources are the host's Debian mirror for bookworm and nothing else
#   skipped       only where debootstrap or chroot cannot run (not root, no mount) and CI is unset: one line
#                 saying why, exit 0; under CI=true that is a failure
set -uo pipefail
umask 022
cd "$(dirname "$0")/.."
PROJECT=$PWD
SUITE=bookworm
CACHE_DIR=$PROJECT/build-fresh
CACHE=$CACHE_DIR/debian12-minbase.tar
CACHE_KEY="suite=$SUITE variant=minbase include=make arch=$(dpkg --print-architecture 2>/dev/null || uname -m)"
FRESH_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Wall-clock limits per command (seconds): well over what each takes on a 2-core CI machine.
LIMIT_S=${FRESH_ROOT_LIMIT_S:-2400}

usage() {
    cat <<'EOF'
usage: scripts/fresh_root.sh [--help] [COMMAND...]
Runs each COMMAND (default: 'make test' 'make report QUICK=1' 'make test-arm64') in /root/poolbench of a fresh
Debian 12 root (debootstrap minbase + make), as root in a chroot, and prints each one's exit status and wall time.
The pristine root is cached as build-fresh/debian12-minbase.tar. FRESH_ROOT_LIMIT_S: seconds a command may run
(default 2400). Exit: 0 all passed (or skipped outside CI), 1 a command failed, 2 the root could not be made.
EOF
}

# A step that cannot run on this machine: skipped outside CI, a failure under CI=true.
cannot_run() {
    if [ "${CI:-}" = true ]; then
        echo "fresh-root: cannot run: $1 (CI=true: this stage must run)" >&2
        exit 2
    fi
    echo "fresh-root: skipped: $1 (CI is unset; under CI=true this is a failure)"
    exit 0
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
-*) echo "fresh-root: unknown option '$1' (accepted: --help, then commands)" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then CMDS=("$@"); else CMDS=("make test" "make report QUICK=1" "make test-arm64"); fi

[ "$(id -u)" -eq 0 ] || cannot_run "debootstrap, mount and chroot need root (id -u is $(id -u))"
command -v chroot >/dev/null 2>&1 || cannot_run "no chroot command"
command -v git >/dev/null 2>&1 || cannot_run "no git to list the project's tracked files"
sh scripts/deps.sh fresh || cannot_run "debootstrap could not be installed"

# The host's Debian mirrors for the suite and its -updates and -security, as one-line apt sources, read from
# both source formats (one-line *.list and deb822 *.sources). Third-party sources are left out.
host_sources() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        sed -E 's/\[[^]]*\]//; s/#.*//' "$f" | awk -v s="$SUITE" '$1 == "deb" && $3 ~ "^" s "(-updates|-security)?$" {
            print "deb " $2 " " $3 " main" }'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk -v s="$SUITE" '
            function emit(   i, j, nu, ns, u, x) {
                if (types ~ /(^| )deb( |$)/ && enabled !~ /^(no|false)$/) {
                    nu = split(uris, u, " "); ns = split(suites, x, " ")
                    for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
                        if (x[j] ~ "^" s "(-updates|-security)?$") print "deb " u[i] " " x[j] " main"
                }
                types = uris = suites = enabled = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { emit(); next }
            { key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
              if (key == "types") types = $0; else if (key == "uris") uris = $0
              else if (key == "suites") suites = $0; else if (key == "enabled") enabled = tolower($0) }
            END { emit() }' "$f"
    done
}
SOURCES=$(host_sources | sort -u)
MIRROR=$(printf '%s\n' "$SOURCES" | awk -v s="$SUITE" '$3 == s { print $2; exit }')
[ -n "$MIRROR" ] || cannot_run "no '$SUITE' Debian source in the host's apt sources"

ROOT=""
# Unmounts everything under the root (deepest first) and removes it, only once nothing is mounted there: a bind
# mount of /dev or /sys still in place would make rm reach the host's.
cleanup() {
    [ -n "$ROOT" ] && [ -d "$ROOT" ] || return 0
    local m
    for m in $(awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r); do
        umount -l "$m" 2>/dev/null || true
    done
    if awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/self/mounts; then
        echo "fresh-root: $ROOT still has mounts; left in place, remove it by hand" >&2
    else
        rm -rf --one-file-system "$ROOT"
    fi
    ROOT=""
}
trap cleanup EXIT
trap 'echo "fresh-root: stopped by a signal" >&2; cleanup; exit 130' INT TERM HUP

# The pristine root: from the cache when its key matches, else debootstrap into a fresh directory and cache it.
make_cache() {
    local tmp
    tmp=$(mktemp -d /var/tmp/poolbench-debootstrap.XXXXXX) || return 1
    ROOT=$tmp
    echo "fresh-root: debootstrap --variant=minbase --include=make $SUITE from $MIRROR (once; cached afterwards)"
    if ! debootstrap --variant=minbase --include=make "$SUITE" "$tmp" "$MIRROR" >"$CACHE_DIR/debootstrap.log" 2>&1; then
        echo "fresh-root: debootstrap failed; its log: $CACHE_DIR/debootstrap.log (last lines below)" >&2
        tail -n 5 "$CACHE_DIR/debootstrap.log" >&2
        return 1
    fi
    # A fresh image has empty package lists: the project must run apt-get update itself.
    rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/archives/*.deb
    tar -C "$tmp" -cf "$CACHE.tmp.$$" . && mv "$CACHE.tmp.$$" "$CACHE" && printf '%s\n' "$CACHE_KEY" >"$CACHE.key"
    cleanup
}

mkdir -p "$CACHE_DIR"
t_root=$(date +%s)
if [ -f "$CACHE" ] && [ "$(cat "$CACHE.key" 2>/dev/null)" = "$CACHE_KEY" ]; then
    echo "fresh-root: the pristine root from the cache $CACHE (a previous run made it; delete it to rebuild)"
else
    make_cache || exit 2
fi
ROOT=$(mktemp -d /var/tmp/poolbench-fresh-root.XXXXXX) || exit 2
tar -C "$ROOT" -xf "$CACHE" || { echo "fresh-root: cannot unpack $CACHE" >&2; exit 2; }
printf '%s\n' "$SOURCES" >"$ROOT/etc/apt/sources.list"
rm -f "$ROOT"/etc/apt/sources.list.d/*
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$ROOT/root/poolbench"
# Tracked files as they are in the working tree (a file deleted there is left out): what a clone would hold.
git -C "$PROJECT" ls-files -z | tar -C "$PROJECT" --null -T - --ignore-failed-read -cf - 2>/dev/null |
    tar -C "$ROOT/root/poolbench" -xf - || { echo "fresh-root: cannot copy the project's files" >&2; exit 2; }
for m in proc sys dev; do mkdir -p "$ROOT/$m"; done
mount -t proc proc "$ROOT/proc" && mount --rbind /sys "$ROOT/sys" && mount --make-rslave "$ROOT/sys" &&
    mount --bind /dev "$ROOT/dev" && mount --make-rslave "$ROOT/dev" && mount -t devpts -o newinstance,ptmxmode=0666 devpts "$ROOT/dev/pts" &&
    mount -t tmpfs tmpfs "$ROOT/dev/shm" || cannot_run "mount inside the root failed (a container without CAP_SYS_ADMIN?)"
echo "fresh-root: root ready in $(($(date +%s) - t_root)) s at $ROOT"

status=0
summary=""
for c in "${CMDS[@]}"; do
    echo "== fresh root: $c"
    t0=$(date +%s)
    rc=0
    timeout -k 30 "$LIMIT_S" chroot "$ROOT" env -i PATH="$FRESH_PATH" HOME=/root LANG=C.UTF-8 \
        bash -c 'cd /root/poolbench && eval "$1"' fresh-root "$c" </dev/null 2>&1 || rc=$?
    t1=$(date +%s)
    [ "$rc" -eq 0 ] || status=1
    [ "$rc" -eq 124 ] && echo "fresh-root: '$c' ran past ${LIMIT_S} s and was stopped"
    summary="$summary
  $(printf '%-22s exit %3d  %5d s' "$c" "$rc" "$((t1 - t0))")"
done
echo "== fresh root: summary (Debian $SUITE minbase + make, as root in a chroot)$summary"
exit $status
