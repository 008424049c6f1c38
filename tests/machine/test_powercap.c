/* test_powercap.c — the powercap tree read from a fixture directory (tests/data/powercap: one package with core
 * and dram sub-zones, and psys), counters that wrap, and the reasons given where there are no readable zones. */
#include "pb_machine.h"
#include "pb_powercap.h"
#include "test_files.h"

#include <criterion/criterion.h>
#include <math.h>
#include <sys/stat.h>

#define FIXTURE "tests/data/powercap"

/* A copy of the fixture in a scratch directory, so a test can rewrite its counters. */
static void copy_fixture(char *dir, size_t len)
{
    tf_tmpdir(dir, len, "powercap");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp -r " FIXTURE "/. '%s'/", dir);
    cr_assert_eq(system(cmd), 0);
}

/* copy_fixture, opened into pc: its 4 zones. */
static void open_copy(char *dir, size_t len, pb_powercap *pc, char *why, size_t whylen)
{
    copy_fixture(dir, len);
    cr_assert_eq(pb_powercap_open(pc, dir, why, whylen), 4, "%s", why);
}

static void write_counter(const char *dir, const char *zone, const char *value)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/energy_uj", dir, zone);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fprintf(f, "%s\n", value);
    fclose(f);
}

Test(powercap, zones_of_the_fixture_in_order)
{
    pb_powercap pc;
    char why[256] = "";
    cr_assert_eq(pb_powercap_open(&pc, FIXTURE, why, sizeof why), 4, "%s", why);
    cr_expect_str_eq(pc.zone[0].dir, "intel-rapl:0");
    cr_expect_str_eq(pc.zone[0].name, "package-0");
    cr_expect_str_eq(pc.zone[1].name, "core");
    cr_expect_str_eq(pc.zone[2].name, "dram");
    cr_expect_eq(pc.zone[2].max_range_uj, 65712999613ull);
    cr_expect_str_eq(pc.zone[3].name, "psys");
}

Test(powercap, joules_between_two_readings_and_across_a_wrap)
{
    char dir[256], why[256] = "";
    pb_powercap pc;
    open_copy(dir, sizeof dir, &pc, why, sizeof why);
    pb_powercap_sample a, b;
    cr_assert_eq(pb_powercap_read(&pc, &a, why, sizeof why), 0, "%s", why);
    write_counter(dir, "intel-rapl:0", "3500000");   /* +2.5 J */
    write_counter(dir, "intel-rapl:0:1", "100");     /* wrapped: 65712999613 - 200000 + 1 + 100 uJ */
    cr_assert_eq(pb_powercap_read(&pc, &b, why, sizeof why), 0, "%s", why);
    cr_expect_float_eq(pb_powercap_joules_of(&pc, "package", &a, &b, 1000, why, sizeof why), 2.5, 1e-9);
    cr_expect_float_eq(pb_powercap_joules_of(&pc, "dram", &a, &b, 1000, why, sizeof why), (65712999613.0 - 200000 + 1 + 100) * 1e-6, 1e-6);
    cr_expect_float_eq(pb_powercap_joules_of(&pc, "psys", &a, &b, 1000, why, sizeof why), 0.0, 1e-12);
    cr_expect(isnan(pb_powercap_joules_of(&pc, "uncore", &a, &b, 1000, why, sizeof why)), "a zone the tree lacks is NAN, not 0 J");
}

/* A counter that stepped back far from its range's top is no wrap: 262 kJ in a second would be 262 kW. It once
 * gave watts_package 33,045 unmarked. */
Test(powercap, a_counter_that_steps_back_far_from_its_top_gives_no_joules)
{
    char dir[256], why[512] = "";
    pb_powercap pc;
    open_copy(dir, sizeof dir, &pc, why, sizeof why);
    pb_powercap_sample a, b;
    write_counter(dir, "intel-rapl:0", "9000000000");
    cr_assert_eq(pb_powercap_read(&pc, &a, why, sizeof why), 0, "%s", why);
    write_counter(dir, "intel-rapl:0", "4000000000");
    cr_assert_eq(pb_powercap_read(&pc, &b, why, sizeof why), 0, "%s", why);
    why[0] = '\0';
    cr_expect(isnan(pb_powercap_joules_of(&pc, "package", &a, &b, 1.0, why, sizeof why)), "no joules");
    cr_expect(strstr(why, "package-0") && strstr(why, "left empty"), "the reason names the zone: %s", why);
    why[0] = '\0';
    cr_expect_float_eq(pb_powercap_joules_of(&pc, "psys", &a, &b, 1.0, why, sizeof why), 0.0, 1e-12);
    cr_expect_str_eq(why, "", "a zone that did not step back says nothing");
}

/* Zone names reach the console and machine.csv: control bytes (CR, ESC) become '?'. Past the table's 32 zones
 * the first by directory name are kept, package-0 among them, and the machine facts say how many were left. */
Test(powercap, names_are_printable_and_a_crowded_tree_keeps_its_packages)
{
    char dir[256], sub[512], why[512] = "";
    tf_tmpdir(dir, sizeof dir, "powercap40");
    for (int i = 39; i >= 0; i--) {
        snprintf(sub, sizeof sub, "%s/intel-rapl:%d", dir, i);
        cr_assert_eq(mkdir(sub, 0755), 0);
        snprintf(sub, sizeof sub, "intel-rapl:%d/name", i);
        char name[32];
        snprintf(name, sizeof name, i == 0 ? "package-0\r\033[2J" : "zone-%d", i);
        tf_write(dir, sub, name);
        snprintf(sub, sizeof sub, "intel-rapl:%d/energy_uj", i);
        tf_write(dir, sub, "100\n");
        snprintf(sub, sizeof sub, "intel-rapl:%d/max_energy_range_uj", i);
        tf_write(dir, sub, "262143328850\n");
    }
    pb_powercap pc;
    cr_assert_eq(pb_powercap_open(&pc, dir, why, sizeof why), PB_POWERCAP_MAX_ZONES, "%s", why);
    cr_expect_eq(pc.nfound, 40);
    cr_expect_str_eq(pc.zone[0].dir, "intel-rapl:0");
    cr_expect_str_eq(pc.zone[0].name, "package-0??[2J");
    pb_machine m;
    memset(&m, 0, sizeof m);
    setenv("POOLBENCH_POWERCAP", dir, 1);
    pb_machine_os(&m, 0);
    cr_expect(strstr(m.energy, "package-0??[2J") && strstr(m.energy, "the first 32 of 40 zones"), "%s", m.energy);
    unsetenv("POOLBENCH_POWERCAP");
    cr_assert_eq(tf_rmrf(dir), 0);
}

Test(powercap, delta_of_a_wrapping_counter)
{
    cr_expect_eq(pb_powercap_delta_uj(10, 25, 100), 15u);
    cr_expect_eq(pb_powercap_delta_uj(90, 5, 100), 16u, "90 -> 100 is 10, -> 0 is 1, -> 5 is 5");
    cr_expect_eq(pb_powercap_delta_uj(200, 5, 100), 0u, "a reading above the range is not unwrapped");
}

Test(powercap, no_tree_and_no_zone_say_why)
{
    pb_powercap pc;
    char why[256] = "";
    cr_expect_eq(pb_powercap_open(&pc, "/nonexistent-powercap", why, sizeof why), -1);
    cr_expect(strstr(why, "no RAPL driver"), "%s", why);
    char dir[256];
    tf_tmpdir(dir, sizeof dir, "powercap-empty");
    cr_expect_eq(pb_powercap_open(&pc, dir, why, sizeof why), -1);
    cr_expect(strstr(why, "holds no RAPL zone"), "%s", why);
}

Test(powercap, an_unreadable_or_malformed_counter_is_refused)
{
    char dir[256];
    copy_fixture(dir, sizeof dir);
    pb_powercap pc;
    char why[256] = "";
    write_counter(dir, "intel-rapl:0:0", "12abc");
    cr_expect_eq(pb_powercap_open(&pc, dir, why, sizeof why), -1);
    cr_expect(strstr(why, "intel-rapl:0:0/energy_uj"), "%s", why);
    write_counter(dir, "intel-rapl:0:0", "12");
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/intel-rapl:1/energy_uj", dir);
    cr_assert_eq(unlink(fifo), 0);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_expect_eq(pb_powercap_open(&pc, dir, why, sizeof why), -1, "a FIFO is refused, never waited on");
    cr_expect(strstr(why, "intel-rapl:1/energy_uj"), "%s", why);
}

Test(powercap, the_environment_names_the_tree)
{
    setenv("POOLBENCH_POWERCAP", FIXTURE, 1);
    pb_powercap pc;
    char why[256] = "";
    cr_expect_eq(pb_powercap_open(&pc, NULL, why, sizeof why), 4, "%s", why);
}

Test(powercap, machine_facts_name_the_zones_or_say_why_not)
{
    pb_machine m;
    memset(&m, 0, sizeof m);
    setenv("POOLBENCH_POWERCAP", FIXTURE, 1);
    pb_machine_os(&m, 0);
    cr_expect_str_eq(m.energy, "package-0 core dram psys");
    setenv("POOLBENCH_POWERCAP", "/nonexistent-powercap", 1);
    pb_machine_os(&m, 0);
    cr_expect(strstr(m.energy, "no RAPL driver"), "%s", m.energy);
}
