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

/* isa_probe's output of a short run into out (n bytes), its exit status checked. */
static void isa_probe_short_run(char *out, size_t n)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s/isa_probe' --iterations 1000", bin);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t got = fread(out, 1, n - 1, p);
    out[got] = '\0';
    int rc = pclose(p);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "exit: %s", out);
}

/* Each of names (a table's probes) has a line starting with its name, with a figure or the reason it skipped. */
static void isa_probe_expect_lines(const char *out, const char *const names[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n%s ", names[i]);
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

/* The zmm table's probes each have a line, where the CPU has AVX-512. */
Test(isa_probe_cli, short_run_prints_every_zmm_probe)
{
    static const char *const names[] = { "vpaddd", "vpdpbusd", "vpsrlw", "vgf2p8affineqb", "vpermw",
                                         "vpermt2w", "vpermb", "vpmovb2m+vpmovm2b", "vpshufbitqmb+vpmovm2b",
                                         "load+vpaddd", "maskz-load+vpaddd", "kmovq-m64+masked-add",
                                         "kmovq-m64+vpmovm2b", "store+vpaddd", "store+kmovq-m64" };
    char out[8192];
    isa_probe_short_run(out, sizeof out);
    if (strstr(out, "zmm (AVX-512): skipped: this CPU has no AVX-512")) {
        printf("isa_probe_cli::short_run_prints_every_zmm_probe: skipped: this CPU has no AVX-512\n");
        cr_skip_test("no AVX-512 here");
    }
    isa_probe_expect_lines(out, names, sizeof names / sizeof names[0]);
}

/* The ymm table's probes each have a line, where the CPU has AVX2 (every x86-64 the AVX2 kernels run on). */
Test(isa_probe_cli, short_run_prints_every_ymm_probe)
{
    static const char *const names[] = { "vpaddd/ymm", "vpsrlw/ymm", "vpshufb/ymm", "vpmaddubsw/ymm",
                                         "vpmaddwd/ymm", "vpdpbusd/ymm", "vpmaddubsw|vpmaddwd/ymm",
                                         "vpshufb|vpaddd/ymm", "vbroadcasti128+vpshufb/ymm" };
    char out[8192];
    isa_probe_short_run(out, sizeof out);
    if (strstr(out, "skipped: this CPU has no AVX2 with FMA")) {
        printf("isa_probe_cli::short_run_prints_every_ymm_probe: skipped: this CPU has no AVX2 with FMA\n");
        cr_skip_test("no AVX2 here");
    }
    cr_expect(strstr(out, "\nvpaddd ") == NULL || strstr(out, "zmm (AVX-512)\n"),
              "a zmm row only under the zmm table: %s", out);
    isa_probe_expect_lines(out, names, sizeof names / sizeof names[0]);
}
#else
Test(isa_probe_cli, x86_only)
{
    printf("isa_probe_cli: skipped: make isa-probe's program is built on x86-64 only (its probes are zmm and ymm)\n");
    cr_skip_test("x86-64 only");
}
#endif
