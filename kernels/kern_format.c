#include "kern_format.h"
#include "kern_isa.h"

#include <string.h>

static const kern_format_info kern_formats[KERN_FORMAT_COUNT] = {
    [KERN_F32] = { .name = "f32", .block = 1, .block_bytes = 4, .act = "f32" },
    [KERN_F16] = { .name = "f16", .block = 1, .block_bytes = 2, .act = "f32" },
    [KERN_Q8_0] = { .name = "q8_0", .block = 32, .block_bytes = 34, .act = "q8_0" },
    [KERN_Q4_0] = { .name = "q4_0", .block = 32, .block_bytes = 18, .act = "q8_0" },
    [KERN_Q1_0] = { .name = "q1_0", .block = 128, .block_bytes = 18, .act = "q8_0" },
    [KERN_TQ2_0] = { .name = "tq2_0", .block = 256, .block_bytes = 66, .act = "q8_K" },
    [KERN_Q4_K] = { .name = "q4_K", .block = 256, .block_bytes = 144, .act = "q8_K" },
    [KERN_Q6_K] = { .name = "q6_K", .block = 256, .block_bytes = 210, .act = "q8_K" },
};

const char *const kern_format_names[KERN_FORMAT_COUNT + 1] = { "f32",   "f16",  "q8_0", "q4_0", "q1_0",
                                                               "tq2_0", "q4_K", "q6_K", NULL };

const kern_format_info *kern_format_get(kern_format f)
{
    return (unsigned)f < KERN_FORMAT_COUNT ? &kern_formats[f] : NULL;
}

int kern_format_parse(const char *name, kern_format *out)
{
    int i = kern_name_index(kern_format_names, name);
    if (i >= 0)
        *out = (kern_format)i;
    return i >= 0 ? 0 : -1;
}

uint64_t kern_format_matrix_bytes(kern_format f, uint64_t rows, uint64_t cols)
{
    const kern_format_info *fi = kern_format_get(f);
    if (!fi || cols % (uint64_t)fi->block != 0)
        return 0;
    return rows * (cols / (uint64_t)fi->block) * (uint64_t)fi->block_bytes;
}
