/* pb_plot_spec.c — see pb_plot_spec.h. One table row per script; the facts are numbers read from fixed file
 * names in the directory. */
#include "pb_plot_spec.h"

#include <assert.h>
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_csvread.h"
#include "kern.h"
#include "pb_exec.h"
#include "pb_memfloor_run.h"
#include "pb_infile.h"
#include "pb_schema.h"

typedef void (*facts_fn)(int dirfd, pb_plot_job *job);

/* ---------------------------------------------------------------- reading the directory */

/* The names opened here are the data files the scripts name too: fixed, relative, never starting with '<'
 * (gnuplot runs a data file so named as a shell command). */
static FILE *open_at(int dirfd, const char *name)
{
    assert(name[0] != '<' && !strchr(name, '/'));
    char why[512]; /* the report says what is wrong with a file: a fact is only left out here */
    return pb_infile_fopen(dirfd, name, (size_t)PB_CSV_MAX_MIB << 20, "a CSV", why, sizeof why);
}

/* A regular file with something in it. */
static bool present(int dirfd, const char *name)
{
    struct stat st;
    return fstatat(dirfd, name, &st, 0) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* The lines of name that begin with `first` (any non-empty line when first is 0); 0 when it cannot be read. */
static long count_lines(int dirfd, const char *name, int first)
{
    FILE *f = open_at(dirfd, name);
    if (!f)
        return 0;
    long n = 0;
    int prev = '\n', c;
    while ((c = getc(f)) != EOF) {
        n += prev == '\n' && c != '\n' && (first == 0 || c == first);
        prev = c;
    }
    fclose(f);
    return n;
}

/* The first line of name without its line end; "" when it cannot be read. */
static void first_line(int dirfd, const char *name, char *buf, size_t len)
{
    FILE *f = open_at(dirfd, name);
    buf[0] = '\0';
    if (f && !fgets(buf, (int)len, f))
        buf[0] = '\0';
    if (f)
        fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
}

/* True when the CSV header names the column col. */
static bool has_column(const char *header, const char *col)
{
    size_t n = strlen(col);
    for (const char *p = header; (p = strstr(p, col)); p++)
        if ((p == header || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* True when some row of the CSV name holds a number in column col (a column an older run has, but empty), or with
 * word, that word. */
static bool any_cell(int dirfd, const char *name, const char *col, const char *word)
{
    FILE *f = open_at(dirfd, name); /* bounded: open_at refuses a file over PB_CSV_MAX_MIB */
    char *data = NULL;
    size_t len = 0, cap = 0, got = 1;
    bool found = false, read = f != NULL;
    while (read && got > 0) {
        if (len == cap) {
            char *grown = realloc(data, cap ? 2 * cap : 65536);
            if (!grown) {
                read = false;
                break;
            }
            data = grown;
            cap = cap ? 2 * cap : 65536;
        }
        got = fread(data + len, 1, cap - len, f);
        len += got;
    }
    pb_table t;
    pb_csverr e;
    if (read && data && pb_table_parse(&t, name, data, len, &e) == 0) {
        int c = pb_table_col(&t, col);
        for (size_t r = 0; r < t.nrows && !found; r++)
            found = word ? c >= 0 && strcmp(pb_table_str(&t, r, c), word) == 0
                         : pb_table_num(&t, r, c) == pb_table_num(&t, r, c); /* not NaN */
        pb_table_free(&t);
    }
    free(data);
    if (f)
        fclose(f);
    return found;
}

static bool any_number(int dirfd, const char *name, const char *col) { return any_cell(dirfd, name, col, NULL); }

/* The number after "key," on machine.csv's line for key; -1 when there is none. */
static long machine_fact(int dirfd, const char *key)
{
    FILE *f = open_at(dirfd, "machine.csv");
    char line[512];
    long v = -1;
    size_t n = strlen(key);
    while (f && v < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ',' && isdigit((unsigned char)line[n + 1]))
            v = strtol(line + n + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* ---------------------------------------------------------------- building the job */

/* inline: only assert calls it, and an NDEBUG build must not warn that it is unused. */
static inline bool identifier(const char *s)
{
    if (!isalpha((unsigned char)*s))
        return false;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '\0';
}

/* Appends `name=v;`: a literal identifier and a number, the only text gnuplot's parser gets from here. */
static void var(pb_plot_job *job, const char *name, long v)
{
    assert(identifier(name));
    size_t at = strlen(job->vars);
    snprintf(job->vars + at, sizeof job->vars - at, "%s=%ld; ", name, v);
}

/* A list of this build's own names for gnuplot (the dispatch policies from POOL_POLICY_NAMES through
 * pb_exec_kind_names, the formats from KERN_FORMATS): words of [A-Za-z0-9_+-] compiled into the program, never text
 * read from a file. */
static void var_words(pb_plot_job *job, const char *name, const char *const *words)
{
    assert(identifier(name));
    size_t at = strlen(job->vars);
    snprintf(job->vars + at, sizeof job->vars - at, "%s='", name);
    for (int i = 0; words[i]; i++) {
        assert(strspn(words[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-") == strlen(words[i]));
        at = strlen(job->vars);
        snprintf(job->vars + at, sizeof job->vars - at, "%s%s", i ? " " : "", words[i]);
    }
    at = strlen(job->vars);
    snprintf(job->vars + at, sizeof job->vars - at, "'; ");
}

/* Each executor kind's colour in the plots (Okabe-Ito's palette, readable by the colour-blind), keyed by kind so a
 * policy keeps its colour from run to run and from plot to plot. A kind the table lacks (a policy added to
 * POOL_POLICY_NAMES) takes the first spare colour no kind above uses, so it is drawn in one of its own. */
static const char *const kind_colours[PB_EXEC_KINDS] = {
    [PB_EXEC_SPIN] = "0x0072b2", [PB_EXEC_CONDVAR] = "0xd55e00", [PB_EXEC_HYBRID] = "0x009e73",
    [PB_EXEC_SPAWN] = "0xcc79a7", [PB_EXEC_OMP] = "0xe69f00",     [PB_EXEC_TREE] = "0x56b4e9",
};
static const char *const spare_colours[] = { "0x000000", "0x882255", "0x999933", "0x44aa99", "0xaa4499" };

/* Each ISA's colour in kernels.gp, keyed by ISA the same way (an ISA the table lacks takes a spare one). */
static const char *const isa_colours[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = "0x9400d3", [KERN_ISA_AVX2] = "0x009e73",       [KERN_ISA_AVXVNNI] = "0x000000",
    [KERN_ISA_AVX512] = "0x56b4e9", [KERN_ISA_AVX512GFNI] = "0xd55e00", [KERN_ISA_NEON] = "0xe69f00",
    [KERN_ISA_DOTPROD] = "0xcc79a7", [KERN_ISA_I8MM] = "0x0072b2",
};

/* Whether colour c is one of table's n entries. */
static bool colour_taken(const char *const *table, int n, const char *c)
{
    for (int k = 0; k < n; k++)
        if (table[k] && strcmp(table[k], c) == 0)
            return true;
    return false;
}

/* name: a colour per entry of table (n entries, NULL where it has none), in its order: a spare colour the table
 * does not use for each NULL, grey once the spares run out. */
static void var_colours(pb_plot_job *job, const char *name, const char *const *table, int n)
{
    const char *words[32 + 1];
    assert(n <= 32);
    size_t spare = 0, nspare = sizeof spare_colours / sizeof *spare_colours;
    for (int k = 0; k < n; k++) {
        words[k] = table[k];
        while (!words[k] && spare < nspare && colour_taken(table, n, spare_colours[spare]))
            spare++;
        if (!words[k])
            words[k] = spare < nspare ? spare_colours[spare++] : "0x666666";
    }
    words[n] = NULL;
    var_words(job, name, words);
}

/* policy_colours: a colour per word of policy_order (pb_exec_kind_names). */
static void var_policy_colours(pb_plot_job *job)
{
    var_colours(job, "policy_colours", kind_colours, PB_EXEC_KINDS);
}

static void out(pb_plot_job *job, const char *stem, bool optional)
{
    assert(job->n < PB_PLOT_MAX_STEMS);
    job->optional[job->n] = optional;
    job->stem[job->n++] = stem;
}

/* ---------------------------------------------------------------- per script */

/* More threads than PUs are shaded as oversubscribed: machine.csv knows the PUs (0: unknown, nothing shaded). */
static void pool_overhead_facts(int dirfd, pb_plot_job *job)
{
    if (count_lines(dirfd, "pool_overhead.csv", 0) < 2)
        job->skip = "pool_overhead.csv holds no row: no plot";
    long pus = machine_fact(dirfd, PB_MKEY(pus));
    var(job, "pus", pus > 0 ? pus : 0);
    var_words(job, "policy_order", pb_exec_kind_names);
    var_policy_colours(job);
}

/* The roofline's intensity tics: each intensity once (q4_0 and q4_K share 1.78 MAC/B), its formats joined by '+',
 * with the intensity in thousandths, from the format table. */
static void roof_tics(pb_plot_job *job)
{
    static char names[KERN_FORMAT_COUNT][64], milli[KERN_FORMAT_COUNT][16];
    const char *nw[KERN_FORMAT_COUNT + 1], *mw[KERN_FORMAT_COUNT + 1];
    int n = 0;
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        const kern_format_info *fi = kern_format_get((kern_format)f);
        long m = lround(1000.0 * fi->block / fi->block_bytes);
        int i = 0;
        while (i < n && atol(milli[i]) != m)
            i++;
        if (i == n) {
            snprintf(milli[n], sizeof milli[n], "%ld", m);
            snprintf(names[n++], sizeof names[0], "%s", fi->name);
        } else {
            size_t at = strlen(names[i]);
            snprintf(names[i] + at, sizeof names[i] - at, "+%s", fi->name);
        }
    }
    for (int i = 0; i < n; i++) {
        nw[i] = names[i];
        mw[i] = milli[i];
    }
    nw[n] = mw[n] = NULL;
    var_words(job, "tic_names", nw);
    var_words(job, "tic_milli", mw);
}

static void memory_floor_facts(int dirfd, pb_plot_job *job)
{
    pb_weight_format fl[PB_WEIGHT_FORMAT_COUNT];
    const char *names[PB_WEIGHT_FORMAT_COUNT + 1];
    int n = pb_memfloor_token_formats(fl);
    for (int i = 0; i < n; i++)
        names[i] = pb_weight_format_name(fl[i]);
    names[n] = NULL;
    var_words(job, "format_order", names);
    bool tok = present(dirfd, "token_floor.csv");
    var(job, "has_token", tok);
    if (tok)
        out(job, "token_floor", false);
}

/* kernels_threads is drawn when the run measured more than one thread count: stats in the script knows that. The
 * roofline needs the roof columns, which runs before the compute roof lack (gnuplot stops on a missing column). */
static void kernels_facts(int dirfd, pb_plot_job *job)
{
    char hdr[4096];
    first_line(dirfd, "kernels.csv", hdr, sizeof hdr);
    bool roof = has_column(hdr, PB_COL(KERNELS, roof_gmacs)) && any_number(dirfd, "kernels.csv", "roof_gmacs");
    var(job, "has_floor", present(dirfd, "memory_floor.csv"));
    var(job, "has_roof", roof);
    var_words(job, "format_order", kern_format_names);
    var_words(job, "isa_order", kern_isa_names);
    var_colours(job, "isa_colours", isa_colours, KERN_ISA_COUNT);
    roof_tics(job);
    out(job, "kernels_threads", true);
    if (roof)
        out(job, "roofline", false);
}

/* has_e_cores and has_smt: whether sweep.csv's header (hdr) holds the placement columns that mark E-cores and SMT. */
static void sweep_core_vars(pb_plot_job *job, const char *hdr)
{
    var(job, "has_e_cores", has_column(hdr, PB_COL(SWEEP, e_cores)));
    var(job, "has_smt", has_column(hdr, PB_COL(SWEEP, smt_threads)));
}

/* has_ctx and has_prompt: whether it holds the context columns and the prompt's. */
static void sweep_ctx_vars(pb_plot_job *job, const char *hdr)
{
    var(job, "has_ctx", has_column(hdr, PB_COL(SWEEP, context)) && has_column(hdr, PB_COL(SWEEP, kv_type)));
    var(job, "has_prompt", has_column(hdr, PB_COL(SWEEP, prompt)));
}

/* Older sweep.csv files lack the glue, best-floor, placement and context columns (gnuplot stops on a column that
 * is not there, so the script asks only for those said to be). */
static void sweep_facts(int dirfd, pb_plot_job *job)
{
    char hdr[4096];
    if (count_lines(dirfd, "sweep.csv", 0) < 2)
        job->skip = "sweep.csv holds no point: no plot"; /* gnuplot's stats stop on a file without a row */
    first_line(dirfd, "sweep.csv", hdr, sizeof hdr);
    var(job, "has_glue", has_column(hdr, PB_COL(SWEEP, glue)));
    var(job, "has_best", has_column(hdr, PB_COL(SWEEP, floor_gbps_best)));
    sweep_core_vars(job, hdr);
    sweep_ctx_vars(job, hdr);
    var_words(job, "policy_order", pb_exec_kind_names);
    var_policy_colours(job);
    var_words(job, "format_order", pb_weight_format_names());
}

/* Reads sweep.csv's header into hdr: whether the file holds a point and its header the column col. */
static bool sweep_has(int dirfd, char *hdr, size_t len, const char *col)
{
    first_line(dirfd, "sweep.csv", hdr, len);
    return count_lines(dirfd, "sweep.csv", 0) >= 2 && has_column(hdr, col);
}

/* The depth sweep reads sweep.csv's context columns: an older file without them has nothing to draw. */
static void sweep_context_facts(int dirfd, pb_plot_job *job)
{
    char hdr[4096];
    if (!sweep_has(dirfd, hdr, sizeof hdr, PB_COL(SWEEP, context)))
        job->skip = "sweep.csv holds no point at a context: no depth plot";
}

/* The budget's bars read sweep.csv's budget columns: an older file without them has nothing to draw. */
static void sweep_budget_facts(int dirfd, pb_plot_job *job)
{
    char hdr[4096];
    if (!sweep_has(dirfd, hdr, sizeof hdr, PB_COL(SWEEP, budget_unexplained_ms)) ||
        !any_number(dirfd, "sweep.csv", PB_COL(SWEEP, budget_floor_ms)))
        job->skip = "sweep.csv holds no budget: no budget plot";
    sweep_ctx_vars(job, hdr);
    var_words(job, "format_order", pb_weight_format_names());
}

/* The same for latency.csv; has_loaded says whether it holds the loaded curve (a one-cpu set has none). */
static void latency_facts(int dirfd, pb_plot_job *job)
{
    if (count_lines(dirfd, "latency.csv", 0) < 2)
        job->skip = "latency.csv holds no point: no plot";
    var(job, "has_loaded", any_cell(dirfd, "latency.csv", PB_COL(LATENCY, phase), "loaded"));
}

/* gnuplot's stats cannot be asked about a file without a data row: it stops with an error. */
static void cpu_util_facts(int dirfd, pb_plot_job *job)
{
    if (count_lines(dirfd, "cpu_util.csv", 0) < 2)
        job->skip = "cpu_util.csv holds no samples: no plot";
}

/* The data files pb_compare_data writes: blocks of one run each, a title line ('"') first; the dispatch table's
 * header holds "policy" and one quoted label per run (the labels have their own quotes removed). */
static void compare_facts(int dirfd, pb_plot_job *job)
{
    static const struct { const char *file, *flag, *count, *stem; } blocks[] = {
        { "compare_floor.dat", "has_floor", "floor_blocks", "compare_floor" },
        { "compare_decode.dat", "has_decode", "decode_blocks", "compare_decode" },
    };
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        long n = present(dirfd, blocks[i].file) ? count_lines(dirfd, blocks[i].file, '"') : 0;
        var(job, blocks[i].flag, n > 0);
        var(job, blocks[i].count, n);
        if (n > 0)
            out(job, blocks[i].stem, false);
    }
    char hdr[4096];
    first_line(dirfd, "compare_dispatch.dat", hdr, sizeof hdr);
    long quotes = 0;
    for (const char *p = hdr; *p; p++)
        quotes += *p == '"';
    var(job, "has_dispatch", quotes >= 2);
    var(job, "dispatch_cols", 1 + quotes / 2);
    if (quotes >= 2)
        out(job, "compare_dispatch", false);
}

/* The prompt's panel pair reads sweep.csv's prompt and roof columns, and marks E-cores and SMT where it can. */
static void sweep_prompt_facts(int dirfd, pb_plot_job *job)
{
    char hdr[4096];
    if (!sweep_has(dirfd, hdr, sizeof hdr, PB_COL(SWEEP, prompt)))
        job->skip = "sweep.csv holds no prompt: no prompt plot";
    sweep_core_vars(job, hdr);
}

/* trend.dat (bench_db trend): its title line, then a row per run; gnuplot stops on a file of no row. */
static void trend_facts(int dirfd, pb_plot_job *job)
{
    long rows = count_lines(dirfd, "trend.dat", 0) - 1;
    if (rows < 1)
        job->skip = "trend.dat holds no run: no trend plot";
    var(job, "runs", rows);
}

static const struct plot_spec {
    const char *script;
    const char *stem[4]; /* always drawn */
    facts_fn facts;      /* NULL when the script needs none */
} specs[] = {
    { .script = "pool_overhead.gp", .stem = { "pool_overhead_threads", "pool_overhead_gap" },
      .facts = pool_overhead_facts },
    { .script = "overlap.gp", .stem = { "overlap", "overlap_pct" } },
    { .script = "memory_floor.gp", .stem = { "memory_floor" }, .facts = memory_floor_facts },
    { .script = "kernels.gp", .stem = { "kernels" }, .facts = kernels_facts },
    { .script = "latency.gp", .stem = { "latency" }, .facts = latency_facts },
    { .script = "sweep.gp", .stem = { "sweep", "sweep_floor" }, .facts = sweep_facts },
    { .script = "sweep_context.gp", .stem = { "sweep_context" }, .facts = sweep_context_facts },
    { .script = "sweep_budget.gp", .stem = { "sweep_budget" }, .facts = sweep_budget_facts },
    { .script = "sweep_prompt.gp", .stem = { "sweep_prompt" }, .facts = sweep_prompt_facts },
    { .script = "cpu_util.gp", .stem = { "cpu_util_heatmap", "cpu_util_mean" }, .facts = cpu_util_facts },
    { .script = "compare.gp", .facts = compare_facts },
    { .script = "trend.gp", .stem = { "trend" }, .facts = trend_facts },
};

void pb_plot_tmp_name(const pb_plot_job *job, const char *stem, const char *ext, char *buf, size_t len)
{
    snprintf(buf, len, "%s.%s.tmp-%ld", stem, ext, job->tag);
}

int pb_plot_job_for(const char *name, int dirfd, pb_plot_job *job)
{
    /* The pid: unique among the processes that run at once, and a number, as everything handed to gnuplot is. */
    *job = (pb_plot_job){ .n = 0, .tag = (long)getpid() };
    var(job, "tmp_tag", job->tag);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const struct plot_spec *s = &specs[i];
        if (strcmp(s->script, name) != 0)
            continue;
        for (int k = 0; k < 4 && s->stem[k]; k++)
            out(job, s->stem[k], false);
        if (s->facts)
            s->facts(dirfd, job);
        return 0;
    }
    return -1;
}
