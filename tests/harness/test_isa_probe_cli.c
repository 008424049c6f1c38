/* make isa-probe's program (scripts/isa_probe.c): the bad-input contract (one line naming the argument, exit 2),
 * and a short run that prints one line per probe, a figure or the reason it skipped. No speed is asserted. Run
 * as a user would ($POOLBENCH_BIN, set by make test); x86-64 only, where the Makefile builds it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness_run.h"

#if defined(__x86_64__)
Test(isa_probe_cli, bad_input)
{
    harness_expect_bad("isa_probe", "", "--iterations 5", "--iterations");
    harness_expect_bad("isa_probe", "", "--iterations 12abc", "--iterations");
    harness_expect_bad("isa_probe", "", "--iterations", "--iterations");
    harness_expect_bad("isa_probe", "", "--bogus", "--bogus");
}

/* Every probe's line starts with its name; each has a figure or says it skipped. */
Test(isa_probe_cli, short_run_prints_every_probe)
{
    static const char *const names[] = { "vpaddd ", "vpdpbusd ", "vpsrlw ", "vgf2p8affineqb ", "vpermw ",
                                         "vpermt2w ", "vpermb ", "vpmovb2m+vpmovm2b ", "vpshufbitqmb+vpmovm2b ",
                                         "load+vpaddd ", "maskz-load+vpaddd ", "kmovq-m64+masked-add ",
                                         "kmovq-m64+vpmovm2b ", "store+vpaddd ", "store+kmovq-m64 " };
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char cmd[4200], out[8192];
    snprintf(cmd, sizeof cmd, "'%s/isa_probe' --iterations 1000", bin);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "exit: %s", out);
    if (strstr(out, "skipped: this CPU has no AVX-512")) {
        printf("isa_probe_cli::short_run_prints_every_probe: skipped: this CPU has no AVX-512\n");
        cr_skip_test("no AVX-512 here");
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n%s", names[i]);
        const char *line = strstr(out, want);
        cr_expect_not_null(line, "a line for %s: %s", names[i], out);
        if (!line)
            continue;
        double ticks = 0;
        int figure = sscanf(line + strlen(want), "%lf", &ticks) == 1 && ticks > 0;
        cr_expect(figure || strstr(line, "skipped: this CPU lacks"), "%s: a figure or why not: %.120s", names[i],
                  line + 1);
    }
}
#else
Test(isa_probe_cli, x86_only)
{
    printf("isa_probe_cli: skipped: make isa-probe's program is built on x86-64 only (its probes are AVX-512)\n");
    cr_skip_test("x86-64 only");
}
#endif
