/* test_attn.c — attention over the KV cache (bench/measure/attn): against a double-precision oracle for both cache
 * types, several head widths and depths across chunk boundaries; bit-identical at every thread count and
 * schedule; every ISA's inner loops giving the scalar loops' bits; the exponential and RoPE against libm in
 * double; a decode token at depth bit-identical over threads and policies; the cache's bytes per token. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_attn.h"
#include "pb_attn_forms.h"
#include "pb_decode.h"

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float rng_unit(uint64_t *s)
{
    return (float)(rng_next(s) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

static void gen(void *ctx, uint64_t key, float *row, size_t n)
{
    (void)ctx;
    uint64_t s = key * 31 + 7;
    for (size_t i = 0; i < n; i++)
        row[i] = 1.7f * rng_unit(&s);
}

static pb_model shape(int heads, int kv, size_t d)
{
    return (pb_model){ .name = "t", .hidden = 256, .q_dim = (uint64_t)heads * d, .kv_dim = (uint64_t)kv * d,
                       .ffn = 256, .layers = 2, .vocab = 10, .n_head = heads, .n_kv_head = kv, .head_dim = d,
                       .rope_base = 1e4f };
}

/* A cache row as doubles (the values the cache holds, after its rounding). */
static void row_values(const pb_kv_cache *c, const unsigned char *row, double *x)
{
    for (size_t j = 0; j < c->head_dim; j++) {
        if (c->type == PB_KV_F16) {
            x[j] = kern_half_to_float(((const kern_half *)(const void *)row)[j]);
        } else {
            const block_q8_0 *b = (const block_q8_0 *)(const void *)row + j / QK8_0;
            x[j] = (double)kern_half_to_float(b->d) * b->qs[j % QK8_0];
        }
    }
}

/* The oracle: softmax(q . k / sqrt(d)) v in double over positions 0..n - 1 for query head h of sequence s. */
static void oracle_over(const pb_kv_cache *c, const pb_model *m, int layer, size_t seq, int h, const float *q,
                        size_t n, double *out)
{
    size_t d = c->head_dim;
    int g = h / (m->n_head / m->n_kv_head);
    double *sc = malloc(n * sizeof *sc), k[512], v[512], mx = -INFINITY, l = 0;
    for (size_t t = 0; t < n; t++) {
        row_values(c, pb_kv_row(c, 0, layer, seq, g, t), k);
        double dot = 0;
        for (size_t j = 0; j < d; j++)
            dot += (double)q[j] * k[j];
        sc[t] = dot / sqrt((double)d);
        mx = sc[t] > mx ? sc[t] : mx;
    }
    memset(out, 0, d * sizeof *out);
    for (size_t t = 0; t < n; t++) {
        double p = exp(sc[t] - mx);
        l += p;
        row_values(c, pb_kv_row(c, 1, layer, seq, g, t), v);
        for (size_t j = 0; j < d; j++)
            out[j] += p * v[j];
    }
    for (size_t j = 0; j < d; j++)
        out[j] /= l;
    free(sc);
}

/* The same over a decode token's positions, 0..context. */
static void oracle(const pb_kv_cache *c, const pb_model *m, int layer, size_t seq, int h, const float *q,
                   double *out)
{
    oracle_over(c, m, layer, seq, h, q, c->context + 1, out);
}

/* a's output (its rows x q_dim) copied out, a and e closed, the cache c kept in keep when given (else freed). */
static float *attended(pb_attn *a, pb_exec *e, pb_kv_cache *c, pb_kv_cache *keep)
{
    size_t n = a->batch * (size_t)a->m->q_dim;
    float *out = malloc(n * sizeof *out);
    memcpy(out, a->out, n * sizeof *out);
    pb_attn_free(a);
    pb_exec_close(e);
    if (keep)
        *keep = *c;
    else
        pb_kv_free(c);
    return out;
}

/* One layer's attention output (batch x q_dim) at a depth through an executor: a malloc'd copy. */
static float *attend(const pb_model *m, pb_kv_type t, size_t batch, size_t context, int kind, int threads,
                     size_t chunk, const float *q, const float *k, const float *v, pb_kv_cache *keep)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, kind, threads, NULL, chunk, 50), 0);
    pb_kv_cache c;
    cr_assert_eq(pb_kv_init(&c, m, t, batch, context + 1), 0);
    cr_assert_eq(pb_kv_fill(&c, context, gen, NULL, &e), 0);
    pb_attn a;
    cr_assert_eq(pb_attn_init(&a, m, &c, batch), 0);
    pb_attn_layer(&a, &e, 1, q, k, v);
    return attended(&a, &e, &c, keep);
}

static float *randoms(size_t n, uint64_t seed)
{
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = 1.5f * rng_unit(&seed);
    return x;
}

Test(attn, matches_a_double_oracle_and_is_bit_exact_at_every_thread_count, .timeout = 120)
{
    static const size_t depths[] = { 0, 1, 255, 256, 600 };
    static const struct { int heads, kv; size_t d; } shapes[] = { { 4, 2, 128 }, { 6, 2, 64 }, { 2, 1, 96 } };
    for (size_t si = 0; si < 3; si++)
        for (int t = 0; t < PB_KV_TYPES; t++)
            for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++) {
                pb_model m = shape(shapes[si].heads, shapes[si].kv, shapes[si].d);
                size_t batch = 2, ctx = depths[di], nq = batch * (size_t)m.q_dim, nk = batch * (size_t)m.kv_dim;
                float *q = randoms(nq, 1 + di), *k = randoms(nk, 2 + di), *v = randoms(nk, 3 + di);
                pb_kv_cache c;
                float *ref = attend(&m, (pb_kv_type)t, batch, ctx, PB_EXEC_SPIN, 1, 0, q, k, v, &c);
                double worst = 0, want[512];
                for (size_t s = 0; s < batch; s++)
                    for (int h = 0; h < m.n_head; h++) {
                        oracle(&c, &m, 1, s, h, q + s * m.q_dim + (size_t)h * m.head_dim, want);
                        for (size_t j = 0; j < m.head_dim; j++) {
                            double e = fabs(ref[s * m.q_dim + (size_t)h * m.head_dim + j] - want[j]);
                            worst = e > worst ? e : worst;
                        }
                    }
                cr_assert(worst < 2e-5, "%s d=%zu depth %zu: off the oracle by %g", pb_kv_type_names[t],
                          m.head_dim, ctx, worst);
                pb_kv_free(&c);
                static const struct { int kind, threads; size_t chunk; } runs[] = {
                    { PB_EXEC_SPIN, 2, 0 }, { PB_EXEC_SPIN, 3, 0 }, { PB_EXEC_CONDVAR, 3, 1 }, { PB_EXEC_OMP, 2, 3 },
                };
                for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
                    float *got = attend(&m, (pb_kv_type)t, batch, ctx, runs[r].kind, runs[r].threads, runs[r].chunk,
                                        q, k, v, NULL);
                    cr_assert(memcmp(ref, got, nq * sizeof *got) == 0, "%s d=%zu depth %zu: %d threads chunk %zu differ",
                              pb_kv_type_names[t], m.head_dim, ctx, runs[r].threads, runs[r].chunk);
                    free(got);
                }
                free(ref);
                free(q);
                free(k);
                free(v);
            }
}

/* A prompt's rows (causal) through an executor, in pb_attn_layer's three steps with the stores split over rows as
 * the prompt splits them: the output (rows x q_dim), a malloc'd copy; the cache kept in keep when given. */
static float *attend_prompt(const pb_model *m, pb_kv_type t, size_t rows, size_t context, int threads, size_t chunk,
                            const float *q, const float *k, const float *v, pb_kv_cache *keep)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, threads, NULL, chunk, 50), 0);
    pb_kv_cache c;
    cr_assert_eq(pb_kv_init(&c, m, t, 1, context + rows), 0);
    cr_assert_eq(pb_kv_fill(&c, context, gen, NULL, &e), 0);
    pb_attn a;
    cr_assert_eq(pb_attn_init(&a, m, &c, rows), 0);
    a.causal = true;
    pb_attn_begin(&a, 1);
    for (size_t r = 0; r < rows; r += 5) /* in slices, from the last: the stores' order is free */
        pb_attn_store_rows(&a, rows - (r + 5 < rows ? r + 5 : rows), rows - r, q, k, v);
    pb_attn_dispatch(&a, &e);
    return attended(&a, &e, &c, keep);
}

/* A prompt's row r attends over positions 0..context + r and no later one: held against the double oracle over
 * exactly those positions (a row that saw a later position, or missed its own, is off by far more), across a chunk
 * boundary (rows 0..299 from depth 0; 100 rows from depth 200), bit-identical at 1 and 3 threads and under dynamic
 * claims, for both cache types. */
Test(attn, a_prompt_attends_causally_and_keeps_its_bits_at_any_threads, .timeout = 120)
{
    static const struct { size_t rows, context; } cases[] = { { 300, 0 }, { 100, 200 }, { 7, 0 } };
    pb_model m = shape(4, 2, 64);
    for (int t = 0; t < PB_KV_TYPES; t++)
        for (size_t ci = 0; ci < 3; ci++) {
            size_t rows = cases[ci].rows, ctx = cases[ci].context;
            size_t nq = rows * (size_t)m.q_dim, nk = rows * (size_t)m.kv_dim;
            float *q = randoms(nq, 11 + ci), *k = randoms(nk, 12 + ci), *v = randoms(nk, 13 + ci);
            pb_kv_cache c;
            float *ref = attend_prompt(&m, (pb_kv_type)t, rows, ctx, 1, 0, q, k, v, &c);
            double worst = 0, want[512];
            for (size_t r = 0; r < rows; r++)
                for (int h = 0; h < m.n_head; h++) {
                    oracle_over(&c, &m, 1, 0, h, q + r * m.q_dim + (size_t)h * m.head_dim, ctx + r + 1, want);
                    for (size_t j = 0; j < m.head_dim; j++) {
                        double e = fabs(ref[r * m.q_dim + (size_t)h * m.head_dim + j] - want[j]);
                        worst = e > worst ? e : worst;
                    }
                }
            cr_assert(worst < 2e-5, "%s %zu rows at depth %zu: off the causal oracle by %g", pb_kv_type_names[t],
                      rows, ctx, worst);
            pb_kv_free(&c);
            for (int th = 2; th <= 3; th++) {
                float *got = attend_prompt(&m, (pb_kv_type)t, rows, ctx, th, th == 3 ? 3 : 0, q, k, v, NULL);
                cr_assert(memcmp(ref, got, nq * sizeof *got) == 0, "%s %zu rows: %d threads differ",
                          pb_kv_type_names[t], rows, th);
                free(got);
            }
            free(ref);
            free(q);
            free(k);
            free(v);
        }
}

Test(attn, every_isa_gives_the_scalar_bits)
{
#if defined(__x86_64__)
    if (!kern_isa_supported(KERN_ISA_AVX2))
        return;
    static const size_t dims[] = { 16, 64, 128, 96 };
    for (size_t di = 0; di < 4; di++) {
        size_t d = dims[di], n = 37;
        pb_model m = shape(2, 1, d);
        for (int t = 0; t < PB_KV_TYPES; t++) {
            if (t == PB_KV_Q8_0 && d % 32)
                continue;
            pb_exec e;
            cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
            pb_kv_cache c;
            cr_assert_eq(pb_kv_init(&c, &m, (pb_kv_type)t, 1, n + 1), 0);
            cr_assert_eq(pb_kv_fill(&c, n, gen, NULL, &e), 0);
            pb_exec_close(&e);
            const unsigned char *rows = pb_kv_row(&c, 0, 0, 0, 0, 0);
            float *q = randoms(d, 9), *p = randoms(n, 10), s1[64], s2[64], o1[512] = { 0 }, o2[512] = { 0 };
            bool f16 = t == PB_KV_F16;
            (f16 ? pb_attn_scores_f16_scalar : pb_attn_scores_q8_scalar)(rows, c.row_bytes, n, q, d, s1);
            (f16 ? pb_attn_scores_f16_avx2 : pb_attn_scores_q8_avx2)(rows, c.row_bytes, n, q, d, s2);
            cr_assert(memcmp(s1, s2, n * sizeof *s1) == 0, "%s d=%zu: scores differ", pb_kv_type_names[t], d);
            (f16 ? pb_attn_weigh_f16_scalar : pb_attn_weigh_q8_scalar)(rows, c.row_bytes, n, p, d, o1);
            (f16 ? pb_attn_weigh_f16_avx2 : pb_attn_weigh_q8_avx2)(rows, c.row_bytes, n, p, d, o2);
            cr_assert(memcmp(o1, o2, d * sizeof *o1) == 0, "%s d=%zu: weighted sums differ", pb_kv_type_names[t], d);
            memcpy(s2, s1, sizeof s1);
            pb_attn_exp_sub_scalar(s1, n, 0.25f);
            pb_attn_exp_sub_avx2(s2, n, 0.25f);
            cr_assert(memcmp(s1, s2, n * sizeof *s1) == 0, "exp differs");
            free(q);
            free(p);
            pb_kv_free(&c);
        }
    }
#endif
}

/* The append's f16 store: F16C's conversion gives kern_float_to_half's bits on every kind of float (normal halves
 * with ties either way, half subnormals, the underflow and overflow edges, infinities, NaNs), 128 at a time as a
 * qwen3 head row, over 2^16 + a sweep of the whole float range. */
Test(attn, the_f16_append_gives_the_scalar_bits)
{
#if defined(__x86_64__)
    if (!kern_isa_supported(KERN_ISA_AVX2))
        cr_skip_test("no AVX2 + F16C here");
    enum { D = 128 };
    static const float edge[] = { 0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.0f, 65520.0f, -65520.0f, 1e9f,
                                  5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f, 6.1035156e-5f, 6.0975552e-5f,
                                  1.00048828125f, 1.00146484375f, INFINITY, -INFINITY, NAN, -NAN };
    float x[D];
    unsigned char a[2 * D], b[2 * D];
    uint32_t bits = 0;
    for (int round = 0; round < 600; round++) {
        for (int j = 0; j < D; j++) {
            if (round == 0 && j < (int)(sizeof edge / sizeof edge[0]))
                x[j] = edge[j];
            else { /* every 2^16th float pattern over the whole range, NaNs and infinities included */
                memcpy(&x[j], &bits, sizeof bits);
                bits += 65521u;
            }
        }
        pb_attn_store_f16_scalar(a, x, D);
        pb_attn_store_f16_avx2(b, x, D);
        cr_assert(memcmp(a, b, sizeof a) == 0, "round %d: the F16C row differs from the scalar one", round);
    }
#else
    cr_skip_test("x86-64 only: the arm64 store is the scalar one");
#endif
}

/* The many-query forms (a prompt's rows and heads at once) give each query the one-query forms' bits: scores over
 * the most positions any query sees, and weighted sums whose weights past a query's own positions are 0, against
 * the scalar forms over that query's own count; 1..9 queries (a last group of four repeats its last query). */
Test(attn, the_many_query_forms_give_each_query_the_scalar_bits)
{
#if defined(__x86_64__)
    if (!kern_isa_supported(KERN_ISA_AVX2))
        cr_skip_test("no AVX2 + F16C here");
    enum { N = 37, QMAX = 9 };
    static const size_t dims[] = { 16, 64, 128 };
    for (size_t di = 0; di < 3; di++) {
        size_t d = dims[di];
        pb_model m = shape(2, 1, d);
        pb_exec e;
        cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
        pb_kv_cache c;
        cr_assert_eq(pb_kv_init(&c, &m, PB_KV_F16, 1, N + 1), 0);
        cr_assert_eq(pb_kv_fill(&c, N, gen, NULL, &e), 0);
        pb_exec_close(&e);
        const unsigned char *k = pb_kv_row(&c, 0, 0, 0, 0, 0), *v = pb_kv_row(&c, 1, 0, 0, 0, 0);
        for (int nq = 1; nq <= QMAX; nq++) {
            const float *q[QMAX], *p[QMAX];
            float *s[QMAX], *o[QMAX], want_s[N], want_o[128];
            size_t cnt[QMAX];
            for (int i = 0; i < nq; i++) {
                q[i] = randoms(d, 100 + (uint64_t)i);
                s[i] = calloc(N, sizeof(float));
                cnt[i] = N - (size_t)(nq - 1 - i) * 3; /* the last query sees the most, as a prompt's last row */
                float *w = randoms(N, 200 + (uint64_t)i);
                for (size_t t = cnt[i]; t < N; t++)
                    w[t] = 0;
                p[i] = w;
                o[i] = randoms(d, 300 + (uint64_t)i);
            }
            pb_attn_scores_n_f16_avx2(k, c.row_bytes, N, q, nq, d, s);
            pb_attn_weigh_n_f16_avx2(v, c.row_bytes, N, p, nq, d, o);
            for (int i = 0; i < nq; i++) {
                pb_attn_scores_f16_scalar(k, c.row_bytes, N, q[i], d, want_s);
                cr_assert(memcmp(s[i], want_s, N * sizeof *want_s) == 0, "d %zu, %d queries: query %d's scores",
                          d, nq, i);
                float *o0 = randoms(d, 300 + (uint64_t)i);
                memcpy(want_o, o0, d * sizeof *o0);
                pb_attn_weigh_f16_scalar(v, c.row_bytes, cnt[i], p[i], d, want_o);
                cr_assert(memcmp(o[i], want_o, d * sizeof *want_o) == 0, "d %zu, %d queries: query %d's sums", d,
                          nq, i);
                free(o0);
                free((void *)q[i]); /* randoms' own allocations, const here for the form's sake */
                free((void *)p[i]);
                free(s[i]);
                free(o[i]);
            }
        }
        pb_kv_free(&c);
    }
#else
    cr_skip_test("x86-64 only: arm64 runs the one-query forms per query");
#endif
}

Test(attn, exp_is_close_to_libm)
{
    double worst = 0;
    for (int i = 0; i <= 870000; i++) {
        float x = -(float)i * 1e-4f;
        double want = exp((double)x), got = pb_attn_exp(x);
        double rel = fabs(got - want) / want;
        worst = rel > worst ? rel : worst;
    }
    cr_assert(worst < 4e-7, "pb_attn_exp off libm by %g relative", worst);
    cr_assert_eq(pb_attn_exp(0.0f), 1.0f);
    cr_assert(pb_attn_exp(-1000.0f) > 0 && pb_attn_exp(-1000.0f) < 1e-37f, "clamped, not zero or NaN");
}

Test(attn, rope_matches_double_rotation)
{
    for (int neox = 0; neox < 2; neox++) {
        pb_rope r;
        cr_assert_eq(pb_rope_init(&r, 64, 10000.0f, neox), 0);
        pb_rope_at(&r, 1234);
        float *x = randoms(128, 5), *y = malloc(128 * sizeof *y);
        memcpy(y, x, 128 * sizeof *y);
        pb_rope_apply(&r, y, 2);
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < 32; i++) {
                int a = neox ? i : 2 * i, b = neox ? i + 32 : 2 * i + 1;
                double th = 1234.0 * pow(10000.0, -2.0 * i / 64.0);
                double x0 = x[h * 64 + a], x1 = x[h * 64 + b];
                cr_assert(fabs(y[h * 64 + a] - (x0 * cos(th) - x1 * sin(th))) < 1e-4, "neox %d pair %d", neox, i);
                cr_assert(fabs(y[h * 64 + b] - (x0 * sin(th) + x1 * cos(th))) < 1e-4, "neox %d pair %d", neox, i);
            }
        free(x);
        free(y);
        pb_rope_free(&r);
    }
}

Test(attn, kv_bytes)
{
    pb_model m = shape(16, 8, 128);
    m.layers = 28; /* qwen3-0.6b's heads and layers: 112 KiB a position in f16 */
    cr_assert_eq(pb_kv_bytes(&m, PB_KV_F16, 1, 4095), 4096ull * 112 * 1024);
    cr_assert_eq(pb_kv_bytes(&m, PB_KV_Q8_0, 1, 0), 28ull * 8 * 2 * 136);
    cr_assert_eq(pb_kv_bytes(&m, PB_KV_F16, 3, 0), 3 * pb_kv_bytes(&m, PB_KV_F16, 1, 0));
    m = shape(2, 1, 48);
    cr_assert_eq(pb_kv_bytes(&m, PB_KV_Q8_0, 1, 0), 0, "q8_0 cannot hold 48 values a head");
    pb_kv_cache c;
    cr_assert_eq(pb_kv_init(&c, &m, PB_KV_Q8_0, 1, 4), -1);
}

/* A decode token at depth: bit-identical at 1, 2 and 3 threads over policies, schedules and glue modes (fused at 1
 * and 2 threads splits q, k, v by key/value head and attends each head's chunks on its thread), for both cache
 * types. */
Test(attn, a_decode_token_at_depth_is_bit_exact_across_threads, .timeout = 120)
{
    pb_model m = shape(4, 2, 128);
    m.hidden = 256;
    m.ffn = 512;
    m.vocab = 300;
    m.qk_norm = true;
    m.rope_neox = true;
    pb_exec gen;
    cr_assert_eq(pb_exec_open(&gen, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    pb_decode_weights w;
    cr_assert_eq(pb_decode_weights_build(&w, &m, KERN_Q8_0, 3, &gen, NULL, NULL), 0);
    pb_exec_close(&gen);
    static const struct { int kind, threads; size_t chunk; pb_glue_mode glue; } runs[] = {
        { PB_EXEC_SPIN, 1, 0, PB_GLUE_SERIAL }, { PB_EXEC_SPIN, 3, 0, PB_GLUE_SERIAL },
        { PB_EXEC_HYBRID, 2, 5, PB_GLUE_SERIAL }, { PB_EXEC_OMP, 3, 0, PB_GLUE_FUSED },
        { PB_EXEC_SPIN, 1, 0, PB_GLUE_FUSED }, { PB_EXEC_SPIN, 2, 0, PB_GLUE_FUSED },
        { PB_EXEC_OMP, 2, 0, PB_GLUE_FUSED },   { PB_EXEC_HYBRID, 2, 1, PB_GLUE_FUSED },
    };
    for (int t = 0; t < PB_KV_TYPES; t++) {
        float ref[300];
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
            pb_decode d;
            pb_exec e;
            cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 1), 0);
            d.glue = runs[r].glue;
            cr_assert_eq(pb_exec_open(&e, runs[r].kind, runs[r].threads, NULL, runs[r].chunk, 50), 0);
            cr_assert_eq(pb_decode_set_context(&d, 700, (pb_kv_type)t, &e), 0);
            cr_assert_eq(pb_decode_token(&d, &e, 9), 0);
            cr_assert(d.attn_ns > 0 && d.attn_ns < d.dispatch_ns + d.attn_ns);
            if (r == 0)
                memcpy(ref, d.logits, sizeof ref);
            else
                cr_assert(memcmp(ref, d.logits, sizeof ref) == 0, "%s: %d threads, %s glue differ",
                          pb_kv_type_names[t], runs[r].threads, pb_glue_mode_names[runs[r].glue]);
            pb_exec_close(&e);
            pb_decode_free(&d);
        }
    }
    pb_decode_weights_free(&w);
}
