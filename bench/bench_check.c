/* bench_check RUN [--baseline BASE] [--expect FILE]: a CI gate on a run directory (pb_check.h says how it judges).
 * With --baseline, RUN's figures against BASE's, each within the spreads both runs show; without it, RUN against
 * the invariants of expect/invariants.txt (or FILE); with both options, both. A run bench_report --check refuses
 * (malformed, incomplete, a harness's file missing) or one with no point fails too: a gate must not pass what it
 * could not read. A baseline of another host, CPU or schema version is refused before anything is compared.
 * Everything goes to stdout, one line each, FAIL lines first in their check; the last line sums up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_check.h"
#include "pb_cli.h"
#include "pb_repofile.h"
#include "pb_runcheck.h"

#define PROG "bench_check"

/* --help's text under the usage line. */
static const char SUMMARY[] =
    "Judges a run directory: against a baseline run (a figure fails when it is worse by more than\n"
    "the two runs' own spreads allow; points in one run only are listed), or against invariants.\n"
    "exit: 0 every check holds; 1 a FAIL line for each failure (figure, baseline, now, allowed\n"
    "      band, why), or a run bench_report --check refuses, or one with no point; 2 bad usage, a\n"
    "      directory that is not a run, a baseline of another host, CPU or schema version, or an\n"
    "      expect file that does not parse";

typedef struct check_args {
    const char *run, *baseline, *expect;
} check_args;

/* The command line into a, through pb_cli (RUN may come before or after the options; no POOLBENCH_* variable
 * applies: this is no harness). PB_CLI_GO, or the exit status (0 after --help; 2 after bad usage, said in one
 * line). */
static int bchk_parse_args(int argc, char **argv, check_args *a)
{
    *a = (check_args){ 0 };
    const pb_opt opts[] = {
        { .name = "baseline", .kind = PB_OPT_STRING, .dest = &a->baseline, .metavar = "BASE", .env = "",
          .help = "a run directory of the same machine to compare RUN with" },
        { .name = "expect", .kind = PB_OPT_STRING, .dest = &a->expect, .metavar = "FILE", .env = "",
          .help = "invariants to hold RUN to (default without --baseline: expect/invariants.txt)" },
        { 0 },
    };
    int first, rc = pb_cli_parse_tool(PROG, "RUN", SUMMARY, opts, argc, argv, &first);
    if (rc != PB_CLI_GO)
        return rc;
    if (argc - first != 1) {
        fprintf(stderr, PROG ": %s (usage: bench_check RUN [--baseline BASE] [--expect FILE])\n",
                argc == first ? "no run directory given" : "one run directory only");
        return 2;
    }
    a->run = argv[first];
    return PB_CLI_GO;
}

/* A run directory read as points. */
typedef struct loaded {
    pb_rundata rd;
    pb_points ps;
} loaded;

/* 0; 2 when dir is not a run directory; 1 out of memory (said on stderr). */
static int bchk_load(const char *dir, loaded *l)
{
    char err[4400];
    if (pb_rundata_load(&l->rd, dir, err, sizeof err) != 0) {
        fprintf(stderr, PROG ": %s\n", err);
        return 2;
    }
    if (pb_points_of_run(&l->ps, &l->rd) != 0) {
        fprintf(stderr, PROG ": %s: out of memory\n", dir);
        return 1;
    }
    return 0;
}

static void bchk_unload(loaded *l)
{
    pb_points_free(&l->ps);
    pb_rundata_free(&l->rd);
}

/* A FAIL line for each problem bench_report --check finds in the run (the same check: a malformed or incomplete
 * run fails the gate as it fails --check), and one for a run with no point: a gate that judges nothing passes
 * anything. */
static void bchk_run_problems(const loaded *l, const char *which, pb_check_tally *t)
{
    int problems = pb_check_run_dir(stdout, l->rd.dir, "FAIL ");
    if (problems > 0) {
        printf(PROG ": the %s %s: %d problem%s, as bench_report --check finds\n", which, l->rd.dir, problems,
               problems == 1 ? "" : "s");
        t->failures += problems;
    }
    if (l->ps.n == 0) {
        printf("FAIL the %s %s has no point to judge (no sweep, dispatch, kernel, overlap or floor row)\n", which,
               l->rd.dir);
        t->failures++;
    }
}

/* The expect file to use into e: --expect's, or the repository's when there is no baseline. 0 (e->n == 0 when
 * none applies), or 2 after saying why it cannot be used. */
static int bchk_load_expect(const check_args *a, pb_expect *e)
{
    *e = (pb_expect){ 0 };
    char path[4200], err[4800];
    if (a->expect)
        snprintf(path, sizeof path, "%s", a->expect);
    else if (a->baseline)
        return 0;
    else if (pb_repo_file(NULL, "expect", "invariants.txt", path, sizeof path) != 0) {
        fprintf(stderr, PROG ": no expect/invariants.txt beside the programs or here; name one with --expect FILE\n");
        return 2;
    }
    if (pb_expect_load(e, path, err, sizeof err) != 0) {
        fprintf(stderr, PROG ": --expect: %s\n", err);
        return 2;
    }
    return 0;
}

/* 0 when the baseline is a run of the run's machine and schema; 2 after one line saying what differs. */
static int bchk_same_machine(const check_args *a, const loaded *run, const loaded *base)
{
    char err[512];
    if (pb_check_same_machine(&run->rd, &base->rd, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, PROG ": --baseline %s: not a run of this machine and schema: %s\n", a->baseline, err);
    return 2;
}

/* Both checks that apply, and the summing-up line. */
static void bchk_judge(const check_args *a, const loaded *run, const loaded *base, const pb_expect *e,
                       pb_check_tally *t)
{
    bchk_run_problems(run, "run", t);
    if (base) {
        bchk_run_problems(base, "baseline", t);
        int before = t->failures;
        pb_check_baseline(stdout, &run->ps, &base->ps, t);
        printf(PROG ": %s against %s: %d figures compared, %d worse beyond both spreads, %d better; %d points only in "
               "the baseline, %d only in the run\n", a->run, a->baseline, t->compared, t->failures - before, t->better,
               t->only_base, t->only_run);
    }
    if (e->n) {
        pb_check_tally inv = { 0 };
        pb_check_expect(stdout, &run->ps, e, &inv);
        if (inv.compared == 0 && run->ps.n > 0) { /* as a baseline that shares no point: nothing was judged */
            printf("FAIL no invariant of %s matched a point of %s: nothing was checked\n", e->path, a->run);
            t->failures++;
        }
        printf(PROG ": %s: %d invariants of %s held by %d points, %d broken%s\n", a->run, e->n, e->path,
               inv.compared, inv.failures, inv.unmatched ? " (some matched no point: not checked)" : "");
        t->failures += inv.failures;
    }
}

int main(int argc, char **argv)
{
    check_args a;
    int rc = bchk_parse_args(argc, argv, &a);
    if (rc != PB_CLI_GO)
        return rc;
    pb_expect e;
    if (bchk_load_expect(&a, &e) != 0)
        return 2;
    loaded *run = calloc(1, sizeof *run), *base = a.baseline ? calloc(1, sizeof *base) : NULL;
    rc = !run || (a.baseline && !base) ? 1 : bchk_load(a.run, run);
    if (rc == 0 && base)
        rc = bchk_load(a.baseline, base);
    if (rc == 0 && base)
        rc = bchk_same_machine(&a, run, base);
    if (rc == 0) {
        pb_check_tally t = { 0 };
        bchk_judge(&a, run, base, &e, &t);
        rc = t.failures ? 1 : 0;
    }
    if (run)
        bchk_unload(run);
    if (base)
        bchk_unload(base);
    free(run);
    free(base);
    pb_expect_free(&e);
    return rc;
}
