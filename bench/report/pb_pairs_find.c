/* pb_pairs_find.c — see pb_pairs_find.h. */
#include "pb_pairs_find.h"

#include <stdlib.h>
#include <string.h>

#include "pb_schema.h"

/* pairs.csv's columns a lookup reads, by index into col[]. */
enum { C_MODEL, C_FORMAT, C_CPUSET, C_KV, C_POLICY, C_SCHED, C_GLUE, C_THREADS, C_BATCH, C_CONTEXT, C_ROUND, C_MS,
       C_ASIDE, NC };

/* Whether a and b are alternatives of one block: only their policy, schedule or glue differ. */
static bool same_block(const pb_pair_key *a, const pb_pair_key *b)
{
    return strcmp(a->model, b->model) == 0 && strcmp(a->format, b->format) == 0 &&
           strcmp(a->cpuset, b->cpuset) == 0 && (!a->kv || !b->kv || strcmp(a->kv, b->kv) == 0) &&
           a->threads == b->threads && (a->context < 0 || b->context < 0 || a->context == b->context);
}

/* Whether row r of t is k's token at batch 1. */
static bool is_key(const pb_table *t, const int *col, size_t r, const pb_pair_key *k)
{
    const char *want[] = { [C_MODEL] = k->model, [C_FORMAT] = k->format, [C_CPUSET] = k->cpuset, [C_KV] = k->kv,
                           [C_POLICY] = k->policy, [C_SCHED] = k->schedule, [C_GLUE] = k->glue };
    for (int c = 0; c <= C_GLUE; c++)
        if (want[c] && strcmp(pb_table_str(t, r, col[c]), want[c]) != 0)
            return false;
    return pb_table_num(t, r, col[C_THREADS]) == k->threads && pb_table_num(t, r, col[C_BATCH]) == 1 &&
           (k->context < 0 || pb_table_num(t, r, col[C_CONTEXT]) == k->context);
}

/* Each round's token of a and of b (seen[] says which), a round spoiled for either marked. */
typedef struct rounds {
    double ms[2][PB_PAIRED_MAX];
    bool seen[2][PB_PAIRED_MAX], spoiled[PB_PAIRED_MAX];
} rounds;

/* The rounds of a and b from t into x. false when their rows come from more than one depth. */
static bool gather(const pb_table *t, const int *col, const pb_pair_key *a, const pb_pair_key *b, rounds *x)
{
    memset(x, 0, sizeof *x);
    double depth = -1;
    for (size_t r = 0; r < t->nrows; r++) {
        int w = is_key(t, col, r, a) ? 0 : is_key(t, col, r, b) ? 1 : -1;
        double k = pb_table_num(t, r, col[C_ROUND]);
        if (w < 0 || !(k >= 1 && k <= PB_PAIRED_MAX))
            continue;
        double c = pb_table_num(t, r, col[C_CONTEXT]);
        if (depth >= 0 && c != depth)
            return false;
        depth = c;
        int i = (int)k - 1;
        x->spoiled[i] |= pb_table_num(t, r, col[C_ASIDE]) == 1;
        x->ms[w][i] = pb_table_num(t, r, col[C_MS]);
        x->seen[w][i] = true;
    }
    return true;
}

bool pb_pairs_compare(const pb_table *t, const pb_pair_key *a, const pb_pair_key *b, pb_paired *out, int *aside)
{
    static const int ids[NC] = { PB_PAIRS_model, PB_PAIRS_format, PB_PAIRS_cpuset, PB_PAIRS_kv_type,
                                 PB_PAIRS_policy, PB_PAIRS_schedule, PB_PAIRS_glue, PB_PAIRS_threads, PB_PAIRS_batch,
                                 PB_PAIRS_context, PB_PAIRS_round, PB_PAIRS_ms_per_token, PB_PAIRS_set_aside };
    int col[NC];
    *aside = 0;
    if (!t || !same_block(a, b)) /* other blocks' rounds ran at other times: their round numbers pair nothing */
        return false;
    for (int c = 0; c < NC; c++)
        if ((col[c] = pb_table_col(t, pb_schema_name(PB_K_PAIRS, ids[c]))) < 0)
            return false;
    rounds *x = malloc(sizeof *x); /* 5 KiB: off the stack */
    if (!x || !gather(t, col, a, b, x)) {
        free(x);
        return false;
    }
    /* b's tok/s over a's is a's ms over b's */
    double num[PB_PAIRED_MAX], den[PB_PAIRED_MAX];
    size_t n = 0;
    for (int i = 0; i < PB_PAIRED_MAX; i++) {
        if (!x->seen[0][i] || !x->seen[1][i])
            continue;
        if (x->spoiled[i]) {
            ++*aside;
            continue;
        }
        den[n] = x->ms[1][i];
        num[n++] = x->ms[0][i];
    }
    free(x);
    if (n == 0 && *aside == 0)
        return false;
    *out = pb_paired_ratio(den, num, n);
    return true;
}
