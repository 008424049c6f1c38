# common.sh — what scripts/manycore.sh and scripts/report.sh share, sourced by them (`. "$(dirname "$0")/common.sh"`):
# where the project's binaries and results are, one flag read from the arguments (and --help), and a new
# directory's name. POSIX sh, like its callers: a fresh machine has sh and coreutils and nothing else.
# shellcheck disable=SC2034 # BIN, RESULTS and common_flag_set are read by the scripts that source this file
BIN=${POOLBENCH_BIN:-build/bin}
RESULTS=${POOLBENCH_RESULTS:-results}

# common_flag NAME FLAG ACCEPTED ARG...: common_flag_set is 1 when FLAG is among the ARGs, else 0. -h or --help
# prints the calling script's header (its lines 2 to 8, without the '# ') and exits 0; any other ARG is one line
# naming NAME and what is ACCEPTED, and exit status 2.
common_flag() {
    common_name=$1 common_want=$2 common_accepted=$3
    shift 3
    common_flag_set=0
    for common_a in "$@"; do
        case "$common_a" in
        "$common_want") common_flag_set=1 ;;
        -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "$common_name: unknown argument '$common_a' (accepted: $common_accepted)" >&2; exit 2 ;;
        esac
    done
}

# common_new_path PATH: PATH when nothing stands there, else the first of PATH-2, PATH-3 ... that is free, so that
# an existing run directory or fixture is never written into.
common_new_path() {
    common_path=$1
    common_n=1
    while [ -e "$common_path" ]; do
        common_n=$((common_n + 1))
        common_path="$1-$common_n"
    done
    printf '%s\n' "$common_path"
}
