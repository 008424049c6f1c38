#!/bin/sh
# `make fuzz`: builds tests/fuzz/fuzz_csvread.c, fuzz_gguf.c, fuzz_llamabench.c, fuzz_expect.c and fuzz_wisdom.c with clang's
# libFuzzer (-fsanitize=fuzzer,address,undefined) and runs each for FUZZ_SECONDS (default 60). Installs Debian's
# clang and its libFuzzer runtime when either is missing, as make deps does. Exits non-zero on a crash or a
# sanitizer report; the failing input is kept under build-fuzz/.
set -eu
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
CLANG=${FUZZ_CC:-clang}
# Whether $CLANG links a fuzz target: the runtime (libclang_rt.fuzzer) is libclang-rt-dev, which clang only
# recommends, so an install without recommends has a clang that cannot link one.
fuzzer_links() {
    echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' |
        "$CLANG" -x c -fsanitize=fuzzer,address,undefined - -o /dev/null >/dev/null 2>&1
}
if ! command -v "$CLANG" >/dev/null 2>&1 || ! fuzzer_links; then
    echo "fuzz: $CLANG or its libFuzzer runtime is missing; installing Debian's clang and libclang-rt-dev"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang libclang-rt-dev
    fuzzer_links || { echo "fuzz: $CLANG still cannot link a libFuzzer target" >&2; exit 1; }
fi
# One target per reader of outside input, each built with its reader's sources and run for SECONDS_TO_RUN with
# its own corpus: the CSV reader (seeds: the hand-written cases and every fixture CSV), the GGUF reader (seeds:
# tests/data/fuzz_gguf, small files of the shapes a model file has), the llama-bench reader (seeds: the real
# outputs in tests/data/llama-bench, each input read as every format) and bench_check's expect grammar.
fuzz_one() { # NAME MAX_LEN SOURCES... ; seeds come from $SEEDS
    name=$1 max_len=$2
    shift 2
    mkdir -p "build-fuzz/corpus-$name"
    echo "fuzz: $CLANG -fsanitize=fuzzer,address,undefined $*"
    "$CLANG" -std=c11 -D_GNU_SOURCE -Ibench/base -Ibench/io -Ibench/io/gguf -Ibench/io/llamabench -O1 -g \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all "$@" -lm -pthread -o "build-fuzz/fuzz_$name"
    for f in $SEEDS; do
        [ -f "$f" ] && cp "$f" "build-fuzz/corpus-$name/seed-$(echo "$f" | tr '/' '_')"
    done
    echo "fuzz: running $name for ${SECONDS_TO_RUN}s"
    (cd build-fuzz && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "./fuzz_$name" \
        -max_total_time="$SECONDS_TO_RUN" -max_len="$max_len" -print_final_stats=1 "corpus-$name")
}
SEEDS="tests/data/fuzz_csv/* tests/data/runs/*/*.csv"
fuzz_one csvread 8192 tests/fuzz/fuzz_csvread.c bench/io/pb_csvread.c
SEEDS="tests/data/fuzz_gguf/*"
fuzz_one gguf 16384 tests/fuzz/fuzz_gguf.c bench/io/gguf/pb_gguf.c bench/io/gguf/pb_gguf_types.c bench/io/pb_infile.c \
    bench/base/pb_err.c
SEEDS="tests/data/llama-bench/*"
# SQLite runs its sql and jansson reads its json: linked as built (uninstrumented), what is fuzzed is our use of them.
fuzz_one llamabench 16384 tests/fuzz/fuzz_llamabench.c bench/io/llamabench/*.c bench/io/pb_csvread.c \
    bench/io/pb_csvfile.c bench/io/pb_infile.c bench/io/pb_cells.c bench/io/pb_schema.c bench/io/pb_csv.c bench/io/pb_md_escape.c \
    bench/base/pb_err.c $(pkg-config --cflags --libs sqlite3 jansson)
# bench_check's expect grammar (seeds: the repository's invariants and tests/data/fuzz_expect, each family and
# filter kind, misspellings, CRLF): with the schema it takes its names from.
SEEDS="expect/*.txt tests/data/fuzz_expect/*"
fuzz_one expect 4096 -Ibench/report -Ibench/report/check -Ibench/report/results tests/fuzz/fuzz_expect.c \
    bench/report/check/pb_check_expect.c bench/io/pb_schema.c bench/io/pb_schema_points.c bench/io/pb_csv.c \
    bench/io/pb_md_escape.c bench/io/pb_infile.c bench/base/pb_err.c
# The wisdom reader (seeds: tests/data/fuzz_wisdom, files of each line kind): its format and ISA names come from the
# kernels' tables, linked from make's build/libkernels.a and build/libpool.a (built first; uninstrumented).
SEEDS="tests/data/fuzz_wisdom/*"
make -s build/libkernels.a build/libpool.a
fuzz_one wisdom 8192 -Ibench/platform -Ibench/machine -Ipool -Ibench/measure -Ibench/measure/exec -Ikernels \
    tests/fuzz/fuzz_wisdom.c bench/measure/pb_wisdom.c bench/base/pb_err.c build/libkernels.a build/libpool.a
echo "fuzz: no crash or sanitizer report in ${SECONDS_TO_RUN}s per target"
