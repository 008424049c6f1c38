/* pb_overlap.h — bench_overlap's measurement: when does overlapping serial CPU work with a helper's job pay?
 *
 * A pipeline of K steps. Each step has a "device" job (a q8_0 matvec, rows x cols) and a CPU prep (RMSNorm of a
 * vector, then its q8_0 quantization: the activation of a next matvec) on the caller. serial runs the prep, then
 * the job, on the caller; the async modes submit the job to a helper (pool_async_submit), run the prep, then
 * pool_async_wait: the prep overlaps the job, at best a step costs max(prep, job) instead of prep + job.
 *   async-spawn    pthread_create for every job, the thread pinned to the other cpu
 *   async-inherit  a persistent helper created after the caller pinned itself to one cpu: it inherits that
 *                  mask and time-shares the caller's core
 *   async-pinned   a persistent helper pinned to the other cpu
 * The prep's size is chosen per point so that prep / job hits the point's ratio (the job is timed alone, the
 * prep's cost per value measured, then its size refined once). Every repetition times, side by side: prep alone,
 * job alone, then each mode (the order rotating between repetitions); medians are quoted.
 * ceiling = serial / max(prep, job); speedup = serial / mode; pct_of_ceiling = speedup / ceiling.
 *
 * Measuring only, and it never exits: a failure returns -1 with the reason in err. */
#ifndef PB_OVERLAP_H
#define PB_OVERLAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern.h"
#include "pb_kernel_choice.h"
#include "pb_placement.h"
#include "pb_stats.h"
#include "pool.h"

typedef enum pb_overlap_mode { PB_OV_SERIAL, PB_OV_SPAWN, PB_OV_INHERIT, PB_OV_PINNED, PB_OV_MODES } pb_overlap_mode;

extern const char *const pb_overlap_mode_names[PB_OV_MODES + 1]; /* NULL-terminated: --modes' choices */

/* How each mode runs its job: on the caller, or through a pool_async of this policy and placement. */
typedef struct pb_overlap_mode_info {
    bool async;
    pool_policy policy;
    bool elsewhere; /* the helper on the other cpu (else it inherits the caller's one-cpu mask) */
} pb_overlap_mode_info;

extern const pb_overlap_mode_info pb_overlap_modes[PB_OV_MODES];

/* The data one step touches: the job's weights and activation, the prep's vector. */
typedef struct pb_overlap_work {
    kern_job job;
    kern_act job_act;
    void *w;
    float *y;
    size_t prep_n; /* values the prep normalises and quantizes */
    float *x, *gain, *normed;
    kern_act prep_act;
} pb_overlap_work;

/* The measurement's fixed part: where the caller and the helper run, how long each timed loop is. */
typedef struct pb_overlap {
    int caller_cpu, helper_cpu; /* helper_cpu -1: one cpu only, the modes that need a second are skipped */
    long steps, reps;
    bool quick;                 /* shorter round trips */
    const pb_where *where;      /* placement tags: the topology or the round trip */
    pb_overlap_work work;
} pb_overlap;

/* One ratio: the sizes, the times alone, and each mode's time per step. */
typedef struct pb_overlap_point {
    double ratio;
    size_t prep_n;
    double rt_ns;              /* caller-helper round trip measured before the point */
    char placement[8];         /* the pair's tag (pb_placement_block) */
    pb_summary prep, job;      /* ns per step, alone */
    pb_summary mode[PB_OV_MODES]; /* ns per step */
    bool measured[PB_OV_MODES];
} pb_overlap_point;

/* The derived figures of one mode at one point (us per step, its range, speedup, ceiling, % of ceiling). */
typedef struct pb_overlap_figures {
    double us, us_min, us_max, speedup, ceiling, pct;
} pb_overlap_figures;

/* Refuses a job whose memory (rows x cols q8_0 weights, its output and activation) would be more than half of
 * avail_bytes (MemAvailable; 0: unknown, not checked) or overflow a size: the run would swap or fail in malloc
 * after its directory was made. 0, or -1 with the line (naming --rows and --cols) in err. */
int pb_overlap_check_memory(size_t rows, size_t cols, uint64_t avail_bytes, char *err, size_t errlen);

/* Pins the calling thread to ov->caller_cpu (before anything is timed: async-inherit's helper inherits exactly
 * this one-cpu mask), then builds the job's rows x cols q8_0 weights for kernel k (its ISA; without its software
 * prefetch when k says so). 0, or -1 with err. */
int pb_overlap_open(pb_overlap *ov, const pb_kernel_choice *k, size_t rows, size_t cols, char *err, size_t errlen);
void pb_overlap_close(pb_overlap *ov);

/* The job alone, median ns: measured again per point (the machine's state drifts). */
double pb_overlap_job_ns(pb_overlap *ov);

/* A mode this machine can run: one that needs a second cpu does not run on one. */
bool pb_overlap_mode_runs(const pb_overlap *ov, pb_overlap_mode m);

/* pt->ratio's point: sizes the prep for it against job_ns, then times reps repetitions. 0, or -1 with err. */
int pb_overlap_measure_point(pb_overlap *ov, pb_overlap_point *pt, double job_ns, char *err, size_t errlen);

pb_overlap_figures pb_overlap_figures_of(const pb_overlap_point *pt, pb_overlap_mode m);

#endif
