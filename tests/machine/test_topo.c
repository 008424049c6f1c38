/* Topology: cpu set names, placement and default thread counts on hwloc XML fixtures of machines we do not
 * have (the XML files in tests/data, see /work/shared/fixtures/README.md), plus a smoke test of the live machine. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_topo.h"
#include "topo_fixture.h"

Test(topo, hybrid_4p4e)
{
    pb_topo *t = load("hybrid-4p4e.xml");
    cr_expect_eq(t->npus, 12);
    cr_expect_eq(t->ncores, 8);
    cr_assert_eq(t->nkinds, 2);
    cr_expect_str_eq(t->kind[0].name, "IntelCore");
    cr_expect_eq(t->kind[0].cores, 4);
    cr_expect_eq(t->kind[0].pus, 8);
    cr_expect_eq(t->kind[0].max_mhz, 5200);
    cr_expect_str_eq(t->kind[1].name, "IntelAtom");
    cr_expect_eq(t->kind[1].cores, 4);
    cr_expect_eq(t->kind[1].pus, 4);
    EXPECT_SET(t, "p", "0-7");
    EXPECT_SET(t, "e", "8-11");
    EXPECT_SET(t, "p+e", "0-11");
    EXPECT_SET(t, "all", "0-11");
    EXPECT_SET(t, "smt", "0-11");
    EXPECT_SET(t, "physical", "0,2,4,6,8-11");
    EXPECT_PLACE(t, "p", 4, "0,2,4,6");
    EXPECT_PLACE(t, "p", 8, "0,2,4,6,1,3,5,7");
    EXPECT_PLACE(t, "p+e", 6, "0,2,4,6,8,9");
    EXPECT_PLACE(t, "all", 12, "0,2,4,6,8-11,1,3,5,7");
    EXPECT_PLACE(t, "e", 3, "8-10");
    EXPECT_ERR(t, "e", 5, "5 threads");
    EXPECT_ERR(t, "p", 0, "accepted 1..8");
    cr_expect_eq(default_threads(t), 4);
    pb_topo_free(t);
}

Test(topo, hybrid_caches)
{
    pb_topo *t = load("hybrid-4p4e-caches.xml");
    cr_assert_eq(t->ncaches, 3);
    const pb_topo_cache *l1 = &t->cache[0], *l2 = &t->cache[1], *l3 = &t->cache[2];
    cr_expect_eq(l1->level, 1);
    cr_expect_eq(l1->bytes[0], 48u * 1024);
    cr_expect_eq(l1->bytes[1], 32u * 1024);
    cr_expect_eq(l1->instances, 8);
    cr_expect_eq(l2->level, 2);
    cr_expect_eq(l2->bytes[0], 1310720u);
    cr_expect_eq(l2->shared_by[0], 2);
    cr_expect_eq(l2->bytes[1], 2097152u);
    cr_expect_eq(l2->shared_by[1], 4);
    cr_expect_eq(l2->instances, 5);
    cr_expect_eq(l2->total_bytes, 4u * 1310720 + 2097152);
    cr_expect_eq(l3->level, 3);
    cr_expect_eq(l3->instances, 1);
    cr_expect_eq(l3->total_bytes, 30u * 1024 * 1024);
    cr_expect_eq(l3->shared_by[0], 12);
    cr_expect_eq(t->nnuma, 1);
    cr_expect_eq(t->numa[0].memory, 16ull << 30);
    pb_topo_free(t);
}

Test(topo, apple_6p4e)
{
    pb_topo *t = load("apple-6p4e.xml");
    cr_expect_eq(t->npus, 10);
    cr_assert_eq(t->nkinds, 2);
    EXPECT_SET(t, "p", "0-5");
    EXPECT_SET(t, "e", "6-9");
    EXPECT_SET(t, "physical", "0-9");
    EXPECT_PLACE(t, "p+e", 8, "0-7");
    EXPECT_PLACE(t, "all", 10, "0-9");
    EXPECT_ERR(t, "all", 11, "accepted 1..10");
    cr_expect_eq(default_threads(t), 6);
    pb_topo_free(t);
}

Test(topo, smt_8c16t)
{
    pb_topo *t = load("smt-8c16t.xml");
    cr_expect_eq(t->npus, 16);
    cr_expect_eq(t->ncores, 8);
    cr_expect_eq(t->nkinds, 1);
    EXPECT_SET(t, "physical", "0,2,4,6,8,10,12,14");
    EXPECT_SET(t, "p", "0-15");
    EXPECT_PLACE(t, "smt", 16, "0,2,4,6,8,10,12,14,1,3,5,7,9,11,13,15");
    EXPECT_PLACE(t, "all", 9, "0,2,4,6,8,10,12,14,1");
    EXPECT_PLACE(t, "physical", 3, "0,2,4");
    EXPECT_ERR(t, "physical", 9, "accepted 1..8");
    EXPECT_ERR(t, "e", 1, "one kind of core");
    cr_expect_eq(t->pu[5].smt, 1);
    cr_expect_eq(t->pu[4].smt, 0);
    cr_expect_eq(default_threads(t), 8);
    pb_topo_free(t);
}

Test(topo, numa_2s_16c32t)
{
    pb_topo *t = load("numa-2s-16c32t.xml");
    cr_expect_eq(t->npus, 32);
    cr_expect_eq(t->ncores, 16);
    cr_assert_eq(t->nnuma, 2);
    cr_expect_eq(t->numa[1].os, 1);
    cr_expect_eq(t->numa[1].pus, 16);
    cr_expect_eq(t->numa[1].memory, 32ull << 30);
    EXPECT_SET(t, "numa:0", "0-15");
    EXPECT_SET(t, "numa:1", "16-31");
    EXPECT_PLACE(t, "numa:1", 9, "16,18,20,22,24,26,28,30,17");
    EXPECT_PLACE(t, "physical", 16, "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30");
    EXPECT_ERR(t, "numa:2", 1, "no such NUMA node");
    EXPECT_ERR(t, "numa:", 1, "no such NUMA node");
    EXPECT_ERR(t, "numa:x", 1, "no such NUMA node");
    cr_expect_eq(default_threads(t), 16);
    pb_topo_free(t);
}

Test(topo, kvm_epyc_2c)
{
    pb_topo *t = load("kvm-epyc-2c.xml");
    cr_expect_eq(t->npus, 2);
    cr_expect_eq(t->nkinds, 1);
    EXPECT_SET(t, "p", "0,1");
    EXPECT_SET(t, "physical", "0,1");
    EXPECT_SET(t, "p+e", "0,1");
    EXPECT_ERR(t, "e", 1, "cpu set 'e' is empty: this machine has one kind of core");
    EXPECT_ERR(t, "p", 3, "accepted 1..2");
    cr_expect_eq(default_threads(t), 2);
    pb_list counts;
    pb_topo_thread_counts(t, &counts);
    cr_expect_eq(counts.n, 2);
    cr_expect_eq(counts.v[0], 1);
    cr_expect_eq(counts.v[1], 2);
    pb_topo_free(t);
}

Test(topo, explicit_lists)
{
    pb_topo *t = load("hybrid-4p4e.xml");
    EXPECT_SET(t, "0-3,8", "0-3,8");
    EXPECT_SET(t, "8,0-3", "0-3,8");
    EXPECT_SET(t, "11", "11");
    /* Placement treats a list like any set: a core each first. */
    EXPECT_PLACE(t, "0-3,8", 3, "0,2,8");
    EXPECT_PLACE(t, "0-3,8", 5, "0,2,8,1,3");
    EXPECT_ERR(t, "0-3,12", 1, "cpu 12 not available");
    EXPECT_ERR(t, "12-13,40", 1, "cpus 12,13,40 not available");
    EXPECT_ERR(t, "3-1", 1, "unknown cpu set '3-1'");
    EXPECT_ERR(t, "0,", 1, "unknown cpu set");
    EXPECT_ERR(t, "-1", 1, "unknown cpu set");
    EXPECT_ERR(t, "fast", 1, "unknown cpu set 'fast': accepted: all, smt, physical, p, e, p+e, numa:N");
    EXPECT_ERR(t, "", 1, "empty cpu set name");
    EXPECT_ERR(t, "0-99999", 1, "unknown cpu set");
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
