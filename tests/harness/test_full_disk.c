/* A disk that fills up under a run: the write's own error reaches the message and machine.csv's `incomplete`
 * line (ENOSPC as "No space left on device", EFBIG as "File too large", never a made-up EIO), the rows that
 * reached the disk whole are published, and the message says truly where the rows are or that they were lost
 * (never "its rows stay in" a file that holds none). pb_csv is driven to its limit by RLIMIT_FSIZE in the test's
 * own process; a harness by a tmpfs of a few KiB mounted in a mount namespace of its own. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_csv.h"
#include "test_files.h"

/* ---------------------------------------------------------------- pb_csv at a file-size limit */

#define ROW_PAYLOAD "abcdefghijklmnopqrst" /* rows "N,<20 letters>": 23 bytes for N < 10 */

/* A csv "k,v" in dir with `rows` rows written under a file-size limit of `limit` bytes (SIGXFSZ ignored, so a
 * write past it fails with EFBIG); the limit is lifted again before returning. */
static pb_csv *write_limited(const char *dir, const char *name, rlim_t limit, int rows)
{
    struct rlimit old, lim;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_IGN);
    lim = (struct rlimit){ .rlim_cur = limit, .rlim_max = old.rlim_max };
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    pb_csv *c = pb_csv_open(dir, name, "k,v");
    cr_assert_not_null(c, "%s", strerror(errno));
    for (int i = 0; i < rows; i++)
        pb_csv_row(c, "%d,%s", i, ROW_PAYLOAD);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    return c;
}

/* write_limited, then pb_csv_finish with publish_part, which must fail with the limit's EFBIG; its account. */
static pb_csv_end finish_limited(const char *dir, const char *name, rlim_t limit, int rows)
{
    pb_csv *c = write_limited(dir, name, limit, rows);
    pb_csv_end end;
    cr_expect_eq(pb_csv_finish(c, true, &end), -1);
    cr_expect_eq(end.write_err, EFBIG);
    return end;
}

/* Header 4 bytes + 4 rows of 23 = 96 of a 100-byte limit: the fifth row is cut by the limit. Seen failing on the
 * old code: errno EIO, the partial file kept with the cut row in it. */
Test(full_disk, csv_close_names_efbig_and_keeps_only_whole_rows)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbfull");
    pb_csv *c = write_limited(dir, "r.csv", 100, 8);
    cr_expect_eq(pb_csv_rows(c), 4, "rows that reached the file whole");
    errno = 0;
    cr_expect_eq(pb_csv_close(c), -1);
    cr_expect_eq(errno, EFBIG, "the write's own error, not EIO: %s", strerror(errno));
    cr_expect_eq(tf_names_starting(dir, "r.csv" PB_CSV_PARTIAL), 1, "the partial file keeps the whole rows");
    char want[256] = "k,v\n";
    for (int i = 0; i < 4; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%d,%s\n", i, ROW_PAYLOAD);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "r.csv" PB_CSV_PARTIAL, strlen("r.csv" PB_CSV_PARTIAL)) == 0)
            cr_expect_str_eq(tf_read("%s/%s", dir, e->d_name), want, "cut back to its last whole row");
    if (d)
        closedir(d);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* pb_csv_finish with publish_part: the whole rows are published, the account says how many were lost and why. */
Test(full_disk, csv_finish_publishes_the_whole_rows_and_counts_the_lost)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbfull");
    pb_csv_end end = finish_limited(dir, "p.csv", 100, 8);
    cr_expect(end.published && !end.kept);
    cr_expect_eq(end.rows, 4);
    cr_expect_eq(end.lost, 4, "the cut fifth row and the three after it");
    char *text = tf_read("%s/p.csv", dir);
    cr_assert_not_null(text, "published");
    cr_expect_eq(tf_count(text, "\n"), 5, "header and 4 whole rows: %s", text);
    cr_expect_eq(tf_names_starting(dir, "p.csv" PB_CSV_PARTIAL), 0, "no partial file left");
    char line[8192];
    pb_csv_end_text(&end, "run/p.csv", line, sizeof line);
    tf_expect_has(line, "run/p.csv", "File too large", "after 4 rows", "published", "the 4 after them were lost");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* No row fits: nothing is left behind, and the account says the rows were lost, not that a file keeps them. */
Test(full_disk, csv_without_a_whole_row_is_removed_and_said_lost)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbfull");
    pb_csv_end end = finish_limited(dir, "z.csv", 10, 3);
    cr_expect(!end.published && !end.kept);
    cr_expect_eq(tf_names_starting(dir, "z.csv"), 0, "neither the CSV nor a partial file");
    char line[8192];
    pb_csv_end_text(&end, "run/z.csv", line, sizeof line);
    tf_expect_has(line, "File too large", "its 3 rows were lost");
    cr_expect_null(strstr(line, "stay in"), "%s", line);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* ---------------------------------------------------------------- a harness on a full tmpfs */

static void write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        _exit(77);
    close(fd);
}

/* In a child: a mount namespace of its own (as root; else as root of a new user namespace), a tmpfs of kib KiB
 * at dir/M, then `sh -c script sh BIN` in dir. The script's status, or 77 when no tmpfs can be mounted here. */
static int in_small_tmpfs(const char *dir, int kib, const char *script)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char cwd[4096], path[4400], m[128];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s%s%s", bin[0] == '/' ? "" : cwd, bin[0] == '/' ? "" : "/", bin);
    snprintf(m, sizeof m, "%s/M", dir);
    cr_assert_eq(mkdir(m, 0755), 0);
    uid_t uid = getuid();
    gid_t gid = getgid();
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) != 0) {
            char map[64];
            if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
                _exit(77);
            write_text("/proc/self/setgroups", "deny");
            snprintf(map, sizeof map, "0 %d 1", (int)uid);
            write_text("/proc/self/uid_map", map);
            snprintf(map, sizeof map, "0 %d 1", (int)gid);
            write_text("/proc/self/gid_map", map);
        }
        char opt[32];
        snprintf(opt, sizeof opt, "size=%dk", kib);
        if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 || mount("tmpfs", m, "tmpfs", 0, opt) != 0 ||
            chdir(dir) != 0)
            _exit(77);
        execl("/bin/sh", "sh", "-c", script, "sh", path, (char *)NULL);
        _exit(99);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* bench_pool_overhead with GAPS gap values into M/d on a tmpfs of kib KiB in a fresh directory (its name into dir),
 * which must fail with exit status 1; its stderr into err, and what it left copied out before the namespace goes
 * (dir/copy, and the names in dir/ls.txt). */
static void overhead_fails_on_tmpfs(char *dir, size_t dirlen, int kib, const char *gaps, char *err, size_t errlen)
{
    tf_tmpdir(dir, dirlen, "pbfull");
    char script[1024];
    snprintf(script, sizeof script,
             "\"$1/bench_pool_overhead\" --quick --policy spin --threads 1 --gap-us %s --out M/d >out.txt 2>err.txt; "
             "echo $? >rc; mkdir copy; ls M/d >ls.txt; cp M/d/* copy/ 2>/dev/null; exit 0", gaps);
    int rc = in_small_tmpfs(dir, kib, script);
    if (rc == 77)
        cr_skip_test("no tmpfs can be mounted in a mount namespace here (neither as root nor in a user namespace)");
    cr_assert_eq(rc, 0, "the script ran");
    rc = atoi(tf_slurp("%s/rc", dir));
    snprintf(err, errlen, "%s", tf_slurp("%s/err.txt", dir));
    cr_expect_eq(rc, 1, "exit 1: %s", err);
}

/* A full disk in miniature: 4 KiB hold machine.csv and not one byte of pool_overhead.csv. Seen failing on the old
 * code: "Input/output error; its rows stay in ...partial-XXXXXX" (a 0-byte file), no incomplete line. */
Test(full_disk, a_harness_on_a_full_tmpfs_says_enospc_and_that_its_rows_were_lost, .timeout = 120)
{
    char dir[64], err[8192];
    overhead_fails_on_tmpfs(dir, sizeof dir, 4, "0", err, sizeof err);
    tf_expect_has(err, "No space left on device", "pool_overhead.csv", "were lost");
    cr_expect_null(strstr(err, "Input/output error"), "ENOSPC named as such: %s", err);
    cr_expect_null(strstr(err, "stay in"), "no claim that a file keeps the rows: %s", err);
    const char *ls = tf_slurp("%s/ls.txt", dir);
    cr_expect_null(strstr(ls, "pool_overhead.csv"), "neither the CSV nor an empty partial file is left: %s", ls);
    const char *machine = tf_slurp("%s/copy/machine.csv", dir);
    tf_expect_has(machine, "incomplete,bench_pool_overhead: failed after 0 rows", "No space left on device");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* 8 KiB: a page for machine.csv (and the room it keeps for incomplete lines), one page of rows; 41 rows need
 * more. The rows that fit are published, the message and machine.csv say how many were lost and why. Seen
 * failing on the old code: EIO, nothing published, no incomplete line. */
Test(full_disk, a_harness_that_fills_a_tmpfs_publishes_the_rows_that_fit, .timeout = 120)
{
    char dir[64], err[8192];
    overhead_fails_on_tmpfs(dir, sizeof dir, 8, "0-40", err, sizeof err);
    tf_expect_has(err, "No space left on device", "those rows are published", "after them were lost");
    const char *csv = tf_slurp("%s/copy/pool_overhead.csv", dir);
    int rows = tf_count(csv, "\n") - 1;
    cr_expect(rows > 0 && rows < 41, "some rows published, not all: %d", rows);
    cr_expect_eq(csv[strlen(csv) - 1], '\n', "the last row is whole");
    const char *ls = tf_slurp("%s/ls.txt", dir);
    cr_expect_null(strstr(ls, PB_CSV_PARTIAL), "no partial file left: %s", ls);
    const char *machine = tf_slurp("%s/copy/machine.csv", dir);
    char want[128];
    snprintf(want, sizeof want, "incomplete,bench_pool_overhead: failed after %d rows (pool_overhead.csv)", rows);
    tf_expect_has(machine, want, "rows lost: No space left on device");
    cr_expect_eq(tf_rmrf(dir), 0);
}
