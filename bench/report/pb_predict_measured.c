/* report.md: the cycles a weight block took here (kernels.csv's cycles_per_block: one thread, weights in L2, batch 1)
 * beside llvm-mca's for the same format and variant on each core of predict.csv that runs this machine's
 * variants. See pb_predict.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_md_escape.h"
#include "pb_predict.h"

#define PM_CPUS 16
#define PM_ROWS 64

typedef struct pm_cpu {
    char arch[16], cpu[32];
} pm_cpu;

/* The (arch, cpu) pairs of predict.csv whose rows name a non-scalar variant that kernels.csv ran: the cores of
 * this machine's architecture (scalar runs on every one, so it says nothing of which). */
static int pm_cpus(const pb_table *p, const pb_table *k, pm_cpu *out)
{
    int pa = pb_table_col(p, "arch"), pc = pb_table_col(p, "cpu"), pv = pb_table_col(p, "variant");
    int kv = pb_table_col(k, PB_COL(KERNELS, variant));
    char arch[16] = "";
    for (size_t r = 0; r < p->nrows && !arch[0]; r++) {
        const char *v = pb_table_str(p, r, pv);
        for (size_t j = 0; strcmp(v, "scalar") != 0 && j < k->nrows && !arch[0]; j++)
            if (strcmp(pb_table_str(k, j, kv), v) == 0)
                snprintf(arch, sizeof arch, "%s", pb_table_str(p, r, pa));
    }
    int n = 0;
    for (size_t r = 0; arch[0] && r < p->nrows && n < PM_CPUS; r++) {
        if (strcmp(pb_table_str(p, r, pa), arch) != 0)
            continue;
        bool seen = false;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(out[i].cpu, pb_table_str(p, r, pc)) == 0;
        if (!seen) {
            snprintf(out[n].arch, sizeof out[n].arch, "%s", arch);
            snprintf(out[n].cpu, sizeof out[n].cpu, "%s", pb_table_str(p, r, pc));
            n++;
        }
    }
    return n;
}

/* llvm-mca's cycles per block for cpu, format, ISA and layout into cell: "12.0", "≥12.0" for a bound, "-" for
 * none. */
static void pm_cell(const pb_table *p, const pm_cpu *c, const char *format, const char *isa, const char *layout,
                    char *cell, size_t len)
{
    int pa = pb_table_col(p, "arch"), pc = pb_table_col(p, "cpu"), pf = pb_table_col(p, "format"),
        pv = pb_table_col(p, "variant"), ps = pb_table_col(p, "status"), pk = pb_table_col(p, "cycles_per_block"),
        pl = pb_table_col(p, "layout");
    snprintf(cell, len, "-");
    for (size_t r = 0; r < p->nrows; r++) {
        if (strcmp(pb_table_str(p, r, pa), c->arch) || strcmp(pb_table_str(p, r, pc), c->cpu) ||
            strcmp(pb_table_str(p, r, pf), format) || strcmp(pb_table_str(p, r, pv), isa) ||
            strcmp(pb_predict_layout(p, r, pl), layout))
            continue;
        int kind = pb_predict_status_kind(pb_table_str(p, r, ps));
        double cyc = pb_table_num(p, r, pk);
        if (kind >= 0 && cyc > 0)
            snprintf(cell, len, "%s%.1f", kind == 1 ? "≥" : "", cyc);
        return;
    }
}

static void pm_table(FILE *o, const pb_table *p, const pb_table *k, const pm_cpu *cpus, int ncpu)
{
    int kf = pb_table_col(k, PB_COL(KERNELS, format)), kv = pb_table_col(k, PB_COL(KERNELS, variant)),
        kl = pb_table_col(k, PB_COL(KERNELS, level)), kt = pb_table_col(k, PB_COL(KERNELS, threads)),
        kb = pb_table_col(k, PB_COL(KERNELS, batch)), kc = pb_table_col(k, PB_COL(KERNELS, cycles_per_block)),
        kg0 = pb_table_col(k, PB_COL(KERNELS, ghz_before)), kg1 = pb_table_col(k, PB_COL(KERNELS, ghz_after)),
        kly = pb_table_col(k, PB_COL(KERNELS, layout));
    fprintf(o, "## Cycles per block: measured here beside llvm-mca\n\nkernels.csv's cycles per weight block (one "
               "thread, weights in L2, batch 1; ns per row at the mean of the clock taken before and after the point) "
               "beside predict.csv's llvm-mca cycles for the same kernel on each core (≥: a lower bound; -: no "
               "usable row).\n\n| format | variant | here (GHz) |");
    for (int i = 0; i < ncpu; i++)
        fprintf(o, " %s |", PB_MD(cpus[i].cpu));
    fprintf(o, "\n|---|---|---:|");
    for (int i = 0; i < ncpu; i++)
        fprintf(o, "---:|");
    fprintf(o, "\n");
    int shown = 0;
    for (size_t r = 0; r < k->nrows && shown < PM_ROWS; r++) {
        double cyc = pb_table_num(k, r, kc);
        if (strcmp(pb_table_str(k, r, kl), "l2") != 0 || pb_table_num(k, r, kt) != 1 || pb_table_num(k, r, kb) != 1 ||
            !(cyc > 0))
            continue;
        const char *f = pb_table_str(k, r, kf), *v = pb_table_str(k, r, kv), *lay = pb_predict_layout(k, r, kly);
        double ghz = (pb_table_num(k, r, kg0) + pb_table_num(k, r, kg1)) / 2;
        bool file = strcmp(lay, "file") == 0;
        fprintf(o, "| %s | %s%s%s | %.1f (%.2f) |", PB_MD(f), PB_MD(v), file ? "" : " ", file ? "" : PB_MD(lay), cyc,
                ghz);
        for (int i = 0; i < ncpu; i++) {
            char cell[32];
            pm_cell(p, &cpus[i], f, v, lay, cell, sizeof cell);
            fprintf(o, " %s |", cell);
        }
        fprintf(o, "\n");
        shown++;
    }
    fprintf(o, "\n");
}

void pb_report_predict_measured(FILE *o, const pb_rundata *rd)
{
    const pb_table *k = pb_rundata_table(rd, PB_K_KERNELS);
    if (!k || pb_table_col(k, PB_COL(KERNELS, cycles_per_block)) < 0)
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s/predict.csv", rd->dir);
    pb_table p;
    pb_csverr e;
    static const char *const need[] = { "arch", "cpu", "format", "variant", "status", "cycles_per_block", NULL };
    if (pb_table_load(&p, path, &e) != 0) /* the section above says why predict.csv cannot be read */
        return;
    pm_cpu cpus[PM_CPUS];
    int n = pb_table_require(&p, need, &e) == 0 ? pm_cpus(&p, k, cpus) : 0;
    if (n > 0)
        pm_table(o, &p, k, cpus, n);
    pb_table_free(&p);
}
