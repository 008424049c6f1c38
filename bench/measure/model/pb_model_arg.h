/* pb_model_arg.h — the options that say which model a decode runs and at what depth, shared by the harnesses
 * that take them (bench_sweep, bench_memory_floor): --model NAME|FILE (a preset, or a GGUF file: pb_model_file.h),
 * --mmap, --context LIST and --kv-type LIST, and the resolution of --model before any work. */
#ifndef PB_MODEL_ARG_H
#define PB_MODEL_ARG_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_attn.h"
#include "pb_cli.h"
#include "pb_model.h"
#include "pb_model_file.h"

#define PB_CONTEXT_MAX 1048576 /* positions a cache may hold before the token */

#define PB_OPT_MODEL(p)                                                                                             \
    { .name = "model", .kind = PB_OPT_STRING, .dest = (p), .metavar = "NAME|FILE",                                  \
      .help = "model preset (qwen3-0.6b, qwen3-8b, llama3-8b) or a GGUF file (llama, qwen2, qwen3: its own weights, " \
              "each tensor in its own type)", .dflt = "qwen3-0.6b" }
#define PB_OPT_MMAP(p)                                                                                              \
    { .name = "mmap", .kind = PB_OPT_FLAG, .dest = (p),                                                             \
      .help = "with a model file: read its weights where the file is mapped (llama.cpp's default), not copied into " \
              "the huge-page arena" }
#define PB_OPT_CONTEXT(p)                                                                                           \
    { .name = "context", .kind = PB_OPT_LIST, .dest = (p), .min = 0, .max = PB_CONTEXT_MAX, .metavar = "LIST",       \
      .help = "positions already in the KV cache (the depth attention reads), e.g. 0,512,4096", .dflt = "0" }
#define PB_OPT_KV_TYPE(p)                                                                                           \
    { .name = "kv-type", .kind = PB_OPT_CHOICES, .dest = (p), .choices = pb_kv_type_names, .metavar = "LIST",       \
      .help = "KV cache types: f16, q8_0, or all", .dflt = "f16" }

/* The model a run decodes. */
typedef struct pb_model_arg {
    const pb_model *model; /* the preset, or the file's shape */
    pb_model_file file;    /* open when is_file */
    bool is_file;
} pb_model_arg;

/* text: a preset's name, else a GGUF file's path (opened and checked: pb_model_file_open). formats: --format's
 * list; a preset takes q8_0 when it is empty, a file refuses it (its tensors keep their own types) and gets its
 * first matvec's format as the one entry (the runs' loops go over formats). contexts and kv_types: filled with 0
 * and f16 when empty; a type that cannot hold the model's heads is refused. 0, or -1 with the line in err (a
 * file's own error names the file). */
int pb_model_arg_resolve(pb_model_arg *a, const char *text, pb_list *formats, pb_list *contexts, pb_list *kv_types,
                         char *err, size_t errlen);
void pb_model_arg_close(pb_model_arg *a);

#endif
