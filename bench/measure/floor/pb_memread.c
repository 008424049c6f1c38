/* pb_memread.c — the kernel table (each row names its ISA: kern_isa.h decides where it runs), and the scalar
 * kernels (baseline x86-64, 64-bit words).
 *
 * The scalar kernels sum bytes eight at a time (SWAR): a word's even and odd bytes are masked into four
 * 16-bit lanes and added to a lane accumulator, which holds at most 2 x 255 per word, so a lane accumulator
 * is folded into the 64-bit sum every PB_SWAR_WORDS words, before a lane can pass 65535. */
#include "pb_memread.h"

#include <string.h>

#include "pb_memread_isa.h"

/* GCC would turn the scalar loops into SSE2 vector code (-O2 vectorizes cheap loops since GCC 12) or into a
 * memset call: the scalar kernel must stay a loop of 64-bit loads and stores to mean what its name says. */
#if defined(__GNUC__) && !defined(__clang__)
#define PB_SCALAR_LOOP __attribute__((optimize("no-tree-vectorize", "no-tree-loop-distribute-patterns")))
#else
#define PB_SCALAR_LOOP
#endif

#define PB_SWAR_LANES 0x00FF00FF00FF00FFull
#define PB_SWAR_WORDS 128 /* 128 x 510 = 65280 per 16-bit lane */

static uint64_t pb_swar_fold(uint64_t lanes)
{
    uint64_t pairs = (lanes & 0x0000FFFF0000FFFFull) + ((lanes >> 16) & 0x0000FFFF0000FFFFull);
    return (pairs & 0xFFFFFFFFull) + (pairs >> 32);
}

static uint64_t pb_swar_bytes(uint64_t w)
{
    return (w & PB_SWAR_LANES) + ((w >> 8) & PB_SWAR_LANES);
}

PB_SCALAR_LOOP uint64_t pb_memsum_tail(const uint8_t *p, size_t bytes)
{
    uint64_t s = 0;
    for (size_t i = 0; i < bytes; i++)
        s += p[i];
    return s;
}

PB_SCALAR_LOOP uint64_t pb_memcopy_tail(uint8_t *dst, const uint8_t *src, size_t bytes)
{
    uint64_t s = 0;
    for (size_t i = 0; i < bytes; i++) {
        dst[i] = src[i];
        s += src[i];
    }
    return s;
}

PB_SCALAR_LOOP uint64_t pb_memwrite_tail(uint8_t *dst, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        dst[i] = PB_MEMWRITE_BYTE;
    return (uint64_t)bytes * PB_MEMWRITE_BYTE;
}

size_t pb_mem_head(const void *p, size_t align, size_t bytes)
{
    size_t head = (size_t)(-(uintptr_t)p & (align - 1));
    return head < bytes ? head : bytes;
}

/* One 64-bit load (or store) at any alignment: a fixed 8-byte memcpy is a plain mov. */
static inline uint64_t pb_ld64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

static inline uint64_t pb_mv64(uint8_t *dst, const uint8_t *src)
{
    uint64_t w = pb_ld64(src);
    if (dst)
        memcpy(dst, &w, sizeof w);
    return pb_swar_bytes(w);
}

/* Reads (and with dst, copies) 64-bit words with four independent lane accumulators, folded every
 * PB_SWAR_WORDS steps. */
PB_SCALAR_LOOP static uint64_t pb_scalar_words(uint8_t *dst, const uint8_t *src, size_t words)
{
    uint64_t sum = 0;
    while (words >= 4) {
        size_t steps = words / 4 < PB_SWAR_WORDS ? words / 4 : PB_SWAR_WORDS;
        uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (size_t i = 0; i < steps; i++, src += 32, dst = dst ? dst + 32 : NULL) {
            a0 += pb_mv64(dst, src);
            a1 += pb_mv64(dst ? dst + 8 : NULL, src + 8);
            a2 += pb_mv64(dst ? dst + 16 : NULL, src + 16);
            a3 += pb_mv64(dst ? dst + 24 : NULL, src + 24);
        }
        sum += pb_swar_fold(a0) + pb_swar_fold(a1) + pb_swar_fold(a2) + pb_swar_fold(a3);
        words -= 4 * steps;
    }
    for (; words > 0; words--, src += 8, dst = dst ? dst + 8 : NULL)
        sum += pb_swar_fold(pb_mv64(dst, src));
    return sum;
}

uint64_t pb_memread_scalar(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    const uint8_t *p = src;
    size_t head = pb_mem_head(p, 8, bytes), words = (bytes - head) / 8;
    uint64_t s = pb_memsum_tail(p, head) + pb_scalar_words(NULL, p + head, words);
    return s + pb_memsum_tail(p + head + 8 * words, bytes - head - 8 * words);
}

uint64_t pb_memcopy_scalar(void *dst, const void *src, size_t bytes)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t head = pb_mem_head(d, 8, bytes), words = (bytes - head) / 8, done = head + 8 * words;
    uint64_t sum = pb_memcopy_tail(d, s, head) + pb_scalar_words(d + head, s + head, words);
    return sum + pb_memcopy_tail(d + done, s + done, bytes - done);
}

PB_SCALAR_LOOP uint64_t pb_memwrite_scalar(void *dst, const void *src, size_t bytes)
{
    (void)src;
    uint8_t *d = dst;
    size_t head = pb_mem_head(d, 8, bytes), words = (bytes - head) / 8;
    pb_memwrite_tail(d, head);
    uint64_t *w = (uint64_t *)(void *)(d + head); /* aligned on 8 by the head; the buffer holds bytes only */
    for (size_t i = 0; i < words; i++)
        w[i] = PB_MEMWRITE_BYTE * 0x0101010101010101ull;
    pb_memwrite_tail(d + head + 8 * words, bytes - head - 8 * words);
    return (uint64_t)bytes * PB_MEMWRITE_BYTE;
}

uint64_t pb_memsum(const void *p, size_t bytes)
{
    return pb_memsum_tail(p, bytes);
}

/* ---------------------------------------------------------------- the table */

/* A row: name, op, ISA, function, what it does; the traffic follows from the op. */
#define PB_K(nm, o, i, f, w)                                                                                  \
    { .name = nm, .op = o, .isa = i, .fn = f, .traffic = (o) == PB_MEMOP_COPY ? 2 : 1, .what = w }

const pb_memkern pb_memkerns[] = {
    PB_K("scalar", PB_MEMOP_READ, KERN_ISA_SCALAR, pb_memread_scalar, "64-bit loads, 4 accumulators"),
#if defined(__x86_64__)
    PB_K("avx2", PB_MEMOP_READ, KERN_ISA_AVX2, pb_memread_avx2, "256-bit loads, 4 accumulators"),
    PB_K("avx2-nt", PB_MEMOP_READ, KERN_ISA_AVX2, pb_memread_avx2_nt,
         "256-bit streaming loads (vmovntdqa), 4 accumulators"),
    PB_K("avx2-4s", PB_MEMOP_READ, KERN_ISA_AVX2, pb_memread_avx2_4s,
         "256-bit loads on 4 streams a quarter apart, the passes' prefetch 1.5 KiB ahead (T2; NTA on AMD), "
         "2 accumulators each"),
    PB_K("avx2-4b", PB_MEMOP_READ, KERN_ISA_AVX2, pb_memread_avx2_4b,
         "256-bit loads on 4 streams a quarter of each MiB apart, MiB after MiB, no software prefetch, 2 "
         "accumulators each"),
    PB_K("avx512", PB_MEMOP_READ, KERN_ISA_AVX512, pb_memread_avx512, "512-bit loads, 8 accumulators"),
    PB_K("avx512-nt", PB_MEMOP_READ, KERN_ISA_AVX512, pb_memread_avx512_nt,
         "512-bit streaming loads (vmovntdqa), 8 accumulators"),
    PB_K("avx512-4s", PB_MEMOP_READ, KERN_ISA_AVX512, pb_memread_avx512_4s,
         "512-bit loads on 4 streams a quarter apart, the passes' prefetch 1.5 KiB ahead (T2; NTA on AMD), "
         "2 accumulators each"),
    PB_K("avx512-4b", PB_MEMOP_READ, KERN_ISA_AVX512, pb_memread_avx512_4b,
         "512-bit loads on 4 streams a quarter of each MiB apart, MiB after MiB, no software prefetch, 2 "
         "accumulators each"),
#endif
#if defined(__aarch64__) /* reads only: copies and writes on arm64 run the scalar rows */
    PB_K("neon", PB_MEMOP_READ, KERN_ISA_NEON, pb_memread_neon, "128-bit loads, 4 accumulators"),
    PB_K("neon-nt", PB_MEMOP_READ, KERN_ISA_NEON, pb_memread_neon_nt,
         "128-bit non-temporal pair loads (ldnp), 4 accumulators"),
    PB_K("neon-4s", PB_MEMOP_READ, KERN_ISA_NEON, pb_memread_neon_4s,
         "128-bit loads on 4 streams a quarter apart, PRFM PLDL3KEEP 1.5 KiB ahead, 2 accumulators each"),
    PB_K("neon-4b", PB_MEMOP_READ, KERN_ISA_NEON, pb_memread_neon_4b,
         "128-bit loads on 4 streams a quarter of each MiB apart, MiB after MiB, no software prefetch, 2 "
         "accumulators each"),
#endif
    PB_K("copy-scalar", PB_MEMOP_COPY, KERN_ISA_SCALAR, pb_memcopy_scalar, "64-bit loads and stores"),
#if defined(__x86_64__)
    PB_K("copy-avx2", PB_MEMOP_COPY, KERN_ISA_AVX2, pb_memcopy_avx2, "256-bit loads and stores"),
    PB_K("copy-avx2-nt", PB_MEMOP_COPY, KERN_ISA_AVX2, pb_memcopy_avx2_nt,
         "256-bit loads, non-temporal stores (vmovntdq)"),
    PB_K("copy-avx512", PB_MEMOP_COPY, KERN_ISA_AVX512, pb_memcopy_avx512, "512-bit loads and stores"),
    PB_K("copy-avx512-nt", PB_MEMOP_COPY, KERN_ISA_AVX512, pb_memcopy_avx512_nt,
         "512-bit loads, non-temporal stores (vmovntdq)"),
#endif
    PB_K("write-scalar", PB_MEMOP_WRITE, KERN_ISA_SCALAR, pb_memwrite_scalar, "64-bit stores"),
#if defined(__x86_64__)
    PB_K("write-avx2", PB_MEMOP_WRITE, KERN_ISA_AVX2, pb_memwrite_avx2, "256-bit stores"),
    PB_K("write-avx2-nt", PB_MEMOP_WRITE, KERN_ISA_AVX2, pb_memwrite_avx2_nt,
         "256-bit non-temporal stores (vmovntdq)"),
    PB_K("write-avx512", PB_MEMOP_WRITE, KERN_ISA_AVX512, pb_memwrite_avx512, "512-bit stores"),
    PB_K("write-avx512-nt", PB_MEMOP_WRITE, KERN_ISA_AVX512, pb_memwrite_avx512_nt,
         "512-bit non-temporal stores (vmovntdq)"),
#endif
    { .name = NULL },
};

int pb_memkern_count(void) { return (int)(sizeof pb_memkerns / sizeof *pb_memkerns) - 1; }

const pb_memkern *pb_memkern_find(const char *name)
{
    for (const pb_memkern *k = pb_memkerns; name && k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

bool pb_memkern_supported(const pb_memkern *k) { return k && kern_isa_supported(k->isa); }

bool pb_memkern_reads_here(const pb_memkern *k) { return pb_memkern_supported(k) && k->op == PB_MEMOP_READ; }

/* op's first row for an ISA: its plain kernel (the table's order); NULL when the ISA has none for op. */
static const pb_memkern *pb_memkern_first(pb_memop op, kern_isa isa)
{
    for (const pb_memkern *k = pb_memkerns; k->name; k++)
        if (k->op == op && k->isa == isa)
            return k;
    return NULL;
}

const pb_memkern *pb_memkern_for(pb_memop op, kern_isa want)
{
    if (!kern_isa_supported(want))
        return NULL;
    unsigned have = 0;
    for (const pb_memkern *k = pb_memkerns; k->name; k++)
        if (k->op == op)
            have |= kern_isa_bit(k->isa);
    kern_isa got = kern_isa_pick(want, have);
    return got < KERN_ISA_COUNT ? pb_memkern_first(op, got) : NULL;
}

const char *pb_memop_name(pb_memop op)
{
    static const char *const names[PB_MEMOP_COUNT] = { [PB_MEMOP_READ] = "read", [PB_MEMOP_COPY] = "copy",
                                                        [PB_MEMOP_WRITE] = "write" };
    return (unsigned)op < PB_MEMOP_COUNT ? names[op] : "?";
}

uint64_t pb_memsum_words(const void *p, size_t bytes)
{
    return pb_memread_scalar(NULL, p, bytes);
}
