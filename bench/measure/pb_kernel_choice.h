/* pb_kernel_choice.h — which matvec kernel a run uses for a format at a thread count, with which streaming setting,
 * and why (the `why` every CSV row that ran a kernel carries):
 *   forced  the user named it (POOLBENCH_ISA, or bench_kernels' --isa): nothing else chooses;
 *   tuned   this cpu and build's wisdom (pb_wisdom.h) has it, at the nearest thread count bench_tune timed;
 *   rank    no wisdom for it, or wisdom that kept rank's default (no candidate beat it by more than the noise:
 *           pb_tune.h): the best ranked ISA this CPU runs (kern_isa_best), its prefetch on;
 *   all     a harness that runs every kernel (bench_kernels, bench_memory_floor without a choice): one of all.
 * The prefetch hint and distance are the process's (kern_prefetch_temporal, kern_prefetch_ahead):
 * pb_kernel_picker_apply sets wisdom's, unless forced. */
#ifndef PB_KERNEL_CHOICE_H
#define PB_KERNEL_CHOICE_H

#include <stdbool.h>

#include "kern.h"
#include "kern_repack.h"
#include "pb_wisdom.h"

typedef enum pb_kernel_why {
    PB_KERNEL_WHY_TUNED,
    PB_KERNEL_WHY_RANK,
    PB_KERNEL_WHY_FORCED,
    PB_KERNEL_WHY_ALL,
    PB_KERNEL_WHY_COUNT
} pb_kernel_why;
/* "tuned", "rank", "forced", "all", NULL-terminated. */
extern const char *const pb_kernel_why_names[PB_KERNEL_WHY_COUNT + 1];

typedef struct pb_kernel_choice {
    kern_isa isa;  /* kern_job.isa (a format its table lacks runs the one below: kern_matvec_isa) */
    bool prefetch; /* false: kern_job.cached, the kernel's twin without software prefetch */
    pb_kernel_why why;
    kern_layout layout; /* the weights' layout: file, or one repacked at load where wisdom measured it faster */
} pb_kernel_choice;

/* What a run chooses from: wisdom (NULL when none was valid), or the ISA the user forced. */
typedef struct pb_kernel_picker {
    const pb_wisdom *wisdom;
    kern_isa forced; /* KERN_ISA_COUNT: not forced */
} pb_kernel_picker;

/* Format f's kernel at threads threads. */
pb_kernel_choice pb_kernel_choice_for(const pb_kernel_picker *k, kern_format f, int threads);
/* What the run's streaming passes do for f under c, as the CSVs say it: "t2" or "nta" (its prefetch with the
 * process's hint; "+l1" with the near prefetch, "@BYTES" for a distance not the default: kern_prefetch_setting_name), "off" (no
 * software prefetch: the twin, or a kernel that has none). */
const char *pb_kernel_choice_stream(kern_format f, const pb_kernel_choice *c);
/* Sets the process's prefetch hint and distance from wisdom (those it has, when nothing is forced). Call before any
 * kernel runs. Returns whether it set one. */
bool pb_kernel_picker_apply(const pb_kernel_picker *k);

#endif
