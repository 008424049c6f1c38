/* pb_mapguard: a read past the end of a mapped file truncated under it reads zeros and trips the guard instead of
 * killing the process with SIGBUS; a disarmed guard leaves SIGBUS its default action. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pb_mapguard.h"
#include "test_files.h"

#define PAGES 8

/* A file of PAGES pages of 0x5a, mapped read-only; its path into path. */
static const unsigned char *map_file(char *path, size_t len, size_t *bytes)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbmapguard");
    snprintf(path, len, "%s/f", dir);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *bytes = PAGES * page;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    cr_assert_geq(fd, 0);
    static unsigned char buf[PAGES * 65536];
    cr_assert_leq(*bytes, sizeof buf);
    memset(buf, 0x5a, *bytes);
    cr_assert_eq(write(fd, buf, *bytes), (ssize_t)*bytes);
    const unsigned char *m = mmap(NULL, *bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    cr_assert_neq((void *)m, MAP_FAILED);
    return m;
}

/* The sum of every byte, read through a volatile pointer (the reads happen, in order). */
static unsigned long sum(const unsigned char *m, size_t n)
{
    const volatile unsigned char *v = m;
    unsigned long s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

Test(mapguard, a_read_past_a_truncation_reads_zeros_and_trips)
{
    char path[128];
    size_t bytes, page = (size_t)sysconf(_SC_PAGESIZE);
    const unsigned char *m = map_file(path, sizeof path, &bytes);
    cr_assert_eq(pb_mapguard_arm(m, bytes), 0);
    cr_expect_eq(sum(m, bytes), 0x5aul * bytes, "the whole file before the truncation");
    cr_expect(!pb_mapguard_tripped());
    cr_assert_eq(truncate(path, 3 * page), 0);
    unsigned long s = sum(m, bytes);
    cr_expect_eq(s, 0x5aul * 3 * page, "the 3 pages left, then zeros: %lu", s);
    cr_expect(pb_mapguard_tripped(), "the guard says the file shrank");
    cr_expect_eq(pb_mapguard_offset(), 3 * page, "at the first page past the new end");
    pb_mapguard_disarm();
    munmap((void *)m, bytes);
}

/* Not armed, SIGBUS is what it was: the process dies of it (Criterion sees the signal). */
Test(mapguard, a_disarmed_guard_leaves_sigbus_alone, .signal = SIGBUS)
{
    char path[128];
    size_t bytes, page = (size_t)sysconf(_SC_PAGESIZE);
    const unsigned char *m = map_file(path, sizeof path, &bytes);
    cr_assert_eq(pb_mapguard_arm(m, bytes), 0);
    pb_mapguard_disarm();
    cr_assert_eq(truncate(path, page), 0);
    sum(m, bytes);
    cr_assert_fail("the read past the end raised SIGBUS");
}
