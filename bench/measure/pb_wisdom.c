/* pb_wisdom.c — wisdom's identity, table and text (see pb_wisdom.h); pb_wisdom_file.c reads and writes the file. */
#include "pb_wisdom.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pool.h"

#ifndef PB_BUILD_ID
#define PB_BUILD_ID "unknown" /* the Makefile passes the sources' checksum */
#endif

#define PB_WISDOM_LINE 1024 /* the longest line the grammar has room for: the identities, 512 each */

void pb_wisdom_cpu_id(const pb_machine *m, int pus, char *buf, size_t len)
{
    snprintf(buf, len, "%s %d/%d/%d %s; isa %s; pus %d", m->vendor, m->ext_family, m->ext_model, m->stepping,
             m->brand, m->isa, pus);
}

void pb_wisdom_build_id(const pb_machine *m, char *buf, size_t len)
{
    snprintf(buf, len, "src %s; %s; %s", PB_BUILD_ID, m->compiler, m->cflags);
}

/* ---------------------------------------------------------------- the table */

const pb_wisdom_kernel *pb_wisdom_kernel_at(const pb_wisdom *w, kern_format f, int threads)
{
    for (int i = 0; i < w->nkernels; i++)
        if (w->kernel[i].fmt == f && w->kernel[i].threads == threads)
            return &w->kernel[i];
    return NULL;
}

/* |a - b| for thread counts. */
static int pb_wisdom_gap(int a, int b)
{
    return a > b ? a - b : b - a;
}

const pb_wisdom_kernel *pb_wisdom_kernel_near(const pb_wisdom *w, kern_format f, int threads)
{
    const pb_wisdom_kernel *best = NULL;
    for (int i = 0; i < w->nkernels; i++) {
        const pb_wisdom_kernel *k = &w->kernel[i];
        if (k->fmt != f)
            continue;
        int gap = pb_wisdom_gap(k->threads, threads), was = best ? pb_wisdom_gap(best->threads, threads) : 0;
        if (!best || gap < was || (gap == was && k->threads < best->threads))
            best = k;
    }
    return best;
}

int pb_wisdom_put_kernel(pb_wisdom *w, const pb_wisdom_kernel *k)
{
    pb_wisdom_kernel *at = (pb_wisdom_kernel *)pb_wisdom_kernel_at(w, k->fmt, k->threads); /* w's own entry */
    if (!at && w->nkernels == PB_WISDOM_MAX_KERNELS)
        return -1;
    *(at ? at : &w->kernel[w->nkernels++]) = *k;
    return 0;
}

const pb_wisdom_dispatch *pb_wisdom_dispatch_at(const pb_wisdom *w, int threads)
{
    for (int i = 0; i < w->ndispatch; i++)
        if (w->dispatch[i].threads == threads)
            return &w->dispatch[i];
    return NULL;
}

int pb_wisdom_put_dispatch(pb_wisdom *w, const pb_wisdom_dispatch *d)
{
    pb_wisdom_dispatch *at = (pb_wisdom_dispatch *)pb_wisdom_dispatch_at(w, d->threads); /* w's own entry */
    if (!at && w->ndispatch == PB_WISDOM_MAX_DISPATCH)
        return -1;
    *(at ? at : &w->dispatch[w->ndispatch++]) = *d;
    return 0;
}

/* ---------------------------------------------------------------- text */

/* Appends to buf at *at (snprintf's rules); false once it no longer fits. */
static bool pb_wisdom_put(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool pb_wisdom_put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = *at < len ? vsnprintf(buf + *at, len - *at, fmt, ap) : -1;
    va_end(ap);
    if (n < 0 || (size_t)n >= len - *at)
        return false;
    *at += (size_t)n;
    return true;
}

int pb_wisdom_format(const pb_wisdom *w, char *buf, size_t len)
{
    size_t at = 0;
    bool ok = pb_wisdom_put(buf, len, &at, "%s\ncpu %s\nbuild %s\n", PB_WISDOM_MAGIC, w->cpu, w->build);
    ok = ok && pb_wisdom_put(buf, len, &at, "# bench_tune's choices on this cpu and build; delete to measure again\n");
    if (w->has_hint)
        ok = ok && pb_wisdom_put(buf, len, &at, "hint %s\n", kern_prefetch_hint_name(w->temporal));
    if (w->has_distance)
        ok = ok && pb_wisdom_put(buf, len, &at, "distance %u\n", w->distance);
    if (w->has_near)
        ok = ok && pb_wisdom_put(buf, len, &at, "near %s\n", w->near ? "on" : "off");
    if (w->has_streaming)
        ok = ok && pb_wisdom_put(buf, len, &at, "streaming %s %.3f\n", w->streaming_tuned ? "tuned" : "rank",
                                 w->streaming_vs);
    if (w->has_steal)
        ok = ok && pb_wisdom_put(buf, len, &at, "steal %.1f\n", w->steal_pct);
    for (int i = 0; ok && i < w->nkernels; i++) {
        const pb_wisdom_kernel *k = &w->kernel[i];
        ok = pb_wisdom_put(buf, len, &at, "kernel %s %d %s %s %.3f %s %s %.3f\n", kern_format_names[k->fmt],
                           k->threads, kern_isa_name(k->isa), k->prefetch ? "prefetch" : "noprefetch", k->gbps,
                           kern_layout_names[k->layout], k->tuned ? "tuned" : "rank", k->vs_rank);
    }
    for (int i = 0; ok && i < w->ndispatch; i++) {
        const pb_wisdom_dispatch *d = &w->dispatch[i];
        ok = pb_wisdom_put(buf, len, &at, "dispatch %d %s %.3f %.3f\n", d->threads, d->tree ? "tree" : "flat",
                           d->flat_ns, d->tree_ns);
    }
    ok = ok && pb_wisdom_put(buf, len, &at, "end\n");
    return ok ? (int)at : -1;
}

/* The line's words, split at spaces, into word (at most max); their count, or max + 1 when there are more. */
static int pb_wisdom_words(char *line, char **word, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (n == max)
            return max + 1;
        word[n++] = t;
    }
    return n;
}

static int pb_wisdom_threads(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > POOL_MAX_THREADS)
        return -1;
    *out = (int)v;
    return 0;
}

static int pb_wisdom_nonneg(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* "tuned" or "rank" into *tuned. */
static int pb_wisdom_why(const char *s, bool *tuned)
{
    if (strcmp(s, "tuned") != 0 && strcmp(s, "rank") != 0)
        return -1;
    *tuned = strcmp(s, "tuned") == 0;
    return 0;
}

/* "kernel FMT THREADS ISA prefetch|noprefetch GBPS LAYOUT tuned|rank VS_RANK" (word[0] is "kernel"). */
static int pb_wisdom_kernel_line(pb_wisdom *w, char **word, int n, char *err, size_t errlen)
{
    pb_wisdom_kernel k;
    if (n != 9)
        return pb_errf(err, errlen,
                       "kernel takes FORMAT THREADS VARIANT prefetch|noprefetch GBPS LAYOUT tuned|rank VS_RANK");
    if (kern_format_parse(word[1], &k.fmt) != 0)
        return pb_errf(err, errlen, "unknown format '%s'", word[1]);
    if (pb_wisdom_threads(word[2], &k.threads) != 0)
        return pb_errf(err, errlen, "threads '%s' is not 1..%d", word[2], POOL_MAX_THREADS);
    if (kern_isa_parse(word[3], &k.isa) != 0)
        return pb_errf(err, errlen, "unknown variant '%s'", word[3]);
    if (strcmp(word[4], "prefetch") != 0 && strcmp(word[4], "noprefetch") != 0)
        return pb_errf(err, errlen, "'%s' is neither prefetch nor noprefetch", word[4]);
    k.prefetch = strcmp(word[4], "prefetch") == 0;
    if (pb_wisdom_nonneg(word[5], &k.gbps) != 0)
        return pb_errf(err, errlen, "GB/s '%s' is not a number >= 0", word[5]);
    if (kern_layout_parse(word[6], &k.layout) != 0 || !kern_layout_fits(k.layout, k.fmt, QK_K))
        return pb_errf(err, errlen, "'%s' is no layout of %s (accepted: file, or a repacked layout of it)", word[6],
                       word[1]);
    if (pb_wisdom_why(word[7], &k.tuned) != 0)
        return pb_errf(err, errlen, "'%s' is neither tuned nor rank", word[7]);
    if (pb_wisdom_nonneg(word[8], &k.vs_rank) != 0)
        return pb_errf(err, errlen, "ratio to rank '%s' is not a number >= 0", word[8]);
    if (pb_wisdom_kernel_at(w, k.fmt, k.threads))
        return pb_errf(err, errlen, "a second kernel for %s at %d threads", word[1], k.threads);
    if (pb_wisdom_put_kernel(w, &k) != 0)
        return pb_errf(err, errlen, "more than %d kernels", PB_WISDOM_MAX_KERNELS);
    return 0;
}

/* "distance BYTES": one of kern_prefetch_distances. */
static int pb_wisdom_distance_line(pb_wisdom *w, char **word, int n, char *err, size_t errlen)
{
    char list[128] = "", *end = NULL;
    size_t at = 0;
    for (const unsigned *d = kern_prefetch_distances; *d && at < sizeof list; d++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%u", at ? ", " : "", *d);
    if (w->has_distance)
        return pb_errf(err, errlen, "a second distance line");
    errno = 0;
    unsigned long v = n == 2 ? strtoul(word[1], &end, 10) : 0;
    bool known = false;
    for (const unsigned *d = kern_prefetch_distances; n == 2 && !errno && end != word[1] && !*end && *d; d++)
        known = known || *d == v;
    if (!known)
        return pb_errf(err, errlen, "distance takes one of %s (bytes)", list);
    w->has_distance = true;
    w->distance = (unsigned)v;
    return 0;
}

/* "dispatch THREADS flat|tree FLAT_NS TREE_NS". */
static int pb_wisdom_dispatch_line(pb_wisdom *w, char **word, int n, char *err, size_t errlen)
{
    pb_wisdom_dispatch d;
    if (n != 5)
        return pb_errf(err, errlen, "dispatch takes THREADS flat|tree FLAT_NS TREE_NS");
    if (pb_wisdom_threads(word[1], &d.threads) != 0 || d.threads < 2)
        return pb_errf(err, errlen, "threads '%s' is not 2..%d", word[1], POOL_MAX_THREADS);
    if (strcmp(word[2], "flat") != 0 && strcmp(word[2], "tree") != 0)
        return pb_errf(err, errlen, "'%s' is neither flat nor tree", word[2]);
    d.tree = strcmp(word[2], "tree") == 0;
    if (pb_wisdom_nonneg(word[3], &d.flat_ns) != 0 || pb_wisdom_nonneg(word[4], &d.tree_ns) != 0)
        return pb_errf(err, errlen, "ns '%s %s' are not numbers >= 0", word[3], word[4]);
    if (pb_wisdom_dispatch_at(w, d.threads))
        return pb_errf(err, errlen, "a second dispatch at %d threads", d.threads);
    if (pb_wisdom_put_dispatch(w, &d) != 0)
        return pb_errf(err, errlen, "more than %d dispatch lines", PB_WISDOM_MAX_DISPATCH);
    return 0;
}

/* A line "WORD YES" or "WORD NO" (hint, near), once: *has set, *value = the word was yes. */
static int pb_wisdom_switch_line(char **word, int n, const char *yes, const char *no, bool *has, bool *value, char *err,
                                 size_t errlen)
{
    if (*has)
        return pb_errf(err, errlen, "a second %s line", word[0]);
    if (n != 2 || (strcmp(word[1], yes) != 0 && strcmp(word[1], no) != 0))
        return pb_errf(err, errlen, "%s takes %s or %s", word[0], yes, no);
    *has = true;
    *value = strcmp(word[1], yes) == 0;
    return 0;
}

/* "streaming tuned|rank RATIO": why the hint, distance and near lines are what they are (pb_tune.h). */
static int pb_wisdom_streaming_line(pb_wisdom *w, char **word, int n, char *err, size_t errlen)
{
    if (w->has_streaming)
        return pb_errf(err, errlen, "a second streaming line");
    if (n != 3 || pb_wisdom_why(word[1], &w->streaming_tuned) != 0 || pb_wisdom_nonneg(word[2], &w->streaming_vs) != 0)
        return pb_errf(err, errlen, "streaming takes tuned|rank RATIO");
    w->has_streaming = true;
    return 0;
}

/* "steal PCT": the most % of a tuned cpu the hypervisor took while the entries were timed. */
static int pb_wisdom_steal_line(pb_wisdom *w, char **word, int n, char *err, size_t errlen)
{
    if (w->has_steal)
        return pb_errf(err, errlen, "a second steal line");
    if (n != 2 || pb_wisdom_nonneg(word[1], &w->steal_pct) != 0 || w->steal_pct > 100)
        return pb_errf(err, errlen, "steal takes a percent, 0 to 100");
    w->has_steal = true;
    return 0;
}

bool pb_wisdom_noisy(const pb_wisdom *w)
{
    return w->has_steal && w->steal_pct > PB_STEAL_NOISY_PCT;
}

/* One line (no newline) after the magic: an identity, the hint, an entry, a comment or a blank. */
static int pb_wisdom_line(pb_wisdom *w, char *line, char *err, size_t errlen)
{
    if (line[0] == '\0' || line[0] == '#')
        return 0;
    char *const ids[2] = { w->cpu, w->build };
    static const char *const id_words[2] = { "cpu ", "build " };
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(id_words[i]);
        if (strncmp(line, id_words[i], n) == 0) {
            if (ids[i][0])
                return pb_errf(err, errlen, "a second %.*s line", (int)n - 1, id_words[i]);
            if (strlen(line + n) >= PB_WISDOM_ID || !line[n])
                return pb_errf(err, errlen, "%.*s identity empty or longer than %d bytes", (int)n - 1, id_words[i],
                               PB_WISDOM_ID - 1);
            snprintf(ids[i], PB_WISDOM_ID, "%s", line + n);
            return 0;
        }
    }
    char *word[10];
    int n = pb_wisdom_words(line, word, 9);
    if (n == 0)
        return pb_errf(err, errlen, "a line of spaces");
    if (strcmp(word[0], "kernel") == 0)
        return pb_wisdom_kernel_line(w, word, n, err, errlen);
    if (strcmp(word[0], "dispatch") == 0)
        return pb_wisdom_dispatch_line(w, word, n, err, errlen);
    if (strcmp(word[0], "hint") == 0)
        return pb_wisdom_switch_line(word, n, "t2", "nta", &w->has_hint, &w->temporal, err, errlen);
    if (strcmp(word[0], "distance") == 0)
        return pb_wisdom_distance_line(w, word, n, err, errlen);
    if (strcmp(word[0], "near") == 0)
        return pb_wisdom_switch_line(word, n, "on", "off", &w->has_near, &w->near, err, errlen);
    if (strcmp(word[0], "streaming") == 0)
        return pb_wisdom_streaming_line(w, word, n, err, errlen);
    if (strcmp(word[0], "steal") == 0)
        return pb_wisdom_steal_line(w, word, n, err, errlen);
    return pb_errf(err, errlen,
                   "unknown word '%.40s' (accepted: cpu, build, hint, distance, near, streaming, steal, kernel, "
                   "dispatch, end, #)",
                   word[0]);
}

/* Line 1 is not this version's magic: wisdom of another version (its grammar is not this one's), or not wisdom. */
static int pb_wisdom_magic(const char *line, char *err, size_t errlen)
{
    size_t n = strlen(PB_WISDOM_MAGIC_WORD);
    if (strncmp(line, PB_WISDOM_MAGIC_WORD " ", n + 1) == 0)
        return pb_errf(err, errlen, "line 1: wisdom format %.20s, this build reads format %d", line + n + 1,
                       PB_WISDOM_VERSION);
    return pb_errf(err, errlen, "line 1: not poolbench wisdom (expected '%s')", PB_WISDOM_MAGIC);
}

int pb_wisdom_parse(const char *text, size_t len, pb_wisdom *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    char line[PB_WISDOM_LINE + 1], why[256];
    size_t at = 0;
    bool ended = false;
    if (memchr(text, '\0', len))
        return pb_errf(err, errlen, "a NUL byte: not a text file");
    for (int no = 1; at < len; no++) {
        size_t n = 0;
        while (at + n < len && text[at + n] != '\n')
            n++;
        if (at + n == len)
            return pb_errf(err, errlen, "line %d: truncated (no newline at the end of the file)", no);
        if (n > PB_WISDOM_LINE)
            return pb_errf(err, errlen, "line %d: longer than %d bytes", no, PB_WISDOM_LINE);
        memcpy(line, text + at, n);
        line[n] = '\0';
        at += n + 1;
        if (ended)
            return pb_errf(err, errlen, "line %d: text after the end line", no);
        if (no == 1) {
            if (strcmp(line, PB_WISDOM_MAGIC) != 0)
                return pb_wisdom_magic(line, err, errlen);
        } else if (strcmp(line, "end") == 0) {
            ended = true;
        } else if (pb_wisdom_line(w, line, why, sizeof why) != 0) {
            return pb_errf(err, errlen, "line %d: %s", no, why);
        }
    }
    if (at == 0)
        return pb_errf(err, errlen, "empty");
    if (!ended)
        return pb_errf(err, errlen, "truncated (no end line)");
    if (!w->cpu[0] || !w->build[0])
        return pb_errf(err, errlen, "no %s line", w->cpu[0] ? "build" : "cpu");
    return 0;
}
