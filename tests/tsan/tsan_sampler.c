/* ThreadSanitizer harness for the /proc/stat sampler: a plain main, because Criterion aborts under TSan. The
 * sampler thread takes its readings while the caller pauses and resumes it (as bench_sweep does around its
 * floor passes): both touch the readings, the pending sample and the series, under the sampler's mutex. A
 * missing lock is a race TSan reports. Exits non-zero when the result is not what the windows imply. */
#include <stdio.h>

#include "pb_sampler.h"
#include "tsan_tally.h"

int main(void)
{
    char err[256];
    pb_sampler *s = pb_sampler_start(10, NULL, 0, err, sizeof err);
    if (!s) {
        fprintf(stderr, "tsan_sampler: %s\n", err);
        return 2;
    }
    for (int i = 0; i < 60; i++) {
        tsan_sleep_us(3000 + 1000 * (i % 7)); /* windows around the 10 ms interval's readings */
        pb_sampler_pause(s);
        tsan_sleep_us(2000);
        pb_sampler_resume(s);
    }
    pb_sampler_result r;
    int rc = pb_sampler_stop(s, &r);
    int bad = rc != 0 || r.ncpu < 1 || r.nsamples == 0;
    printf("tsan_sampler: %d cpus, %zu samples over 60 paused and resumed windows%s\n", r.ncpu, r.nsamples,
           bad ? ": WRONG" : "");
    pb_sampler_result_free(&r);
    return bad;
}
