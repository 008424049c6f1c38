/* emulation.h — a test whose subject exists only on real hardware skips itself under emulation, saying why.
 * make test-arm64 (scripts/test_arm64.sh) runs the suite under qemu-user with POOLBENCH_EMULATED=1: wall-clock
 * windows stretch there, qemu's own handling of threads and posix_spawn shows through, and the sweep's model
 * weights take minutes to build. Header-only: each test file that includes it gets its own static copy. */
#ifndef EMULATION_H
#define EMULATION_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Skips the calling test, with why in Criterion's [SKIP] line, when POOLBENCH_EMULATED is 1. */
static inline void skip_if_emulated(const char *why)
{
    const char *e = getenv("POOLBENCH_EMULATED");
    if (e && strcmp(e, "1") == 0)
        cr_skip_test("emulated (POOLBENCH_EMULATED=1): %s", why);
}

/* The reason every test running bench_sweep's default preset gives. */
#define EMULATED_SWEEP_WHY                                                                                         \
    "bench_sweep builds and streams qwen3-0.6b's weights (0.1 to 0.6 GiB): minutes under qemu, past the "          \
    "test's timeout; its decode is checked by decode::* here"

#endif
