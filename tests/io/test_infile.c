/* pb_infile, the one open of every input: regular files only, at once, and never more than the bound. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_infile.h"
#include "test_files.h"

#define MIB ((size_t)1 << 20)

/* Each entry point refuses what is not a regular file, naming it, and without blocking. */
static void expect_refused_by_each_entry_point(const char *path, const tf_refused *in)
{
    char err[512], want[4500];
    snprintf(want, sizeof want, "%s: %s", path, in->says);
    cr_expect_eq(pb_infile_open(AT_FDCWD, path, 2 * MIB, "a test input", NULL, err, sizeof err), -1);
    cr_expect_str_eq(err, want);
    cr_expect_eq(errno, EINVAL, "%s", in->make);
    char *data = NULL;
    size_t len = 0;
    cr_expect_eq(pb_infile_read(AT_FDCWD, path, 2 * MIB, "a test input", &data, &len, err, sizeof err), -1);
    cr_expect_str_eq(err, want);
    cr_expect_null(data);
    cr_expect_null(pb_infile_fopen(AT_FDCWD, path, 2 * MIB, "a test input", err, sizeof err));
    cr_expect_str_eq(err, want);
}

Test(infile, refuses_what_is_not_a_regular_file_at_once, .timeout = 20)
{
    tf_each_refused("in", "3M", "3 MiB, more than the 2 MiB a test input may hold",
                    expect_refused_by_each_entry_point);
}

/* A missing file is told apart (errno ENOENT); a file of exactly the bound is read whole, NUL-terminated. */
Test(infile, reads_up_to_the_bound_and_tells_a_missing_file)
{
    char dir[64], path[128], err[512];
    tf_tmpdir(dir, sizeof dir, "pbinfile");
    snprintf(path, sizeof path, "%s/none", dir);
    cr_assert_eq(pb_infile_open(AT_FDCWD, path, MIB, "a test input", NULL, err, sizeof err), -1);
    cr_expect_eq(errno, ENOENT);
    cr_expect(strstr(err, "none: No such file or directory"), "%s", err);
    snprintf(path, sizeof path, "%s/full", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < MIB; i++)
        fputc('a' + (int)(i % 26), f);
    cr_assert_eq(fclose(f), 0);
    char *data = NULL;
    size_t len = 0;
    cr_assert_eq(pb_infile_read(AT_FDCWD, path, MIB, "a test input", &data, &len, err, sizeof err), 0, "%s", err);
    cr_expect_eq(len, MIB);
    cr_expect_eq(data[len], '\0');
    cr_expect_eq(data[MIB - 1], 'a' + (int)((MIB - 1) % 26));
    free(data);
    cr_expect_eq(pb_infile_read(AT_FDCWD, path, MIB - 1, "a test input", &data, &len, err, sizeof err), -1);
    tf_rmrf(dir);
}

/* The stream gives the lines, relative to a directory's descriptor, and ends where the text does. */
Test(infile, fopen_streams_the_text_read_whole)
{
    char dir[64], err[512], line[64];
    tf_tmpdir(dir, sizeof dir, "pbinfile");
    tf_write(dir, "t.txt", "one\ntwo\n");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(dfd, 0);
    FILE *f = pb_infile_fopen(dfd, "t.txt", MIB, "a test input", err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    cr_expect_str_eq(fgets(line, sizeof line, f), "one\n");
    cr_expect_str_eq(fgets(line, sizeof line, f), "two\n");
    cr_expect_null(fgets(line, sizeof line, f));
    cr_expect_eq(fclose(f), 0);
    close(dfd);
    tf_rmrf(dir);
}
