/* pb_weight_format.h — a decode's weight formats by name: every kern_format (each matvec of the token in it), and the
 * mixes that give each matvec its own format, as a quantized model file does. bench_memory_floor's token floors
 * and bench_sweep's --format take them; token_floor.csv and sweep.csv name them in their format column.
 *
 * q4_K_M: q6_K for v and down, q4_K for every other matrix. llama.cpp's Q4_K_M gives q6_K to v and down in
 * about half of the layers (and to the output matrix); one rule for every layer keeps the preset simple. All
 * its formats take q8_K activations, so a token quantizes each input once (kern_act_feeds). */
#ifndef PB_WEIGHT_FORMAT_H
#define PB_WEIGHT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "kern_format.h"
#include "pb_decode.h"
#include "pb_model.h"

/* A weight format: a kern_format's value (every matvec in that format) or, from KERN_FORMAT_COUNT on, a mix. */
typedef int pb_weight_format;
enum { PB_WEIGHT_FORMAT_Q4_K_M = KERN_FORMAT_COUNT, PB_WEIGHT_FORMAT_COUNT };

/* The name ("q8_0", "q4_K_M"); NULL for an unknown value. */
const char *pb_weight_format_name(pb_weight_format wf);
/* 0 and *out on a known name, -1 otherwise. */
int pb_weight_format_parse(const char *name, pb_weight_format *out);
/* Every name in value order, NULL-terminated (an option table's choices): kern_format_names, then the mixes. */
const char *const *pb_weight_format_names(void);
/* Whether wf is a mix rather than one kern_format. */
bool pb_weight_format_is_mix(pb_weight_format wf);

/* The format of matvec mv (pb_model_matvecs' name and layer) under wf; KERN_FORMAT_COUNT for an unknown wf. mv
 * may be NULL for a wf that is no mix. */
kern_format pb_weight_format_matvec(pb_weight_format wf, const pb_matvec *mv);
/* Weight bytes one token of m reads under wf: kern_format_matrix_bytes of each matvec in its format. 0 when a
 * matrix's cols is not a multiple of its format's block, or wf is unknown. */
uint64_t pb_weight_format_token_bytes(const pb_model *m, pb_weight_format wf);
/* pb_decode_weights_build for wf: one format, or each matvec in the mix's (pb_decode_weights_build_fmts). 0, or
 * -1 with errno (EINVAL: an unknown wf or a format that cannot hold the shape; ENOMEM). */
int pb_weight_format_build(pb_decode_weights *w, const pb_model *m, pb_weight_format wf, uint64_t seed, pb_exec *ex,
                           pb_decode_progress_fn progress, void *pctx);

#endif
