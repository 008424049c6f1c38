#!/bin/sh
# `make fuzz`: builds tests/fuzz_csvread.c with clang's libFuzzer (-fsanitize=fuzzer,address,undefined) and runs
# it for FUZZ_SECONDS (default 60). Installs Debian's clang when it is missing, as make deps does. Exits non-zero
# on a crash or a sanitizer report; the failing input is kept under build-fuzz/.
set -eu
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
CLANG=${FUZZ_CC:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "fuzz: $CLANG is missing; installing Debian's clang"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang
fi
mkdir -p build-fuzz/corpus
echo "fuzz: $CLANG -fsanitize=fuzzer,address,undefined tests/fuzz_csvread.c bench/io/pb_csvread.c"
"$CLANG" -std=c11 -D_GNU_SOURCE -Ibench/io -O1 -g -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all tests/fuzz_csvread.c bench/io/pb_csvread.c -o build-fuzz/fuzz_csvread
# Seeds: the hand-written cases and every fixture CSV (the reader's real inputs).
for f in tests/data/fuzz_csv/* tests/data/runs/*/*.csv; do
    [ -f "$f" ] && cp "$f" "build-fuzz/corpus/seed-$(echo "$f" | tr '/' '_')"
done
echo "fuzz: running for ${SECONDS_TO_RUN}s"
cd build-fuzz
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ./fuzz_csvread -max_total_time="$SECONDS_TO_RUN" \
    -max_len=8192 -print_final_stats=1 corpus
echo "fuzz: no crash or sanitizer report in ${SECONDS_TO_RUN}s"
