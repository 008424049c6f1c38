/* libFuzzer target for the llama-bench reader (`make fuzz`): any bytes, read as each of the five formats, must
 * parse or fail with a one-line message naming the input, never crash, read out of bounds or leak; a parsed set
 * must be fully readable. Not part of the Criterion binary (its name is not test_*). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pb_llamabench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int f = 0; f < PB_LLAMABENCH_NFORMATS; f++) {
        pb_llamabench lb;
        pb_csverr e;
        if (pb_llamabench_parse(&lb, "fuzz.lb", (pb_llamabench_format)f, (const char *)data, size, &e) != 0) {
            if (strncmp(e.msg, "fuzz.lb", 7) != 0 || strlen(e.msg) >= sizeof e.msg || strchr(e.msg, '\n'))
                __builtin_trap();
            continue;
        }
        volatile double sink = 0;
        for (size_t i = 0; i < lb.n; i++) {
            for (int c = 0; c < PB_LLAMABENCH_NCOLS; c++)
                sink += pb_llamabench_num(&lb.t[i], c) + (double)strlen(pb_llamabench_str(&lb.t[i], c));
            for (size_t s = 0; s < lb.t[i].nsamples; s++)
                sink += lb.t[i].samples_ns[s] + lb.t[i].samples_ts[s];
        }
        (void)sink;
        pb_llamabench_free(&lb);
    }
    return 0;
}
