/* pb_weight_format.c — see pb_weight_format.h. */
#include "pb_weight_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A mix: its name and each matvec's format by the matvec's name; a name it does not list takes dflt. */
typedef struct pb_mix {
    const char *name;
    kern_format dflt;
    struct {
        const char *matvec;
        kern_format fmt;
    } rule[4];
} pb_mix;

static const pb_mix pb_mixes[PB_WEIGHT_FORMAT_COUNT - KERN_FORMAT_COUNT] = {
    [PB_WEIGHT_FORMAT_Q4_K_M - KERN_FORMAT_COUNT] = { .name = "q4_K_M", .dflt = KERN_Q4_K,
                                                      .rule = { { "v", KERN_Q6_K }, { "down", KERN_Q6_K } } },
};

static const pb_mix *pb_mix_of(pb_weight_format wf)
{
    return wf >= KERN_FORMAT_COUNT && wf < PB_WEIGHT_FORMAT_COUNT ? &pb_mixes[wf - KERN_FORMAT_COUNT] : NULL;
}

bool pb_weight_format_is_mix(pb_weight_format wf)
{
    return pb_mix_of(wf) != NULL;
}

const char *pb_weight_format_name(pb_weight_format wf)
{
    const pb_mix *mx = pb_mix_of(wf);
    if (mx)
        return mx->name;
    const kern_format_info *fi = wf >= 0 ? kern_format_get((kern_format)wf) : NULL;
    return fi ? fi->name : NULL;
}

int pb_weight_format_parse(const char *name, pb_weight_format *out)
{
    for (pb_weight_format wf = 0; wf < PB_WEIGHT_FORMAT_COUNT; wf++) {
        if (name && strcmp(name, pb_weight_format_name(wf)) == 0) {
            *out = wf;
            return 0;
        }
    }
    return -1;
}

/* Filled at the first call from the two tables (an option table reads it while a harness parses, on one
 * thread); C has no constant initializer that copies another array's elements. */
const char *const *pb_weight_format_names(void)
{
    static const char *names[PB_WEIGHT_FORMAT_COUNT + 1];
    if (!names[0])
        for (pb_weight_format wf = 0; wf < PB_WEIGHT_FORMAT_COUNT; wf++)
            names[wf] = pb_weight_format_name(wf);
    return names;
}

kern_format pb_weight_format_matvec(pb_weight_format wf, const pb_matvec *mv)
{
    const pb_mix *mx = pb_mix_of(wf);
    if (!mx)
        return wf >= 0 && wf < KERN_FORMAT_COUNT ? (kern_format)wf : KERN_FORMAT_COUNT;
    for (size_t i = 0; i < sizeof mx->rule / sizeof mx->rule[0] && mx->rule[i].matvec; i++)
        if (strcmp(mv->name, mx->rule[i].matvec) == 0)
            return mx->rule[i].fmt;
    return mx->dflt;
}

uint64_t pb_weight_format_token_bytes(const pb_model *m, pb_weight_format wf)
{
    int n = pb_model_matvec_count(m);
    pb_matvec *mv = malloc((size_t)n * sizeof *mv);
    uint64_t total = 0;
    if (!mv)
        return 0;
    pb_model_matvecs(m, mv, n);
    for (int i = 0; i < n; i++) {
        uint64_t b = kern_format_matrix_bytes(pb_weight_format_matvec(wf, &mv[i]), mv[i].rows, mv[i].cols);
        if (b == 0) {
            total = 0;
            break;
        }
        total += b;
    }
    free(mv);
    return total;
}

int pb_weight_format_build(pb_decode_weights *w, const pb_model *m, pb_weight_format wf, uint64_t seed, pb_exec *ex,
                           pb_decode_progress_fn progress, void *pctx)
{
    if (!pb_weight_format_is_mix(wf))
        return pb_decode_weights_build(w, m, pb_weight_format_matvec(wf, NULL), seed, ex, progress, pctx);
    int n = pb_model_matvec_count(m);
    pb_matvec *mv = malloc((size_t)n * sizeof *mv);
    kern_format *fmts = malloc((size_t)n * sizeof *fmts);
    int rc = -1;
    if (mv && fmts) {
        pb_model_matvecs(m, mv, n);
        for (int i = 0; i < n; i++)
            fmts[i] = pb_weight_format_matvec(wf, &mv[i]);
        rc = pb_decode_weights_build_fmts(w, m, fmts, seed, ex, progress, pctx);
    } else {
        errno = ENOMEM;
    }
    int e = errno;
    free(mv);
    free(fmts);
    errno = e;
    return rc;
}
