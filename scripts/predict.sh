#!/bin/sh
# `make predict` (sh scripts/predict.sh [--out DIR] [--run-dir DIR] [--iterations N]): cycles on paper. Every
# matvec kernel's hot loop, per format and variant, through llvm-mca for the cores of expect/predict_cpus.csv,
# into predict.csv: cycles per iteration and per block, bytes per cycle, and at each core's stated clock the
# GB/s one core could stream if its loads always hit L1 (llvm-mca models no cache misses). bench_report reads
# predict.csv from a run directory and says per chip whether one core's kernel outruns that chip's single-core
# memory bandwidth.
#
#   the loops   each kernel source is compiled with -S exactly as the build compiles it (the Makefile passes
#               CFLAGS and the x86 ISA flags; the arm64 ones are its pattern rules', checked below), by cc for
#               x86-64 and aarch64-linux-gnu-gcc for arm64; no marker is added, so the code is the build's.
#               scripts/predict_loop.awk finds the hot loop of each kernel function by its back edge and writes
#               its body; its status (ok, branchy, nested, ...) goes into the row, and a loop whose extraction is
#               ambiguous says so instead of being guessed.
#   the bytes   per iteration = rows of the pass x weight bytes one row's step reads, from the source (the table
#               below, with why); the awk also looks for that step in the loop's address arithmetic (stride_seen).
#   the function the one bench_kernels' L2 level runs: rows_cached where the variant has one, else rows.
#   output      DIR/predict.csv (default build/predict/) and DIR/asm/ (the -S files and each loop's mca input);
#               with --run-dir, predict.csv is also copied into that run directory (never over an existing one).
#
# Needs llvm-mca (Debian's llvm; `scripts/deps.sh predict` installs it and gcc-aarch64-linux-gnu). Fails when a
# row is missing: every core of the table must have a row for every format (KERN_FORMATS) its arch has a kernel of.
set -eu
cd "$(dirname "$0")/.."
OUT=build/predict
RUN_DIR=""
ITER=200
while [ $# -gt 0 ]; do
    case "$1" in
    --out) OUT=$2; shift 2 ;;
    --run-dir) RUN_DIR=$2; shift 2 ;;
    --iterations) ITER=$2; shift 2 ;;
    *) echo "predict: unknown argument '$1' (accepted: --out DIR, --run-dir DIR, --iterations N)" >&2; exit 2 ;;
    esac
done
case "$ITER" in '' | *[!0-9]*) echo "predict: --iterations takes a number, not '$ITER'" >&2; exit 2 ;; esac
if [ -n "$RUN_DIR" ] && [ ! -d "$RUN_DIR" ]; then
    echo "predict: --run-dir '$RUN_DIR' is not a directory" >&2; exit 2
fi
if [ -n "$RUN_DIR" ] && [ -e "$RUN_DIR/predict.csv" ]; then
    echo "predict: '$RUN_DIR/predict.csv' exists; not replacing it" >&2; exit 2
fi

MCA=""
for m in llvm-mca llvm-mca-19 llvm-mca-18 llvm-mca-17 llvm-mca-16 llvm-mca-15 llvm-mca-14; do
    if command -v "$m" >/dev/null 2>&1; then MCA=$m; break; fi
done
[ -n "$MCA" ] || { echo "predict: no llvm-mca (Debian: apt-get install llvm; or make deps-predict)" >&2; exit 1; }
X86CC=${CC_X86:-cc}
ARMCC=${CC_ARM64:-aarch64-linux-gnu-gcc}
command -v "$ARMCC" >/dev/null 2>&1 || { echo "predict: no $ARMCC (make deps-predict)" >&2; exit 1; }
"$X86CC" -dumpmachine | grep -q '^x86_64' || { echo "predict: $X86CC does not target x86-64" >&2; exit 1; }

# The build's flags. The Makefile passes them; run by hand, the defaults below are the Makefile's at the time of
# writing. -g0: debug info does not change GCC's code, and its directives would only be skipped.
BASE=${PREDICT_CFLAGS:--D_GNU_SOURCE -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -pthread -fopenmp}
AVX2=${PREDICT_AVX2_FLAGS:--mavx2 -mfma -mf16c}
AVX512=${PREDICT_AVX512_FLAGS:--mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni}
AVX512GFNI=${PREDICT_AVX512GFNI_FLAGS:-$AVX512 -mgfni}
AVXVNNI=${PREDICT_AVXVNNI_FLAGS:-$AVX2 -mavxvnni -mgfni}
# The arm64 flags are pattern-specific in the Makefile (its ARCH=aarch64 block); the same strings here, checked.
NEON=-march=armv8-a
DOTPROD=-march=armv8.2-a+dotprod
I8MM=-march=armv8.2-a+dotprod+i8mm
for f in "$NEON" "$DOTPROD" "$I8MM"; do
    grep -q -- "ISA_FLAGS = $f\$" Makefile || { echo "predict: the Makefile no longer builds arm64 with '$f'; update scripts/predict.sh" >&2; exit 1; }
done

A=$OUT/asm
rm -rf "$A"
mkdir -p "$A"
# Every source of a variant, compiled as the build compiles it, into $A/<variant>/: the kernels are found by their
# function's label in whichever file holds it, so a file split or renamed (kernels/x86/ is being split) needs no
# edit here. scalar: kernels/*.c for arm64 (the baseline files; no arm64 row uses them today).
compile() { # compile VARIANT COMPILER "FLAGS" SOURCES...
    v=$1 comp=$2 flags=$3
    shift 3
    mkdir -p "$A/$v"
    for src in "$@"; do
        [ -e "$src" ] || continue
        b=${src##*/}
        # shellcheck disable=SC2086 # flags are words by design
        "$comp" $BASE $flags -Ipool -Ikernels -g0 -S "$src" -o "$A/$v/${b%.c}.s"
    done
}
echo "predict: compiling the kernels with -S into $A/"
compile avx2 "$X86CC" "$AVX2" kernels/x86/*_avx2.c
compile avx512 "$X86CC" "$AVX512" kernels/x86/*_avx512.c
compile avx512gfni "$X86CC" "$AVX512GFNI" kernels/x86/*_avx512gfni.c
compile avxvnni "$X86CC" "$AVXVNNI" kernels/x86/*_avxvnni.c
compile neon "$ARMCC" "$NEON" kernels/arm/*_neon.c
compile dotprod "$ARMCC" "$DOTPROD" kernels/arm/*_dotprod.c
compile i8mm "$ARMCC" "$I8MM" kernels/arm/*_i8mm.c
compile scalar "$ARMCC" "" kernels/*.c

# The .s file of VARIANT that defines the first of FNS (names separated by |) found; empty when none does, or
# when two files define it (statics of the same name: which one runs is not known here).
find_fn() { # find_fn VARIANT FNS
    for f in $(echo "$2" | tr '|' ' '); do
        hits=$(grep -l "^$f:" "$A/$1"/*.s 2>/dev/null || true)
        n=$(echo "$hits" | grep -c . || true)
        if [ "$n" -eq 1 ]; then echo "$f $hits"; return; fi
        if [ "$n" -gt 1 ]; then echo "$f ambiguous"; return; fi
    done
    echo "${2%%|*} none"
}

# The kernels. step: weight bytes one row of the pass reads per iteration of the hot loop, from the source;
# dot: the step's count of one multiply instruction (opcode prefix), from the source: rows x blocks a step x that
# instruction per block (e.g. avx512 q8_0: 4 rows x one vpdpbusd for its two blocks; arm tq2_0: 4 rows x 4 units x
# 8 chunks x 2 sdot); rows: rows an iteration of the hot loop computes (the pass's: KERN256_ROWS, KERN512_ROWS,
# KQ512_ROWS, KERN_ARM_ROWS are 4; 1 where the pass keeps its row loop rolled); inner: the trip count of a
# constant loop GCC keeps rolled inside the step (0: none expected). A "block" is the format's (q8_0 34 bytes for
# 32 weights, q4_0 18/32, q1_0 18/128, tq2_0 66/256, q4_K 144/256, q6_K 210/256); f32 and f16 have none, so
# theirs is 32 values (128 and 64 bytes).
#   avx2      f32/f16: 16 values a step (64/32 B); q8_0: one block (34); q4_0, q1_0: two 18-byte blocks (36);
#             tq2_0: one block (66), its two 32-byte halves a rolled loop (inner 2); q4_K, q6_K: one block.
#   avxvnni   avx2's integer passes (kern_int256.h, kern_kquant256.h) with vpdpbusd where avx2 has vpmaddubsw
#             (q4_K and q6_K keep vpmaddubsw; their vpmaddwd became vpdpwssd); f32 and f16 are avx2's. GCC unrolls
#             tq2_0's two halves here (inner 0).
#   avx512    (and avx512gfni, which has q4_0, q1_0 and tq2_0 only: the same passes, another bit-field extraction)
#             f32/f16: 32 values (128/64 B); q8_0: two blocks (68); q4_0, q1_0: four 18-byte blocks (72); tq2_0,
#             q4_K, q6_K: four blocks (264, 576, 840), the K-quants' four vpdpbusd a block (their sums packed).
#   arm64     kern_arm.h's group: four units a step (q8_0, q4_0: 4 blocks, 136 and 72 B; q1_0: its units are
#             quarter blocks, so one block, 18 B; tq2_0: four blocks, 264 B, each unit's 8 chunks a rolled loop:
#             inner 8); f32/f16: 16 values (64/32 B). i8mm's rows are dotprod's passes built with +i8mm (its
#             SMMLA is in the batch kernels). q4_K, q6_K (kern_kquant_arm.h): the pass keeps its row loop rolled,
#             so the hot loop is one row's block (rows 1; 144, 210 B), 16 16-element dots: neon's smull count
#             adds one SMULL for the mins (q4_K) or the codes' +32 (q6_K), 17; i8mm's are dotprod's passes.
#   layout    the weights' layout the function reads: file, or a repacked one (kern_repack*_avx512.c, which
#             avx512gfni runs too; the 256-bit ones below). Their hot loop is the block loop of four groups in step (groups_in_step's
#             n = 4): 64 rows (q1_0_r32lut: 128) x one block a row. Per block and group of 16 rows: q8_0_r16 8
#             vpdpbusd, q4_0_r16 8, tq2_0_r16 64, q4_K_r16 68 (4 for the mins, 64 for the codes), q6_K_r16 64;
#             q1_0_r32lut 8 vpmaddwd a group of 32 (the tables' sums widened). The pass is inlined once per prefetch
#             setting (kern_stream), each loop free of hint branches; the tightest, modelled, is a copy with one
#             prefetch a line (no near one, which Intel's default adds: one more load-port instruction a line).
#             Not q6_K_r16's and q1_0_r32lut's (one copy, testing the hint at each prefetch): their rows are
#             branchy, the hint blocks GCC lays out after the loop (in chains, for the near and the far hint)
#             being detours (predict_loop.awk).
#             On 256 bits (kern_repack256.h, avx2 and avxvnni) a ymm holds 8 of a group's 16
#             rows, so a group's block takes twice the products: per group, q4_0_r16 16, q8_0_r16 16, tq2_0_r16 128;
#             the hot loop is the block loop of four groups (64 rows), but for q4_K_r16, whose groups step together a
#             sub-block pair at a time with the group loop rolled: one group's step (16 rows, both halves, 32 code
#             bytes a row), 32 products, the block's head (scales, mins, float steps) outside it. q1_0_r32lut on 256
#             bits (kern_lut256.h) takes its groups one at a time over a span of blocks: one group (32 rows) a
#             block, its four 32-weight quarters unrolled, 16 vpmaddwd a block (the sums widened); branchy, as the
#             AVX-512 one (one copy, testing the hint at each prefetch); q1_0_r32lut256 the same loop on row bytes. q6_K_r1 (kern_kquant256.h) has groups of
#             one row that a matvec reads as the file's rows: its hot loop is the file's, four rows a block each.
KERNELS='
x86_64  avx2       f32   file        rows_f32_cached                                  4 64   0 vfmadd:8
x86_64  avx2       f16   file        rows_f16_cached                                  4 32   0 vfmadd:8
x86_64  avx2       q8_0  file        rows_q8_0_cached                                 4 34   0 vpmaddubsw:4
x86_64  avx2       q4_0  file        rows_q4_0                                        4 36   0 vpmaddubsw:8
x86_64  avx2       q1_0  file        rows_q1_0                                        4 36   0 vpmaddubsw:32
x86_64  avx2       tq2_0 file        rows_tq2_0                                       4 66   2 vpmaddubsw:32
x86_64  avx2       q4_K  file        rows_q4_K|kern_rows_q4_K_avx2                    4 144  0 vpmaddubsw:32
x86_64  avx2       q6_K  file        rows_q6_K|kern_rows_q6_K_avx2                    4 210  0 vpmaddubsw:32
x86_64  avxvnni    q8_0  file        rows_q8_0_cached                                 4 34   0 vpdpbusd:4
x86_64  avxvnni    q4_0  file        rows_q4_0                                        4 36   0 vpdpbusd:8
x86_64  avxvnni    q1_0  file        rows_q1_0                                        4 36   0 vpdpbusd:32
x86_64  avxvnni    tq2_0 file        rows_tq2_0                                       4 66   0 vpdpbusd:32
x86_64  avxvnni    q4_K  file        rows_q4_K                                        4 144  0 vpmaddubsw:32
x86_64  avxvnni    q6_K  file        rows_q6_K                                        4 210  0 vpmaddubsw:32
x86_64  avx512     f32   file        rows_f32_cached                                  4 128  0 vfmadd:8
x86_64  avx512     f16   file        rows_f16_cached                                  4 64   0 vfmadd:8
x86_64  avx512     q8_0  file        rows_q8_0_cached                                 4 68   0 vpdpbusd:4
x86_64  avx512     q4_0  file        rows_q4_0_cached|kern_rows_q4_0_cached_avx512    4 72   0 vpdpbusd:8
x86_64  avx512     q1_0  file        rows_q1_0_cached|kern_rows_q1_0_cached_avx512    4 72   0 vpdpbusd:32
x86_64  avx512     tq2_0 file        rows_tq2_0_cached                                4 264  0 vpdpbusd:64
x86_64  avx512     q4_K  file        rows_q4_K_cached|kern_rows_q4_K_cached_avx512    4 576  0 vpdpbusd:64
x86_64  avx512     q6_K  file        rows_q6_K_cached|kern_rows_q6_K_cached_avx512    4 840  0 vpdpbusd:64
x86_64  avx512gfni q4_0  file        rows_q4_0_cached                                 4 72   0 vpdpbusd:8
x86_64  avx512gfni q1_0  file        rows_q1_0_cached                                 4 72   0 vpdpbusd:32
x86_64  avx512gfni tq2_0 file        rows_tq2_0_cached                                4 264  0 vpdpbusd:64
aarch64 neon       f32   file        rows_f32                                         4 64   0 fmla:16
aarch64 neon       f16   file        rows_f16                                         4 32   0 fmla:16
aarch64 neon       q8_0  file        rows_q8_0                                        4 136  0 smull:32
aarch64 neon       q4_0  file        rows_q4_0                                        4 72   0 smull:32
aarch64 neon       q1_0  file        rows_q1_0                                        4 18   0 smull:32
aarch64 neon       tq2_0 file        rows_tq2_0                                       4 264  8 smull:256
aarch64 dotprod    q8_0  file        rows_q8_0                                        4 136  0 sdot:32
aarch64 dotprod    q4_0  file        rows_q4_0                                        4 72   0 sdot:32
aarch64 dotprod    q1_0  file        rows_q1_0                                        4 18   0 sdot:32
aarch64 dotprod    tq2_0 file        rows_tq2_0                                       4 264  8 sdot:256
aarch64 i8mm       q8_0  file        rows_q8_0                                        4 136  0 sdot:32
aarch64 i8mm       q4_0  file        rows_q4_0                                        4 72   0 sdot:32
aarch64 i8mm       q1_0  file        rows_q1_0                                        4 18   0 sdot:32
aarch64 i8mm       tq2_0 file        rows_tq2_0                                       4 264  8 sdot:256
aarch64 neon       q4_K  file        rows_q4_K                                        1 144  0 smull:17
aarch64 neon       q6_K  file        rows_q6_K                                        1 210  0 smull:17
aarch64 dotprod    q4_K  file        rows_q4_K                                        1 144  0 sdot:16
aarch64 dotprod    q6_K  file        rows_q6_K                                        1 210  0 sdot:16
aarch64 i8mm       q4_K  file        rows_q4_K                                        1 144  0 sdot:16
aarch64 i8mm       q6_K  file        rows_q6_K                                        1 210  0 sdot:16
x86_64  avx512     q8_0  q8_0_r16    kern_group_q8_0_r16_avx512                      64 34   0 vpdpbusd:32
x86_64  avx512     q4_0  q4_0_r16    kern_group_q4_0_r16_avx512                      64 18   0 vpdpbusd:32
x86_64  avx512     tq2_0 tq2_0_r16   kern_group_tq2_0_r16_avx512                     64 66   0 vpdpbusd:256
x86_64  avx512     q4_K  q4_K_r16    kern_group_q4_K_r16_avx512                      64 144  0 vpdpbusd:272
x86_64  avx512     q6_K  q6_K_r16    kern_group_q6_K_r16_avx512                      64 210  0 vpdpbusd:256
x86_64  avx512     q1_0  q1_0_r32lut kern_group_q1_0_r32lut_avx512                  128 18   0 vpmaddwd:32
x86_64  avx2       q4_0  q4_0_r16    kern_group_q4_0_r16_avx2                        64 18   0 vpmaddubsw:64
x86_64  avx2       q8_0  q8_0_r16    kern_group_q8_0_r16_avx2                        64 34   0 vpmaddubsw:64
x86_64  avx2       tq2_0 tq2_0_r16   kern_group_tq2_0_r16_avx2                       64 66   0 vpmaddubsw:512
x86_64  avx2       q4_K  q4_K_r16    kern_group_q4_K_r16_avx2                        16 32   0 vpmaddubsw:32
x86_64  avx2       q1_0  q1_0_r32lut kern_group_q1_0_r32lut_avx2                     32 18   0 vpmaddwd:16
x86_64  avxvnni    q8_0  q8_0_r16    kern_group_q8_0_r16_avxvnni                     64 34   0 vpdpbusd:64
x86_64  avxvnni    q4_0  q4_0_r16    kern_group_q4_0_r16_avxvnni                     64 18   0 vpdpbusd:64
x86_64  avxvnni    tq2_0 tq2_0_r16   kern_group_tq2_0_r16_avxvnni                    64 66   0 vpdpbusd:512
x86_64  avxvnni    q4_K  q4_K_r16    kern_group_q4_K_r16_avxvnni                     16 32   0 vpdpbusd:32
x86_64  avxvnni    q1_0  q1_0_r32lut kern_group_q1_0_r32lut_avxvnni                  32 18   0 vpmaddwd:16
x86_64  avx2       q6_K  q6_K_r1     rows_q6_K_r1|kern_rows_q6_K_r1_avx2              4 210  0 vpmaddubsw:32
x86_64  avxvnni    q6_K  q6_K_r1     rows_q6_K_r1|kern_rows_q6_K_r1_avxvnni           4 210  0 vpmaddubsw:32
x86_64  avx2       q1_0  q1_0_r32lut256 kern_group_q1_0_r32lut256_avx2               32 18   0 vpmaddwd:16
x86_64  avxvnni    q1_0  q1_0_r32lut256 kern_group_q1_0_r32lut256_avxvnni            32 18   0 vpmaddwd:16
'

# KERN_FORMATS (kernels/kern_format.h) as "name weights_per_block bytes_per_block" lines, in its order: the formats
# the check below wants and their blocks come from the one list the C code compiles, so a new format needs no line
# here.
FORMATS=$(awk '/^#define KERN_FORMATS\(X\)/ { on = 1; next }
    on { if (match($0, /X\([^)]*\)/)) { split(substr($0, RSTART + 2, RLENGTH - 3), a, / *, */); print a[2], a[3], a[4] }
         if ($0 !~ /\\$/) on = 0 }' kernels/kern_format.h)
[ -n "$FORMATS" ] || { echo "predict: no KERN_FORMATS list in kernels/kern_format.h" >&2; exit 1; }

# A format's block in bytes; a float format (one weight a block) counts 32 values as one (f32 128, f16 64).
block_bytes() {
    echo "$FORMATS" | awk -v f="$1" '$1 == f { print $2 == 1 ? 32 * $3 : $3; found = 1 }
        END { if (!found) { print "predict: " f " is not in KERN_FORMATS" > "/dev/stderr"; exit 1 } }'
}

CPUS=expect/predict_cpus.csv
CSV=$OUT/predict.csv
TMP=$OUT/predict.csv.partial
echo "arch,cpu,chip,clock_ghz,format,variant,function,status,stride_seen,dot_ops,loop_insns,cycles_per_iter,block_rthroughput,mca_model,bytes_per_iter,blocks_per_iter,cycles_per_block,bytes_per_block,bytes_per_cycle,gbs_at_clock,core_bw_gbs,bw_kind,bw_source,layout" >"$TMP"

# One kernel: the loop once (it does not depend on the core), then llvm-mca per core of its arch.
echo "$KERNELS" | while read -r arch variant format layout fns rows step inner dot; do
    [ -n "$arch" ] || continue
    isa=x86
    triple=x86_64-unknown-linux-gnu
    if [ "$arch" = aarch64 ]; then isa=arm; triple=aarch64-linux-gnu; fi
    mca_in=$A/$variant.$format.$layout.mca.s
    set -- $(find_fn "$variant" "$fns")
    fn=$1 src=$2
    case "$src" in
    none | ambiguous) status="function-$src" stride=no insns=0; : >"$mca_in" ;;
    *)
        set -- $(awk -v fn="$fn" -v isa="$isa" -v step="$step" -v inner="$inner" -v out="$mca_in" \
            -f scripts/predict_loop.awk "$src")
        status=$1 stride=$2 insns=$3 ;;
    esac
    # the step's multiply instructions, counted (opcode prefix) against the source's: another loop than the step the
    # bytes were computed for (a kernel changed, or the awk took the remainder's loop) is reported, not used
    op=${dot%%:*} want=${dot#*:}
    # (GCC writes AVX-VNNI's VEX forms with a "{vex}" pseudo-prefix before the mnemonic)
    seen=$(awk -v op="$op" '{ m = $1 == "{vex}" ? $2 : $1 } index(m, op) == 1 { n++ } END { print n + 0 }' "$mca_in")
    if [ "$seen" != "$want" ] && [ "${status#function-}" = "$status" ] && [ "$status" != none ]; then
        status=unexpected-loop
    fi
    [ "$variant" = scalar ] && [ "$status" = ok ] && status=element-loop
    bb=$(block_bytes "$format")
    # the cores of this arch from the table (comment lines and the header skipped); a field with a comma would
    # need quoting: the table has none, and the awk below refuses one
    awk -F, -v a="$arch" '!/^#/ && $1 == a' "$CPUS" | while IFS=, read -r carch cpu chip clock csrc cvars bw bwkind bwsrc; do
        cyc="" rth="" model=""
        st=$status
        case " $cvars " in
        *" $variant "*) ;;
        *) [ "$variant" = scalar ] || st=cpu-lacks-$variant ;;
        esac
        if [ "$st" != none ] && [ "${st#function-}" = "$st" ] && [ "${st#cpu-lacks}" = "$st" ]; then
            rep=$A/$variant.$format.$layout.$cpu.mca.txt
            if "$MCA" -mtriple="$triple" -mcpu="$cpu" -iterations="$ITER" "$mca_in" >"$rep" 2>&1; then
                cyc=$(awk '/^Iterations:/ { it = $2 } /^Total Cycles:/ { c = $3 } END { if (it > 0) printf "%.3f", c / it }' "$rep")
                rth=$(awk '/^Block RThroughput:/ { print $3 }' "$rep")
                # the scheduling model llvm-mca used, by its first resource's name (SKXDivider: SKX): llvm 14 models
                # cortex-a76 and the Neoverses with Cortex-A57's units, sapphirerapids with Skylake-X's and
                # apple-m1 with Cyclone's, which the report must say
                model=$(awk '/^Resources:/ { getline; sub(/^\[[^]]*\] *- */, ""); sub(/(Unit|Divider|AGU|ALU|Port).*$/, ""); print; exit }' "$rep")
            else
                st=mca-error
            fi
        fi
        awk -v OFS=, -v arch="$arch" -v cpu="$cpu" -v chip="$chip" -v clock="$clock" -v format="$format" \
            -v variant="$variant" -v fn="$fn" -v st="$st" -v stride="$stride" -v dots="$op $seen/$want" -v insns="$insns" -v cyc="$cyc" \
            -v rth="$rth" -v model="$model" -v rows="$rows" -v step="$step" -v bb="$bb" -v bw="$bw" -v bwkind="$bwkind" \
            -v bwsrc="$bwsrc" -v layout="$layout" 'BEGIN {
                bpi = rows * step; blocks = bpi / bb
                cpb = ""; bpc = ""; gbs = ""
                if (cyc != "" && cyc > 0) {
                    cpb = sprintf("%.3f", cyc / blocks); bpc = sprintf("%.3f", bpi / cyc)
                    gbs = sprintf("%.2f", bpi / cyc * clock)
                }
                print arch, cpu, chip, clock, format, variant, fn, st, stride, dots, insns, cyc, rth, model, bpi, \
                    sprintf("%.4f", blocks), cpb, bb, bpc, gbs, bw, bwkind, bwsrc, layout
            }' >>"$TMP"
    done
done

# The table kept whole: every core of the table has a usable row (cycles, and a status the report uses) for every
# format of KERN_FORMATS that KERNELS has a kernel of for its arch; a kernel change that breaks an extraction fails
# here. A format with no SIMD kernel (scalar only) has no row, and the report says none for it.
need=$(echo "$KERNELS" | awk 'NF { print $1 "," $3 }' | sort -u)
missing=$(awk -F, -v need="$need" -v formats="$(echo "$FORMATS" | awk '{ print $1 }')" '
    NR == FNR { if (!/^#/ && $1 != "arch") cpus[$1 "," $2] = $1; next }
    FNR > 1 && $12 != "" && $8 ~ /^(ok|branchy|element-loop|nested)$/ { have[$1 "," $2 "," $5] = 1 }
    END {
        n = split(formats, f, "\n")
        for (c in cpus) for (i = 1; i <= n; i++) if (index("\n" need "\n", "\n" cpus[c] "," f[i] "\n") &&
            !((c "," f[i]) in have)) printf " %s/%s", c, f[i]
    }' "$CPUS" "$TMP")
ncpu=$(awk -F, '!/^#/ && $1 == "aarch64"' "$CPUS" | wc -l)
mv "$TMP" "$CSV"
rows=$(($(wc -l <"$CSV") - 1))
echo "predict: $rows rows in $CSV ($MCA, $ITER iterations; $ncpu aarch64 cores)"
if [ -n "$missing" ]; then
    echo "predict: FAILED: no usable row (see its status) for:$missing" >&2
    exit 1
fi
if [ "$ncpu" -lt 3 ]; then
    echo "predict: FAILED: fewer than 3 aarch64 cores in $CPUS" >&2
    exit 1
fi
awk -F, 'NR > 1 && $8 != "ok" && $8 !~ /^cpu-lacks/ { s[$8 " (" $6 " " $5 ")"] = 1 } END { for (k in s) printf "predict: status %s\n", k }' "$CSV" | sort
if [ -n "$RUN_DIR" ]; then
    cp "$CSV" "$RUN_DIR/predict.csv"
    echo "predict: copied into $RUN_DIR/predict.csv (bench_report $RUN_DIR adds its section)"
fi
