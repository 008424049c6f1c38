/* test_model_file.c — a model from a GGUF file (bench/measure/model): the shape and every tensor read back from
 * a file written by tests/lib/gguf_model.h; a decode token of the file's weights, copied into the arena or read
 * through the mapping, equals bit for bit the token of the same weights built in memory, for every format and a
 * mix, llama and qwen3, lm_head tied or not; every bad model file is one line naming the file (and, for a type
 * without a kernel, the type and the tensors). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_model.h"
#include "pb_decode_load.h"
#include "pb_model_file.h"
#include "test_files.h"

/* Widths multiples of 256 (tq2_0's block), 4 heads of 128 over 2 key/value heads. */
static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };

static void build(pb_decode_weights *w, const pb_model *m, const kern_format *fmts)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_weights_build_fmts(w, m, fmts, 42, &e, NULL, NULL), 0);
    pb_exec_close(&e);
}

/* Logits of token 5 on `threads` threads with glue g: a malloc'd copy. */
static float *token(const pb_decode_weights *w, int threads, pb_glue_mode g)
{
    pb_decode d;
    cr_assert_eq(pb_decode_init(&d, w, kern_isa_best(), 1), 0);
    d.glue = g;
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, threads, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_token(&d, &e, 5), 0);
    pb_exec_close(&e);
    float *out = malloc(w->shape.vocab * sizeof *out);
    memcpy(out, d.logits, w->shape.vocab * sizeof *out);
    pb_decode_free(&d);
    return out;
}

static void load(pb_decode_weights *w, const pb_model_file *f, bool use_mmap)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_weights_load(w, f, use_mmap, 42, &e, NULL, NULL), 0);
    pb_exec_close(&e);
}

/* Writes built weights as a file of arch (tied or not), opens it and checks its tokens against the built ones. */
static void round_trip(const pb_model *shape, const kern_format *fmts, const char *arch, bool tied)
{
    pb_model s = *shape; /* what the architecture implies */
    const pb_model *m = &s;
    s.qk_norm = strcmp(arch, "qwen3") == 0;
    s.rope_neox = strcmp(arch, "llama") != 0;
    pb_decode_weights built;
    build(&built, m, fmts);
    char dir[64], path[128], err[512];
    tf_tmpdir(dir, sizeof dir, "pbmodel");
    snprintf(path, sizeof path, "%s/tiny.gguf", dir);
    gm_opts o = { .arch = arch, .tied = tied };
    gm_write(&built, &o, path);
    pb_model_file f;
    cr_assert_eq(pb_model_file_open(&f, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f.tied, tied);
    cr_assert_eq(f.weight_bytes, built.bytes, "the file's matvec bytes are the built weights'");
    cr_assert(f.shape.hidden == m->hidden && f.shape.q_dim == m->q_dim && f.shape.kv_dim == m->kv_dim &&
              f.shape.ffn == m->ffn && f.shape.layers == m->layers && f.shape.vocab == m->vocab &&
              f.shape.n_head == m->n_head && f.shape.n_kv_head == m->n_kv_head && f.shape.head_dim == m->head_dim);
    cr_assert_eq(f.shape.qk_norm, strcmp(arch, "qwen3") == 0);
    float *ref = token(&built, 1, PB_GLUE_SERIAL);
    for (int mode = 0; mode < 2; mode++) {
        pb_decode_weights w;
        load(&w, &f, mode == 1);
        cr_assert_str_eq(w.source, mode ? "mmap" : "arena");
        for (int i = 0; i < w.nmv; i++)
            cr_assert(memcmp(w.arena + w.off[i], built.arena + built.off[i],
                             kern_format_matrix_bytes(w.mfmt[i], w.mv[i].rows, w.mv[i].cols)) == 0, "matvec %d", i);
        for (int t = 1; t <= 3; t += 2)
            for (int g = 0; g < PB_GLUE_MODES; g++) {
                float *got = token(&w, t, (pb_glue_mode)g);
                cr_assert(memcmp(ref, got, m->vocab * sizeof *got) == 0, "%s %s %s, %d threads, %s glue: logits differ",
                          arch, tied ? "tied" : "untied", w.source, t, pb_glue_mode_names[g]);
                free(got);
            }
        pb_decode_weights_free(&w);
    }
    free(ref);
    pb_model_file_close(&f);
    pb_decode_weights_free(&built);
    tf_rmrf(dir);
}

Test(model_file, a_token_from_a_file_equals_the_built_token, .timeout = 120)
{
    static const kern_format each[] = { KERN_Q8_0, KERN_Q4_0, KERN_F16, KERN_F32, KERN_TQ2_0, KERN_Q4_K, KERN_Q6_K,
                                        KERN_Q1_0 }; /* q1_0: ggml type 41, once "unknown ggml type 41" */
    size_t neach = sizeof each / sizeof each[0];
    int n = pb_model_matvec_count(&tiny);
    kern_format fmts[64];
    cr_assert(n <= 64);
    for (size_t k = 0; k < neach; k++) {
        for (int i = 0; i < n; i++)
            fmts[i] = each[k];
        round_trip(&tiny, fmts, k % 2 ? "llama" : "qwen3", k % 2 == 0);
    }
    /* a mix, as a quantized file has (q4_K, q6_K, q8_0, f16 and f32 side by side): matvecs in turn */
    for (int i = 0; i < n; i++)
        fmts[i] = each[i % neach];
    round_trip(&tiny, fmts, "llama", false);
    round_trip(&tiny, fmts, "qwen3", true);
}

/* Writes tiny q8_0 weights with opts and expects pb_model_file_open to refuse, naming the file and want. */
static void refused(const gm_opts *o, const char *want)
{
    kern_format fmts[64];
    for (int i = 0; i < 64; i++)
        fmts[i] = KERN_Q8_0;
    pb_decode_weights built;
    build(&built, &tiny, fmts);
    char dir[64], path[128], err[1024] = "";
    tf_tmpdir(dir, sizeof dir, "pbmodel");
    snprintf(path, sizeof path, "%s/bad.gguf", dir);
    gm_write(&built, o, path);
    pb_model_file f;
    cr_assert_eq(pb_model_file_open(&f, path, err, sizeof err), -1, "accepted; wanted '%s'", want);
    cr_assert(strncmp(err, path, strlen(path)) == 0 && strchr(err, '\n') == NULL, "%s", err);
    cr_assert_not_null(strstr(err, want), "'%s' lacks '%s'", err, want);
    pb_decode_weights_free(&built);
    tf_rmrf(dir);
}

Test(model_file, bad_model_files_are_refused_naming_the_file)
{
    refused(&(gm_opts){ .arch = "gpt2" }, "unknown architecture 'gpt2'");
    refused(&(gm_opts){ .arch = "qwen3", .skip_key = "block_count" }, "missing key 'qwen3.block_count'");
    refused(&(gm_opts){ .arch = "llama", .skip_key = "attention.layer_norm_rms_epsilon" },
            "missing key 'llama.attention.layer_norm_rms_epsilon'");
    refused(&(gm_opts){ .arch = "qwen3", .skip_tensor = "blk.1.ffn_up.weight" }, "missing tensor 'blk.1.ffn_up.weight'");
    refused(&(gm_opts){ .arch = "qwen3", .skip_tensor = "blk.0.attn_k_norm.weight" },
            "missing tensor 'blk.0.attn_k_norm.weight'");
    refused(&(gm_opts){ .arch = "qwen3", .transpose_q = true },
            "tensor 'blk.0.attn_q.weight' has shape [512, 256], the metadata says [256, 512]");
    refused(&(gm_opts){ .arch = "qwen3", .norm_f16 = true }, "'output_norm.weight' is f16; norms and biases must be f32");
    refused(&(gm_opts){ .arch = "qwen3", .q5_0 = "ffn_down" },
            "no kernel for ggml type q5_0 (blk.0.ffn_down.weight, blk.1.ffn_down.weight)");
    refused(&(gm_opts){ .arch = "llama", .q5_0 = "attn" },
            "q5_0 (blk.0.attn_q.weight, blk.0.attn_k.weight, blk.0.attn_v.weight and 5 more)");
}

Test(model_file, type_mix_and_format_label)
{
    int n = pb_model_matvec_count(&tiny);
    kern_format fmts[64];
    for (int i = 0; i < n; i++)
        fmts[i] = i == n - 1 ? KERN_F16 : KERN_Q8_0;
    pb_decode_weights built;
    build(&built, &tiny, fmts);
    char dir[64], path[128], err[512];
    tf_tmpdir(dir, sizeof dir, "pbmodel");
    snprintf(path, sizeof path, "%s/tiny.gguf", dir);
    gm_write(&built, &(gm_opts){ .arch = "qwen3" }, path);
    pb_model_file f;
    cr_assert_eq(pb_model_file_open(&f, path, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(pb_model_file_format(&f), "mixed");
    cr_assert_str_eq(f.name, "tiny_test_model");
    cr_assert_str_eq(f.arch, "qwen3");
    pb_model_type_mix mix[8];
    int k = pb_model_file_types(&f, mix, 8);
    cr_assert_eq(k, 3); /* f16 (embedding, lm_head), f32 (norms), q8_0 */
    int tensors = 0;
    for (int i = 0; i < k; i++)
        tensors += mix[i].tensors;
    cr_assert_eq((uint64_t)tensors, f.g.ntensors);
    pb_model_file_close(&f);
    pb_decode_weights_free(&built);
    tf_rmrf(dir);
}
