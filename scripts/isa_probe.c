/* isa_probe — `make isa-probe`: what one x86 core pays for each building block of the AVX-512 kernels (zmm) and
 * of the AVX2 and AVX-VNNI ones (ymm), as TSC ticks per instruction in a throughput loop (12 independent chains, so
 * latency is hidden and the ports are the limit), and as a multiple of its table's vpaddd (zmm: two a cycle on
 * Intel's AVX-512 cores and Zen 4's, four on Zen 5's; ymm: four on Zen 3's: 2.0 means half its rate). The pairs
 * (a|b) run a on half the chains and b on the other half: where the two share their ports a pair costs what each
 * does alone, where they issue apart half of that. The kernels' comments and docs/kernels.md quote it where they
 * say which instruction sets a kernel's pace. Without perf counters (a VM has none: llvm-exegesis cannot run) the
 * TSC is the one clock there is; its ticks are not core cycles, hence the ratio.
 * Each probe runs 5 times, the median is printed with the range.
 * A probe whose extension this CPU lacks prints "skipped" and why.
 *
 *   usage: isa_probe [--iterations N]   (N loop trips a run, default 2000000; 12 instructions a trip)
 *
 * Standalone (no library of the tree): built by the Makefile's isa-probe target with the baseline flags; every
 * probe function carries its own target attribute and runs only after __builtin_cpu_supports says yes. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define CHAINS 12
#define RUNS 5
#define AVX512 "avx512f,avx512bw,avx512vl,avx512dq" /* every probe's target; some add one */

/* Keeps v in a register and opaque to the optimizer, so a chain is neither folded nor hoisted out of the loop. */
#define KEEP(v) __asm__ volatile("" : "+v"(v))

typedef uint64_t (*probe_fn)(long iters);

/* The loads' bytes (zeros: only their timing matters). Const, and still read from memory each trip: the loops take
 * its address through an empty asm, so the compiler cannot know the values. */
static const int8_t probe_buf[64 * CHAINS] __attribute__((aligned(64)));

/* ---- one function a building block: iters trips of CHAINS independent instructions; returns TSC ticks ---- */

/* CHAINS (12) named registers: an array of vectors stays in memory across the loop (GCC scalarizes it only after
 * the unrolling), which would time its loads and stores, not the instruction. */
#define EACH12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
/* The vector the probes of a section run on (VEC, and its set1, xor and zero), defined per section: zmm first,
 * then ymm. */
#define VEC __m512i
#define VSET1 _mm512_set1_epi32
#define VXOR _mm512_xor_si512
#define VZERO _mm512_setzero_si512
#define DECL(i) VEC a##i = init(i);
#define STEP(i) a##i = step(a##i, i);
#define HOLD(i) KEEP(a##i);
#define FOLD(i) s = VXOR(s, a##i);

#define PROBE_CHAIN(name, attrs)                                                                                 \
    static __attribute__((target(attrs), noinline)) uint64_t name(long iters)                                      \
    {                                                                                                            \
        VEC b = VSET1(0x01020304);                                                                               \
        KEEP(b);                                                                                                 \
        EACH12(DECL)                                                                                             \
        uint64_t t0 = __rdtsc();                                                                                 \
        for (long n = 0; n < iters; n++) {                                                                       \
            const int8_t *buf = probe_buf;                                                                       \
            __asm__ volatile("" : "+r"(buf)); /* an address the loop cannot hoist a load from */                 \
            (void)buf;                                                                                           \
            EACH12(STEP)                                                                                         \
            EACH12(HOLD)                                                                                         \
        }                                                                                                        \
        uint64_t t1 = __rdtsc();                                                                                 \
        VEC s = VZERO();                                                                                         \
        EACH12(FOLD)                                                                                             \
        KEEP(s);                                                                                                 \
        return t1 - t0;                                                                                          \
    }

/* Each probe: init(i), chain i's first value, and step(v, i), the instruction on chain i's value v (b: a constant
 * the compiler cannot see; buf: L1-resident bytes). */
#define init(i) _mm512_set1_epi32(i)
#define step(v, i) _mm512_add_epi32(v, b)
PROBE_CHAIN(p_vpaddd, AVX512)
#undef step
#define step(v, i) _mm512_dpbusd_epi32(v, b, b)
PROBE_CHAIN(p_vpdpbusd, AVX512 ",avx512vnni")
#undef step
#define step(v, i) _mm512_srli_epi16(v, 1)
PROBE_CHAIN(p_vpsrlw, AVX512)
#undef step
#define step(v, i) _mm512_permutexvar_epi16(b, v)
PROBE_CHAIN(p_vpermw, AVX512)
#undef step
#define step(v, i) _mm512_permutex2var_epi16(v, b, b)
PROBE_CHAIN(p_vpermt2w, AVX512)
#undef step
#define step(v, i) _mm512_permutexvar_epi8(b, v)
PROBE_CHAIN(p_vpermb, AVX512 ",avx512vbmi")
#undef step
#define step(v, i) _mm512_gf2p8affine_epi64_epi8(v, b, 0)
PROBE_CHAIN(p_gf2p8affine, AVX512 ",gfni")
#undef step
#define step(v, i) _mm512_movm_epi8(_mm512_movepi8_mask(v))
PROBE_CHAIN(p_vpmovm2b, AVX512)
#undef step
#define step(v, i) _mm512_movm_epi8(_mm512_bitshuffle_epi64_mask(v, b))
PROBE_CHAIN(p_vpshufbitqmb, AVX512 ",avx512bitalg")
#undef step
#define step(v, i) _mm512_shuffle_epi8(v, b)
PROBE_CHAIN(p_vpshufb, AVX512)
#undef step
#define step(v, i) _mm512_maddubs_epi16(v, b)
PROBE_CHAIN(p_vpmaddubsw, AVX512)
#undef step
#define step(v, i) _mm512_dpwssd_epi32(v, b, b)
PROBE_CHAIN(p_vpdpwssd, AVX512 ",avx512vnni")
#undef step
#define step(v, i) _mm512_castps_si512(_mm512_cvtepi32_ps(v))
PROBE_CHAIN(p_vcvtdq2ps, AVX512)
#undef step
#define step(v, i) _mm512_castps_si512(_mm512_fmadd_ps(_mm512_castsi512_ps(v), _mm512_castsi512_ps(b), _mm512_castsi512_ps(b)))
PROBE_CHAIN(p_vfmadd, AVX512)
#undef step
/* Pairs (the header says how to read them): the even chains run one instruction, the odd ones the other. */
#define step(v, i) ((i) & 1 ? _mm512_srli_epi16(v, 1) : _mm512_dpbusd_epi32(v, b, b))
PROBE_CHAIN(p_dpbusd_srlw, AVX512 ",avx512vnni")
#undef step
#define step(v, i) ((i) & 1 ? _mm512_shuffle_epi8(v, b) : _mm512_dpbusd_epi32(v, b, b))
PROBE_CHAIN(p_dpbusd_vpshufb, AVX512 ",avx512vnni")
#undef step
#define step(v, i) ((i) & 1 ? _mm512_permutexvar_epi16(b, v) : _mm512_dpbusd_epi32(v, b, b))
PROBE_CHAIN(p_dpbusd_vpermw, AVX512 ",avx512vnni")
#undef step
#define step(v, i) ((i) & 1 ? _mm512_gf2p8affine_epi64_epi8(v, b, 0) : _mm512_dpbusd_epi32(v, b, b))
PROBE_CHAIN(p_dpbusd_gf2p8affine, AVX512 ",avx512vnni,gfni")
#undef step
#define step(v, i) ((i) & 1 ? _mm512_shuffle_epi8(v, b) : _mm512_srli_epi16(v, 1))
PROBE_CHAIN(p_vpshufb_srlw, AVX512)
#undef step
#define step(v, i) ((i) & 1 ? _mm512_castps_si512(_mm512_fmadd_ps(_mm512_castsi512_ps(v), _mm512_castsi512_ps(b), _mm512_castsi512_ps(b))) : _mm512_dpbusd_epi32(v, b, b))
PROBE_CHAIN(p_dpbusd_vfmadd, AVX512 ",avx512vnni")
#undef step
#define step(v, i) _mm512_add_epi32(v, _mm512_loadu_si512(buf + 64 * (i)))
PROBE_CHAIN(p_load_add, AVX512)
#undef step
#define step(v, i) _mm512_add_epi32(v, _mm512_maskz_loadu_epi8(_mm512_movepi8_mask(b), buf + 64 * (i)))
PROBE_CHAIN(p_maskz_load_add, AVX512)
#undef step
#undef init

/* Eight kmovq k, m64 a trip, each masking a byte add or expanded to 64 bytes by vpmovm2b (a bit plane as a byte
 * operand, as a tile of AMX's bytes would need it), the qwords either loaded (never written) or just stored from a
 * zmm: what a kernel pays to turn a vector of bits into eight mask registers through memory (the compiler, left
 * alone, extracts the qwords through general registers instead). Ticks per kmovq, its add or expansion included. */
enum kmov_mode { KMOV_ADD, KMOV_EXPAND, KMOV_AFTER_STORE };
#define EACH8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ZERO(i) __m512i a##i = _mm512_setzero_si512();
#define KMOV(i)                                                                                                  \
    {                                                                                                            \
        __mmask64 k;                                                                                             \
        __asm__ volatile("kmovq %1, %0" : "=k"(k) : "m"(m[i]));                                                  \
        a##i = mode == KMOV_EXPAND ? _mm512_movm_epi8(k) : _mm512_mask_add_epi8(a##i, k, a##i, one);              \
        KEEP(a##i);                                                                                              \
    }
static __attribute__((target(AVX512), always_inline)) inline uint64_t kmov_probe(long iters, const enum kmov_mode mode)
{
    __m512i v = _mm512_set1_epi64(0x0f0f0f0f0f0f0f0fll), one = _mm512_set1_epi8(1), s = _mm512_setzero_si512();
    __mmask64 stored[8] __attribute__((aligned(64)));
    EACH8(ZERO)
    uint64_t t0 = __rdtsc();
    for (long n = 0; n < iters * CHAINS / 8; n++) {
        /* the qwords as masks: only the asm reads through this pointer (no C access to alias), and both buffers
         * are 64-byte aligned */
        const uint64_t *m = mode == KMOV_AFTER_STORE ? (const uint64_t *)(const void *)stored
                                                     : (const uint64_t *)(const void *)probe_buf;
        __asm__ volatile("" : "+r"(m)); /* loads the loop cannot hoist */
        if (mode == KMOV_AFTER_STORE) {
            v = _mm512_add_epi8(v, one);
            _mm512_store_si512(stored, v); /* the vector's bytes as eight masks: the intrinsic's store may alias */
        }
        EACH8(KMOV)
    }
    uint64_t t1 = __rdtsc();
    EACH8(FOLD)
    KEEP(s);
    return t1 - t0;
}
static __attribute__((target(AVX512), noinline)) uint64_t p_kmov_add(long iters)
{
    return kmov_probe(iters, KMOV_ADD);
}
static __attribute__((target(AVX512), noinline)) uint64_t p_kmov_movm2b(long iters)
{
    return kmov_probe(iters, KMOV_EXPAND);
}
static __attribute__((target(AVX512), noinline)) uint64_t p_store_kmov(long iters)
{
    return kmov_probe(iters, KMOV_AFTER_STORE);
}

/* A zmm store to L1 (twelve lines, each written once a trip), what every expanded vector a tile load reads costs.
 * Ticks per store. */
#define STORE(i)                                                                                                 \
    _mm512_store_si512(out + 64 * (i), a##i);                                                                    \
    a##i = _mm512_add_epi32(a##i, one);
static __attribute__((target(AVX512), noinline)) uint64_t p_store(long iters)
{
    int8_t sink[64 * CHAINS] __attribute__((aligned(64)));
    __m512i one = _mm512_set1_epi32(1);
#define init(i) _mm512_set1_epi32(i)
    EACH12(DECL)
#undef init
    uint64_t t0 = __rdtsc();
    for (long n = 0; n < iters; n++) {
        int8_t *out = sink;
        __asm__ volatile("" : "+r"(out)); /* stores the compiler cannot merge across trips */
        EACH12(STORE)
    }
    uint64_t t1 = __rdtsc();
    return t1 - t0;
}

/* ---------------------------------------------------------------- ymm: the AVX2 and AVX-VNNI kernels' blocks */

/* The same loop on 256 bits: what an AVX2-only core (Zen 2 and 3, Intel's hybrids) pays for each instruction of
 * kern_avx2.c, kern_kquant256.h, kern_repack256.h and kern_lut256.h, and what a pair costs where they share ports:
 * llvm-mca's models assume a perfect spread over the ports, which a core's scheduler need not reach. */
#undef VEC
#undef VSET1
#undef VXOR
#undef VZERO
#define VEC __m256i
#define VSET1 _mm256_set1_epi32
#define VXOR _mm256_xor_si256
#define VZERO _mm256_setzero_si256
#define AVX2 "avx2,fma"
#define init(i) _mm256_set1_epi32(i)
#define step(v, i) _mm256_add_epi32(v, b)
PROBE_CHAIN(y_vpaddd, AVX2)
#undef step
#define step(v, i) _mm256_and_si256(v, b)
PROBE_CHAIN(y_vpand, AVX2)
#undef step
#define step(v, i) _mm256_srli_epi16(v, 1)
PROBE_CHAIN(y_vpsrlw, AVX2)
#undef step
#define step(v, i) _mm256_shuffle_epi8(v, b)
PROBE_CHAIN(y_vpshufb, AVX2)
#undef step
#define step(v, i) _mm256_unpacklo_epi64(v, b)
PROBE_CHAIN(y_vpunpcklqdq, AVX2)
#undef step
#define step(v, i) _mm256_maddubs_epi16(v, b)
PROBE_CHAIN(y_vpmaddubsw, AVX2)
#undef step
#define step(v, i) _mm256_madd_epi16(v, b)
PROBE_CHAIN(y_vpmaddwd, AVX2)
#undef step
#define step(v, i) _mm256_dpbusd_avx_epi32(v, b, b)
PROBE_CHAIN(y_vpdpbusd, AVX2 ",avxvnni")
#undef step
#define YPS(v) _mm256_castsi256_ps(v)
#define step(v, i) _mm256_castps_si256(_mm256_fmadd_ps(YPS(v), YPS(b), YPS(b)))
PROBE_CHAIN(y_vfmadd, AVX2)
#undef step
#undef YPS
/* Pairs, as the zmm ones: the even chains run one instruction, the odd ones the other. */
#define step(v, i) ((i) & 1 ? _mm256_madd_epi16(v, b) : _mm256_maddubs_epi16(v, b))
PROBE_CHAIN(y_maddubsw_maddwd, AVX2)
#undef step
#define step(v, i) ((i) & 1 ? _mm256_add_epi32(v, b) : _mm256_shuffle_epi8(v, b))
PROBE_CHAIN(y_vpshufb_vpaddd, AVX2)
#undef step
#define step(v, i) ((i) & 1 ? _mm256_add_epi32(v, b) : _mm256_srli_epi16(v, 1))
PROBE_CHAIN(y_vpsrlw_vpaddd, AVX2)
#undef step
#define step(v, i) ((i) & 1 ? _mm256_srli_epi16(v, 1) : _mm256_shuffle_epi8(v, b))
PROBE_CHAIN(y_vpshufb_vpsrlw, AVX2)
#undef step
#define step(v, i) ((i) & 1 ? _mm256_maddubs_epi16(v, b) : _mm256_shuffle_epi8(v, b))
PROBE_CHAIN(y_vpshufb_maddubsw, AVX2)
#undef step
/* buf's bytes as vectors: vector types may alias anything, and the loads are unaligned ones */
#define step(v, i) _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(const void *)(buf + 32 * (i))))
PROBE_CHAIN(y_load_add, AVX2)
#undef step
#define BCAST16(i) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(buf + 16 * (i))))
#define step(v, i) _mm256_add_epi32(v, BCAST16(i))
PROBE_CHAIN(y_bcast128_add, AVX2)
#undef step
#define step(v, i) _mm256_shuffle_epi8(BCAST16(i), v)
PROBE_CHAIN(y_bcast128_vpshufb, AVX2)
#undef step
#undef BCAST16
#undef init

/* ---------------------------------------------------------------- the table */

enum {
    F_AVX512F = 1, F_AVX512BW = 2, F_AVX512VNNI = 4, F_AVX512VBMI = 8, F_GFNI = 16, F_AVX512BITALG = 32,
    F_AVX2 = 64, /* with FMA: the build's AVX2 kernels need both */
    F_AVXVNNI = 128
};

typedef struct probe {
    const char *name, *what;
    unsigned needs; /* F_ bits */
    probe_fn fn;
} probe;

/* The F_ bits this CPU has (__builtin_cpu_supports takes only a literal, hence one call a feature). */
static unsigned cpu_features(void)
{
    __builtin_cpu_init();
    return (__builtin_cpu_supports("avx512f") ? F_AVX512F : 0) | (__builtin_cpu_supports("avx512bw") ? F_AVX512BW : 0) |
           (__builtin_cpu_supports("avx512vnni") ? F_AVX512VNNI : 0) |
           (__builtin_cpu_supports("avx512vbmi") ? F_AVX512VBMI : 0) | (__builtin_cpu_supports("gfni") ? F_GFNI : 0) |
           (__builtin_cpu_supports("avx512bitalg") ? F_AVX512BITALG : 0) |
           (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? F_AVX2 : 0) |
           (__builtin_cpu_supports("avxvnni") ? F_AVXVNNI : 0);
}

/* The names of the F_ bits in needs that have lacks, comma-separated, into out. */
static const char *feature_names(unsigned lacks, char *out, size_t n)
{
    static const char *const names[] = { "avx512f", "avx512bw",     "avx512vnni", "avx512vbmi",
                                         "gfni",    "avx512bitalg", "avx2+fma",   "avxvnni" };
    out[0] = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (lacks & (1u << i))
            snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? "," : "", names[i]);
    return out;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The median of RUNS runs of p, and its range, in ticks per instruction. */
static void probe_measure(const probe *p, long iters, double out[3])
{
    uint64_t t[RUNS];
    p->fn(iters / 10 + 1); /* warm: the vector units power up, the code and buffer are in cache */
    for (int r = 0; r < RUNS; r++)
        t[r] = p->fn(iters);
    qsort(t, RUNS, sizeof t[0], cmp_u64);
    double per = (double)iters * CHAINS;
    out[0] = (double)t[RUNS / 2] / per;
    out[1] = (double)t[0] / per;
    out[2] = (double)t[RUNS - 1] / per;
}

/* zmm: the AVX-512 kernels' blocks. The first of each table is its unit. */
static const probe probes512[] = {
    { "vpaddd", "zmm add (the unit)", F_AVX512F, p_vpaddd },
    { "vpdpbusd", "zmm u8 x s8 dot, 4 bytes a dword lane", F_AVX512F | F_AVX512VNNI, p_vpdpbusd },
    { "vpsrlw", "zmm shift (a field out of its byte, step 1 of 2)", F_AVX512F | F_AVX512BW, p_vpsrlw },
    { "vgf2p8affineqb", "zmm bit-matrix a byte (a field out of its byte, 1 of 1)", F_AVX512F | F_GFNI, p_gf2p8affine },
    { "vpermw", "zmm word gather, one source", F_AVX512F | F_AVX512BW, p_vpermw },
    { "vpermt2w", "zmm word gather, two sources", F_AVX512F | F_AVX512BW, p_vpermt2w },
    { "vpermb", "zmm byte gather", F_AVX512F | F_AVX512VBMI, p_vpermb },
    { "vpmovb2m+vpmovm2b", "bytes' sign bits to a mask and back (two instructions)", F_AVX512F | F_AVX512BW, p_vpmovm2b },
    { "vpshufbitqmb+vpmovm2b", "64 chosen bits to a mask, then bytes (two instructions)", F_AVX512F | F_AVX512BITALG,
      p_vpshufbitqmb },
    { "vpshufb", "zmm in-lane byte shuffle (a scale into its lanes)", F_AVX512F | F_AVX512BW, p_vpshufb },
    { "vpmaddubsw", "zmm u8 x s8 pairs into int16", F_AVX512F | F_AVX512BW, p_vpmaddubsw },
    { "vpdpwssd", "zmm int16 pairs x int16 into int32", F_AVX512F | F_AVX512VNNI, p_vpdpwssd },
    { "vcvtdq2ps", "zmm int32 to float", F_AVX512F, p_vcvtdq2ps },
    { "vfmadd231ps", "zmm fused multiply-add", F_AVX512F, p_vfmadd },
    { "vpdpbusd|vpsrlw", "half the chains each", F_AVX512F | F_AVX512BW | F_AVX512VNNI, p_dpbusd_srlw },
    { "vpdpbusd|vpshufb", "half the chains each", F_AVX512F | F_AVX512BW | F_AVX512VNNI, p_dpbusd_vpshufb },
    { "vpdpbusd|vpermw", "half the chains each", F_AVX512F | F_AVX512BW | F_AVX512VNNI, p_dpbusd_vpermw },
    { "vpdpbusd|vgf2p8affineqb", "half the chains each", F_AVX512F | F_AVX512VNNI | F_GFNI, p_dpbusd_gf2p8affine },
    { "vpshufb|vpsrlw", "half the chains each", F_AVX512F | F_AVX512BW, p_vpshufb_srlw },
    { "vpdpbusd|vfmadd231ps", "half the chains each", F_AVX512F | F_AVX512VNNI, p_dpbusd_vfmadd },
    { "load+vpaddd", "a zmm load from L1 and an add", F_AVX512F, p_load_add },
    { "maskz-load+vpaddd", "a zero-masked byte load from L1 and an add", F_AVX512F | F_AVX512BW, p_maskz_load_add },
    { "kmovq-m64+masked-add", "a qword loaded as a mask (kmovq k, m64), masking a byte add", F_AVX512F | F_AVX512BW,
      p_kmov_add },
    { "kmovq-m64+vpmovm2b", "a qword loaded as a mask and expanded to 64 bytes of 0 or -1", F_AVX512F | F_AVX512BW,
      p_kmov_movm2b },
    { "store+vpaddd", "a zmm stored to L1 and an add", F_AVX512F, p_store },
    { "store+kmovq-m64", "a zmm stored, its 8 qwords loaded as masks (per kmovq, with a masked add)",
      F_AVX512F | F_AVX512BW, p_store_kmov },
};

/* ymm: the AVX2 and AVX-VNNI kernels' blocks, named apart from the zmm rows. */
static const probe probes256[] = {
    { "vpaddd/ymm", "ymm add (the unit)", F_AVX2, y_vpaddd },
    { "vpand/ymm", "ymm and (a field's mask)", F_AVX2, y_vpand },
    { "vpsrlw/ymm", "ymm shift (a field out of its byte)", F_AVX2, y_vpsrlw },
    { "vpshufb/ymm", "ymm in-lane byte shuffle (q1_0_r32lut's look-up, a scale into its lanes)", F_AVX2, y_vpshufb },
    { "vpunpcklqdq/ymm", "ymm qword unpack (q1_0_r32lut's row bytes)", F_AVX2, y_vpunpcklqdq },
    { "vpmaddubsw/ymm", "ymm u8 x s8 pairs into int16", F_AVX2, y_vpmaddubsw },
    { "vpmaddwd/ymm", "ymm int16 pairs into int32", F_AVX2, y_vpmaddwd },
    { "vpdpbusd/ymm", "ymm u8 x s8 dot, 4 bytes a dword lane (AVX-VNNI)", F_AVX2 | F_AVXVNNI, y_vpdpbusd },
    { "vfmadd231ps/ymm", "ymm fused multiply-add", F_AVX2, y_vfmadd },
    { "vpmaddubsw|vpmaddwd/ymm", "half the chains each: the int8 roof's pair", F_AVX2, y_maddubsw_maddwd },
    { "vpshufb|vpaddd/ymm", "half the chains each: a look-up and a sum", F_AVX2, y_vpshufb_vpaddd },
    { "vpsrlw|vpaddd/ymm", "half the chains each", F_AVX2, y_vpsrlw_vpaddd },
    { "vpshufb|vpsrlw/ymm", "half the chains each", F_AVX2, y_vpshufb_vpsrlw },
    { "vpshufb|vpmaddubsw/ymm", "half the chains each", F_AVX2, y_vpshufb_maddubsw },
    { "load+vpaddd/ymm", "a ymm load from L1 and an add", F_AVX2, y_load_add },
    { "vbroadcasti128+vpaddd/ymm", "16 bytes from L1 into both lanes (a look-up table) and an add", F_AVX2,
      y_bcast128_add },
    { "vbroadcasti128+vpshufb/ymm", "a table so loaded, and a look-up in it: one shuffle or two", F_AVX2,
      y_bcast128_vpshufb },
};

/* One table: its title, then a line a probe, each as a multiple of the table's unit (its first probe). */
static void probe_table(const char *title, const probe *t, size_t n, unsigned has, long iters)
{
    double unit = 0; /* the unit's median: t[0], measured first */
    printf("%s\n%-26s %10s %17s %9s  %s\n", title, "instruction", "ticks", "range", "x unit", "what");
    for (size_t i = 0; i < n; i++) {
        const probe *p = &t[i];
        if ((p->needs & has) != p->needs) {
            char lacks[96];
            printf("%-26s %10s %17s %9s  skipped: this CPU lacks %s\n", p->name, "-", "-", "-",
                   feature_names(p->needs & ~has, lacks, sizeof lacks));
            continue;
        }
        double m[3];
        probe_measure(p, iters, m);
        unit = i == 0 ? m[0] : unit;
        printf("%-26s %10.3f %8.3f-%-8.3f %9.2f  %s\n", p->name, m[0], m[1], m[2], m[0] / unit, p->what);
    }
}

static int usage(FILE *f, int rc)
{
    fprintf(f, "usage: isa_probe [--iterations N]\n"
               "TSC ticks per instruction of the AVX-512 (zmm) and AVX2 (ymm) kernels' building blocks, in a\n"
               "throughput loop of %d independent chains, and as a multiple of its table's vpaddd. N: loop\n"
               "trips a run (1000..1000000000, default 2000000); 5 runs a probe, median [min-max].\n",
               CHAINS);
    return rc;
}

int main(int argc, char **argv)
{
    long iters = 2000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help"))
            return usage(stdout, 0);
        char *end = NULL;
        long v = i + 1 < argc && !strcmp(argv[i], "--iterations") ? strtol(argv[i + 1], &end, 10) : -1;
        if (v < 1000 || v > 1000000000 || !end || *end) {
            fprintf(stderr, "isa_probe: bad argument '%s': accepted --iterations N (1000..1000000000), --help\n",
                    argv[i]);
            return 2;
        }
        iters = v;
        i++;
    }
    unsigned has = cpu_features();
    if (!(has & (F_AVX512F | F_AVX2))) {
        printf("isa_probe: skipped: this CPU has neither AVX-512 nor AVX2 with FMA (every probe is a zmm or ymm "
               "instruction)\n");
        return 0;
    }
    if (has & F_AVX512F)
        probe_table("zmm (AVX-512)", probes512, sizeof probes512 / sizeof probes512[0], has, iters);
    else
        printf("zmm (AVX-512): skipped: this CPU has no AVX-512\n");
    if (has & F_AVX2)
        probe_table("ymm (AVX2, AVX-VNNI)", probes256, sizeof probes256 / sizeof probes256[0], has, iters);
    else
        printf("ymm (AVX2, AVX-VNNI): skipped: this CPU has no AVX2 with FMA\n");
    return 0;
}
