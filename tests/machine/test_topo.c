/* Topology: cpu set names, placement and default thread counts on hwloc XML fixtures of machines we do not
 * have (the XML files in tests/data, see /work/shared/fixtures/README.md), plus a smoke test of the live machine. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_topo.h"
#include "topo_cases.h"
#include "topo_fixture.h"

/* Each fixture's counts, kinds, sets, placements and refusals (topo_cases.h checks a row). */
static const topo_want fixtures[] = {
    { .file = "hybrid-4p4e.xml", .npus = 12, .ncores = 8, .nkinds = 2, .default_threads = 4,
      .kind = { { "IntelCore", 4, 8, 5200, 0, 1 }, { "IntelAtom", 4, 4, 3900, 0, 0 } },
      .sets = { { "p", "0-7" }, { "e", "8-11" }, { "p+e", "0-11" }, { "all", "0-11" }, { "smt", "0-11" },
                { "physical", "0,2,4,6,8-11" } },
      .places = { { "p", 4, "0,2,4,6" }, { "p", 8, "0,2,4,6,1,3,5,7" }, { "p+e", 6, "0,2,4,6,8,9" },
                  { "all", 12, "0,2,4,6,8-11,1,3,5,7" }, { "e", 3, "8-10" } },
      .refused = { { "e", 5, "5 threads" }, { "p", 0, "accepted 1..8" } } },
    { .file = "apple-6p4e.xml", .npus = 10, .ncores = 10, .nkinds = 2, .default_threads = 6,
      .kind = { { "AppleP", 6, 6, 0, 0, 1 }, { "AppleE", 4, 4, 0, 0, 0 } },
      .sets = { { "p", "0-5" }, { "e", "6-9" }, { "physical", "0-9" } },
      .places = { { "p+e", 8, "0-7" }, { "all", 10, "0-9" } },
      .refused = { { "all", 11, "accepted 1..10" } } },
    { .file = "smt-8c16t.xml", .npus = 16, .ncores = 8, .nkinds = 1, .default_threads = 8,
      .kind = { { "", 8, 16, 0, 0, -1 } },
      .sets = { { "physical", "0,2,4,6,8,10,12,14" }, { "p", "0-15" } },
      .places = { { "smt", 16, "0,2,4,6,8,10,12,14,1,3,5,7,9,11,13,15" }, { "all", 9, "0,2,4,6,8,10,12,14,1" },
                  { "physical", 3, "0,2,4" } },
      .refused = { { "physical", 9, "accepted 1..8" }, { "e", 1, "one kind of core" } } },
    { .file = "numa-2s-16c32t.xml", .npus = 32, .ncores = 16, .nkinds = 1, .default_threads = 16,
      .kind = { { "", 16, 32, 0, 0, -1 } },
      .sets = { { "numa:0", "0-15" }, { "numa:1", "16-31" } },
      .places = { { "numa:1", 9, "16,18,20,22,24,26,28,30,17" },
                  { "physical", 16, "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30" } },
      .refused = { { "numa:2", 1, "no such NUMA node" }, { "numa:", 1, "no such NUMA node" },
                   { "numa:x", 1, "no such NUMA node" } } },
    { .file = "kvm-epyc-2c.xml", .npus = 2, .ncores = 2, .nkinds = 1, .default_threads = 2,
      .kind = { { "", 2, 2, 0, 1024, 0 } },
      .sets = { { "p", "0,1" }, { "physical", "0,1" }, { "p+e", "0,1" } },
      .refused = { { "e", 1, "cpu set 'e' is empty: this machine has one kind of core" },
                   { "p", 3, "accepted 1..2" } } },
};

Test(topo, fixtures)
{
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
        expect_topo(&fixtures[i]);
}

/* A hybrid part's caches differ per kind: the L1 and L2 above a P-core and above an E-core. */
static const topo_caches_want hybrid_caches = {
    .file = "hybrid-4p4e-caches.xml", .ncaches = 3, .nnuma = 1, .memory = 16ull << 30,
    .cache = { { 1, 8, 4u * (48 + 32) * 1024, { 48u * 1024, 32u * 1024 }, { 2, 1 } },
               { 2, 5, 4u * 1310720 + 2097152, { 1310720u, 2097152u }, { 2, 4 } },
               { 3, 1, 30u * 1024 * 1024, { 30u << 20, 30u << 20 }, { 12, 12 } } },
};

Test(topo, hybrid_caches)
{
    expect_caches(&hybrid_caches);
}

Test(topo, smt_siblings)
{
    pb_topo *t = load("smt-8c16t.xml");
    cr_expect_eq(t->pu[5].smt, 1);
    cr_expect_eq(t->pu[4].smt, 0);
    pb_topo_free(t);
}

Test(topo, numa_nodes)
{
    pb_topo *t = load("numa-2s-16c32t.xml");
    cr_assert_eq(t->nnuma, 2);
    cr_expect_eq(t->numa[1].os, 1);
    cr_expect_eq(t->numa[1].pus, 16);
    cr_expect_eq(t->numa[1].memory, 32ull << 30);
    pb_topo_free(t);
}

Test(topo, thread_counts)
{
    pb_topo *t = load("kvm-epyc-2c.xml");
    pb_list counts;
    pb_topo_thread_counts(t, &counts);
    cr_expect_eq(counts.n, 2);
    cr_expect_eq(counts.v[0], 1);
    cr_expect_eq(counts.v[1], 2);
    pb_topo_free(t);
}

/* Lists of cpus in place of a set's name, on the hybrid fixture. */
static const topo_set_want list_sets[] = { { "0-3,8", "0-3,8" }, { "8,0-3", "0-3,8" }, { "11", "11" }, { NULL } };
/* Placement treats a list like any set: a core each first. */
static const topo_place_want list_places[] = { { "0-3,8", 3, "0,2,8" }, { "0-3,8", 5, "0,2,8,1,3" }, { NULL } };
static const topo_place_want list_refused[] = {
    { "0-3,12", 1, "cpu 12 not available" },
    { "12-13,40", 1, "cpus 12,13,40 not available" },
    { "3-1", 1, "unknown cpu set '3-1'" },
    { "0,", 1, "unknown cpu set" },
    { "-1", 1, "unknown cpu set" },
    { "fast", 1, "unknown cpu set 'fast': accepted: all, smt, physical, p, e, p+e, numa:N" },
    { "", 1, "empty cpu set name" },
    { "0-99999", 1, "unknown cpu set" },
    { NULL },
};

Test(topo, explicit_lists)
{
    pb_topo *t = load("hybrid-4p4e.xml");
    expect_sets(t, "hybrid-4p4e.xml", list_sets);
    expect_places(t, "hybrid-4p4e.xml", list_places);
    expect_refused(t, "hybrid-4p4e.xml", list_refused);
    char err[256];
    cr_expect_eq(pb_topo_check_cpu(t, 11, err, sizeof err), 0);
    cr_expect_eq(pb_topo_check_cpu(t, 12, err, sizeof err), -1);
    cr_expect(strstr(err, "cpu 12 does not exist (cpus here: 0-11)"), "%s", err);
    cr_expect_eq(pb_topo_check_cpu(t, -1, err, sizeof err), -1);
    pb_topo_free(t);
}

Test(topo, default_threads_env)
{
    pb_topo *t = load("hybrid-4p4e.xml");
    char err[256] = "";
    setenv("POOLBENCH_THREADS", "3", 1);
    cr_expect_eq(pb_topo_default_threads(t, err, sizeof err), 3);
    setenv("POOLBENCH_THREADS", "zero", 1);
    cr_expect_eq(pb_topo_default_threads(t, err, sizeof err), -1);
    cr_expect(strstr(err, "POOLBENCH_THREADS"), "%s", err);
    unsetenv("POOLBENCH_THREADS");
    pb_topo_free(t);
}

Test(topo, format)
{
    pb_cpulist l = { .n = 6, .cpu = { 0, 1, 2, 5, 6, 9 } };
    char buf[64];
    pb_cpulist_format(&l, buf, sizeof buf);
    cr_expect_str_eq(buf, "0-2,5,6,9");
    pb_cpulist_format(&l, buf, 8);
    cr_expect_str_eq(buf, "0-2...");
    l.n = 0;
    pb_cpulist_format(&l, buf, sizeof buf);
    cr_expect_str_eq(buf, "");
}

Test(topo, bad_files)
{
    char err[256] = "";
    cr_expect_null(pb_topo_load("tests/data/no-such.xml", err, sizeof err));
    cr_expect(strstr(err, "cannot read 'tests/data/no-such.xml'"), "%s", err);
    cr_expect_null(pb_topo_load("tests/data/kvm-epyc-zen4-2c.raw", err, sizeof err));
    cr_expect(strstr(err, "kvm-epyc-zen4-2c.raw"), "%s", err);
}

Test(topo, live_machine)
{
    char err[256] = "";
    pb_topo *t = pb_topo_load(NULL, err, sizeof err);
    cr_assert(t, "%s", err);
    cr_expect(t->this_system);
    cr_expect_geq(t->npus, 1);
    cr_expect_geq(t->nkinds, 1);
    cr_expect_geq(pb_topo_npus(t), 1);
    pb_cpulist all, pl;
    cr_assert_eq(pb_topo_set(t, "all", &all, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_topo_place(t, &all, all.n, &pl, err, sizeof err), 0, "%s", err);
    cr_expect_eq(pl.n, all.n);
    cr_expect_eq(pb_topo_check_cpu(t, all.cpu[0], err, sizeof err), 0, "%s", err);
    pb_topo_free(t);
}

/* bench_sweep's --cpus: a list is taken whole, however many items it has, or refused with its reason; it was cut
 * at 1023 characters (a cpu after the cut silently dropped), and an item longer than that gave no set at all. */
Test(topo, cpusets_long_lists_are_taken_whole_or_refused)
{
    pb_topo *t = load("smt-8c16t.xml");
    pb_cpusets s;
    char spec[4096], err[512], got[64];
    spec[0] = '\0';
    for (int i = 0; i < 400; i++)
        strcat(spec, "0,");
    strcat(spec, "15;p");
    cr_assert_eq(pb_cpusets_parse(t, spec, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(s.n, 2);
    pb_cpulist_format(&s.set[0].cpus, got, sizeof got);
    cr_expect_str_eq(got, "0,15", "the last item of an 803-character list counts");
    cr_expect_str_eq(s.set[1].name, "p");
    spec[0] = '\0';
    for (int i = 0; i < 600; i++)
        strcat(spec, "0,");
    strcat(spec, "15");
    cr_expect_eq(pb_cpusets_parse(t, spec, &s, err, sizeof err), -1, "a 1202-character set is refused, not cut");
    cr_expect(strstr(err, "1202 characters") && strstr(err, "accepted at most 1023"), "%s", err);
    memset(spec, '0', 1100);
    strcpy(spec + 1100, "15");
    cr_expect_eq(pb_cpusets_parse(t, spec, &s, err, sizeof err), -1, "one item of 1102 characters");
    cr_expect(strstr(err, "1102 characters"), "%s", err);
    pb_topo_free(t);
}
