/* libFuzzer target for the CSV reader (`make fuzz`): any bytes must parse or fail with a message, never crash,
 * read out of bounds or leak; a parsed table must be fully readable. Built by clang with
 * -fsanitize=fuzzer,address,undefined; not part of the Criterion binary (its name is not test_*). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pb_csvread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_table t;
    pb_csverr e;
    if (pb_table_parse(&t, "fuzz.csv", (const char *)data, size, &e) != 0) {
        /* A failure always says where: the message is terminated and names the input. */
        if (strncmp(e.msg, "fuzz.csv", 8) != 0 || strlen(e.msg) >= sizeof e.msg)
            __builtin_trap();
        return 0;
    }
    volatile size_t sink = 0;
    for (size_t c = 0; c < t.ncols; c++) {
        sink += strlen(t.header[c]);
        if (pb_table_col(&t, t.header[c]) != (int)c) /* names are unique */
            __builtin_trap();
    }
    for (size_t r = 0; r < t.nrows; r++) {
        for (size_t c = 0; c < t.ncols; c++) {
            double v;
            sink += strlen(pb_table_str(&t, r, (int)c));
            if (pb_table_num_checked(&t, r, (int)c, &v, &e) == 0)
                sink += v > 0;
        }
    }
    (void)sink;
    pb_table_free(&t);
    return 0;
}
