/* pb_model_file.c — see pb_model_file.h: the architecture and the shape from the metadata. */
#include "pb_model_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_model_file_impl.h"

/* The architectures a token knows how to run: what each adds to llama's layer. */
typedef struct mfile_arch {
    const char *name;
    bool qk_norm, rope_neox;
} mfile_arch;

static const mfile_arch mfile_archs[] = {
    { .name = "llama" },
    { .name = "qwen2", .rope_neox = true },
    { .name = "qwen3", .qk_norm = true, .rope_neox = true },
};
#define MF_NARCH (sizeof mfile_archs / sizeof mfile_archs[0])

/* ARCH.SUFFIX as an unsigned integer within [lo, hi]; absent: dflt, or an error when required (dflt unused). */
static int mfile_uint(const pb_model_file *m, const char *suffix, bool required, uint64_t dflt, uint64_t lo,
                   uint64_t hi, uint64_t *out, char *err, size_t errlen)
{
    char key[96];
    snprintf(key, sizeof key, "%s.%s", m->arch, suffix);
    int rc = pb_gguf_get_uint(&m->g, key, out, err, errlen);
    if (rc < 0)
        return -1;
    if (rc == 1 && required)
        return pb_errf(err, errlen, "%s: missing key '%s'", m->g.name, key);
    if (rc == 1)
        *out = dflt;
    if (*out < lo || *out > hi)
        return pb_errf(err, errlen, "%s: key '%s' is %llu, outside %llu..%llu", m->g.name, key,
                       (unsigned long long)*out, (unsigned long long)lo, (unsigned long long)hi);
    return 0;
}

/* ARCH.SUFFIX as a float in (0, hi); absent: dflt, or an error when dflt is 0. */
static int mfile_float(const pb_model_file *m, const char *suffix, double dflt, double hi, float *out, char *err,
                    size_t errlen)
{
    char key[96];
    double v = dflt;
    snprintf(key, sizeof key, "%s.%s", m->arch, suffix);
    int rc = pb_gguf_get_float(&m->g, key, &v, err, errlen);
    if (rc < 0)
        return -1;
    if (rc == 1 && dflt == 0)
        return pb_errf(err, errlen, "%s: missing key '%s'", m->g.name, key);
    if (!(v > 0 && v < hi))
        return pb_errf(err, errlen, "%s: key '%s' is %g, outside (0, %g)", m->g.name, key, v, hi);
    *out = (float)v;
    return 0;
}

/* general.architecture, one of mfile_archs. */
static int mfile_arch_of(pb_model_file *m, char *err, size_t errlen)
{
    pb_gguf_str s;
    int rc = pb_gguf_get_str(&m->g, "general.architecture", &s, err, errlen);
    if (rc < 0)
        return -1;
    if (rc == 1)
        return pb_errf(err, errlen, "%s: missing key 'general.architecture'", m->g.name);
    for (size_t i = 0; i < MF_NARCH; i++)
        if (pb_gguf_str_is(s, mfile_archs[i].name)) {
            snprintf(m->arch, sizeof m->arch, "%s", mfile_archs[i].name);
            m->shape.qk_norm = mfile_archs[i].qk_norm;
            m->shape.rope_neox = mfile_archs[i].rope_neox;
            return 0;
        }
    char a[64];
    return pb_errf(err, errlen, "%s: unknown architecture '%s' (llama, qwen2 and qwen3 are supported)", m->g.name,
                   pb_gguf_text(a, sizeof a, s));
}

/* The heads: head_count_kv defaults to head_count, key_length to embedding / heads; value_length must agree. */
static int mfile_heads(pb_model_file *m, char *err, size_t errlen)
{
    pb_model *s = &m->shape;
    uint64_t heads, kv, klen, vlen;
    if (mfile_uint(m, "attention.head_count", true, 0, 1, 4096, &heads, err, errlen) != 0 ||
        mfile_uint(m, "attention.head_count_kv", false, heads, 1, heads, &kv, err, errlen) != 0)
        return -1;
    if (heads % kv != 0)
        return pb_errf(err, errlen, "%s: %llu heads are not a multiple of %llu key/value heads", m->g.name,
                       (unsigned long long)heads, (unsigned long long)kv);
    uint64_t dflt = s->hidden % heads == 0 ? s->hidden / heads : 0;
    if (mfile_uint(m, "attention.key_length", dflt == 0, dflt, 2, 4096, &klen, err, errlen) != 0 ||
        mfile_uint(m, "attention.value_length", false, klen, 2, 4096, &vlen, err, errlen) != 0)
        return -1;
    if (vlen != klen || klen % 2 != 0)
        return pb_errf(err, errlen, "%s: key_length %llu and value_length %llu must be equal and even", m->g.name,
                       (unsigned long long)klen, (unsigned long long)vlen);
    s->n_head = (int)heads;
    s->n_kv_head = (int)kv;
    s->head_dim = klen;
    s->q_dim = heads * klen;
    s->kv_dim = kv * klen;
    return 0;
}

static int mfile_shape(pb_model_file *m, char *err, size_t errlen)
{
    pb_model *s = &m->shape;
    uint64_t layers;
    if (mfile_arch_of(m, err, errlen) != 0 ||
        mfile_uint(m, "block_count", true, 0, 1, PB_MODEL_FILE_MAX_LAYERS, &layers, err, errlen) != 0 ||
        mfile_uint(m, "embedding_length", true, 0, 1, 1u << 20, &s->hidden, err, errlen) != 0 ||
        mfile_uint(m, "feed_forward_length", true, 0, 1, 1u << 22, &s->ffn, err, errlen) != 0 || mfile_heads(m, err, errlen) != 0 ||
        mfile_float(m, "attention.layer_norm_rms_epsilon", 0, 1, &s->eps, err, errlen) != 0 ||
        mfile_float(m, "rope.freq_base", 10000, 1e12, &s->rope_base, err, errlen) != 0)
        return -1;
    s->layers = (int)layers;
    return 0;
}

/* general.name, else the file's base name; printable bytes only, and one word (it reaches tables, CSV cells and
 * the plots' word lists of models, whose quotes group words: "Qwen3 0.6B" becomes Qwen3_0.6B; the schema's WORD
 * rule refuses anything else). */
static void mfile_name(pb_model_file *m, const char *path)
{
    pb_gguf_str s;
    char ignore[8];
    if (pb_gguf_get_str(&m->g, "general.name", &s, ignore, sizeof ignore) != 0 || s.n == 0) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        s = (pb_gguf_str){ .p = base, .n = strlen(base) };
    }
    pb_gguf_text(m->name, sizeof m->name, s);
    for (char *c = m->name; *c; c++) /* a CSV cell and a table column: no separators */
        *c = *c == ',' || *c == '"' || *c == '\'' || *c == ' ' ? '_' : *c;
    m->shape.name = m->name;
}

/* m->mix from pb_model_file_types. */
static void mfile_mix(pb_model_file *m)
{
    pb_model_type_mix mix[64];
    int n = pb_model_file_types(m, mix, 64);
    size_t o = 0;
    for (int i = 0; i < n && o < sizeof m->mix; i++)
        o += (size_t)snprintf(m->mix + o, sizeof m->mix - o, "%s%s:%d:%.1fMB", i ? " " : "", mix[i].type,
                              mix[i].tensors, (double)mix[i].bytes / 1e6);
}

int pb_model_file_open(pb_model_file *m, const char *path, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (pb_gguf_open(&m->g, path, err, errlen) != 0)
        return -1;
    mfile_name(m, path);
    if (mfile_shape(m, err, errlen) != 0 || pb_model_file_tensors(m, err, errlen) != 0) {
        pb_model_file_close(m);
        return -1;
    }
    mfile_mix(m);
    return 0;
}

void pb_model_file_close(pb_model_file *m)
{
    void *const held[] = { m->mv, m->fmt, m->norm, m->qk_norm, m->bias };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        free(held[i]);
    pb_gguf_close(&m->g);
    memset(m, 0, sizeof *m);
}

const char *pb_model_file_format(const pb_model_file *m)
{
    for (int i = 1; i < m->nmv; i++)
        if (m->fmt[i] != m->fmt[0])
            return "mixed";
    return m->nmv ? kern_format_names[m->fmt[0]] : "mixed";
}

int pb_model_file_types(const pb_model_file *m, pb_model_type_mix *out, int max)
{
    int n = 0;
    for (uint64_t i = 0; i < m->g.ntensors; i++) {
        const pb_gguf_tensor *t = &m->g.t[i];
        const char *name = pb_ggml_type(t->type)->name; /* the reader refused unknown types */
        int k = 0;
        while (k < n && strcmp(out[k].type, name) != 0)
            k++;
        if (k == max)
            continue;
        if (k == n)
            out[n++] = (pb_model_type_mix){ .type = name };
        out[k].tensors++;
        out[k].bytes += t->bytes;
    }
    return n;
}
