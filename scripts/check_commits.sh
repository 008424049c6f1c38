#!/bin/sh
# The commit convention (CONTRIBUTING.md): sh scripts/check_commits.sh [TIP]  (TIP defaults to HEAD)
# Every commit after BASE up to TIP has a subject of at most 72 characters and, when it has a body, a blank
# second line. Commits up to and including BASE predate the convention and are exempt. In a clone that lacks
# BASE (a shallow CI clone) the check cannot tell old from new: it says so in one line and passes.
# Exit 0: all new commits conform (or skipped); 1: one line per commit that does not; 2: bad usage.
set -u
BASE=ca7109aa57079a79c5d27ceb0889bb2638bbb2e7
MAX=72
# Commits after BASE that broke the rule once they were on main, whose history is never rewritten: each listed
# by full hash with what was wrong, so the check stays red for any new one.
EXEMPT="
8a0b2f7a5001fbd5ab184448e9788ce42874d793 subject of 73 characters (landed 2026-12-01 19:14 UTC, before the rule was known)
efd4324da6f948a1a1508eed670ca989f6317de9 subject of 73 characters (landed 2026-12-01 20:05 UTC without running this check first)
"
tip=${1:-HEAD}
[ $# -le 1 ] || { echo "usage: check_commits.sh [TIP]" >&2; exit 2; }

if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check_commits: skipped: not inside a git clone, so there is no history to check"
    exit 0
fi
if ! git cat-file -e "$BASE^{commit}" 2>/dev/null; then
    echo "check_commits: skipped: base $BASE is not in this clone (shallow?), so new commits cannot be told from old"
    exit 0
fi
git rev-parse --verify --quiet "$tip^{commit}" >/dev/null || {
    echo "check_commits: TIP '$tip' is not a commit; give a branch, tag or hash" >&2
    exit 2
}

bad=0
n=0
ex=0
for c in $(git rev-list --reverse "$BASE..$tip"); do
    case "$EXEMPT" in *"
$c "*) ex=$((ex + 1)); continue ;; esac
    n=$((n + 1))
    msg=$(git log -1 --format=%B "$c")
    subject=$(printf '%s\n' "$msg" | sed -n 1p)
    # Characters, not bytes: a subject may hold µs or ≤.
    len=$(printf '%s' "$subject" | LC_ALL=C.UTF-8 wc -m)
    short=$(git rev-parse --short "$c")
    if [ "$len" -gt "$MAX" ]; then
        echo "check_commits: $short: subject is $len characters (at most $MAX): $subject" >&2
        bad=1
    fi
    # A non-empty second line is a body glued to the subject (git log --oneline would show both).
    second=$(printf '%s\n' "$msg" | sed -n 2p)
    if [ -n "$second" ]; then
        echo "check_commits: $short: the second line must be blank (subject, blank line, body): $second" >&2
        bad=1
    fi
done
if [ "$bad" -eq 0 ]; then
    echo "check_commits: $n commit(s) after $(git rev-parse --short "$BASE") follow the convention ($ex listed as exempt)"
fi
exit "$bad"
