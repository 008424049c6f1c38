/* pb_decode_load.h — a model file's weights as the decode holds them (pb_decode_weights), the way an engine
 * holds them:
 *   copy (the default): every matvec tensor copied, in token order, into the same 2 MiB-aligned huge-page arena
 *        the synthetic weights use, by the executor's threads (first-touched where they will be read), so the
 *        floor is measured on the very pages the tokens stream (source "arena");
 *   mmap: the matvecs read where the file is mapped, as llama.cpp does by default (source "mmap"); the floor then
 *        reads the first weight-bytes of the file's data section, the same mapping.
 * Norms (and qwen3's q/k head norms, qwen2's biases) are copied as floats. The bytes of every matvec are the
 * file's, so a token from the file equals, bit for bit, a token of the same weights built in memory. */
#ifndef PB_DECODE_LOAD_H
#define PB_DECODE_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "pb_decode.h"
#include "pb_model_file.h"

/* Loads f's weights (f must stay open while w is used; with use_mmap w points into its mapping). seed: the
 * decode's inputs. 0, or -1 with errno (ENOMEM). */
int pb_decode_weights_load(pb_decode_weights *w, const pb_model_file *f, bool use_mmap, uint64_t seed,
                           pb_exec *ex, pb_decode_progress_fn progress, void *pctx);

#endif
