/* bench_compare --db: runs taken from the results database compare exactly as their directories do; --host and
 * --run choose them; its options without --db, or directories with it, are bad usage. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"

/* A scratch directory holding t.sqlite with the Zen 3 and Emerald Rapids reference runs, and the Zen 3 run again
 * under the host name milan. */
static void make_db(char *dir, size_t len)
{
    char out[2048];
    tf_tmpdir(dir, len, "pbcmpdb");
    cr_assert_eq(sh(out, sizeof out, "cp -r refs/zen3-2vcpu '%s/milan' && cd '%s/milan' && "
                                     "sed -i 's/^host,vm$/host,milan/; s/^\\([^,]*\\),vm,/\\1,milan,/' *.csv",
                    dir, dir), 0, "%s", out);
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_db\" --db '%s/t.sqlite' import refs/zen3-2vcpu refs/emr-16vcpu "
                                     "'%s/milan'", dir, dir), 0, "%s", out);
}

Test(compare_db, runs_from_the_database_compare_as_their_directories)
{
    char dir[128], out[4096], zen3[PATH_MAX], emr[PATH_MAX];
    make_db(dir, sizeof dir);
    cr_assert_not_null(realpath("refs/zen3-2vcpu", zen3));
    cr_assert_not_null(realpath("refs/emr-16vcpu", emr));
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_compare\" --no-plots '%s' '%s' --out '%s/dirs'", zen3, emr, dir), 0,
                 "%s", out);
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_compare\" --no-plots --db '%s/t.sqlite' --run vm/20261204-232632 "
                                     "--run manycore-20261204-101935 --out '%s/db'", dir, dir), 0, "%s", out);
    cr_assert_eq(sh(out, sizeof out, "cd '%s' && cmp dirs/compare.md db/compare.md && for f in dirs/*.dat; do "
                                     "cmp \"$f\" db/\"${f#dirs/}\"; done", dir), 0,
                 "compare.md and the plot data are the same: %s", out);
    char *md = tf_must_exist(tf_read("%s/db/compare.md", dir), "compare.md");
    cr_expect(strstr(md, "AMD EPYC") && strstr(md, "Intel(R) Xeon(R)"), "both machines compared");
    tf_rmrf(dir);
}

Test(compare_db, hosts_and_runs_choose_and_bad_usage_is_one_line)
{
    char dir[128], out[4096];
    make_db(dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_compare\" --no-plots --db '%s/t.sqlite' --host milan "
                                     "--run vm/manycore-20261204-101935 --out '%s/c'", dir, dir), 0, "%s", out);
    char *md = tf_must_exist(tf_read("%s/c/compare.md", dir), "compare.md");
    cr_expect(strstr(md, "milan") && strstr(md, "Intel(R) Xeon(R)"), "milan's run and the named one: %s", md);
    /* the host vm has two runs, milan one: three in all */
    cr_expect_eq(sh(out, sizeof out, "\"$B/bench_compare\" --no-plots --db '%s/t.sqlite' --host vm --host milan "
                                     "--out '%s/c3' && grep -c '^| directory' '%s/c3/compare.md'", dir, dir, dir), 0,
                 "%s", out);
    const char *bad[][2] = {
        { "--host vm --out D/X", "give --db FILE" },
        { "--db D/t.sqlite refs/zen3-2vcpu --run a --out D/X", "either directories or runs" },
        { "--db D/t.sqlite --out D/X", "names no run" },
        { "--db D/t.sqlite --run nope --run vm/20261204-232632 --out D/X", "no run 'nope'" },
        { "--db D/t.sqlite --host milan --out D/X", "1 run chosen" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[1024] = "";
        for (const char *p = bad[i][0]; *p; p++) {
            size_t at = strlen(line);
            if (p[0] == 'D' && p[1] == '/')
                snprintf(line + at, sizeof line - at, "%s", dir);
            else
                snprintf(line + at, sizeof line - at, "%c", *p);
        }
        int rc = sh(out, sizeof out, "\"$B/bench_compare\" %s", line);
        cr_expect_eq(rc, 2, "%s: exit %d: %s", line, rc, out);
        cr_expect(strstr(out, bad[i][1]) && tf_count(out, "\n") == 1, "%s: one line naming it: %s", line, out);
        cr_expect_eq(file_size(dir, "X"), -1, "%s: nothing written", line);
    }
    tf_rmrf(dir);
}

Test(compare_db, a_trend_follows_one_figure_over_a_hosts_runs_by_commit)
{
    char dir[128], out[8192];
    make_db(dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_db\" --db '%s/t.sqlite' trend dispatch.spin '%s/t' --host vm", dir,
                    dir), 0, "%s", out);
    char *dat = tf_must_exist(tf_read("%s/t/trend.dat", dir), "trend.dat");
    /* vm's two runs, oldest first: the Emerald Rapids run (10:19) before the Zen 3 one (23:26), milan's left out */
    cr_expect(strncmp(dat, "\"spin dispatch, no gap, empty job (ns), vm\"\n1 bb0e2cd ", 45) == 0, "%s", dat);
    cr_expect(strstr(dat, "\n2 584f5a3 ") && tf_count(dat, "\n") == 3, "%s", dat);
    /* a figure one of them lacks is a gap: the 1-thread floor of a run with no memory floor nor 1-thread point */
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_db\" --db '%s/t.sqlite' trend floor.1 '%s/f' --host milan", dir, dir),
                 0, "%s", out);
    dat = tf_must_exist(tf_read("%s/f/trend.dat", dir), "trend.dat");
    cr_expect(strstr(dat, "\n1 584f5a3 22.745 2026-12-04T23:26:32\n"), "%s", dat);
    int rc = sh(out, sizeof out, "\"$B/bench_db\" --db '%s/t.sqlite' trend no.such '%s/n'", dir, dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "no run has the figure 'no.such'") && strstr(out, "floor.1") && tf_count(out, "\n") == 1,
              "one line naming the figures there are: %s", out);
    tf_rmrf(dir);
}

Test(compare_db, references_answer_to_their_names_and_stay_out_of_a_hosts_runs)
{
    char dir[128], out[8192];
    tf_tmpdir(dir, sizeof dir, "pbcmpdb");
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_db\" --db '%s/t.sqlite' import --reference refs/zen3-2vcpu/ "
                                     "refs/emr-16vcpu && \"$B/bench_db\" --db '%s/t.sqlite' list", dir, dir), 0,
                 "%s", out);
    cr_expect(strstr(out, " zen3-2vcpu ") && strstr(out, " emr-16vcpu "), "named by their folders: %s", out);
    /* both are host vm's, but references: vm has no run of its own */
    cr_expect_eq(sh(out, sizeof out, "\"$B/bench_db\" --db '%s/t.sqlite' trend dispatch.spin '%s/t' --host vm", dir,
                    dir), 1, "%s", out);
    cr_expect(strstr(out, "no run in the database passes"), "%s", out);
    cr_assert_eq(sh(out, sizeof out, "\"$B/bench_compare\" --no-plots --db '%s/t.sqlite' --host zen3-2vcpu "
                                     "--run emr-16vcpu --out '%s/c'", dir, dir), 0, "%s", out);
    char *md = tf_must_exist(tf_read("%s/c/compare.md", dir), "compare.md");
    cr_expect(strstr(md, "AMD EPYC") && strstr(md, "Intel(R) Xeon(R)"), "both references compared: %s", md);
    tf_rmrf(dir);
}
