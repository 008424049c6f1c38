/* Machine identity: libcpuid on raw CPUID dumps of machines we do not have (the .raw files in tests/data), merged with
 * hwloc fixtures; the context header's warnings; machine.csv; the live probe restoring the thread's affinity. */
#include <criterion/criterion.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_machine.h"
#include "test_files.h"
#include "topo_fixture.h"

/* libcpuid exists on x86-64 builds only (arm64's identity is test_cpuinfo.c's): elsewhere the test is skipped. */
static void from_dump(pb_machine *m, const char *file)
{
#if defined(__x86_64__)
    char path[256], err[256] = "";
    snprintf(path, sizeof path, "tests/data/%s", file);
    cr_assert_eq(pb_machine_cpuid(m, path, err, sizeof err), 0, "%s: %s", path, err);
#else
    (void)m;
    cr_skip_test("%s is a raw CPUID dump for libcpuid, which x86-64 builds only link", file);
#endif
}

/* The header as a string (caller frees). */
static char *header(const pb_machine *m)
{
    tf_mem t;
    pb_machine_print_header(m, tf_mem_open(&t));
    return tf_mem_text(&t);
}

Test(machine, alder_lake_dump_has_performance_and_efficiency_types)
{
    pb_machine m;
    from_dump(&m, "alder-lake-i9-12900k.raw");
    cr_expect_str_eq(m.vendor, "GenuineIntel");
    cr_expect(strstr(m.brand, "i9-12900K"), "brand '%s'", m.brand);
    cr_expect_eq(m.ext_family, 6);
    cr_expect_eq(m.ext_model, 151);
    cr_expect(!m.hypervisor);
    cr_assert_eq(m.nkinds, 2);
    cr_expect_str_eq(m.kind[0].purpose, "performance");
    cr_expect_eq(m.kind[0].cores, 8);
    cr_expect_eq(m.kind[0].pus, 16);
    cr_expect_eq(m.kind[0].l1d_kb, 48);
    cr_expect_eq(m.kind[0].l2_kb, 1280);
    cr_expect_str_eq(m.kind[1].purpose, "efficiency");
    cr_expect_eq(m.kind[1].cores, 8);
    cr_expect_eq(m.kind[1].pus, 8);
    cr_expect_eq(m.kind[1].l2_kb, 2048);
    cr_expect_eq(m.schema, PB_SCHEMA_VERSION);
}

Test(machine, epyc_dump_is_amd_family_25_under_a_hypervisor)
{
    pb_machine m;
    from_dump(&m, "kvm-epyc-zen4-2c.raw");
    cr_expect_str_eq(m.vendor, "AuthenticAMD");
    cr_expect_eq(m.ext_family, 25);
    cr_expect_eq(m.ext_model, 17);
    cr_expect(m.hypervisor);
    cr_expect_str_neq(m.hypervisor_name, "none");
    cr_assert_eq(m.nkinds, 1);
    cr_expect_str_eq(m.kind[0].purpose, "general");
}

#if defined(__x86_64__)
Test(machine, bad_dump_is_an_error)
{
    pb_machine m;
    char err[256] = "";
    cr_expect_eq(pb_machine_cpuid(&m, "tests/data/no-such.raw", err, sizeof err), -1);
    cr_expect(strstr(err, "no-such.raw"), "%s", err);
}
#endif

Test(machine, merge_takes_hwloc_counts_and_caches)
{
    pb_machine m;
    from_dump(&m, "alder-lake-i9-12900k.raw");
    pb_topo *t = load("hybrid-4p4e-caches.xml");
    pb_machine_merge_topo(&m, t);
    cr_assert_eq(m.nkinds, 2);
    cr_expect_str_eq(m.kind[0].purpose, "performance");
    cr_expect_str_eq(m.kind[0].core_type, "IntelCore");
    cr_expect_eq(m.kind[0].cores, 4);
    cr_expect_eq(m.kind[0].pus, 8);
    cr_expect_eq(m.kind[0].max_mhz, 5200);
    cr_expect_eq(m.kind[0].l2_kb, 1280); /* libcpuid's per-type cache survives */
    cr_expect_str_eq(m.kind[1].core_type, "IntelAtom");
    cr_expect_eq(m.kind[1].pus, 4);
    cr_expect_eq(m.cores, 8);
    cr_expect_eq(m.pus, 12);
    cr_expect_eq(m.memory, 16ull << 30);
    cr_assert_eq(m.ncaches, 3);
    cr_expect_eq(m.cache[1].bytes[0], 1310720u);
    char *h = header(&m);
    cr_expect(strstr(h, "family 6, model 151"), "%s", h);
    cr_expect(strstr(h, "performance: 4 cores, 8 PUs, IntelCore, max 5200 MHz"), "%s", h);
    cr_expect(strstr(h, "L2  1.25 MiB per 2 PUs (performance), 2 MiB per 4 PUs (efficiency); 5 in all, 7 MiB"), "%s",
              h);
    cr_expect(strstr(h, "L3  30 MiB per 12 PUs"), "%s", h);
    free(h);
    pb_topo_free(t);
}

Test(machine, merge_with_other_kinds_names_purpose_by_rank)
{
    pb_machine m;
    from_dump(&m, "kvm-epyc-zen4-2c.raw"); /* one libcpuid type, two hwloc kinds */
    pb_topo *t = load("apple-6p4e.xml");
    pb_machine_merge_topo(&m, t);
    cr_assert_eq(m.nkinds, 2);
    cr_expect_str_eq(m.kind[0].purpose, "performance");
    cr_expect_eq(m.kind[0].cores, 6);
    cr_expect_str_eq(m.kind[1].purpose, "efficiency");
    cr_expect_eq(m.kind[1].cores, 4);
    cr_expect_eq(m.kind[1].l2_kb, -1);
    pb_topo_free(t);
}

static pb_machine quiet_machine(void)
{
    pb_machine m = { .schema = PB_SCHEMA_VERSION, .pus = 2, .load = { 0.2, 0.1, 0.1 } };
    snprintf(m.governor, sizeof m.governor, "performance");
    snprintf(m.hypervisor_name, sizeof m.hypervisor_name, "none");
    return m;
}

Test(machine, warnings)
{
    char lines[8][192];
    pb_machine m = quiet_machine();
    cr_expect_eq(pb_machine_warnings(&m, lines, 8), 0);
    m.load[0] = 1.0; /* exactly 0.5 per cpu: not above */
    cr_expect_eq(pb_machine_warnings(&m, lines, 8), 0);
    m.load[0] = 1.2;
    cr_assert_eq(pb_machine_warnings(&m, lines, 8), 1);
    cr_expect(strstr(lines[0], "load average 1.20 is above 0.5 per cpu (2 cpus)"), "%s", lines[0]);
    m.hypervisor = true;
    snprintf(m.hypervisor_name, sizeof m.hypervisor_name, "KVMKVMKVM");
    snprintf(m.governor, sizeof m.governor, "powersave");
    char *h = header(&m);
    cr_expect_eq(tf_count(h, "***WARNING***"), 3, "%s", h);
    cr_expect(strstr(h, "***WARNING*** running under a hypervisor (KVMKVMKVM)"), "%s", h);
    cr_expect(strstr(h, "governor is 'powersave', not 'performance'"), "%s", h);
    free(h);
    /* An unreadable governor is said, not warned about. */
    m = quiet_machine();
    m.governor[0] = '\0';
    h = header(&m);
    cr_expect_eq(tf_count(h, "WARNING"), 0, "%s", h);
    cr_expect(strstr(h, "governor    unreadable"), "%s", h);
    free(h);
}

/* hwloc's NUMA nodes and the OS kernel's count: the machine line names both only where they part (a VM's balloon:
 * 15.8 against 23.6 GiB on the development VM), and buffers are sized by the kernel's. */
Test(machine, memory_of_the_nodes_and_of_the_kernel)
{
    pb_machine m = quiet_machine();
    m.memory = 16ull << 30;
    m.os_memory = 24ull << 30;
    char *h = header(&m);
    cr_expect(strstr(h, "16 GiB memory (hwloc's NUMA nodes; the OS kernel counts 24 GiB)\n"), "%s", h);
    free(h);
    cr_expect_eq(pb_machine_alloc_bytes(&m), 24ull << 30);
    m.os_memory = (16ull << 30) + (200ull << 20); /* 1.2% apart: one figure */
    h = header(&m);
    cr_expect(strstr(h, "16 GiB memory\n"), "%s", h);
    free(h);
    m.os_memory = 0; /* unknown: hwloc's */
    cr_expect_eq(pb_machine_alloc_bytes(&m), 16ull << 30);
}

Test(machine, csv)
{
    char dir[128], path[160], err[256] = "";
    tf_tmpdir(dir, sizeof dir, "pb_machine");
    pb_machine m;
    from_dump(&m, "kvm-epyc-zen4-2c.raw");
    pb_topo *t = load("kvm-epyc-2c.xml");
    pb_machine_merge_topo(&m, t);
    snprintf(m.cflags, sizeof m.cflags, "-O1 -fsanitize=address,undefined");
    cr_assert_eq(pb_machine_write_csv(&m, dir, "run-1", err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/machine.csv", dir);
    const char *csv = tf_slurp("%s", path);
    cr_expect(strncmp(csv, "key,value\nrun_id,run-1\n", 23) == 0, "%s", csv);
    tf_expect_has(csv, "\nvendor,AuthenticAMD\n", "\next_family,25\n", "\nschema_version,4\n", "\nkind0_pus,2\n",
                  "\ncflags,\"-O1 -fsanitize=address,undefined\"\n");
    /* A harness joining the run finds it written already. */
    cr_expect_eq(pb_machine_write_csv(&m, dir, "run-1", err, sizeof err), 1);
    unlink(path);
    rmdir(dir);
    pb_topo_free(t);
}

/* Harnesses of one joined run start together: each writes machine.csv or finds it written, and none is refused
 * (once 5 of 15 tries ended "cannot write D/machine.csv: Device or resource busy": each saw the other's partial
 * file). Four writers are released at once through a pipe, 20 times. */
Test(machine, writers_of_one_run_starting_together_are_never_refused, .timeout = 60)
{
    pb_machine m;
    from_dump(&m, "kvm-epyc-zen4-2c.raw");
    for (int round = 0; round < 20; round++) {
        char dir[128], path[160];
        tf_tmpdir(dir, sizeof dir, "pb_join");
        int go[2];
        cr_assert_eq(pipe(go), 0);
        pid_t kid[4];
        for (int k = 0; k < 4; k++) {
            kid[k] = fork();
            cr_assert_geq(kid[k], 0);
            if (kid[k] == 0) {
                char err[256], c;
                close(go[1]);
                if (read(go[0], &c, 1) < 0)
                    _exit(3);
                int rc = pb_machine_write_csv(&m, dir, "run-1", err, sizeof err);
                _exit(rc < 0 ? 1 : 0);
            }
        }
        close(go[0]);
        close(go[1]); /* every reader wakes at once: end of file */
        for (int k = 0; k < 4; k++) {
            int st;
            cr_assert_eq(waitpid(kid[k], &st, 0), kid[k]);
            cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "round %d: writer %d refused", round, k);
        }
        snprintf(path, sizeof path, "%s/machine.csv", dir);
        cr_expect(strncmp(tf_slurp("%s", path), "key,value\nrun_id,run-1\n", 23) == 0, "written once, whole");
        cr_assert_eq(tf_rmrf(dir), 0);
    }
}

Test(machine, os_facts_and_git_without_git)
{
    pb_machine m = quiet_machine();
    setenv("PATH", "/nonexistent", 1); /* a fresh machine has no git */
    pb_machine_os(&m, 0);
    cr_expect_str_eq(m.git, "unknown");
    cr_expect(strncmp(m.compiler, "gcc ", 4) == 0 || strncmp(m.compiler, "clang ", 6) == 0, "%s", m.compiler);
    cr_expect(strstr(m.cflags, "-std=c11"), "the Makefile passes PB_CFLAGS: got '%s'", m.cflags);
    cr_expect(m.thp[0]);
    cr_expect(m.kernel[0]);
    cr_expect(m.isa[0]);
    cr_expect_gt(m.os_memory, 64ull << 20, "the kernel's count: %llu bytes", (unsigned long long)m.os_memory);
}

/* libcpuid pins the calling thread to every cpu in turn; the probe must give back the mask it found. */
Test(machine, live_probe_restores_affinity)
{
    cpu_set_t before, after, one;
    cr_assert_eq(sched_getaffinity(0, sizeof before, &before), 0);
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &before))
            first = c;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    char err[256] = "";
    pb_topo *t = pb_topo_load(NULL, err, sizeof err);
    cr_assert(t, "%s", err);
    pb_machine m;
    cr_expect_eq(pb_machine_probe(&m, t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sched_getaffinity(0, sizeof after, &after), 0);
    cr_expect(CPU_EQUAL(&after, &one), "affinity was cpu %d only, is now %d cpus%s", first, CPU_COUNT(&after),
              CPU_ISSET(first, &after) ? "" : " without it");
    cr_expect_gt(m.pus, 0);
    cr_expect_gt(m.nkinds, 0);
    cr_expect(m.vendor[0]);
    pb_topo_free(t);
}
