/* pb_gguf.c — see pb_gguf.h: the parser (a bounds-checked cursor over the file's bytes) and the mapping. */
#include "pb_gguf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_err.h"
#include "pb_infile.h"

/* The least bytes one metadata entry and one tensor info take (an empty key and a one-byte value; a one-byte
 * name, one dim): a count above what the rest of the file can hold is refused before anything is allocated. */
#define GG_MIN_KV (8 + 4 + 1)
#define GG_MIN_TENSOR (8 + 1 + 4 + 8 + 4 + 8)
#define GG_NAME_MAX 256 /* longest key or tensor name accepted (ggml's own limit for tensor names is 64) */

typedef struct gg_cur {
    const unsigned char *p, *end;
    const char *name; /* the file, for messages */
    size_t size;
    char *err;
    size_t errlen;
} gg_cur;

static uint64_t gg_left(const gg_cur *c)
{
    return (uint64_t)(c->end - c->p);
}

/* n more bytes, or the truncation message naming what they were to hold. */
static int gg_need(gg_cur *c, uint64_t n, const char *what)
{
    if (gg_left(c) < n)
        return pb_errf(c->err, c->errlen, "%s: truncated: %s ends past the end of the file (%zu bytes)", c->name,
                       what, c->size);
    return 0;
}

static int gg_uint(gg_cur *c, int width, uint64_t *v, const char *what)
{
    if (gg_need(c, (uint64_t)width, what) != 0)
        return -1;
    *v = 0;
    for (int i = width - 1; i >= 0; i--)
        *v = *v << 8 | c->p[i];
    c->p += width;
    return 0;
}

static int gg_u32(gg_cur *c, uint32_t *v, const char *what)
{
    uint64_t x;
    if (gg_uint(c, 4, &x, what) != 0)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

/* A string: its length, then that many bytes, all inside the file. */
static int gg_str(gg_cur *c, pb_gguf_str *s, const char *what)
{
    uint64_t n;
    if (gg_uint(c, 8, &n, what) != 0)
        return -1;
    if (n > gg_left(c))
        return pb_errf(c->err, c->errlen, "%s: %s: a string length of %llu bytes, beyond the file (%zu bytes)",
                       c->name, what, (unsigned long long)n, c->size);
    *s = (pb_gguf_str){ .p = (const char *)c->p, .n = n };
    c->p += n;
    return 0;
}

/* A key or tensor name: not empty, not longer than GG_NAME_MAX. */
static int gg_name(gg_cur *c, pb_gguf_str *s, const char *what)
{
    if (gg_str(c, s, what) != 0)
        return -1;
    if (s->n == 0 || s->n > GG_NAME_MAX)
        return pb_errf(c->err, c->errlen, "%s: %s is %llu bytes long (1 to %d accepted)", c->name, what,
                       (unsigned long long)s->n, GG_NAME_MAX);
    return 0;
}

/* Bytes of a scalar value type; 0 for string and array. */
static uint64_t gg_scalar_bytes(pb_gguf_vtype t)
{
    static const unsigned char bytes[PB_GGUF_VTYPES] = {
        [PB_GGUF_U8] = 1, [PB_GGUF_I8] = 1, [PB_GGUF_U16] = 2, [PB_GGUF_I16] = 2, [PB_GGUF_U32] = 4,
        [PB_GGUF_I32] = 4, [PB_GGUF_F32] = 4, [PB_GGUF_BOOL] = 1, [PB_GGUF_U64] = 8, [PB_GGUF_I64] = 8,
        [PB_GGUF_F64] = 8,
    };
    return bytes[t];
}

static int gg_vtype(gg_cur *c, pb_gguf_vtype *t, const char *what)
{
    uint32_t v;
    if (gg_u32(c, &v, what) != 0)
        return -1;
    if (v >= PB_GGUF_VTYPES)
        return pb_errf(c->err, c->errlen, "%s: %s: unknown value type %u", c->name, what, v);
    *t = (pb_gguf_vtype)v;
    return 0;
}

/* An array's elements: scalars skipped as one block (its size checked against the file first), strings one by
 * one (each takes at least its 8-byte length, so the count is checked against the file first too). */
static int gg_array(gg_cur *c, pb_gguf_kv *kv, const char *what)
{
    if (gg_vtype(c, &kv->elem, what) != 0 || gg_uint(c, 8, &kv->count, what) != 0)
        return -1;
    if (kv->elem == PB_GGUF_ARRAY)
        return pb_errf(c->err, c->errlen, "%s: %s: arrays of arrays are not supported", c->name, what);
    uint64_t each = kv->elem == PB_GGUF_STRING ? 8 : gg_scalar_bytes(kv->elem);
    if (kv->count > gg_left(c) / each)
        return pb_errf(c->err, c->errlen, "%s: %s: %llu elements, beyond the file (%zu bytes)", c->name, what,
                       (unsigned long long)kv->count, c->size);
    kv->val = c->p;
    if (kv->elem != PB_GGUF_STRING) {
        c->p += kv->count * each;
        return 0;
    }
    for (uint64_t i = 0; i < kv->count; i++) {
        pb_gguf_str s;
        if (gg_str(c, &s, what) != 0)
            return -1;
    }
    return 0;
}

static int gg_value(gg_cur *c, pb_gguf_kv *kv, const char *what)
{
    if (gg_vtype(c, &kv->type, what) != 0)
        return -1;
    kv->val = c->p;
    if (kv->type == PB_GGUF_STRING) {
        pb_gguf_str s;
        return gg_str(c, &s, what);
    }
    if (kv->type == PB_GGUF_ARRAY)
        return gg_array(c, kv, what);
    if (gg_need(c, gg_scalar_bytes(kv->type), what) != 0)
        return -1;
    c->p += gg_scalar_bytes(kv->type);
    return 0;
}

static int gg_header(gg_cur *c, pb_gguf *g)
{
    if (gg_need(c, 4, "the magic") != 0)
        return -1;
    if (memcmp(c->p, "GGUF", 4) != 0)
        return pb_errf(c->err, c->errlen, "%s: not a GGUF file (it does not start with 'GGUF')", c->name);
    c->p += 4;
    if (gg_u32(c, &g->version, "the version") != 0)
        return -1;
    uint32_t swapped = __builtin_bswap32(g->version);
    if (g->version == 1)
        return pb_errf(c->err, c->errlen, "%s: GGUF version 1 is not supported (versions 2 and 3 are)", c->name);
    if (swapped == 2 || swapped == 3)
        return pb_errf(c->err, c->errlen, "%s: a big-endian GGUF file (only little-endian is supported)", c->name);
    if (g->version != 2 && g->version != 3)
        return pb_errf(c->err, c->errlen, "%s: GGUF version %u is not supported (versions 2 and 3 are)", c->name,
                       g->version);
    if (gg_uint(c, 8, &g->ntensors, "the tensor count") != 0 || gg_uint(c, 8, &g->nkv, "the metadata count") != 0)
        return -1;
    if (g->nkv > gg_left(c) / GG_MIN_KV || g->ntensors > gg_left(c) / GG_MIN_TENSOR)
        return pb_errf(c->err, c->errlen, "%s: %llu metadata entries and %llu tensors cannot fit in the file (%zu "
                       "bytes)", c->name, (unsigned long long)g->nkv, (unsigned long long)g->ntensors, c->size);
    g->kv = calloc(g->nkv ? g->nkv : 1, sizeof *g->kv);
    g->t = calloc(g->ntensors ? g->ntensors : 1, sizeof *g->t);
    if (!g->kv || !g->t)
        return pb_errf(c->err, c->errlen, "%s: out of memory", c->name);
    return 0;
}

static int gg_metadata(gg_cur *c, pb_gguf *g)
{
    for (uint64_t i = 0; i < g->nkv; i++) {
        char what[64], k[128];
        snprintf(what, sizeof what, "metadata entry %llu", (unsigned long long)i);
        if (gg_name(c, &g->kv[i].key, what) != 0)
            return -1;
        snprintf(what, sizeof what, "key '%s'", pb_gguf_text(k, sizeof k, g->kv[i].key));
        for (uint64_t j = 0; j < i; j++)
            if (g->kv[j].key.n == g->kv[i].key.n && memcmp(g->kv[j].key.p, g->kv[i].key.p, g->kv[i].key.n) == 0)
                return pb_errf(c->err, c->errlen, "%s: duplicate %s", c->name, what);
        if (gg_value(c, &g->kv[i], what) != 0)
            return -1;
    }
    return 0;
}

/* general.alignment: a u32, a power of two; absent: 32. */
static int gg_alignment(gg_cur *c, pb_gguf *g)
{
    g->alignment = PB_GGUF_DEFAULT_ALIGNMENT;
    const pb_gguf_kv *kv = pb_gguf_find(g, "general.alignment");
    if (!kv)
        return 0;
    if (kv->type != PB_GGUF_U32)
        return pb_errf(c->err, c->errlen, "%s: general.alignment is a %s, not a u32", c->name,
                       pb_gguf_vtype_name(kv->type));
    uint32_t a = (uint32_t)kv->val[0] | (uint32_t)kv->val[1] << 8 | (uint32_t)kv->val[2] << 16 |
                 (uint32_t)kv->val[3] << 24;
    if (a == 0 || (a & (a - 1)) != 0)
        return pb_errf(c->err, c->errlen, "%s: general.alignment %u is not a power of two", c->name, a);
    g->alignment = a;
    return 0;
}

/* A tensor's shape and type: 1..4 dims, none zero, a product that fits in 63 bits, rows of whole blocks. */
static int gg_shape(gg_cur *c, pb_gguf_tensor *t, const char *what)
{
    uint64_t count = 1;
    for (uint32_t d = 0; d < t->dims; d++) {
        if (t->ne[d] == 0)
            return pb_errf(c->err, c->errlen, "%s: %s has a zero dim", c->name, what);
        if (__builtin_mul_overflow(count, t->ne[d], &count) || count > (uint64_t)INT64_MAX)
            return pb_errf(c->err, c->errlen, "%s: %s: the product of its dims overflows", c->name, what);
    }
    const pb_ggml_type_info *ty = pb_ggml_type(t->type);
    if (!ty)
        return pb_errf(c->err, c->errlen, "%s: %s has unknown ggml type %u", c->name, what, t->type);
    if (t->ne[0] % ty->block != 0)
        return pb_errf(c->err, c->errlen, "%s: %s: rows of %llu elements are not whole %s blocks of %u", c->name,
                       what, (unsigned long long)t->ne[0], ty->name, ty->block);
    if (__builtin_mul_overflow(count / ty->block, (uint64_t)ty->bytes, &t->bytes))
        return pb_errf(c->err, c->errlen, "%s: %s: its byte size overflows", c->name, what);
    return 0;
}

static int gg_tensor(gg_cur *c, pb_gguf *g, uint64_t i)
{
    pb_gguf_tensor *t = &g->t[i];
    char what[320], k[GG_NAME_MAX + 1];
    snprintf(what, sizeof what, "tensor info %llu", (unsigned long long)i);
    if (gg_name(c, &t->name, what) != 0)
        return -1;
    snprintf(what, sizeof what, "tensor '%s'", pb_gguf_text(k, sizeof k, t->name));
    for (uint64_t j = 0; j < i; j++)
        if (g->t[j].name.n == t->name.n && memcmp(g->t[j].name.p, t->name.p, t->name.n) == 0)
            return pb_errf(c->err, c->errlen, "%s: duplicate %s", c->name, what);
    if (gg_u32(c, &t->dims, what) != 0)
        return -1;
    if (t->dims < 1 || t->dims > PB_GGUF_MAX_DIMS)
        return pb_errf(c->err, c->errlen, "%s: %s has %u dims (1 to %d accepted)", c->name, what, t->dims,
                       PB_GGUF_MAX_DIMS);
    for (uint32_t d = 0; d < PB_GGUF_MAX_DIMS; d++)
        t->ne[d] = 1;
    for (uint32_t d = 0; d < t->dims; d++)
        if (gg_uint(c, 8, &t->ne[d], what) != 0)
            return -1;
    if (gg_u32(c, &t->type, what) != 0 || gg_uint(c, 8, &t->offset, what) != 0 || gg_shape(c, t, what) != 0)
        return -1;
    if (t->offset % g->alignment != 0)
        return pb_errf(c->err, c->errlen, "%s: %s: offset %llu is not a multiple of the alignment %u", c->name,
                       what, (unsigned long long)t->offset, g->alignment);
    return 0;
}

/* The data section starts at the end of the infos rounded up to the alignment; every tensor lies inside it. */
static int gg_data(gg_cur *c, pb_gguf *g, const unsigned char *base)
{
    uint64_t pos = (uint64_t)(c->p - base);
    g->data_offset = (pos + g->alignment - 1) / g->alignment * g->alignment;
    uint64_t room = g->data_offset <= c->size ? c->size - g->data_offset : 0;
    for (uint64_t i = 0; i < g->ntensors; i++) {
        pb_gguf_tensor *t = &g->t[i];
        if (t->offset > room || t->bytes > room - t->offset) {
            char k[GG_NAME_MAX + 1];
            return pb_errf(c->err, c->errlen, "%s: truncated: tensor '%s' (%llu bytes at data offset %llu) ends "
                           "past the end of the file (%zu bytes)", c->name, pb_gguf_text(k, sizeof k, t->name),
                           (unsigned long long)t->bytes, (unsigned long long)t->offset, c->size);
        }
        t->data = base + g->data_offset + t->offset;
    }
    return 0;
}

static void gg_clear(pb_gguf *g)
{
    free(g->kv);
    free(g->t);
    free(g->name);
    memset(g, 0, sizeof *g);
}

int pb_gguf_parse(pb_gguf *g, const void *buf, size_t len, const char *name, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->name = strdup(name);
    if (!g->name)
        return pb_errf(err, errlen, "%s: out of memory", name);
    g->base = buf;
    g->size = len;
    gg_cur c = { .p = buf, .end = (const unsigned char *)buf + len, .name = name, .size = len, .err = err,
                 .errlen = errlen };
    int rc = gg_header(&c, g);
    rc = rc ? rc : gg_metadata(&c, g);
    rc = rc ? rc : gg_alignment(&c, g);
    for (uint64_t i = 0; rc == 0 && i < g->ntensors; i++)
        rc = gg_tensor(&c, g, i);
    rc = rc ? rc : gg_data(&c, g, buf);
    if (rc != 0)
        gg_clear(g);
    return rc;
}

int pb_gguf_open(pb_gguf *g, const char *path, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    /* mapped, not read whole: a model of any size a mapping can hold */
    size_t size = 0;
    int fd = pb_infile_open(AT_FDCWD, path, SIZE_MAX, "a model file", &size, err, errlen);
    if (fd < 0)
        return -1;
    void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    int e = errno;
    close(fd);
    if (size && map == MAP_FAILED)
        return pb_errf(err, errlen, "%s: cannot map it: %s", path, strerror(e));
    if (pb_gguf_parse(g, size ? map : "", size, path, err, errlen) != 0) {
        if (size)
            munmap(map, size);
        return -1;
    }
    g->map = size ? map : NULL;
    return 0;
}

void pb_gguf_close(pb_gguf *g)
{
    if (g->map)
        munmap(g->map, g->size);
    gg_clear(g);
}
