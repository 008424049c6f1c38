/* kern_matvec.c — the row loop shared by every variant (its table from kern_table_for): one thread
 * (kern_run), the pool (kern_run_pool through pool_rows), a batch of activation rows (matmul). */
#include "kern_impl.h"
#include "kern_repack_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of weights a matmul keeps in L1 while it applies every activation row to them (half of a 48 KiB
 * L1D, less than most of a 32 KiB one; the activation rows stream through beside them). */
#define KERN_MATMUL_L1_BYTES (24u * 1024u)

static int fail(int err)
{
    errno = err;
    return -1;
}

/* ---- jobs ---- */

int kern_job_check(const kern_job *job)
{
    const kern_act *a = job->act;
    if (!kern_format_get(job->fmt) || !a || !kern_act_feeds(a, job->fmt) || a->batch == 0 || a->batch > a->cap)
        return fail(EINVAL);
    if (job->rows > 0 && (!job->w || !job->y))
        return fail(EINVAL);
    if (a->batch > 1 && job->ldy < job->rows)
        return fail(EINVAL);
    if (job->layout != KERN_LAYOUT_FILE)
        return kern_repack_job_check(job);
    /* An ISA the CPU runs always finds a table: the chain ends at scalar, which has every format. */
    if (!kern_isa_supported(job->isa) || !kern_table_for(job->fmt, job->isa))
        return fail(ENOTSUP);
    return 0;
}

void kern_job_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the const kern_job * that kern_run / kern_run_pool handed to pool_rows; nothing writes it. */
    const kern_job *job = ctx;
    if (job->layout != KERN_LAYOUT_FILE) {
        kern_repack_job_rows(job, r0, r1);
        return;
    }
    const kern_act *a = job->act;
    const kern_table *t = kern_table_for(job->fmt, job->isa);
    kern_rows_fn fn = job->cached && t->rows_cached[job->fmt] ? t->rows_cached[job->fmt] : t->rows[job->fmt];
    size_t rb = (size_t)kern_format_matrix_bytes(job->fmt, 1, a->cols);
    const char *w = job->w;
    if (a->batch == 1) {
        fn(w + r0 * rb, rb, r1 - r0, a, 0, job->y + r0);
        return;
    }
    /* Matmul: a group of rows stays in L1 while every activation row passes over it, so each weight row
     * comes from memory once for the whole batch. */
    size_t group = KERN_MATMUL_L1_BYTES / rb;
    if (group < 1)
        group = 1;
    kern_batch_fn bfn = t->batch[job->fmt];
    for (size_t r = r0; r < r1; r += group) {
        size_t n = r1 - r < group ? r1 - r : group;
        if (bfn) {
            for (size_t m = 0; m < a->batch; m += KERN_BATCH_STEP) {
                size_t nm = a->batch - m < KERN_BATCH_STEP ? a->batch - m : KERN_BATCH_STEP;
                bfn(w + r * rb, rb, n, a, m, nm, job->y + m * job->ldy + r, job->ldy);
            }
        } else {
            for (size_t m = 0; m < a->batch; m++)
                fn(w + r * rb, rb, n, a, m, job->y + m * job->ldy + r);
        }
    }
}

int kern_run(const kern_job *job)
{
    if (kern_job_check(job) != 0)
        return -1;
    if (job->rows > 0)
        kern_job_rows((void *)job, 0, job->rows); /* the cast drops const for the pool_rows_fn shape only */
    return 0;
}

int kern_run_pool(pool *p, size_t chunk, const kern_job *job)
{
    if (!p)
        return fail(EINVAL);
    if (kern_job_check(job) != 0)
        return -1;
    if (job->rows > 0)
        pool_rows(p, job->rows, chunk, kern_job_rows, (void *)job); /* read-only in kern_job_rows */
    return 0;
}

/* ---- convenience ---- */

int kern_matmul(kern_format f, kern_isa v, const void *w, const float *x, size_t m, float *y, size_t rows,
                size_t cols)
{
    kern_act a;
    if (kern_act_init(&a, f, cols, m) != 0)
        return -1;
    int rc = kern_act_set_isa(&a, x, m, v);
    if (rc == 0) {
        kern_job job = { .fmt = f, .isa = v, .w = w, .rows = rows, .act = &a, .y = y, .ldy = rows };
        rc = kern_run(&job);
    }
    int saved = errno;
    kern_act_free(&a);
    errno = saved;
    return rc;
}

int kern_matvec(kern_format f, kern_isa v, const void *w, const float *x, float *y, size_t rows, size_t cols)
{
    return kern_matmul(f, v, w, x, 1, y, rows, cols);
}
