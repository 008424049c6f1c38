/* pb_model_tensors.c — see pb_model_file.h: finding every tensor a token reads, checking its shape against the
 * metadata and its type against the kernels. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_model_file_impl.h"

#define MT_VOCAB_MAX (1u << 24) /* a vocabulary beyond this is a malformed file, not a model */
#define MT_NAMES_SHOWN 3        /* tensors named per unsupported type; the rest are counted */
#define MT_GGML_IDS 64          /* ggml type ids scanned for the supported list */

/* A matvec's tensor, by pb_matvec's name. */
static const char *mt_suffix(const char *mv)
{
    static const char *const map[][2] = {
        { "q", "attn_q" }, { "k", "attn_k" }, { "v", "attn_v" }, { "o", "attn_output" },
        { "gate", "ffn_gate" }, { "up", "ffn_up" }, { "down", "ffn_down" },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i][0], mv) == 0)
            return map[i][1];
    return "?";
}

static void mt_shape_text(char *buf, size_t len, const uint64_t *ne, uint32_t dims)
{
    size_t o = (size_t)snprintf(buf, len, "[");
    for (uint32_t d = 0; d < dims && o < len; d++)
        o += (size_t)snprintf(buf + o, len - o, "%s%llu", d ? ", " : "", (unsigned long long)ne[d]);
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

/* The tensor of that name, of ne = {cols} (rows 0) or {cols, rows}. NULL with *rc 0 when it is absent and
 * optional; NULL with *rc -1 and the message when it is absent otherwise or its shape disagrees. */
static const pb_gguf_tensor *mt_find(const pb_model_file *m, uint64_t cols, uint64_t rows, bool optional, int *rc,
                                     char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
static const pb_gguf_tensor *mt_find(const pb_model_file *m, uint64_t cols, uint64_t rows, bool optional, int *rc,
                                     char *err, size_t errlen, const char *fmt, ...)
{
    char name[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    const pb_gguf_tensor *t = pb_gguf_tensor_find(&m->g, name);
    *rc = 0;
    if (!t) {
        if (!optional)
            *rc = pb_errf(err, errlen, "%s: missing tensor '%s'", m->g.name, name);
        return NULL;
    }
    const uint64_t want[2] = { cols, rows };
    uint32_t dims = rows ? 2 : 1;
    if (t->dims != dims || t->ne[0] != cols || (rows && t->ne[1] != rows)) {
        char have[96], should[64];
        mt_shape_text(have, sizeof have, t->ne, t->dims);
        mt_shape_text(should, sizeof should, want, dims);
        *rc = pb_errf(err, errlen, "%s: tensor '%s' has shape %s, the metadata says %s", m->g.name, name, have,
                      should);
        return NULL;
    }
    return t;
}

/* A norm or a bias: an f32 vector (NULL and *rc 0: absent and optional). */
static const pb_gguf_tensor *mt_vector(const pb_model_file *m, uint64_t n, bool optional, int *rc, char *err,
                                       size_t errlen, const char *name)
{
    const pb_gguf_tensor *t = mt_find(m, n, 0, optional, rc, err, errlen, "%s", name);
    if (t && strcmp(pb_ggml_type(t->type)->name, "f32") != 0)
        *rc = pb_errf(err, errlen, "%s: tensor '%s' is %s; norms and biases must be f32", m->g.name, name,
                      pb_ggml_type(t->type)->name);
    return *rc == 0 ? t : NULL;
}

/* token_embd: hidden wide; its rows are the vocabulary. */
static int mt_embedding(pb_model_file *m, const pb_gguf_tensor **embd, char *err, size_t errlen)
{
    const pb_gguf_tensor *t = pb_gguf_tensor_find(&m->g, "token_embd.weight");
    if (!t)
        return pb_errf(err, errlen, "%s: missing tensor 'token_embd.weight'", m->g.name);
    if (t->dims != 2 || t->ne[0] != m->shape.hidden || t->ne[1] > MT_VOCAB_MAX) {
        char have[96];
        mt_shape_text(have, sizeof have, t->ne, t->dims);
        return pb_errf(err, errlen, "%s: tensor 'token_embd.weight' has shape %s, the metadata says [%llu, vocabulary "
                       "up to %u]", m->g.name, have, (unsigned long long)m->shape.hidden, MT_VOCAB_MAX);
    }
    m->shape.vocab = t->ne[1];
    *embd = t;
    return 0;
}

/* Every matvec's tensor in token order; lm_head is output.weight, or token_embd when the file has none. */
static int mt_matvecs(pb_model_file *m, const pb_gguf_tensor *embd, char *err, size_t errlen)
{
    pb_matvec *list = calloc((size_t)m->nmv, sizeof *list);
    if (!list)
        return pb_errf(err, errlen, "%s: out of memory", m->g.name);
    pb_model_matvecs(&m->shape, list, m->nmv);
    int rc = 0;
    for (int i = 0; i < m->nmv && rc == 0; i++) {
        const pb_matvec *v = &list[i];
        if (v->layer >= 0)
            m->mv[i] = mt_find(m, v->cols, v->rows, false, &rc, err, errlen, "blk.%d.%s.weight", v->layer,
                               mt_suffix(v->name));
        else
            m->mv[i] = mt_find(m, v->cols, v->rows, true, &rc, err, errlen, "output.weight");
        if (v->layer < 0 && rc == 0 && !m->mv[i]) {
            m->tied = true;
            m->mv[i] = embd;
        }
    }
    free(list);
    return rc;
}

/* The norms (and qwen3's q/k norms, qwen2's biases) in pb_model_file's order. */
static int mt_norms(pb_model_file *m, char *err, size_t errlen)
{
    const pb_model *s = &m->shape;
    int rc = 0;
    char name[96];
    for (int l = 0; l < s->layers && rc == 0; l++) {
        static const char *const norms[2] = { "attn_norm", "ffn_norm" }, *const qk[2] = { "attn_q_norm",
                                                                                          "attn_k_norm" };
        static const char *const bias[3] = { "attn_q", "attn_k", "attn_v" };
        for (int k = 0; k < 2 && rc == 0; k++) {
            snprintf(name, sizeof name, "blk.%d.%s.weight", l, norms[k]);
            m->norm[2 * l + k] = mt_vector(m, s->hidden, false, &rc, err, errlen, name);
            snprintf(name, sizeof name, "blk.%d.%s.weight", l, qk[k]);
            if (rc == 0 && m->qk_norm)
                m->qk_norm[2 * l + k] = mt_vector(m, s->head_dim, false, &rc, err, errlen, name);
        }
        for (int k = 0; k < 3 && rc == 0 && m->bias; k++) {
            snprintf(name, sizeof name, "blk.%d.%s.bias", l, bias[k]);
            m->bias[3 * l + k] = mt_vector(m, k ? s->kv_dim : s->q_dim, true, &rc, err, errlen, name);
        }
    }
    if (rc == 0)
        m->norm[2 * s->layers] = mt_vector(m, s->hidden, false, &rc, err, errlen, "output_norm.weight");
    return rc;
}

/* The ggml types poolbench has a kernel for, comma-separated. */
static void mt_supported(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t id = 0; id < MT_GGML_IDS && o < len; id++) {
        kern_format f;
        if (pb_ggml_type(id) && kern_format_parse(pb_ggml_type(id)->name, &f) == 0)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", pb_ggml_type(id)->name);
    }
}

/* " TYPE (a, b, c and N more)" for the matvecs of ggml type id, appended at buf + *o. */
static void mt_list_type(const pb_model_file *m, uint32_t id, char *buf, size_t len, size_t *o)
{
    int n = 0;
    for (int i = 0; i < m->nmv && *o < len; i++) {
        if (m->mv[i]->type != id)
            continue;
        char t[80];
        if (n < MT_NAMES_SHOWN)
            *o += (size_t)snprintf(buf + *o, len - *o, "%s%s", n ? ", " : " (",
                                   pb_gguf_text(t, sizeof t, m->mv[i]->name));
        n++;
    }
    if (*o < len && n > MT_NAMES_SHOWN)
        *o += (size_t)snprintf(buf + *o, len - *o, " and %d more", n - MT_NAMES_SHOWN);
    if (*o < len)
        *o += (size_t)snprintf(buf + *o, len - *o, ")");
}

/* Every matvec's format; the types without a kernel, each with the tensors that use it, in one line. */
static int mt_formats(pb_model_file *m, char *err, size_t errlen)
{
    char bad[768];
    size_t o = 0;
    int nbad = 0;
    bad[0] = '\0';
    for (int i = 0; i < m->nmv; i++) {
        const char *type = pb_ggml_type(m->mv[i]->type)->name;
        if (kern_format_parse(type, &m->fmt[i]) == 0)
            continue;
        bool listed = false;
        for (int j = 0; j < i; j++)
            listed |= m->mv[j]->type == m->mv[i]->type;
        if (listed || o >= sizeof bad)
            continue;
        o += (size_t)snprintf(bad + o, sizeof bad - o, "%s%s", nbad++ ? "; " : "", type);
        mt_list_type(m, m->mv[i]->type, bad, sizeof bad, &o);
    }
    if (nbad == 0)
        return 0;
    char ok[160];
    mt_supported(ok, sizeof ok);
    return pb_errf(err, errlen, "%s: no kernel for ggml type%s %s; poolbench runs %s", m->g.name, nbad > 1 ? "s" : "",
                   bad, ok);
}

int pb_model_file_tensors(pb_model_file *m, char *err, size_t errlen)
{
    const pb_model *s = &m->shape;
    const pb_gguf_tensor *embd = NULL;
    if (mt_embedding(m, &embd, err, errlen) != 0)
        return -1;
    m->nmv = pb_model_matvec_count(s);
    size_t norms = 2 * (size_t)s->layers + 1;
    m->mv = calloc((size_t)m->nmv, sizeof *m->mv);
    m->fmt = calloc((size_t)m->nmv, sizeof *m->fmt);
    m->norm = calloc(norms, sizeof *m->norm);
    m->qk_norm = s->qk_norm ? calloc(2 * (size_t)s->layers, sizeof *m->qk_norm) : NULL;
    m->bias = strcmp(m->arch, "qwen2") == 0 ? calloc(3 * (size_t)s->layers, sizeof *m->bias) : NULL;
    if (!m->mv || !m->fmt || !m->norm || (s->qk_norm && !m->qk_norm) || (!m->bias && !strcmp(m->arch, "qwen2")))
        return pb_errf(err, errlen, "%s: out of memory", m->g.name);
    if (mt_matvecs(m, embd, err, errlen) != 0 || mt_norms(m, err, errlen) != 0 || mt_formats(m, err, errlen) != 0)
        return -1;
    m->weight_bytes = 0;
    for (int i = 0; i < m->nmv; i++)
        m->weight_bytes += m->mv[i]->bytes;
    return 0;
}
