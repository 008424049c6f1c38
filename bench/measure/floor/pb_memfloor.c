/* pb_memfloor.c — streaming bandwidth on one pool and one buffer (pb_memfloor.h), behind bench_memory_floor. */
#include "pb_memfloor.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb_time.h"

uint64_t pb_memfloor_default_mib(uint64_t llc_bytes, bool quick)
{
    uint64_t llc_mib = ((quick ? PB_MF_QUICK_LLC_FACTOR : PB_MF_LLC_FACTOR) * llc_bytes + (1u << 20) - 1) >> 20;
    return llc_mib > PB_MF_MIN_MIB ? llc_mib : PB_MF_MIN_MIB;
}

int pb_memfloor_check_size(uint64_t mib, uint64_t avail_bytes, char *err, size_t errlen)
{
    uint64_t limit = avail_bytes / 2 >> 20;
    if (mib <= limit)
        return 0;
    snprintf(err, errlen, "--size %llu: more than half of the available memory (MemAvailable %llu MiB); accepted: 1..%llu",
             (unsigned long long)mib, (unsigned long long)(avail_bytes >> 20), (unsigned long long)limit);
    return -1;
}

void pb_memfloor_init(pb_memfloor_ctx *c, pool *p, uint8_t *buf, size_t bytes)
{
    c->pool = p;
    c->threads = pool_threads(p);
    c->buf = buf;
    c->bytes = bytes;
    c->expect_sum = 0;
    c->touch_s = 0;
    c->kern = NULL;
    c->spans = NULL;
    c->nspans = 0;
}

void pb_memfloor_init_spans(pb_memfloor_ctx *c, pool *p, const pb_memspan *spans, int n, size_t bytes)
{
    pb_memfloor_init(c, p, NULL, bytes);
    c->spans = spans;
    c->nspans = n;
}

size_t pb_memspan_lay(pb_memspan *spans, int n)
{
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        spans[i].at = at;
        at += spans[i].bytes;
    }
    return at;
}

/* Thread id's share [*a, *b) of span bytes, in whole PB_MF_UNIT pages. */
static void pb_memfloor_slice(size_t span, int id, int n, size_t *a, size_t *b)
{
    size_t u0, u1;
    pool_split((span + PB_MF_UNIT - 1) / PB_MF_UNIT, id, n, &u0, &u1);
    *a = u0 * PB_MF_UNIT < span ? u0 * PB_MF_UNIT : span;
    *b = u1 * PB_MF_UNIT < span ? u1 * PB_MF_UNIT : span;
}

/* The fill: word i of each half holds (i + 1) x the 64-bit golden ratio, so the bytes look random, almost
 * none is zero, and both halves are equal. */
static void pb_memfloor_fill(void *ctx, int id, int n)
{
    pb_memfloor_ctx *c = ctx;
    size_t a, b, half = c->bytes / 2;
    pb_memfloor_slice(c->bytes, id, n, &a, &b);
    uint64_t *w = (uint64_t *)(void *)c->buf; /* the buffer is page-aligned and only ever read as bytes or words */
    for (size_t i = a / 8; i < b / 8; i++)
        w[i] = ((i % (half / 8)) + 1) * 0x9E3779B97F4A7C15ull;
    c->slot[id].sum = pb_memsum_words(c->buf + a, b - a);
}

void pb_memfloor_touch(pb_memfloor_ctx *c)
{
    uint64_t t0 = pb_now_ns();
    pool_run(c->pool, pb_memfloor_fill, c);
    c->touch_s = (double)(pb_now_ns() - t0) / 1e9;
    c->expect_sum = 0;
    for (int i = 0; i < c->threads; i++)
        c->expect_sum += c->slot[i].sum;
}

static size_t pb_memfloor_span(const pb_memfloor_ctx *c, const pb_memkern *k)
{
    return k->op == PB_MEMOP_COPY ? c->bytes / 2 : c->bytes;
}

uint64_t pb_memfloor_expected(const pb_memfloor_ctx *c, const pb_memkern *k)
{
    switch (k->op) {
    case PB_MEMOP_COPY:
        return c->expect_sum / 2; /* the first half; equal halves */
    case PB_MEMOP_WRITE:
        return (uint64_t)c->bytes * PB_MEMWRITE_BYTE;
    default:
        return c->expect_sum;
    }
}

/* The chunk of a pass over span bytes split n ways: 1/PB_MF_CHUNKS of a slice, in whole pages; one thread reads
 * its whole span in one call, as before chunks, since it has no one to share with (a 4-stream kernel's streams
 * then stay a quarter of the buffer apart). */
static size_t pb_memfloor_chunk(size_t span, int n)
{
    if (n == 1)
        return span;
    size_t pages = (span + PB_MF_UNIT - 1) / PB_MF_UNIT / (size_t)n / PB_MF_CHUNKS;
    return (pages ? pages : 1) * PB_MF_UNIT;
}

/* k over bytes [at, at + len) of the pass's span: buf's (a copy writes span bytes further on), or the spans' laid
 * end to end, piece by piece (reads only: no destination). */
static uint64_t pb_memfloor_range(const pb_memfloor_ctx *c, const pb_memkern *k, size_t span, size_t at, size_t len)
{
    if (!c->spans)
        return k->fn(k->op == PB_MEMOP_COPY ? c->buf + span + at : c->buf + at, c->buf + at, len);
    int lo = 0, hi = c->nspans - 1; /* the last span that starts at or before at */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (c->spans[mid].at <= at)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint64_t sum = 0;
    for (int i = lo; len > 0 && i < c->nspans; i++) {
        size_t off = at - c->spans[i].at, left = c->spans[i].bytes - off, piece = left < len ? left : len;
        sum += k->fn(NULL, c->spans[i].p + off, piece);
        at += piece;
        len -= piece;
    }
    return sum;
}

/* Runs k over the unclaimed chunks of owner's slice, claimed one at a time; their byte sum. The claims are
 * relaxed: fetch_add alone makes each chunk one thread's, and no thread reads what another writes in a pass
 * (a copy's chunk writes its own chunk of the second half); pool_run orders the caller's reset of next before
 * the pass and the sums after it. */
static uint64_t pb_memfloor_claim(pb_memfloor_ctx *c, const pb_memkern *k, size_t span, size_t chunk, int owner, int n)
{
    size_t a, b;
    pb_memfloor_slice(span, owner, n, &a, &b);
    uint64_t sum = 0;
    for (;;) {
        size_t at = atomic_fetch_add_explicit(&c->slot[owner].next, chunk, memory_order_relaxed);
        if (at >= b)
            return sum;
        size_t end = b - at > chunk ? at + chunk : b;
        sum += pb_memfloor_range(c, k, span, at, end - at);
    }
}

static void pb_memfloor_job(void *ctx, int id, int n)
{
    pb_memfloor_ctx *c = ctx;
    const pb_memkern *k = c->kern;
    size_t span = pb_memfloor_span(c, k), chunk = pb_memfloor_chunk(span, n);
    uint64_t sum = 0;
    for (int j = 0; j < n; j++) /* its own slice, then what the others left */
        sum += pb_memfloor_claim(c, k, span, chunk, (id + j) % n, n);
    c->slot[id].sum = sum;
}

uint64_t pb_memfloor_pass(pb_memfloor_ctx *c, const pb_memkern *k, uint64_t *ns)
{
    c->kern = k; /* published to the workers by pool_run's release of the job, as are the slices' starts */
    size_t span = pb_memfloor_span(c, k);
    for (int i = 0; i < c->threads; i++) {
        size_t a, b;
        pb_memfloor_slice(span, i, c->threads, &a, &b);
        atomic_store_explicit(&c->slot[i].next, a, memory_order_relaxed);
    }
    uint64_t t0 = pb_now_ns();
    pool_run(c->pool, pb_memfloor_job, c);
    *ns = pb_now_ns() - t0;
    uint64_t sum = 0;
    for (int i = 0; i < c->threads; i++)
        sum += c->slot[i].sum;
    return sum;
}

int pb_memfloor_measure(pb_memfloor_ctx *c, const pb_memkern *k, int passes, pb_memfloor_point *out)
{
    uint64_t ns, want = pb_memfloor_expected(c, k);
    double *gbps = malloc((size_t)passes * sizeof *gbps);
    if (!gbps)
        return -1; /* errno ENOMEM: the caller says so, and keeps what it measured before */
    *out = (pb_memfloor_point){ .kern = k, .threads = c->threads, .passes = passes,
                          .moved = (uint64_t)k->traffic * pb_memfloor_span(c, k) };
    out->valid = pb_memfloor_pass(c, k, &ns) == want; /* the warm-up: dropped from the figures, checked all the same */
    for (int i = 0; i < passes; i++) {
        out->valid &= pb_memfloor_pass(c, k, &ns) == want;
        gbps[i] = (double)out->moved / (double)(ns ? ns : 1);
    }
    out->gbps = pb_summarize(gbps, (size_t)passes);
    free(gbps);
    return 0;
}
