/* libFuzzer target for the wisdom reader (`make fuzz`): any bytes must parse or fail with a one-line message,
 * never crash, read out of bounds or leak; what parsed must format back into text that parses again (a file
 * bench_tune rewrites from what it read is never one it would refuse). Not part of the Criterion binary (its
 * name is not test_*). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pb_wisdom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pb_wisdom w, again; /* 4 KiB and more each: off the stack */
    static char text[PB_WISDOM_MAX_BYTES];
    char err[512];
    err[0] = '\0';
    if (pb_wisdom_parse((const char *)data, size, &w, err, sizeof err) != 0) {
        if (!err[0] || strchr(err, '\n'))
            __builtin_trap();
        return 0;
    }
    int n = pb_wisdom_format(&w, text, sizeof text);
    if (n < 0 || pb_wisdom_parse(text, (size_t)n, &again, err, sizeof err) != 0 || again.nkernels != w.nkernels ||
        again.ndispatch != w.ndispatch)
        __builtin_trap();
    return 0;
}
