/* The test run's scratch directory: /tmp/poolbench-tests-PID, made before the first test and removed with
 * everything in it after the last. Criterion runs these hooks in its runner process and every test in a process
 * it forks after PRE_ALL, so the tests inherit PB_TEST_SCRATCH, and tf_tmpdir (test_files.h) makes each test's
 * directories under it: whatever a test leaves (it failed an assertion, crashed, or a harness it ran was killed)
 * goes at the end of the run. Before, each run left 17-18 directories in /tmp (thousands after a day of work). */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_files.h"

/* The runner's scratch directory: set once before the first test, read once after the last (runner state). */
static char scratch[64];

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    snprintf(scratch, sizeof scratch, "/tmp/poolbench-tests-%ld", (long)getpid());
    if (mkdir(scratch, 0700) == 0)
        setenv("PB_TEST_SCRATCH", scratch, 1);
    else
        scratch[0] = '\0'; /* tf_tmpdir falls back to /tmp */
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    if (scratch[0])
        tf_rmrf(scratch);
}
