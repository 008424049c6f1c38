/* The thresholds and tunables in one table: its values are the macros the code uses, every run's machine.csv
 * echoes it, and report.md's noise section lists it (and says where a run's machine.csv had other values). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kern.h"
#include "pb_machine.h"
#include "pb_tunings.h"
#include "pool.h"
#include "report_fixture.h"

Test(tuning, table_holds_the_values_the_code_uses)
{
    static const struct {
        const char *key;
        double value;
    } want[] = {
        { "threshold_far_rt_ns", PB_FAR_RT_NS },
        { "threshold_hidden_smt_rt_ns", PB_HIDDEN_SMT_RT_NS },
        { "tuning_weighted_ewma", PB_WEIGHTED_EWMA },
        { "tuning_weighted_deadband", PB_WEIGHTED_DEADBAND },
        { "tuning_sweep_dynamic_rows", PB_SWEEP_DYNAMIC_ROWS },
        { "threshold_noisy_spread", PB_NOISY_SPREAD },
        { "threshold_memory_bound_pct", PB_MEMORY_BOUND_PCT },
        { "threshold_saturated_factor", PB_SATURATED_FACTOR },
        { "threshold_asleep_factor", PB_ASLEEP_FACTOR },
        { "threshold_imbalance_points", PB_IMBALANCE_POINTS },
        { "threshold_loaded_per_cpu", PB_LOADED_PER_CPU },
        { "tuning_pool_spins_before_yield", POOL_SPINS_BEFORE_YIELD },
        { "tuning_pool_oversubscribed_spin_us", POOL_OVERSUBSCRIBED_SPIN_US },
        { "tuning_kern_prefetch_bytes", KERN_PREFETCH_BYTES },
        { "threshold_tune_min_gain", PB_TUNE_MIN_GAIN },
        { "tuning_tune_confirm_rounds", PB_TUNE_CONFIRM_ROUNDS },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const pb_tuning *t = pb_tuning_find(want[i].key);
        cr_assert_not_null(t, "%s is in the table", want[i].key);
        cr_expect_eq(t->value, want[i].value, "%s: %g, the code uses %g", want[i].key, t->value, want[i].value);
    }
    cr_expect_eq(pb_tuning_find("threshold_far_rt_ns")->value, 200);
    cr_expect_eq(PB_NOISY_SPREAD, 0.25);
    cr_expect_str_eq(PB_NOISY_NOTE, "  (noisy: spread > 25%)", "the note prints the limit it tests");
    cr_expect_null(pb_tuning_find("threshold_nope"));
    for (const pb_tuning *t = pb_tunings; t->key; t++) {
        cr_expect(strncmp(t->key, "threshold_", 10) == 0 || strncmp(t->key, "tuning_", 7) == 0, "%s", t->key);
        cr_expect(t->unit && *t->unit && t->why && *t->why, "%s has a unit and a why", t->key);
        cr_expect_eq(pb_tuning_find(t->key), t, "%s once", t->key);
    }
}

static const char *machine_csv(pb_machine *m, char *dir)
{
    char err[256] = "";
    cr_assert(mkdtemp(dir));
    cr_assert_eq(pb_machine_write_csv(m, dir, "run-1", err, sizeof err), 0, "%s", err);
    return tf_slurp("%s/machine.csv", dir);
}

Test(tuning, echoed_into_machine_csv)
{
    pb_machine m;
    memset(&m, 0, sizeof m);
    m.tunings = pb_tunings;
    char dir[] = "/tmp/pb_tuning_XXXXXX";
    const char *csv = machine_csv(&m, dir);
    cr_expect(strstr(csv, "\nthreshold_far_rt_ns,200\n"), "%s", csv);
    cr_expect(strstr(csv, "\nthreshold_noisy_spread,0.25\n"), "%s", csv);
    cr_expect(strstr(csv, "\nthreshold_saturated_factor,1.2\n"), "%s", csv);
    cr_expect(strstr(csv, "\ntuning_pool_spins_before_yield,32768\n"), "%s", csv);
    cr_expect(strstr(csv, "\ntuning_kern_prefetch_bytes,1536\n"), "%s", csv);
    for (const pb_tuning *t = pb_tunings; t->key; t++)
        cr_expect(strstr(csv, t->key), "%s echoed", t->key);
    char path[64];
    snprintf(path, sizeof path, "%s/machine.csv", dir);
    unlink(path);
    rmdir(dir);
}

Test(tuning, none_without_a_table)
{
    pb_machine m;
    memset(&m, 0, sizeof m);
    char dir[] = "/tmp/pb_tuning_XXXXXX";
    const char *csv = machine_csv(&m, dir);
    cr_expect_null(strstr(csv, "threshold_"), "%s", csv);
    char path[64];
    snprintf(path, sizeof path, "%s/machine.csv", dir);
    unlink(path);
    rmdir(dir);
}

Test(tuning, listed_in_the_reports_noise_section)
{
    char dir[256], out[8192];
    copy_fixture("complete", dir, sizeof dir);
    /* The run was tagged with another far cut than this build's: the report says so. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "printf 'threshold_far_rt_ns,250\\n' >> %s/machine.csv", dir);
    cr_assert_eq(sh(out, sizeof out, "%s", cmd), 0, "%s", out);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    const char *md = tf_slurp("%s/report.md", dir);
    const char *noise = strstr(md, "## Noise");
    cr_assert_not_null(noise, "%s", md);
    tf_expect_has(noise, "Judged by these thresholds (machine.csv, keys threshold",
                  "): far_rt_ns 200 ns; noisy_spread 0.25 fraction of median; memory_bound_pct 85 % of floor;",
                  "This run's machine.csv has threshold_far_rt_ns 250",
                  "Run with these tunables (machine.csv, keys tuning",
                  "): pool_default_idle_us 5000 us; pool_default_spin_us 50 us;");
    drop_fixture(dir);
}
