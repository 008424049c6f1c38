/* pb_model_file.h — a model described by a GGUF file (pb_gguf.h): its shape from the metadata, and every tensor
 * a decode token reads, each in its own type.
 *
 * Architectures: llama (Llama 2/3, Mistral shapes), qwen2 (q/k/v biases) and qwen3 (per-head q/k RMSNorm). Keys,
 * with ARCH the value of general.architecture:
 *   ARCH.block_count, .embedding_length, .feed_forward_length, .attention.head_count,
 *   .attention.layer_norm_rms_epsilon                         required;
 *   .attention.head_count_kv (else head_count), .attention.key_length and .value_length (else embedding /
 *   heads; both must agree), .rope.freq_base (else 10000)     optional.
 * Tensors: token_embd, output_norm, output (absent: lm_head is token_embd, tied), and per layer N blk.N.attn_norm,
 * attn_q, attn_k, attn_v, attn_output, ffn_norm, ffn_gate, ffn_up, ffn_down (all ".weight"), plus qwen3's
 * blk.N.attn_q_norm and attn_k_norm and qwen2's blk.N.attn_{q,k,v}.bias. Each must have the shape the metadata
 * gives (a matrix of rows x cols is ne = {cols, rows}); the vocabulary is token_embd's rows.
 *
 * Every matvec tensor keeps its own type and must be one poolbench has a kernel for (kern_format: f32, f16, q8_0,
 * q4_0, tq2_0, ...); norms and biases must be f32. Anything else — an unknown architecture, a missing key or
 * tensor, a shape that disagrees, an unsupported type (the message names the type and the tensors that use it) —
 * is one line naming the file, before any work. */
#ifndef PB_MODEL_FILE_H
#define PB_MODEL_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "kern_format.h"
#include "pb_gguf.h"
#include "pb_model.h"

#define PB_MODEL_FILE_MAX_LAYERS 512

/* Norm weights, in the order pb_decode keeps them: layer l's attention norm at 2l, its FFN norm at 2l + 1, the
 * output norm at 2 x layers. */
typedef struct pb_model_file {
    pb_gguf g;
    pb_model shape;              /* name: general.name, else the file's base name */
    char name[128];
    char arch[16];               /* "llama", "qwen2", "qwen3" */
    bool tied;                   /* lm_head is token_embd */
    int nmv;                     /* matvecs per token, in pb_model_matvecs' order */
    const pb_gguf_tensor **mv;   /* each matvec's tensor */
    kern_format *fmt;            /* each matvec's format */
    const pb_gguf_tensor **norm; /* 2 x layers + 1 */
    const pb_gguf_tensor **qk_norm; /* qwen3: layer l's q norm at 2l, k norm at 2l + 1; NULL otherwise */
    const pb_gguf_tensor **bias;    /* qwen2: layer l's q, k, v biases at 3l .. 3l + 2; NULL otherwise */
    uint64_t weight_bytes;       /* of the matvec tensors (lm_head counted once, tied or not) */
    char mix[256];               /* every tensor by ggml type, "type:tensors:MB" space-separated (pb_model_file_types) */
} pb_model_file;

/* Opens and checks path (see the top). 0, or -1 with "PATH: what" in err. */
int pb_model_file_open(pb_model_file *m, const char *path, char *err, size_t errlen);
void pb_model_file_close(pb_model_file *m);

/* The matvecs' formats as one word: the format's name when they all share one, else "mixed". */
const char *pb_model_file_format(const pb_model_file *m);

/* The file's tensors by ggml type, every tensor counted (embedding and norms too): up to max entries (ggml has
 * fewer than 40 types), in order of first appearance; returns how many it wrote. */
typedef struct pb_model_type_mix {
    const char *type; /* ggml's name */
    int tensors;
    uint64_t bytes;
} pb_model_type_mix;
int pb_model_file_types(const pb_model_file *m, pb_model_type_mix *out, int max);

#endif
