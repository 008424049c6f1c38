/* The memory-floor engine and its OS layer: buffer sizing and the MemAvailable limit, the 2 MiB-aligned
 * mapping, AnonHugePages from smaps fixtures, and a small measurement through a real pool (first touch,
 * byte sums checked on every pass, copy leaving the buffer as it was). No speed is asserted. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_membuf.h"
#include "pb_memfloor.h"

Test(memfloor, default_size)
{
    cr_assert_eq(pb_memfloor_default_mib(0, false), 768);
    cr_assert_eq(pb_memfloor_default_mib(32u << 20, false), 768);          /* 8 x 32 MiB = 256 < 768 */
    cr_assert_eq(pb_memfloor_default_mib(96u << 20, false), 768);          /* exactly 768 */
    cr_assert_eq(pb_memfloor_default_mib(508ull << 20, false), 4064);      /* a VM reporting the host's L3 */
    cr_assert_eq(pb_memfloor_default_mib(508ull << 20, true), 1016);       /* --quick: 2 x */
    cr_assert_eq(pb_memfloor_default_mib((100u << 20) + 1, false), 801);   /* rounded up to whole MiB */
}

Test(memfloor, size_limit_is_half_of_available)
{
    char err[256];
    uint64_t avail = 24000ull << 20;
    cr_assert_eq(pb_memfloor_check_size(12000, avail, err, sizeof err), 0);
    cr_assert_eq(pb_memfloor_check_size(12001, avail, err, sizeof err), -1);
    cr_assert(strstr(err, "--size 12001") && strstr(err, "1..12000"), "%s", err);
    cr_assert_eq(pb_memfloor_check_size(1, 1u << 20, err, sizeof err), -1); /* half of 1 MiB rounds to 0 MiB */
}

Test(memfloor, mem_available_from_fixtures)
{
    uint64_t v = 0;
    cr_assert_eq(pb_mem_available_from("tests/data/meminfo-24g.txt", &v), 0);
    cr_assert_eq(v, 23718000ull * 1024);
    cr_assert_eq(pb_mem_available_from("tests/data/meminfo-old-kernel.txt", &v), -1);
    cr_assert_eq(pb_mem_available_from("tests/data/no-such-file", &v), -1);
    cr_assert_eq(pb_mem_available(&v), 0, "this machine has MemAvailable");
    cr_assert_gt(v, 0);
}

Test(memfloor, thp_from_smaps_fixture)
{
    uint64_t b = 1;
    /* the 768 MiB buffer alone */
    cr_assert_eq(pb_thp_bytes_from("tests/data/smaps-thp.txt", 0x7f3a00000000, 0x7f3a30000000, &b), 0);
    cr_assert_eq(b, 782336ull * 1024);
    /* a range that spans both anonymous mappings */
    cr_assert_eq(pb_thp_bytes_from("tests/data/smaps-thp.txt", 0x7f3a2ff00000, 0x7f3a30100000, &b), 0);
    cr_assert_eq(b, (782336ull + 2048) * 1024);
    /* the stack: no huge pages */
    cr_assert_eq(pb_thp_bytes_from("tests/data/smaps-thp.txt", 0x7ffd1c000000, 0x7ffd1c001000, &b), 0);
    cr_assert_eq(b, 0);
    cr_assert_eq(pb_thp_bytes_from("tests/data/no-such-file", 0, 1, &b), -1);
}

Test(memfloor, mapping_is_huge_page_aligned)
{
    static const size_t sizes[] = { 1, 4096, 4097, 3u << 20, (5u << 20) + 123 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        pb_membuf b;
        cr_assert_eq(pb_membuf_map(&b, sizes[i], true), 0);
        cr_assert_eq((uintptr_t)b.p % PB_HUGE_PAGE, 0, "size %zu", sizes[i]);
        cr_assert_eq(b.bytes, sizes[i]);
        cr_assert_geq(b.map_bytes, sizes[i]);
        memset(b.p, 1, sizes[i]); /* all of it is writable */
        uint64_t thp;
        cr_assert_eq(pb_thp_bytes((uintptr_t)b.p, (uintptr_t)b.p + b.bytes, &thp), 0);
        cr_assert_leq(thp, b.map_bytes);
        pb_membuf_unmap(&b);
        cr_assert_null(b.p);
    }
    pb_membuf b;
    cr_assert_eq(pb_membuf_map(&b, 0, true), -1);
}

static void measure_all(int threads)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = POOL_SPIN;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p);
    pb_membuf b;
    size_t bytes = 3u << 20; /* 768 pages: an uneven split over 2 threads is still whole pages */
    cr_assert_eq(pb_membuf_map(&b, bytes, true), 0);
    static pb_memfloor_ctx c;
    pb_memfloor_init(&c, p, b.p, bytes);
    pb_memfloor_touch(&c);
    cr_assert_eq(c.expect_sum, pb_memsum(b.p, bytes), "the fill's sum is the buffer's");
    cr_assert_eq(memcmp(b.p, b.p + bytes / 2, bytes / 2), 0, "the halves are equal");
    /* Reads and copies first, writes last (a write replaces the pattern): the table's order. */
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (!pb_memkern_supported(k))
            continue;
        pb_memfloor_point pt;
        cr_assert_eq(pb_memfloor_measure(&c, k, 3, &pt), 0, "%s: measured (no out-of-memory)", k->name);
        cr_expect(pt.valid, "%s with %d threads", k->name, threads);
        cr_expect_eq(pt.passes, 3);
        cr_expect_eq(pt.gbps.n, 3);
        cr_expect_eq(pt.moved, bytes, "%s: a copy moves each half once (read + write)", k->name);
        cr_expect_gt(pt.gbps.min, 0);
        if (k->op != PB_MEMOP_WRITE)
            cr_expect_eq(pb_memsum(b.p, bytes), c.expect_sum, "%s left the buffer as it was", k->name);
    }
    pb_membuf_unmap(&b);
    pool_destroy(p);
}

Test(memfloor, one_thread) { measure_all(1); }
Test(memfloor, two_threads) { measure_all(2); }
Test(memfloor, three_threads_uneven_split) { measure_all(3); }

/* Spans read as one buffer laid end to end (a decode's matrices in the weights and a repacked copy): with every
 * read kernel this CPU runs and 1 to 3 threads, a pass sums exactly the first `bytes` of them, pieces of odd sizes
 * and alignments included, each byte once. */
Test(memfloor, spans_read_as_one_buffer)
{
    static const size_t sizes[5] = { (1u << 20) + 77, 5000, 3, (2u << 20) + 13, 64 << 10 };
    static const size_t skip[5] = { 0, 1, 0, 7, 64 }; /* where each piece starts in its own allocation */
    unsigned char *mem[5];
    pb_memspan spans[5];
    for (int i = 0; i < 5; i++) {
        mem[i] = malloc(sizes[i] + skip[i]);
        cr_assert_not_null(mem[i]);
        for (size_t j = 0; j < sizes[i] + skip[i]; j++)
            mem[i][j] = (unsigned char)(j * 37 + 11 * (size_t)i + 1);
        spans[i] = (pb_memspan){ .p = mem[i] + skip[i], .bytes = sizes[i] };
    }
    size_t total = pb_memspan_lay(spans, 5);
    cr_assert_eq(total, sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4]);
    cr_assert_eq(spans[3].at, sizes[0] + sizes[1] + sizes[2]);
    size_t bytes = total / (2 * PB_MF_UNIT) * (2 * PB_MF_UNIT); /* the tail past it unread, as a decode floor's */
    uint64_t want = 0;
    for (int i = 0; i < 5; i++) /* the oracle: each span's bytes up to the cut */
        if (spans[i].at < bytes)
            want += pb_memsum(spans[i].p, bytes - spans[i].at < sizes[i] ? bytes - spans[i].at : sizes[i]);
    for (int threads = 1; threads <= 3; threads++) {
        pool_config cfg = pool_config_default();
        cfg.threads = threads;
        cfg.policy = POOL_SPIN;
        pool *p = pool_create(&cfg);
        cr_assert_not_null(p);
        static pb_memfloor_ctx c;
        pb_memfloor_init_spans(&c, p, spans, 5, bytes);
        for (const pb_memkern *k = pb_memkerns; k->name; k++) {
            if (!pb_memkern_reads_here(k))
                continue;
            uint64_t ns;
            cr_expect_eq(pb_memfloor_pass(&c, k, &ns), want, "%s with %d threads", k->name, threads);
        }
        pool_destroy(p);
    }
    for (int i = 0; i < 5; i++)
        free(mem[i]);
}

/* A read kernel 20 ms slower a call on one thread (slow_thread: pool_run's id 0, the caller), counting what that
 * thread read: a vCPU its host preempts, or an E-core, seen by a pass. 20 ms: under qemu-user the other thread
 * took ~30 ms to read the 8 MiB, and at 2 ms a call the slow one read 16 chunks there. */
static pthread_t slow_thread;
static _Atomic size_t slow_bytes;

static uint64_t slow_read(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    if (pthread_equal(pthread_self(), slow_thread)) {
        atomic_fetch_add(&slow_bytes, bytes);
        nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
    }
    return pb_memsum(src, bytes);
}

/* The other thread claims the slow one's chunks once its own slice is read: the slow thread reads a few
 * chunks (at most 16 of its 64), not its half (as it did with static slices: seen failing so), and every byte is still read once. */
Test(memfloor, a_slow_thread_reads_less_and_every_byte_once)
{
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    cfg.policy = POOL_SPIN;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p);
    pb_membuf b;
    size_t bytes = 8u << 20; /* 2048 pages: chunks of 16 pages, 64 to a slice */
    cr_assert_eq(pb_membuf_map(&b, bytes, true), 0);
    static pb_memfloor_ctx c;
    pb_memfloor_init(&c, p, b.p, bytes);
    pb_memfloor_touch(&c);
    static const pb_memkern slow = { "slow", PB_MEMOP_READ, KERN_ISA_SCALAR, slow_read, 1, "test: slow on one thread" };
    slow_thread = pthread_self();
    size_t most = 0;
    for (int pass = 0; pass < 3; pass++) {
        atomic_store(&slow_bytes, 0);
        uint64_t ns;
        cr_expect_eq(pb_memfloor_pass(&c, &slow, &ns), c.expect_sum, "pass %d read every byte once", pass);
        size_t got = atomic_load(&slow_bytes);
        cr_expect(got <= bytes / 8, "pass %d: the slow thread read %zu of %zu bytes", pass, got, bytes);
        most = got > most ? got : most;
    }
    /* A pass in which the other thread took every chunk before the caller claimed one (the caller preempted, as
     * under make test -j2 on 2 cpus) still reads every byte once; the slow path must have run in some pass. */
    cr_expect_gt(most, 0, "the slow thread read in some pass");
    pb_membuf_unmap(&b);
    pool_destroy(p);
}
