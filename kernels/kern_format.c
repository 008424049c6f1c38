/* kern_format.c — the weight format table (kern_format.h) from KERN_FORMATS, and its lookups. */
#include "kern_format.h"
#include "kern_isa.h"

#include <string.h>

static const kern_format_info kern_formats[KERN_FORMAT_COUNT] = {
#define KERN_FORMAT_ROW(id, nm, blk, bytes, ac)                                                              \
    [KERN_##id] = { .name = #nm, .block = blk, .block_bytes = bytes, .act = #ac },
    KERN_FORMATS(KERN_FORMAT_ROW)
#undef KERN_FORMAT_ROW
};

const char *const kern_format_names[KERN_FORMAT_COUNT + 1] = {
#define KERN_FORMAT_NAME(id, nm, blk, bytes, ac) [KERN_##id] = #nm,
    KERN_FORMATS(KERN_FORMAT_NAME)
#undef KERN_FORMAT_NAME
    [KERN_FORMAT_COUNT] = NULL,
};

const kern_format_info *kern_format_get(kern_format f)
{
    return (unsigned)f < KERN_FORMAT_COUNT ? &kern_formats[f] : NULL;
}

int kern_format_parse(const char *name, kern_format *out)
{
    int i = kern_name_index(kern_format_names, name);
    return i < 0 ? -1 : (*out = (kern_format)i, 0);
}

bool kern_format_whole_blocks(kern_format f, uint64_t n)
{
    return (unsigned)f < KERN_FORMAT_COUNT && n % (uint64_t)kern_formats[f].block == 0;
}

uint64_t kern_format_matrix_bytes(kern_format f, uint64_t rows, uint64_t cols)
{
    if (!kern_format_whole_blocks(f, cols))
        return 0;
    return rows * (cols / (uint64_t)kern_formats[f].block) * (uint64_t)kern_formats[f].block_bytes;
}
