/* tune_test_util.h — what the tuner's tests (test_tune, test_tune_judge) share: one pb_tune_run through a seam of
 * fakes, into an empty wisdom. Static functions only (one copy per test file). */
#ifndef TUNE_TEST_UTIL_H
#define TUNE_TEST_UTIL_H

#include <criterion/criterion.h>

#include "pb_tune.h"

/* The wisdom pb_tune_run chooses for plan p through seam s, from none; a failed run fails the test. */
static inline pb_wisdom tt_tune(const pb_tune_plan *p, const pb_tune_seam *s)
{
    pb_wisdom w = { .nkernels = 0 };
    char err[256];
    cr_assert_eq(pb_tune_run(p, s, &w, err, sizeof err), 0, "%s", err);
    return w;
}

#endif
