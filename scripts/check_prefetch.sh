#!/bin/sh
# sh scripts/check_prefetch.sh BUILD_DIR TARGET [OBJDUMP]: every streaming pass that is meant to prefetch its weights
# (kern.h, kern_prefetch_stream), and the memory floor's 4-stream readers that copy their pattern, still hold
# prefetch instructions in the objects the build made. A compiler may delete a prefetch it cannot see a use for:
# GCC 12 took an inline function whose only effects were prefetches for a const one and dropped its calls, and the
# floor then read without them, under what the kernels read. A timing could not tell that from a slow machine; the
# instructions can. TARGET: the compiler's (`cc -dumpmachine`:
# x86_64-linux-gnu, aarch64-linux-gnu) or its first word. Exit 1 naming each function that has none (or is
# missing), 0 when all do.
set -u
B=${1:?usage: check_prefetch.sh BUILD_DIR TARGET [OBJDUMP]}
TARGET=${2:?usage: check_prefetch.sh BUILD_DIR TARGET [OBJDUMP]}
ARCH=${TARGET%%-*}
OBJDUMP=${3:-objdump}
bad=0

# expect OBJECT FUNCTION...: each FUNCTION of OBJECT (under $B/obj) has at least one prefetch (x86 prefetch*,
# arm64 prfm).
expect() {
    obj=$B/obj/$1
    shift
    if [ ! -f "$obj" ]; then
        echo "check_prefetch: $obj is not built" >&2
        bad=1
        return
    fi
    counts=$("$OBJDUMP" -d --no-show-raw-insn "$obj" | awk '
        /^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3); next }
        f != "" && ($2 ~ /^prefetch/ || $2 == "prfm") { n[f]++ }
        END { for (k in n) print k, n[k] }')
    for fn in "$@"; do
        n=$(printf '%s\n' "$counts" | awk -v f="$fn" '$1 == f { print $2 }')
        if [ -z "$n" ]; then
            echo "check_prefetch: $fn in $obj has no prefetch instruction (or is not there)" >&2
            bad=1
        fi
    done
}

case $ARCH in
x86_64)
    expect bench/measure/x86/pb_memread_avx2.o pb_memread_avx2_4s
    expect bench/measure/x86/pb_memread_avx512.o pb_memread_avx512_4s
    # kern_matvec_prefetches' list: AVX2 and AVX-VNNI f32, f16, q8_0 (AVX-VNNI's f32 and f16 are AVX2's), every AVX-512 pass
    expect kernels/x86/kern_avx2.o rows_f32 rows_f16 rows_q8_0
    expect kernels/x86/kern_avxvnni.o rows_q8_0
    expect kernels/x86/kern_avx512.o rows_f32 rows_f16 rows_q8_0
    expect kernels/x86/kern_subbyte_avx512.o rows_q4_0 rows_q1_0 rows_tq2_0
    expect kernels/x86/kern_subbyte_avx512gfni.o rows_q4_0 rows_q1_0 rows_tq2_0
    expect kernels/x86/kern_kquant_avx512.o rows_q4_K rows_q6_K
    ;;
aarch64)
    expect bench/measure/arm/pb_memread_neon.o pb_memread_neon_4s
    ;;
*)
    echo "check_prefetch: no list for $ARCH: nothing checked"
    exit 0
    ;;
esac
[ $bad -eq 0 ] && echo "check_prefetch: every streaming pass and 4-stream reader of $B ($ARCH) prefetches"
exit $bad
