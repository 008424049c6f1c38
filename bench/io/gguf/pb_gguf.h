/* pb_gguf.h — reads a GGUF file (llama.cpp's model format, versions 2 and 3, little-endian): the header, the
 * metadata, the tensor infos and where each tensor's bytes lie. The file is mapped read-only and nothing is
 * copied: keys, strings and tensor data are pointers into the mapping, alive until pb_gguf_close.
 *
 * The layout, as the format defines it:
 *   "GGUF", u32 version, u64 tensor count, u64 metadata count;
 *   metadata: key (u64 length + bytes), u32 value type, value (scalars; a string is u64 length + bytes; an array
 *             is u32 element type + u64 count + the elements);
 *   tensor infos: name (string), u32 dims, u64 ne[dims] (ne[0] the innermost: a row's elements), u32 ggml type,
 *             u64 offset from the start of the data section;
 *   the data section, at the end of the tensor infos rounded up to general.alignment (a u32, default 32).
 *
 * Every check happens in pb_gguf_parse, before anything is returned, and a failure is one line naming the
 * file and what is wrong: a file too short for what it declares (truncated), a wrong magic, version 1 or one
 * above 3 (and a big-endian file, whose version reads byte-swapped), a count or a string length beyond the
 * file, an unknown value or ggml type, an array of arrays, a bad or non-u32 alignment, a duplicate key or
 * tensor, a tensor with 0 or more than 4 dims, a zero dim, a dims product that overflows, a row that is not a
 * whole number of blocks, an offset that is not a multiple of the alignment, or a tensor past the end of the
 * file. Nothing is allocated before the counts are known to fit in the file, so no input makes a huge
 * allocation. What a model needs on top of this (its architecture, keys and tensor names) is checked by the
 * model reader (bench/measure/model/). */
#ifndef PB_GGUF_H
#define PB_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_GGUF_MAX_DIMS 4
#define PB_GGUF_DEFAULT_ALIGNMENT 32

/* Metadata value types, by their numbers in the file. */
typedef enum pb_gguf_vtype {
    PB_GGUF_U8, PB_GGUF_I8, PB_GGUF_U16, PB_GGUF_I16, PB_GGUF_U32, PB_GGUF_I32, PB_GGUF_F32, PB_GGUF_BOOL,
    PB_GGUF_STRING, PB_GGUF_ARRAY, PB_GGUF_U64, PB_GGUF_I64, PB_GGUF_F64, PB_GGUF_VTYPES
} pb_gguf_vtype;

/* A string in the file: not NUL-terminated. */
typedef struct pb_gguf_str {
    const char *p;
    uint64_t n;
} pb_gguf_str;

typedef struct pb_gguf_kv {
    pb_gguf_str key;
    pb_gguf_vtype type;
    pb_gguf_vtype elem;        /* arrays: the elements' type */
    uint64_t count;            /* arrays: how many */
    const unsigned char *val;  /* the value's bytes (a string's length first; an array's first element) */
} pb_gguf_kv;

typedef struct pb_gguf_tensor {
    pb_gguf_str name;
    uint32_t dims;
    uint64_t ne[PB_GGUF_MAX_DIMS]; /* 1 beyond dims */
    uint32_t type;                 /* ggml type id (pb_ggml_type) */
    uint64_t offset;               /* from the data section's start */
    uint64_t bytes;
    const unsigned char *data;
} pb_gguf_tensor;

typedef struct pb_gguf {
    char *name;                    /* what messages call the file (a copy) */
    const unsigned char *base;     /* the file's bytes */
    size_t size;
    void *map;                     /* the mapping (pb_gguf_open), NULL when parsed from memory */
    uint32_t version;
    uint32_t alignment;
    uint64_t data_offset;          /* where the data section starts */
    uint64_t nkv, ntensors;
    pb_gguf_kv *kv;
    pb_gguf_tensor *t;
} pb_gguf;

/* Parses buf[0..len) (kept by the caller until pb_gguf_close); name is what messages call it. 0, or -1 with
 * "NAME: what" in err and g empty. */
int pb_gguf_parse(pb_gguf *g, const void *buf, size_t len, const char *name, char *err, size_t errlen);
/* Maps the file at path read-only and parses it; messages name the path. Refuses anything but a regular file. */
int pb_gguf_open(pb_gguf *g, const char *path, char *err, size_t errlen);
void pb_gguf_close(pb_gguf *g);

/* The entry of a key, or NULL. */
const pb_gguf_kv *pb_gguf_find(const pb_gguf *g, const char *key);
/* The tensor of a name, or NULL. */
const pb_gguf_tensor *pb_gguf_tensor_find(const pb_gguf *g, const char *name);

/* A key's value as an unsigned integer (any integer type, a negative value refused), a float (f32 or f64) or a
 * string: 0 with *out set, 1 when the key is absent, -1 with "NAME: key 'K' is ..., not ..." in err. */
int pb_gguf_get_uint(const pb_gguf *g, const char *key, uint64_t *out, char *err, size_t errlen);
int pb_gguf_get_float(const pb_gguf *g, const char *key, double *out, char *err, size_t errlen);
int pb_gguf_get_str(const pb_gguf *g, const char *key, pb_gguf_str *out, char *err, size_t errlen);

/* s as text fit for a message: at most len - 1 bytes, non-printable bytes as '?'. Returns buf. */
const char *pb_gguf_text(char *buf, size_t len, pb_gguf_str s);
/* Whether s equals the NUL-terminated c. */
bool pb_gguf_str_is(pb_gguf_str s, const char *c);

/* The ggml tensor types: name, elements per block, bytes per block. */
typedef struct pb_ggml_type_info {
    const char *name; /* ggml's lower-case name: "f32", "q8_0", "q4_K" */
    uint32_t block;
    uint32_t bytes;
} pb_ggml_type_info;

/* The type of an id, NULL for an id ggml does not define (or no longer does). */
const pb_ggml_type_info *pb_ggml_type(uint32_t id);
/* The name of a metadata value type ("u32", "string"), "?" for an unknown one. */
const char *pb_gguf_vtype_name(uint32_t t);

#endif
