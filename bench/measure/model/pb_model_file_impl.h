/* pb_model_file_impl.h — what pb_model_file.c (the metadata) and pb_model_tensors.c (the tensors) share. Not a
 * public header: pb_model_file.h is. */
#ifndef PB_MODEL_FILE_IMPL_H
#define PB_MODEL_FILE_IMPL_H

#include <stddef.h>

#include "pb_model_file.h"

/* Finds and checks every tensor of m's shape (the metadata already read into m->shape, vocab left 0): sets the
 * vocabulary, the matvec tensors and formats, the norms, the biases, tied and weight_bytes. 0, or -1 with
 * "PATH: what" in err. */
int pb_model_file_tensors(pb_model_file *m, char *err, size_t errlen);

#endif
