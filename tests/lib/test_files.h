/* test_files.h — scratch directories and whole-file reads for the tests. Header-only: each test file that
 * includes it gets its own static copies (Criterion runs each test in a process of its own, so the one read
 * buffer is never shared between tests). */
#ifndef TEST_FILES_H
#define TEST_FILES_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>

/* The cpus this process may run on (its affinity mask, which a container or taskset narrows below what
 * sysconf counts online): up to max ids ascending into cpu; the count. */
static inline int tf_allowed_cpus(int *cpu, int max)
{
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpu[n++] = c;
    return n;
}

/* The names in dir that start with prefix (0 when dir cannot be opened). */
static inline int tf_names_starting(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* What a printer that takes a FILE * writes, as a string: tf_mem_open gives the stream to print to,
 * tf_mem_text closes it and gives the text (the caller frees it; its length is in len). */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} tf_mem;

static inline FILE *tf_mem_open(tf_mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    cr_assert_not_null(m->f);
    return m->f;
}

static inline char *tf_mem_text(tf_mem *m)
{
    cr_assert_eq(fclose(m->f), 0);
    return m->buf;
}

/* tf_expect_has(text, "a", "b", ...): each string stands somewhere in text. A missing one fails the test naming
 * it, and the rest are still checked, so one run shows every line a report or a usage text lacks. */
#define tf_expect_has(text, ...) tf_expect_has_each((text), (const char *const[]){ __VA_ARGS__, NULL })
static inline void tf_expect_has_each(const char *text, const char *const *want)
{
    cr_assert_not_null(text);
    for (; *want; want++)
        cr_expect(strstr(text, *want), "'%s' is not in: %s", *want, text);
}

/* n allowed cpus into cpu (tf_allowed_cpus), or the test is skipped saying why it needs them. */
static inline void tf_need_cpus(int *cpu, int n, const char *why)
{
    if (tf_allowed_cpus(cpu, n) < n)
        cr_skip_test("fewer than %d cpus here: %s", n, why);
}

/* A fresh empty directory ROOT/TAG-XXXXXX, its name in dir (at least 64 bytes). ROOT is the run's scratch
 * directory, /tmp/poolbench-tests-PID, which tests/lib/test_scratch.c's hooks make before the first test and remove
 * with everything in it after the last, in the runner's process (its name reaches the tests' processes in
 * PB_TEST_SCRATCH): the suite leaves nothing in /tmp, whether its tests pass, fail or crash. /tmp itself when the
 * variable is unset (a test binary built without that file). */
static inline void tf_tmpdir(char *dir, size_t len, const char *tag)
{
    const char *root = getenv("PB_TEST_SCRATCH");
    snprintf(dir, len, "%s/%s-XXXXXX", root && *root ? root : "/tmp", tag);
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

/* Runs a shell command line; its stdout (and whatever the line redirects there) into out. The exit status, or
 * -1 when it was killed. */
static inline int tf_run(char *out, size_t len, const char *cmd)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p, "popen %s", cmd);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Writes text into DIR/NAME (a fixture the test builds), failing the test when it cannot. */
static inline void tf_write(const char *dir, const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert(fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

/* rm -rf DIR (a mkdtemp name: no quote in it); the shell's status. */
static inline int tf_rmrf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* What an opener must refuse at once, one at a time (see tf_each_refused), and what the refusal says after
 * "PATH: ". */
typedef struct {
    char make[4400]; /* the shell line that made it, for failure messages */
    const char *says;
} tf_refused;

/* One kind of refused input: the command that makes it, given the path (and a size first, for the large file). */
typedef struct {
    const char *make, *says;
} tf_refused_kind;

/* Makes each input every opener refuses at once, in turn at DIR/name in a fresh scratch directory, and calls
 * check(path, what was made) after each: a FIFO (a plain open would block), a link to /dev/zero (a read would never
 * end), a directory, then a sparse regular file of big_size bytes (truncate's units, "3M") past the opener's bound,
 * whose refusal says big_says. */
static inline void tf_each_refused(const char *name, const char *big_size, const char *big_says,
                                   void (*check)(const char *path, const tf_refused *in))
{
    static const tf_refused_kind kinds[] = {
        { "mkfifo", "not a regular file (a FIFO)" },
        { "ln -s /dev/zero", "not a regular file (a character device)" },
        { "mkdir", "not a regular file (a directory)" },
        { "truncate -s", NULL },
    };
    char dir[64], path[4200], cmd[9000];
    tf_tmpdir(dir, sizeof dir, "pbrefused");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        tf_refused in = { .says = kinds[i].says ? kinds[i].says : big_says };
        snprintf(in.make, sizeof in.make, "%s%s%s %s", kinds[i].make, kinds[i].says ? "" : " ",
                 kinds[i].says ? "" : big_size, path);
        snprintf(cmd, sizeof cmd, "rm -rf %s && %s", path, in.make);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        check(path, &in);
    }
    cr_expect_eq(tf_rmrf(dir), 0, "rm -rf %s", dir);
}

/* How many times needle stands in text, not overlapping. */
static inline int tf_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* True when dir holds nothing (or cannot be read). */
static inline bool tf_dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool empty = true;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = false;
    if (d)
        closedir(d);
    return empty;
}

/* The text of the file at the path printf(fmt, ...) (up to 128 KiB), NULL when it cannot be opened. The
 * buffer is reused by the next read. */
static inline char *tf_read(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *tf_read(const char *fmt, ...)
{
    static char buf[1 << 17];
    char path[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* text, failing the test when it is NULL (what: the file's description). */
static inline char *tf_must_exist(char *text, const char *what)
{
    cr_assert_not_null(text, "the file %s exists", what);
    return text;
}

/* tf_read, failing the test when the file is missing; a macro only to hand its arguments (a format and its
 * values) on to tf_read unchanged, and to name them in the failure. */
#define tf_slurp(...) tf_must_exist(tf_read(__VA_ARGS__), #__VA_ARGS__)

#endif
