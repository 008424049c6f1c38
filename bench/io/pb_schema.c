/* pb_schema.c — the tables of pb_schema.h, generated from its column lists, and the row writer. */
#include "pb_schema.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_md_escape.h"

/* One pb_column per X(...) entry; the name is the identifier's text, so it is spelled once, in the list. */
#define PB_COLUMN(n, t, f, u, r, m)                                                                                 \
    { .name = #n, .type = PB_T_##t, .fmt = f, .unit = u, .rule = PB_CELL_##r, .meaning = m },
/* The header line: ",a" ",b" ... concatenated at compile time; the schema points one past the leading comma. */
#define PB_HEADER_NAME(n, ...) "," #n

#define PB_SCHEMA_TABLE(K, LIST) static const pb_column cols_##K[] = { LIST(PB_COLUMN) };
PB_SCHEMA_TABLE(MACHINE, PB_MACHINE_COLS)
PB_SCHEMA_TABLE(POOL, PB_POOL_COLS)
PB_SCHEMA_TABLE(MEMORY, PB_MEMORY_COLS)
PB_SCHEMA_TABLE(TOKEN, PB_TOKEN_COLS)
PB_SCHEMA_TABLE(KERNELS, PB_KERNELS_COLS)
PB_SCHEMA_TABLE(SWEEP, PB_SWEEP_COLS)
PB_SCHEMA_TABLE(CPUUTIL, PB_CPUUTIL_COLS)
PB_SCHEMA_TABLE(OVERLAP, PB_OVERLAP_COLS)
PB_SCHEMA_TABLE(LIKWID, PB_LIKWID_COLS)
PB_SCHEMA_TABLE(LATENCY, PB_LATENCY_COLS)
PB_SCHEMA_TABLE(PAIRS, PB_PAIRS_COLS)
PB_SCHEMA_TABLE(ROOF, PB_ROOF_COLS)
PB_SCHEMA_TABLE(SWEEPUTIL, PB_SWEEPUTIL_COLS)
PB_SCHEMA_TABLE(SWEEPCPU, PB_SWEEPCPU_COLS)
PB_SCHEMA_TABLE(LLAMABENCH, PB_LLAMABENCH_COLS)
PB_SCHEMA_TABLE(MKEY, PB_MACHINE_KEYS)
PB_SCHEMA_TABLE(MKIND, PB_MACHINE_KIND_KEYS)
PB_SCHEMA_TABLE(MCACHE, PB_MACHINE_CACHE_KEYS)

/* RESULTS or SAMPLES: what a row is (pb_schema.sampled). */
#define PB_ROWS_RESULTS false
#define PB_ROWS_SAMPLES true
/* PB_SCHEMA_SINCE: a kind whose newest columns, from column old on, older runs lack (pb_schema.older). */
#define PB_SCHEMA_SINCE(K, f, h, rows, sums, old)                                                                   \
    [PB_K_##K] = { .kind = PB_K_##K, .file = f, .table = #K, .harness = h,                                          \
                   .header = (PB_##K##_COLS(PB_HEADER_NAME)) + 1, .cols = cols_##K, .ncols = PB_##K##_NCOLS,        \
                   .sampled = PB_ROWS_##rows, .sum = sums, .older = old }
#define PB_SCHEMA(K, f, h, rows, sums) PB_SCHEMA_SINCE(K, f, h, rows, sums, 0)

static const pb_sum sum_budget = { .total = PB_SWEEP_ms_per_token_median, .first = PB_SWEEP_budget_floor_ms,
                                   .n = PB_BUDGET_roof, .extra = PB_SWEEP_budget_roof_ms };

const pb_schema pb_schema_tables[PB_INPUT_COUNT] = {
    PB_SCHEMA(MACHINE, "machine.csv", "every harness", RESULTS, NULL),
    PB_SCHEMA(POOL, "pool_overhead.csv", "bench_pool_overhead", RESULTS, NULL),
    PB_SCHEMA(MEMORY, "memory_floor.csv", "bench_memory_floor", RESULTS, NULL),
    PB_SCHEMA(TOKEN, "token_floor.csv", "bench_memory_floor", RESULTS, NULL),
    PB_SCHEMA_SINCE(KERNELS, "kernels.csv", "bench_kernels", RESULTS, NULL,
                    PB_KERNELS_macs_per_byte), /* runs before the compute roof lack its three columns */
    PB_SCHEMA_SINCE(SWEEP, "sweep.csv", "bench_sweep", RESULTS, &sum_budget,
                    PB_SWEEP_prompt), /* runs before the prompt lack its five columns */
    PB_SCHEMA(CPUUTIL, "cpu_util.csv", "bench_cpu_util", SAMPLES, NULL),
    PB_SCHEMA(OVERLAP, "overlap.csv", "bench_overlap", RESULTS, NULL),
    PB_SCHEMA(LIKWID, "likwid_compare.csv", "scripts/likwid_compare.sh", RESULTS, NULL),
    PB_SCHEMA(LATENCY, "latency.csv", "bench_memory_floor --latency", RESULTS, NULL),
    PB_SCHEMA(ROOF, "roof.csv", "bench_kernels (its compute roof)", RESULTS, NULL), /* runs before it lack one */
    PB_SCHEMA(PAIRS, "pairs.csv", "bench_sweep --pair-s", SAMPLES, NULL), /* none where a block has one alternative */
    PB_SCHEMA(SWEEPUTIL, "cpu_util.csv", "bench_sweep", SAMPLES, NULL),
    PB_SCHEMA(SWEEPCPU, "sweep_cpu.csv", "bench_sweep", RESULTS, NULL),
    PB_SCHEMA(LLAMABENCH, "llama-bench.*", "llama.cpp's llama-bench; read by bench_report and bench_compare", RESULTS, NULL),
};

const pb_schema *pb_schema_get(pb_kind k) { return &pb_schema_tables[k]; }
const char *pb_schema_header(pb_kind k) { return pb_schema_tables[k].header; }
const char *pb_schema_name(pb_kind k, int col) { return pb_schema_tables[k].cols[col].name; }

int pb_schema_col(pb_kind k, const char *name)
{
    for (int c = 0; c < pb_schema_tables[k].ncols; c++)
        if (strcmp(pb_schema_tables[k].cols[c].name, name) == 0)
            return c;
    return -1;
}

#define PB_BUDGET_NAME(X, part, ...) [PB_BUDGET_##part] = #part,
static const char *const budget_names[PB_BUDGET_NPARTS] = { PB_BUDGET_PARTS(PB_BUDGET_NAME, ~)[PB_BUDGET_roof] =
                                                                "roof" };

int pb_budget_col(pb_budget_part part)
{
    return part == PB_BUDGET_roof ? PB_SWEEP_budget_roof_ms : PB_SWEEP_budget_floor_ms + (int)part;
}

const char *pb_budget_part_name(pb_budget_part part) { return budget_names[part]; }

const pb_column *pb_machine_key(int key) { return &cols_MKEY[key]; }
const pb_column *pb_machine_kind_key(int key) { return &cols_MKIND[key]; }
const pb_column *pb_machine_cache_key(int key) { return &cols_MCACHE[key]; }

/* ---------------------------------------------------------------- writing */

/* The format comes from the column's entry in the lists above, each a literal checked against its type by the
 * round-trip test (tests/io/test_schema.c); a format from anywhere else never reaches here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void pb_value_format(char *buf, size_t len, const pb_column *col, pb_value v)
{
    switch (col->type) {
    case PB_T_TEXT:
        snprintf(buf, len, "%s", v.s ? v.s : "");
        break;
    case PB_T_INT:
        snprintf(buf, len, col->fmt, v.i);
        break;
    case PB_T_U64:
        snprintf(buf, len, col->fmt, v.u);
        break;
    case PB_T_REAL:
        snprintf(buf, len, col->fmt, v.d);
        break;
    }
}
#pragma GCC diagnostic pop

void pb_value_print(FILE *f, const pb_column *col, pb_value v)
{
    char num[64]; /* the longest number a column's format prints: "%.4f" of 1e30 is 36 bytes */
    if (col->type == PB_T_TEXT) {
        pb_csv_field(f, v.s ? v.s : "");
        return;
    }
    pb_value_format(num, sizeof num, col, v);
    fputs(num, f);
}

void pb_csv_values(pb_csv *c, const pb_schema *s, const pb_value *v)
{
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f) {
        pb_csv_line(c, NULL); /* out of memory: the row is lost, and the file marked failed */
        return;
    }
    for (int i = 0; i < s->ncols; i++) {
        if (i)
            fputc(',', f);
        pb_value_print(f, &s->cols[i], v[i]);
    }
    bool ok = fclose(f) == 0;
    pb_csv_line(c, ok ? line : NULL);
    free(line);
}

/* ---------------------------------------------------------------- docs/csv.md's table */

static const char *const type_names[] = {
    [PB_T_TEXT] = "text", [PB_T_INT] = "integer", [PB_T_U64] = "integer", [PB_T_REAL] = "number",
};

static void markdown_head(FILE *f, const char *first)
{
    fprintf(f, "| %s | type | unit | meaning |\n|---|---|---|---|\n", first);
}

/* One table row per column; a machine key's name after its prefix (kindK_, lL_). */
static void markdown_rows(FILE *f, const pb_column *cols, int n, const char *prefix)
{
    for (int i = 0; i < n; i++) {
        const pb_column *c = &cols[i];
        fprintf(f, "| `%s%s` | %s | %s | %s |\n", prefix, c->name, type_names[c->type], PB_MD(c->unit),
                PB_MD(c->meaning));
    }
}

void pb_schema_markdown(FILE *f)
{
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        const pb_schema *s = &pb_schema_tables[k];
        fprintf(f, "%s### %s (%s)\n\n", k ? "\n" : "", s->file, s->harness);
        markdown_head(f, "column");
        markdown_rows(f, s->cols, s->ncols, "");
    }
    fprintf(f, "\n### machine.csv keys\n\n");
    markdown_head(f, "key");
    markdown_rows(f, cols_MKEY, PB_MKEY_COUNT, "");
    markdown_rows(f, cols_MKIND, PB_MKIND_COUNT, "kindK_");
    markdown_rows(f, cols_MCACHE, PB_MCACHE_COUNT, "lL_");
    const pb_schema *lb = &pb_schema_tables[PB_K_LLAMABENCH];
    fprintf(f, "\n### %s (%s)\n\n", lb->file, lb->harness);
    markdown_head(f, "field");
    markdown_rows(f, lb->cols, lb->ncols, "");
}
