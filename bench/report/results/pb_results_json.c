/* pb_results_json.c — see pb_results_json.h. Every text from the run directory goes through pb_json_str. */
#include "pb_results_json.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_json.h"
#include "pb_report.h"

typedef struct json_job {
    const pb_rundata *rd;
    const pb_points *ps;
} json_job;

/* A machine.csv value as a number, def when absent or not a number. */
static double fact_num(const pb_rundata *rd, const char *key, double def)
{
    const char *v = pb_machine_value(rd, key);
    double x;
    return v && pb_parse_num(v, &x) == 0 ? x : def;
}

/* The run's date from its id (YYYYmmdd-HHMMSS, the run directory's stamp) in ISO 8601; "" when the id is not one. */
static void run_date(const pb_rundata *rd, char *buf, size_t len)
{
    const char *id = pb_machine_value(rd, PB_MKEY(run_id));
    int y, mo, d, h, mi, s;
    buf[0] = '\0';
    if (id && strlen(id) == 15 && sscanf(id, "%4d%2d%2d-%2d%2d%2d", &y, &mo, &d, &h, &mi, &s) == 6)
        snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s);
}

/* Caches of the first core kind, L1 to L4, as Google Benchmark lists them (L1 is the data cache). */
static void caches(FILE *f, const pb_rundata *rd)
{
    fputs("    \"caches\": [", f);
    int n = 0;
    for (int level = 1; level <= 4; level++) {
        char key[48], share[48];
        snprintf(key, sizeof key, "l%d_bytes_kind0", level);
        snprintf(share, sizeof share, "l%d_shared_by_kind0", level);
        double bytes = fact_num(rd, key, -1);
        if (bytes < 0)
            continue;
        fprintf(f, "%s\n      { \"type\": \"%s\", \"level\": %d, \"size\": ", n++ ? "," : "",
                level == 1 ? "Data" : "Unified", level);
        pb_json_num(f, bytes);
        fputs(", \"num_sharing\": ", f);
        pb_json_num(f, fact_num(rd, share, 1));
        fputs(" }", f);
    }
    fputs(n ? "\n    ],\n" : "],\n", f);
}

/* Every machine.csv fact as text, in file order. */
static void machine_facts(FILE *f, const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_MACHINE);
    int ck = t ? pb_table_col(t, PB_COL(MACHINE, key)) : -1, cv = t ? pb_table_col(t, PB_COL(MACHINE, value)) : -1;
    fputs("    \"poolbench\": {", f);
    for (size_t r = 0; t && r < t->nrows; r++) {
        fputs(r ? ",\n      " : "\n      ", f);
        pb_json_key(f, pb_table_str(t, r, ck));
        pb_json_str(f, pb_table_str(t, r, cv));
    }
    fputs(t && t->nrows ? "\n    }\n" : "}\n", f);
}

/* A debug build is one without optimisation: no -O, or -O0, in the flags the harnesses were built with. */
static const char *build_type(const pb_rundata *rd)
{
    const char *fl = pb_machine_value(rd, PB_MKEY(cflags));
    return !fl || strstr(fl, "-O0") || !strstr(fl, "-O") ? "debug" : "release";
}

static void context(FILE *f, const pb_rundata *rd)
{
    char date[40];
    run_date(rd, date, sizeof date);
    const char *gov = pb_machine_value(rd, PB_MKEY(governor));
    fputs("  \"context\": {\n    \"date\": ", f);
    pb_json_str(f, date);
    fputs(",\n    \"host_name\": ", f);
    pb_json_str(f, pb_machine_value(rd, PB_MKEY(host)));
    fputs(",\n    \"executable\": \"poolbench\",\n    \"num_cpus\": ", f);
    pb_json_num(f, fact_num(rd, PB_MKEY(pus), 0));
    fputs(",\n    \"mhz_per_cpu\": ", f);
    pb_json_num(f, fact_num(rd, "kind0_max_mhz", 0));
    /* Scaling is on when a governor is known and is not performance (Google Benchmark's own test). */
    bool scaling = gov && strcmp(gov, "performance") && strcmp(gov, "unreadable");
    fprintf(f, ",\n    \"cpu_scaling_enabled\": %s,\n", scaling ? "true" : "false");
    caches(f, rd);
    fputs("    \"load_avg\": [", f);
    pb_json_num(f, fact_num(rd, PB_MKEY(loadavg_1m), -1));
    fputs(", ", f);
    pb_json_num(f, fact_num(rd, PB_MKEY(loadavg_5m), -1));
    fputs(", ", f);
    pb_json_num(f, fact_num(rd, PB_MKEY(loadavg_15m), -1));
    fprintf(f, "],\n    \"library_build_type\": \"%s\",\n", build_type(rd));
    machine_facts(f, rd);
    fputs("  },\n", f);
}

/* One benchmark; family and instance: Google Benchmark's indices (compare.py sorts by them). */
static void benchmark(FILE *f, const pb_point *p, int family, int instance)
{
    fputs("    {\n      \"name\": ", f);
    pb_json_str(f, p->name);
    fputs(",\n      \"run_name\": ", f);
    pb_json_str(f, p->name);
    fprintf(f, ",\n      \"family_index\": %d,\n      \"per_family_instance_index\": %d,\n", family, instance);
    fprintf(f, "      \"run_type\": \"iteration\",\n      \"repetitions\": 1,\n      \"repetition_index\": 0,\n");
    fprintf(f, "      \"threads\": %d,\n      \"iterations\": ", p->threads > 0 ? p->threads : 1);
    pb_json_num(f, p->iterations);
    fputs(",\n      \"real_time\": ", f);
    pb_json_num(f, p->real_time);
    fputs(",\n      \"cpu_time\": ", f);
    pb_json_num(f, p->real_time);
    fprintf(f, ",\n      \"time_unit\": \"%s\"", p->unit ? p->unit : "ns");
    for (int i = 0; i < p->nfig; i++) {
        fputs(",\n      ", f);
        pb_json_key(f, p->fig[i].key);
        pb_json_num(f, p->fig[i].v);
    }
    fputs("\n    }", f);
}

/* One decode point's budget: its median token and the parts that add up to it (sweep.csv's budget_<part>_ms);
 * false when the row has no budget (an older sweep.csv). */
static bool budget_entry(FILE *f, const pb_table *t, const pb_point *p, bool first)
{
    double part[PB_BUDGET_NPARTS], token = pb_table_num(t, (size_t)p->row, pb_table_col(t, PB_COL(SWEEP, ms_per_token_median)));
    for (int k = 0; k < PB_BUDGET_NPARTS; k++) {
        int col = pb_table_col(t, pb_schema_name(PB_K_SWEEP, pb_budget_col((pb_budget_part)k)));
        part[k] = k == PB_BUDGET_roof && col < 0 ? 0 : pb_table_num(t, (size_t)p->row, col); /* before the roof: 0 */
        if (isnan(part[k]))
            return false;
    }
    fputs(first ? "\n    {\n      \"name\": " : ",\n    {\n      \"name\": ", f);
    pb_json_str(f, p->name);
    fputs(",\n      \"ms_per_token\": ", f);
    pb_json_num(f, token);
    fputs(",\n      \"parts_ms\": {", f);
    for (int k = 0; k < PB_BUDGET_NPARTS; k++) {
        fputs(k ? ", " : " ", f);
        pb_json_key(f, pb_budget_part_name((pb_budget_part)k));
        pb_json_num(f, part[k]);
    }
    fputs(" },\n      \"unexplained_pct\": ", f);
    pb_json_num(f, token > 0 ? 100.0 * part[PB_BUDGET_unexplained] / token : NAN);
    fputs("\n    }", f);
    return true;
}

/* The decode points' budgets, in the benchmarks' order: where each token's time went (pb_budget.h). */
static void budget(FILE *f, const json_job *j)
{
    const pb_table *t = pb_rundata_table(j->rd, PB_K_SWEEP);
    fputs(",\n  \"budget\": [", f);
    int n = 0;
    for (size_t i = 0; t && i < j->ps->n; i++) {
        const pb_point *p = &j->ps->p[i];
        if (strcmp(p->family, "decode") == 0 && p->row >= 0 && (size_t)p->row < t->nrows)
            n += budget_entry(f, t, p, n == 0);
    }
    fputs(n ? "\n  ]\n" : "]\n", f);
}

static void write_json(FILE *f, const void *arg)
{
    const json_job *j = arg;
    fputs("{\n", f);
    context(f, j->rd);
    fputs("  \"benchmarks\": [\n", f);
    int family = -1, instance = 0;
    for (size_t i = 0; i < j->ps->n; i++) {
        const pb_point *p = &j->ps->p[i];
        bool first_of_family = i == 0 || strcmp(p->family, j->ps->p[i - 1].family) != 0;
        family += first_of_family;
        instance = first_of_family ? 0 : instance + 1;
        if (i)
            fputs(",\n", f);
        benchmark(f, p, family, instance);
    }
    fputs(j->ps->n ? "\n  ]" : "  ]", f);
    budget(f, j);
    fputs("}\n", f);
}

int pb_results_json(const char *path, const pb_rundata *rd, const pb_points *ps)
{
    json_job job = { rd, ps };
    return pb_write_file(path, write_json, &job);
}
