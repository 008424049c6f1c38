/* pb_gguf_types.c — the ggml tensor types and GGUF value types as data, the lookups and the typed getters of
 * pb_gguf.h. */
#include "pb_gguf.h"

#include <stdio.h>
#include <string.h>

#include "pb_err.h"

/* ggml's type ids (ggml.h's enum ggml_type), with their block sizes; the ids ggml removed (4, 5, 31-33, 36-38)
 * and nvfp4's (40, four scales a block: no kernel here) stay empty, so a file that uses one is refused as an
 * unknown type. q1_0 (41): 128 weights, one half scale and 16 bytes of signs, as poolbench's kernels read it. */
static const pb_ggml_type_info pb_ggml_types[] = {
    [0] = { "f32", 1, 4 },        [1] = { "f16", 1, 2 },          [2] = { "q4_0", 32, 18 },
    [3] = { "q4_1", 32, 20 },     [6] = { "q5_0", 32, 22 },       [7] = { "q5_1", 32, 24 },
    [8] = { "q8_0", 32, 34 },     [9] = { "q8_1", 32, 36 },       [10] = { "q2_K", 256, 84 },
    [11] = { "q3_K", 256, 110 },  [12] = { "q4_K", 256, 144 },    [13] = { "q5_K", 256, 176 },
    [14] = { "q6_K", 256, 210 },  [15] = { "q8_K", 256, 292 },    [16] = { "iq2_xxs", 256, 66 },
    [17] = { "iq2_xs", 256, 74 }, [18] = { "iq3_xxs", 256, 98 },  [19] = { "iq1_s", 256, 50 },
    [20] = { "iq4_nl", 32, 18 },  [21] = { "iq3_s", 256, 110 },   [22] = { "iq2_s", 256, 82 },
    [23] = { "iq4_xs", 256, 136 }, [24] = { "i8", 1, 1 },         [25] = { "i16", 1, 2 },
    [26] = { "i32", 1, 4 },       [27] = { "i64", 1, 8 },         [28] = { "f64", 1, 8 },
    [29] = { "iq1_m", 256, 56 },  [30] = { "bf16", 1, 2 },        [34] = { "tq1_0", 256, 54 },
    [35] = { "tq2_0", 256, 66 },  [39] = { "mxfp4", 32, 17 },    [41] = { "q1_0", 128, 18 },
};

const pb_ggml_type_info *pb_ggml_type(uint32_t id)
{
    if (id >= sizeof pb_ggml_types / sizeof pb_ggml_types[0] || !pb_ggml_types[id].name)
        return NULL;
    return &pb_ggml_types[id];
}

static const char *const pb_vtype_names[PB_GGUF_VTYPES] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64",
};

const char *pb_gguf_vtype_name(uint32_t t)
{
    return t < PB_GGUF_VTYPES ? pb_vtype_names[t] : "?";
}

bool pb_gguf_str_is(pb_gguf_str s, const char *c)
{
    return s.n == strlen(c) && memcmp(s.p, c, s.n) == 0;
}

const char *pb_gguf_text(char *buf, size_t len, pb_gguf_str s)
{
    size_t n = s.n < len - 1 ? (size_t)s.n : len - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    buf[n] = '\0';
    return buf;
}

const pb_gguf_kv *pb_gguf_find(const pb_gguf *g, const char *key)
{
    for (uint64_t i = 0; i < g->nkv; i++)
        if (pb_gguf_str_is(g->kv[i].key, key))
            return &g->kv[i];
    return NULL;
}

const pb_gguf_tensor *pb_gguf_tensor_find(const pb_gguf *g, const char *name)
{
    for (uint64_t i = 0; i < g->ntensors; i++)
        if (pb_gguf_str_is(g->t[i].name, name))
            return &g->t[i];
    return NULL;
}

/* Little-endian loads: the file's byte order whatever the host's. */
static uint64_t pb_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int pb_wrong_type(const pb_gguf *g, const pb_gguf_kv *kv, const char *want, char *err, size_t errlen)
{
    char k[128];
    return pb_errf(err, errlen, "%s: key '%s' is %s, not %s", g->name, pb_gguf_text(k, sizeof k, kv->key),
                   pb_gguf_vtype_name(kv->type), want);
}

/* Bytes of an integer value type, with whether it is signed; 0 for a type that is no integer. */
static int pb_int_width(pb_gguf_vtype t, bool *is_signed)
{
    static const signed char width[PB_GGUF_VTYPES] = {
        [PB_GGUF_U8] = 1, [PB_GGUF_I8] = -1, [PB_GGUF_U16] = 2, [PB_GGUF_I16] = -2, [PB_GGUF_U32] = 4,
        [PB_GGUF_I32] = -4, [PB_GGUF_U64] = 8, [PB_GGUF_I64] = -8,
    };
    int w = (unsigned)t < PB_GGUF_VTYPES ? width[t] : 0;
    *is_signed = w < 0;
    return w < 0 ? -w : w;
}

int pb_gguf_get_uint(const pb_gguf *g, const char *key, uint64_t *out, char *err, size_t errlen)
{
    const pb_gguf_kv *kv = pb_gguf_find(g, key);
    if (!kv)
        return 1;
    bool is_signed;
    int w = pb_int_width(kv->type, &is_signed);
    if (w == 0)
        return pb_wrong_type(g, kv, "an integer", err, errlen);
    uint64_t v = pb_le(kv->val, w);
    if (is_signed && (v >> (8 * w - 1)) & 1)
        return pb_errf(err, errlen, "%s: key '%s' is negative", g->name, key);
    *out = v;
    return 0;
}

int pb_gguf_get_float(const pb_gguf *g, const char *key, double *out, char *err, size_t errlen)
{
    const pb_gguf_kv *kv = pb_gguf_find(g, key);
    if (!kv)
        return 1;
    if (kv->type == PB_GGUF_F32) {
        uint32_t bits = (uint32_t)pb_le(kv->val, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        *out = f;
        return 0;
    }
    if (kv->type == PB_GGUF_F64) {
        uint64_t bits = pb_le(kv->val, 8);
        memcpy(out, &bits, sizeof *out);
        return 0;
    }
    return pb_wrong_type(g, kv, "a float", err, errlen);
}

int pb_gguf_get_str(const pb_gguf *g, const char *key, pb_gguf_str *out, char *err, size_t errlen)
{
    const pb_gguf_kv *kv = pb_gguf_find(g, key);
    if (!kv)
        return 1;
    if (kv->type != PB_GGUF_STRING)
        return pb_wrong_type(g, kv, "a string", err, errlen);
    *out = (pb_gguf_str){ .p = (const char *)kv->val + 8, .n = pb_le(kv->val, 8) };
    return 0;
}
