/* bench_report and bench_compare on run directories nobody vouches for: text that would inject markdown or HTML,
 * files that are not regular CSVs, numbers that are not figures, directories that are not runs, and runs a
 * signal cut short (an `incomplete` machine fact, a partial file left by a killed harness). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "report_fixture.h"

/* What the hostile fixture puts in the host name, a machine fact, a sweep label and a dispatch policy. */
static const char host_text[] = "evil|host\nnext <script>alert(1)</script> ![x](http://e/x.png) \xff\xfe end";
static const char label_text[] = "m|<img src=x>*em* _u_ [l](http://e/)\r\n`c`";
static const char policy_text[] = "![x](http://e/x.png)|pol";
/* A plot's key must be one word (the schema's WORD rule): the label's markup without its spaces and line breaks. */
static const char label_word[] = "m|<img/src=x>*em*_u_[l](http://e/)`c`";

/* The whole file at dir/name (malloc'ed, NUL-terminated); its length in *len. */
static char *read_all(const char *dir, const char *name, size_t *len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s exists", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* Whether s[0..len) is valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF). */
static bool valid_utf8(const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!n || i + n > len)
            return false;
        unsigned cp = n == 1 ? c : c & (0x7fu >> n);
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3fu);
        }
        static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += n;
    }
    return true;
}

/* The '|' of a table line that are not backslash-escaped. */
static int table_pipes(const char *line, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++) {
        size_t bs = 0;
        while (bs < i && line[i - 1 - bs] == '\\')
            bs++;
        n += line[i] == '|' && bs % 2 == 0;
    }
    return n;
}

/* Every table (a block of lines starting with '|') has as many cells on each line as on its header, and no
 * line of text between tables starts inside one (a broken row's rest). */
static void tables_keep_columns(const char *md, const char *what)
{
    int want = -1;
    for (const char *p = md; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (*p == '|') {
            int got = table_pipes(p, len);
            if (want < 0)
                want = got;
            cr_assert_eq(got, want, "%s: a table line with %d cells where its header has %d: %.*s", what, got,
                         want, (int)(len < 300 ? len : 300), p);
        } else {
            cr_assert(want < 0 || len == 0, "%s: a table broken by a line: %.*s", what, (int)(len < 300 ? len : 300),
                      p);
            want = -1;
        }
        p += len + (nl != NULL);
    }
}

/* No '[' that could open a link or an image, no raw HTML, none of the hostile strings as they were. */
static void nothing_injected(const char *md, size_t len, const char *what)
{
    cr_expect(valid_utf8((const unsigned char *)md, len), "%s is valid UTF-8", what);
    cr_expect_lt(len, 256u << 10, "%s stays small: %zu bytes", what, len);
    static const char *const raw[] = { "<script>", "<img", "![x](http://e/x.png)", "http://", "evil|host", "\r",
                                       "\xff", "\xfe", "*em*", "`c`", NULL };
    for (const char *const *r = raw; *r; r++)
        cr_expect_null(strstr(md, *r), "%s holds '%s' raw", what, *r);
    cr_expect_null(strchr(md, '<'), "%s: no '<' at all (HTML is written as &lt;)", what);
    const char *open = NULL;
    for (const char *p = strchr(md, '['); p && !open; p = strchr(p + 1, '['))
        open = p > md && p[-1] == '\\' ? NULL : p;
    cr_expect_null(open, "%s: an unescaped '[': %.60s", what, open);
    tables_keep_columns(md, what);
}

/* A copy of the complete run whose host, machine facts, one decode point and one dispatch policy hold hostile
 * text, and whose machine.csv has a 10 MB fact. */
static void hostile_fixture(char *dir, size_t len)
{
    copy_fixture("complete", dir, len);
    static const char *const host[] = { "key", "host", NULL }, *const brand[] = { "key", "brand", NULL };
    set_cell(dir, "machine.csv", find_row(dir, "machine.csv", host), "value", host_text);
    set_cell(dir, "machine.csv", find_row(dir, "machine.csv", brand), "value", label_text);
    static const char *const spin2[] = { "format", "q8_0", "policy", "spin", "threads", "2", NULL };
    size_t r = find_row(dir, "sweep.csv", spin2);
    set_cell(dir, "sweep.csv", r, "model", label_word);
    set_cell(dir, "sweep.csv", r, "cpuset", label_word);
    set_cell(dir, "sweep.csv", r, "placement", label_text);
    static const char *const condvar2[] = { "policy", "condvar", "threads", "2", "gap_us", "0", NULL };
    set_cell(dir, "pool_overhead.csv", find_row(dir, "pool_overhead.csv", condvar2), "policy", policy_text);
    char path[600];
    snprintf(path, sizeof path, "%s/machine.csv", dir);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("notes,", f);
    for (int i = 0; i < (10 << 20) / 8; i++)
        fputs("A|<b>![\xff", f);
    fputs("\n", f);
    cr_assert_eq(fclose(f), 0);
}

Test(report_input, report_md_is_inert_whatever_the_csvs_hold, .timeout = 60)
{
    char dir[256], out[8192];
    hostile_fixture(dir, sizeof dir);
    int rc = sh(out, sizeof out, "$B/bench_report --no-plots %s", dir);
    cr_assert_eq(rc, 0, "%s", out);
    size_t len;
    char *md = read_all(dir, "report.md", &len);
    nothing_injected(md, len, "report.md");
    cr_expect(strstr(md, "evil\\|host next &lt;script&gt;"), "the host, escaped, on one line");
    cr_expect(strstr(md, "| notes | A\\|&lt;b&gt;\\!\\[\xef\xbf\xbd" "A\\|"), "the 10 MB fact starts its cell");
    cr_expect(strstr(md, "…"), "a capped cell ends with an ellipsis");
    free(md);
    drop_fixture(dir);
}

Test(report_input, compare_md_is_inert_whatever_the_csvs_hold, .timeout = 60)
{
    char dir[256], out[8192], cmp[300];
    hostile_fixture(dir, sizeof dir);
    snprintf(cmp, sizeof cmp, "%s-cmp", dir);
    int rc = sh(out, sizeof out, "$B/bench_compare --no-plots %s " RUNS "/laptop --out %s", dir, cmp);
    cr_assert_eq(rc, 0, "%s", out);
    size_t len;
    char *md = read_all(cmp, "compare.md", &len);
    nothing_injected(md, len, "compare.md");
    cr_expect(strstr(md, "# poolbench comparison: evil\\|host next &lt;script&gt;"), "%.400s", md);
    free(md);
    drop_fixture(dir);
}

/* A FIFO named like a CSV made both programs wait forever; a link to /dev/zero read 1 GiB before failing. */
Test(report_input, fifo_and_device_are_refused_at_once, .timeout = 90)
{
    char dir[256], out[8192], cmp[300];
    copy_fixture("missing", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "mkfifo %s/sweep.csv && ln -s /dev/zero %s/kernels.csv", dir, dir), 0, "%s",
                 out);
    int rc = sh(out, sizeof out, "timeout -k 2 15 $B/bench_report --no-plots %s", dir);
    cr_expect_eq(rc, 1, "a CSV left out makes the status 1 (124: it hung): %s", out);
    cr_expect(strstr(out, "/sweep.csv: not a regular file (a FIFO)"), "%s", out);
    cr_expect(strstr(out, "/kernels.csv: not a regular file (a character device)"), "%s", out);
    const char *md = tf_read("%s/report.md", dir);
    cr_expect(md && strstr(md, "- sweep.csv: NOT READ, left out:"), "%s", md ? md : "(no report.md)");
    snprintf(cmp, sizeof cmp, "%s-cmp", dir);
    rc = sh(out, sizeof out, "timeout -k 2 15 $B/bench_compare --no-plots %s " RUNS "/complete --out %s", dir, cmp);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "/sweep.csv: not a regular file (a FIFO)"), "%s", out);
}

/* The cell of `file` in the row matching kv and the column col gets value; its "file:line:col:" in where. */
static void spoil(const char *dir, const char *file, const char *const *kv, const char *col, const char *value,
                  char *where, size_t len)
{
    size_t r = find_row(dir, file, kv);
    set_cell(dir, file, r, col, value);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    pb_table t;
    pb_csverr e;
    cr_assert_eq(pb_table_load(&t, path, &e), 0, "%s", e.msg);
    snprintf(where, len, "%s:%zu:%d: ", file, t.line[r], pb_table_col(&t, col) + 1);
    pb_table_free(&t);
}

/* A cell for spoil: in file, the row matching kv, column col gets value. */
typedef struct spoilt {
    const char *file;
    const char *const *kv;
    const char *col;
    const char *value;
} spoilt;

/* Spoils the n cells of the run in dir (cell i's "file:line:col:" in where[i]), then `bench_report OPT dir`
 * exits 1 and its output names every cell, and says must (unless NULL). */
static void expect_malformed(const char *dir, const spoilt *cells, int n, char where[][128], const char *opt,
                             const char *must, char *out, size_t len)
{
    for (int i = 0; i < n; i++)
        spoil(dir, cells[i].file, cells[i].kv, cells[i].col, cells[i].value, where[i], sizeof where[i]);
    int rc = sh(out, len, "$B/bench_report %s %s", opt, dir);
    cr_expect_eq(rc, 1, "a malformed cell makes the status 1: %s", out);
    for (int i = 0; i < n; i++)
        cr_expect(strstr(out, where[i]) && (!must || strstr(out, must)), "names %s: %s", where[i], out);
}

Test(report_input, numbers_that_are_not_figures_are_malformed_cells)
{
    char dir[256], out[16384], where[5][128];
    copy_fixture("complete", dir, sizeof dir);
    static const char *const condvar2[] = { "policy", "condvar", "threads", "2", "gap_us", "0", NULL };
    static const char *const read2[] = { "op", "read", "kernel", "avx512-nt", "threads", "2", NULL };
    static const char *const spin2[] = { "format", "q8_0", "policy", "spin", "threads", "2", NULL };
    static const char *const any[] = { NULL };
    static const spoilt cells[5] = {
        { "pool_overhead.csv", condvar2, "ns_batch_mean", "-5" },
        { "memory_floor.csv", read2, "gbps_best", "inf" },
        { "sweep.csv", spin2, "threads", "-3" },
        { "overlap.csv", any, "speedup", "fast" },
        { "token_floor.csv", any, "tok_per_s_ceiling", "NaN" },
    };
    expect_malformed(dir, cells, 5, where, "--no-plots", NULL, out, sizeof out);
    const char *md = tf_slurp("%s/report.md", dir);
    for (int i = 0; i < 5; i++)
        cr_expect(strstr(md, where[i]), "the sources name %s", where[i]);
    /* The sources quote the cells; the tables and findings after them must not show them as figures. */
    const char *head = strstr(md, "## Headline");
    cr_assert_not_null(head);
    static const char *const shown[] = { "-5 ns", "inf", "-3 thread", "at -3", "| -3 |", "NaN", "nan", NULL };
    for (const char *const *s = shown; *s; s++)
        cr_expect_null(strstr(head, *s), "report.md shows '%s'", *s);
    cr_expect(strstr(md, "**Dispatch**") && strstr(md, "**Decode**"), "the rest is still reported");
}

Test(report_input, a_directory_that_is_not_a_run_is_refused)
{
    char dir[64], out[4096];
    tf_tmpdir(dir, sizeof dir, "pbempty");
    int rc = sh(out, sizeof out, "$B/bench_report %s", dir);
    cr_expect_eq(rc, 2, "%s", out);
    char *nl = strchr(out, '\n');
    cr_expect(nl && nl[1] == '\0' && strstr(out, dir), "one line naming the directory: %s", out);
    cr_expect(tf_dir_empty(dir), "nothing written into it");
    tf_write(dir, "notes.txt", "not a CSV\n");
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 2, "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_compare %s " RUNS "/complete --out %s-cmp", dir, dir), 2, "%s", out);
    cr_expect(strstr(out, dir), "%s", out);
    cr_expect_eq(file_size(dir, "report.md"), -1);
    char cmp[100];
    snprintf(cmp, sizeof cmp, "%s-cmp", dir);
    cr_expect_eq(file_size(cmp, "."), -1, "no --out directory made");
    tf_rmrf(dir);
}

Test(report_input, compare_out_without_its_value)
{
    char out[4096];
    int rc = sh(out, sizeof out, "$B/bench_compare " RUNS "/complete " RUNS "/laptop --out");
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect(strstr(out, "--out") && strstr(out, "missing value"), "%s", out);
    char *nl = strchr(out, '\n');
    cr_expect(nl && nl[1] == '\0', "one line: %s", out);
}

/* Two harnesses of a joined run interrupted: each left an `incomplete` line in machine.csv. */
Test(report_input, an_incomplete_run_says_so_first)
{
    char dir[256], out[8192], cmd[600];
    copy_fixture("complete", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "printf 'incomplete,bench_sweep: SIGTERM after 9 rows (sweep.csv)\\n"
                              "incomplete,bench_kernels: SIGINT after 3 rows (kernels.csv)\\n' >>%s/machine.csv", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    const char *md = tf_slurp("%s/report.md", dir);
    const char *machine = strstr(md, "## Machine");
    cr_assert_not_null(machine);
    const char *warn = strstr(md, "INCOMPLETE RUN");
    cr_expect(warn && warn < machine, "a warning before the machine block: %.600s", md);
    const char *a = strstr(md, "- bench_sweep: SIGTERM after 9 rows (sweep.csv)\n"),
               *b = strstr(md, "- bench_kernels: SIGINT after 3 rows (kernels.csv)\n");
    cr_expect(a && b && a < machine && b < machine, "each incomplete value listed in it: %.800s", md);
}

/* A harness killed with SIGKILL: no sweep.csv, two partial files; the newest is read, its cut last line dropped. */
Test(report_input, a_killed_harness_partial_file_is_read)
{
    char dir[256], out[8192], cmd[1400], cmp[300];
    copy_fixture("missing", dir, sizeof dir);
    snprintf(cmd, sizeof cmd,
             "head -n 3 " RUNS "/complete/sweep.csv >%s/sweep.csv.partial-a1B2c3 && "
             "sed -n 4p " RUNS "/complete/sweep.csv | head -c 40 >>%s/sweep.csv.partial-a1B2c3 && "
             "head -n 6 " RUNS "/complete/sweep.csv >%s/sweep.csv.partial-0ld000 && "
             "touch -d 2001-01-01 %s/sweep.csv.partial-0ld000",
             dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    const char *md = tf_slurp("%s/report.md", dir);
    cr_expect_null(strstr(md, "- sweep.csv: missing"), "%s", md);
    cr_expect(strstr(md, "- sweep.csv: from sweep.csv.partial-a1B2c3, left by a killed harness (bench_sweep): 2 rows "
                         "(a last row cut mid-way left out)"), "%s", md);
    const char *warn = strstr(md, "INCOMPLETE RUN"), *machine = strstr(md, "## Machine");
    cr_expect(warn && machine && warn < machine, "a warning at the top");
    cr_expect(strstr(md, "| qwen3-0.6b | q8_0 | 52.4 |"), "the decode table from the partial rows: %s", md);

    /* While its writer holds the file's lock, the harness is not killed but running. */
    char partial[300];
    snprintf(partial, sizeof partial, "%s/sweep.csv.partial-a1B2c3", dir);
    int fd = open(partial, O_RDONLY);
    cr_assert(fd >= 0 && flock(fd, LOCK_EX) == 0);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    close(fd);
    md = tf_slurp("%s/report.md", dir);
    cr_expect(strstr(md, "- sweep.csv: from sweep.csv.partial-a1B2c3, which bench_sweep is still writing (it holds "
                         "the file's lock): 2 rows"), "%s", md);

    snprintf(cmp, sizeof cmp, "%s-cmp", dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_compare --no-plots %s " RUNS "/complete --out %s", dir, cmp), 0, "%s",
                 out);
    const char *cmd_md = tf_slurp("%s/compare.md", cmp);
    cr_expect(strstr(cmd_md, "sweep.csv: from sweep.csv.partial-a1B2c3, left by a killed harness (bench_sweep): 2 "
                             "rows"), "%s", cmd_md);
    cr_expect(strstr(cmd_md, "| best decode, qwen3-0.6b q8_0 | tok/s |"), "the partial decode is compared");
}

/* The plots gather a run's formats, policies, core sets, ... into word lists: a cell with a space ("q8 0") passed
 * --check and then broke sweep.gp ("array index out of range"). Such a cell is malformed where it is read. */
Test(report_input, a_plot_key_with_a_space_is_a_malformed_cell)
{
    char dir[256], out[8192], where[3][128];
    copy_fixture("xeon16", dir, sizeof dir);
    static const char *const any[] = { NULL };
    static const spoilt cells[3] = {
        { "sweep.csv", any, "format", "q8 0" },
        { "pool_overhead.csv", any, "policy", "\"spin\"" },
        { "kernels.csv", any, "level", "" },
    };
    expect_malformed(dir, cells, 3, where, "--check", "is not one word", out, sizeof out);
    int rc = sh(out, sizeof out, "$B/bench_report --no-plots %s", dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, where[0]) && strstr(out, "'q8 0' is not one word"), "%s", out);
    drop_fixture(dir);
}
