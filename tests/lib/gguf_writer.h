/* gguf_writer.h — a small GGUF writer for the tests (not shipped: the harnesses only read GGUF). It builds the
 * file in memory, metadata and tensor infos in the order they are added, the data section aligned, so that
 * a test can write a good file, or a bad one by adding raw bytes, giving an offset of its own or patching the
 * finished bytes. Header-only: each test file that includes it gets its own static copies. */
#ifndef GGUF_WRITER_H
#define GGUF_WRITER_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ggml type ids and GGUF value types the tests use. */
enum { GW_F32 = 0, GW_F16 = 1, GW_Q4_0 = 2, GW_Q5_0 = 6, GW_Q8_0 = 8, GW_Q4_K = 12, GW_TQ2_0 = 35 };
enum { GW_T_U32 = 4, GW_T_I32 = 5, GW_T_F32 = 6, GW_T_STRING = 8, GW_T_ARRAY = 9, GW_T_U64 = 10 };

typedef struct gw_buf {
    unsigned char *p;
    size_t n, cap;
} gw_buf;

typedef struct gw {
    uint32_t version, alignment;
    uint64_t nkv, nt;
    gw_buf kv, ti, data; /* metadata, tensor infos, the data section */
} gw;

static inline void gw_put(gw_buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static inline void gw_le(gw_buf *b, uint64_t v, int width)
{
    unsigned char x[8];
    for (int i = 0; i < width; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    gw_put(b, x, (size_t)width);
}

static inline void gw_str(gw_buf *b, const char *s)
{
    gw_le(b, strlen(s), 8);
    gw_put(b, s, strlen(s));
}

static inline void gw_init(gw *w, uint32_t version)
{
    memset(w, 0, sizeof *w);
    w->version = version;
    w->alignment = 32;
}

static inline void gw_free(gw *w)
{
    free(w->kv.p);
    free(w->ti.p);
    free(w->data.p);
    memset(w, 0, sizeof *w);
}

/* A metadata entry's key and type; its value follows through gw_le / gw_str on w->kv. */
static inline void gw_key(gw *w, const char *key, uint32_t type)
{
    gw_str(&w->kv, key);
    gw_le(&w->kv, type, 4);
    w->nkv++;
}

static inline void gw_u32(gw *w, const char *key, uint32_t v)
{
    gw_key(w, key, GW_T_U32);
    gw_le(&w->kv, v, 4);
    if (strcmp(key, "general.alignment") == 0)
        w->alignment = v;
}

static inline void gw_f32(gw *w, const char *key, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    gw_key(w, key, GW_T_F32);
    gw_le(&w->kv, bits, 4);
}

static inline void gw_string(gw *w, const char *key, const char *v)
{
    gw_key(w, key, GW_T_STRING);
    gw_str(&w->kv, v);
}

/* An array of n strings (a tokenizer's vocabulary, as real files have). */
static inline void gw_strings(gw *w, const char *key, const char *const *v, size_t n)
{
    gw_key(w, key, GW_T_ARRAY);
    gw_le(&w->kv, GW_T_STRING, 4);
    gw_le(&w->kv, n, 8);
    for (size_t i = 0; i < n; i++)
        gw_str(&w->kv, v[i]);
}

/* A tensor info with the given offset (no data): for bad offsets. */
static inline void gw_tensor_at(gw *w, const char *name, uint32_t type, int dims, const uint64_t *ne, uint64_t off)
{
    gw_str(&w->ti, name);
    gw_le(&w->ti, (uint64_t)dims, 4);
    for (int d = 0; d < dims; d++)
        gw_le(&w->ti, ne[d], 8);
    gw_le(&w->ti, type, 4);
    gw_le(&w->ti, off, 8);
    w->nt++;
}

/* A tensor and its bytes, at the next aligned offset of the data section. */
static inline void gw_tensor(gw *w, const char *name, uint32_t type, int dims, const uint64_t *ne, const void *data,
                             size_t bytes)
{
    static const unsigned char zero[256];
    while (w->data.n % w->alignment)
        gw_put(&w->data, zero, 1);
    gw_tensor_at(w, name, type, dims, ne, w->data.n);
    gw_put(&w->data, data, bytes);
}

/* A 2-D tensor of rows x cols (ne = {cols, rows}). */
static inline void gw_matrix(gw *w, const char *name, uint32_t type, uint64_t rows, uint64_t cols, const void *data,
                             size_t bytes)
{
    const uint64_t ne[2] = { cols, rows };
    gw_tensor(w, name, type, 2, ne, data, bytes);
}

/* The whole file: header, metadata, infos, padding, data. *len its size; the caller frees it. */
static inline unsigned char *gw_bytes(const gw *w, size_t *len)
{
    gw_buf f = { 0 };
    gw_put(&f, "GGUF", 4);
    gw_le(&f, w->version, 4);
    gw_le(&f, w->nt, 8);
    gw_le(&f, w->nkv, 8);
    gw_put(&f, w->kv.p, w->kv.n);
    gw_put(&f, w->ti.p, w->ti.n);
    static const unsigned char zero[1];
    while (w->nt && f.n % w->alignment)
        gw_put(&f, zero, 1);
    gw_put(&f, w->data.p, w->data.n);
    *len = f.n;
    return f.p;
}

/* Writes bytes[0..len) to path, failing the test when it cannot. */
static inline void gw_write_bytes(const char *path, const unsigned char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert(fwrite(bytes, 1, len, f) == len && fclose(f) == 0, "cannot write %s", path);
}

static inline void gw_write(const gw *w, const char *path)
{
    size_t len;
    unsigned char *b = gw_bytes(w, &len);
    gw_write_bytes(path, b, len);
    free(b);
}

#endif
