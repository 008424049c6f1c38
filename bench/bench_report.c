/* bench_report DIR: reads a run directory's CSVs (whichever exist), draws every plot (PNG and SVG) and writes
 * DIR/report.md. A missing CSV is a line in the report, and a partial file a killed harness left stands in for
 * its CSV (the report says so at the top); a malformed CSV, a file that is not a regular one, or a malformed
 * numeric cell is reported with its file (line and column), left out, and makes the exit status 1 (as does a
 * plot that fails). Bad usage, a directory holding none of the CSVs, or a llama-bench file (DIR/llama-bench.*,
 * --engine FILE) that does not read: exit 2, nothing written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_cli.h"
#include "pb_digest.h"
#include "pb_engine.h"
#include "pb_exports.h"
#include "pb_repofile.h"
#include "pb_report.h"
#include "pb_results_json.h"
#include "pb_runcheck.h"

typedef struct report_job {
    const pb_rundata *rd;
    const pb_digest *d;
    const pb_plotlog *log;
    const char *refs; /* the reference runs' folder, NULL: none */
} report_job;

static void brep_write_report(FILE *f, const void *arg)
{
    const report_job *j = arg;
    pb_report_md(f, j->rd, j->d, j->log, j->refs);
}

/* Draws the plots of the kinds whose CSV is there under its own name: the plot scripts read DIR/<kind>.csv, so a
 * kind read from a partial file has nothing for them (the view shares rd's tables and is never freed as a run). */
static int brep_draw_plots(const pb_rundata *rd, bool draw, pb_plotlog *log)
{
    pb_rundata *view = malloc(sizeof *view);
    if (!view) {
        fprintf(stderr, "bench_report: out of memory\n");
        return 1;
    }
    memcpy(view, rd, sizeof *view);
    for (int k = 0; k < PB_K_COUNT; k++)
        if (view->src[k].state == PB_SRC_PARTIAL)
            view->src[k].state = PB_SRC_MISSING;
    int failed = pb_report_plots(view, draw, log);
    free(view);
    return failed;
}

/* --check DIR: exit 0 when DIR matches the schemas, 1 with one line per problem, 2 when DIR is not a directory. */
static int brep_check_dir(const char *dir)
{
    int problems = pb_check_run_dir(stdout, dir, "");
    if (problems > 0)
        fprintf(stderr, "bench_report: %s: %d problem%s\n", dir, problems, problems == 1 ? "" : "s");
    else if (problems == 0)
        printf("%s: every CSV matches its schema\n", dir);
    return problems < 0 ? 2 : problems > 0;
}

/* --header FILE: the schema's header line of a CSV kind by its file name (scripts/likwid_compare.sh writes its
 * CSV with it). */
static int brep_print_header(const char *file)
{
    for (int k = 0; k < PB_SCHEMA_COUNT; k++)
        if (strcmp(pb_schema_get((pb_kind)k)->file, file) == 0) {
            printf("%s\n", pb_schema_header((pb_kind)k));
            return 0;
        }
    fprintf(stderr, "bench_report: --header: '%s' is not a CSV a harness writes (likwid_compare.csv, sweep.csv, ...)\n",
            file);
    return 2;
}

/* --help's text under the usage line. */
static const char SUMMARY[] =
    "Reads DIR's CSVs (pool_overhead, memory_floor, token_floor, kernels, sweep, cpu_util, overlap,\n"
    "machine), draws every plot with plots/*.gp (PNG and SVG) and writes DIR/report.md; llama-bench's\n"
    "results in DIR (llama-bench.*) or --engine FILE are placed beside the floor.\n"
    "exit: 0 ok; 1 report written but a CSV or a cell was malformed or a plot failed; 2 bad usage, a\n"
    "      llama-bench file that does not read, or DIR is not a run directory (none of those CSVs, nor a\n"
    "      partial file of one)";

/* The command line: the report of one run directory, or one of the modes that stand alone. */
typedef struct report_args {
    const char *dir, *check, *header; /* DIR; --check DIR; --header FILE */
    const char *engine;               /* --engine FILE: llama-bench's results beside DIR's */
    const char *refs;                 /* --refs DIR: the reference runs; "none": no section */
    bool no_plots, schema_md;
} report_args;

/* The modes given: --check, --header, --schema-md. */
static int brep_modes_of(const report_args *a)
{
    return (a->check != NULL) + (a->header != NULL) + a->schema_md;
}

/* The command line into a, through pb_cli (DIR may come before or after --no-plots; no POOLBENCH_* variable
 * applies: this is no harness). PB_CLI_GO, or the exit status (0 after --help; 2 after bad usage, said in one
 * line). */
static int brep_parse_args(int argc, char **argv, report_args *a)
{
    *a = (report_args){ 0 };
    const pb_opt opts[] = {
        { .name = "no-plots", .kind = PB_OPT_FLAG, .dest = &a->no_plots, .env = "",
          .help = "do not (re)draw plots; embed the PNGs already there" },
        { .name = "check", .kind = PB_OPT_STRING, .dest = &a->check, .metavar = "DIR", .env = "",
          .help = "check DIR's CSVs against their schemas (header, rows, each cell; machine.csv's keys; every file "
                  "of a harness that ran; no partial file): one line per problem, exit 1 on any; stands alone" },
        { .name = "schema-md", .kind = PB_OPT_FLAG, .dest = &a->schema_md, .env = "",
          .help = "print the CSV columns as Markdown tables (docs/csv.md); stands alone" },
        { .name = "header", .kind = PB_OPT_STRING, .dest = &a->header, .metavar = "FILE", .env = "",
          .help = "print the header line of the CSV called FILE (likwid_compare.csv, ...); stands alone" },
        { .name = "engine", .kind = PB_OPT_STRING, .dest = &a->engine, .metavar = "FILE", .env = "",
          .help = "llama-bench's results (its csv, json, jsonl, sql or md output) to place beside the floor, besides "
                  "DIR's llama-bench.* files; a bad one is exit 2" },
        { .name = "refs", .kind = PB_OPT_STRING, .dest = &a->refs, .metavar = "DIR", .env = "POOLBENCH_REFS",
          .help = "a folder of reference run directories to place this run among (default: the repository's refs/; "
                  "none: leave the section out)" },
        { 0 },
    };
    int first, rc = pb_cli_parse_tool("bench_report", "DIR", SUMMARY, opts, argc, argv, &first);
    if (rc != PB_CLI_GO)
        return rc;
    int modes = brep_modes_of(a), args = argc - first;
    if (modes && (modes > 1 || args || a->no_plots || a->engine))
        fprintf(stderr, "bench_report: --check, --schema-md and --header stand alone (usage: bench_report --check "
                        "DIR | --schema-md | --header FILE)\n");
    else if (!modes && args == 0)
        fprintf(stderr,
                "bench_report: no run directory given (usage: bench_report [--no-plots] [--engine FILE] DIR)\n");
    else if (!modes && args > 1)
        fprintf(stderr, "bench_report: unexpected argument '%s' (accepted: [--no-plots] [--engine FILE] DIR)\n",
                argv[first + 1]);
    else
        a->dir = args ? argv[first] : NULL;
    return a->dir || (modes == 1 && !args && !a->no_plots && !a->engine) ? PB_CLI_GO : 2;
}

/* A mode that stands alone: its exit status. */
static int brep_run_mode(const report_args *a)
{
    if (a->check)
        return brep_check_dir(a->check);
    if (a->header)
        return brep_print_header(a->header);
    pb_schema_markdown(stdout); /* --schema-md: docs/csv.md's tables */
    return 0;
}

/* DIR/results.json: the run's points in Google Benchmark's JSON format, then the same points for Bencher and
 * github-action-benchmark (pb_exports.h). 0, or 1 after saying why not. */
static int brep_write_results_json(const pb_rundata *rd, const char *dir)
{
    pb_points ps;
    char path[4200];
    snprintf(path, sizeof path, "%s/results.json", dir);
    int rc = pb_points_of_run(&ps, rd) == 0 ? pb_results_json(path, rd, &ps) : -1;
    if (rc != 0)
        fprintf(stderr, "bench_report: cannot write %s: %s\n", path, strerror(errno));
    else
        printf("results: %s (%zu benchmarks)\n", path, ps.n);
    if (rc == 0 && pb_exports_write(dir, &ps) != 0) {
        fprintf(stderr, "bench_report: cannot write the dashboard exports in %s: %s\n", dir, strerror(errno));
        rc = -1;
    } else if (rc == 0) {
        printf("exports: %s/%s, %s, %s (Bencher; github-action-benchmark)\n", dir, PB_EXPORT_BENCHER,
               PB_EXPORT_BIGGER, PB_EXPORT_SMALLER);
    }
    pb_points_free(&ps);
    return rc != 0;
}

/* The reference runs' folder: --refs DIR (checked: a directory, else said in one line and buf + 1 returned), the
 * repository's refs/ found beside the programs, or NULL for none. */
static const char *brep_refs_dir(const char *opt, char *buf, size_t len)
{
    struct stat st;
    if (opt && strcmp(opt, "none") == 0)
        return NULL;
    if (opt) {
        if (stat(opt, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "bench_report: --refs %s: not a directory; a folder of run directories, or none, is "
                            "accepted\n", opt);
            return buf + 1;
        }
        return opt;
    }
    if (pb_repo_file(NULL, "refs", "README.md", buf, len) != 0)
        return NULL;
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    return slash ? buf : ".";
}

int main(int argc, char **argv)
{
    report_args a;
    int rc = brep_parse_args(argc, argv, &a);
    if (rc != PB_CLI_GO)
        return rc;
    if (!a.dir)
        return brep_run_mode(&a);
    const char *dir = a.dir;
    bool draw = !a.no_plots;
    char refs_buf[4200];
    const char *refs = brep_refs_dir(a.refs, refs_buf, sizeof refs_buf);
    if (refs == refs_buf + 1)
        return 2;
    pb_rundata rd;
    char err[4200];
    if (pb_rundata_load(&rd, dir, err, sizeof err) != 0) {
        fprintf(stderr, "bench_report: %s\n", err);
        return 2;
    }
    if (pb_engines_load(&rd, a.engine, err, sizeof err) != 0) {
        fprintf(stderr, "bench_report: %s\n", err);
        pb_rundata_free(&rd);
        return 2;
    }
    pb_rundata_print_problems(stderr, &rd, "bench_report", "left out of the report");
    if (pb_rundata_incomplete(&rd))
        fprintf(stderr, "bench_report: %s is an incomplete run (report.md says what is missing at its top)\n", dir);
    pb_digest d;
    pb_digest_run(&d, &rd);
    pb_plotlog log;
    int failed = brep_draw_plots(&rd, draw, &log);
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    report_job job = { &rd, &d, &log, refs };
    if (pb_write_file(path, brep_write_report, &job) != 0) {
        fprintf(stderr, "bench_report: cannot write %s: %s\n", path, strerror(errno));
        pb_rundata_free(&rd);
        return 1;
    }
    printf("report: %s\n", path);
    failed |= brep_write_results_json(&rd, dir);
    int bad = pb_rundata_bad(&rd);
    pb_rundata_free(&rd);
    return bad || failed ? 1 : 0;
}
