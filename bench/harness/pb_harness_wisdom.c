/* pb_harness_wisdom.c — reading wisdom at a harness's start (see pb_harness.h). */
#include "pb_harness.h"

#include <stdio.h>

void pb_harness_wisdom_ids(pb_harness *h, char *cpu, size_t cpulen, char *build, size_t buildlen)
{
    pb_harness_probe(h);
    pb_wisdom_cpu_id(&h->machine, pb_topo_npus(h->topo), cpu, cpulen);
    pb_wisdom_build_id(&h->machine, build, buildlen);
}

int pb_harness_wisdom_path(pb_harness *h, const char *given, bool writing)
{
    char err[PB_WISDOM_MSG];
    if (pb_wisdom_path(given, writing, h->wisdom, err, sizeof err) != 0)
        return pb_harness_refusef(h, "%s: %s", !given || !given[0]  ? "wisdom"
                                               : pb_cli_from_env(given) ? "POOLBENCH_WISDOM"
                                                                        : "--wisdom", err);
    return 0;
}

void pb_harness_wisdom(pb_harness *h, pb_wisdom *w, pb_kernel_picker *k)
{
    *k = (pb_kernel_picker){ .wisdom = NULL, .forced = KERN_ISA_COUNT };
    if (kern_isa_forced()) { /* the harness refused a bad value already (kern_isa_select) */
        k->forced = kern_isa_chosen();
        printf("kernels: at most %s for every format, forced by POOLBENCH_ISA: the wisdom's choice where it is "
               "that or under it (a tuning with the same POOLBENCH_ISA), else %s's own\n",
               kern_isa_name(k->forced), kern_isa_name(k->forced));
    }
    char cpu[PB_WISDOM_ID], build[PB_WISDOM_ID], msg[PB_WISDOM_MSG];
    pb_harness_wisdom_ids(h, cpu, sizeof cpu, build, sizeof build);
    pb_wisdom_status st = pb_wisdom_load(h->wisdom, cpu, build, w, msg, sizeof msg);
    if (st == PB_WISDOM_OK) {
        k->wisdom = w;
        pb_kernel_picker_apply(k);
        printf("kernels: tuned by %s%s%s%s%u\n", msg, w->has_hint ? ", prefetch hint " : "",
               w->has_hint ? kern_prefetch_hint_name(w->temporal) : "", ", prefetch distance ", kern_prefetch_ahead);
    } else {
        fprintf(st == PB_WISDOM_MISSING ? stdout : stderr, "%s: %s\n", h->prog, msg);
    }
    fflush(stdout);
}

void pb_harness_wisdom_stream(pb_harness *h, pb_wisdom *w)
{
    char cpu[PB_WISDOM_ID], build[PB_WISDOM_ID], msg[PB_WISDOM_MSG];
    pb_harness_wisdom_ids(h, cpu, sizeof cpu, build, sizeof build);
    pb_wisdom_status st = pb_wisdom_load(h->wisdom, cpu, build, w, msg, sizeof msg);
    pb_kernel_picker k = { .wisdom = w, .forced = KERN_ISA_COUNT };
    if (st == PB_WISDOM_OK && pb_kernel_picker_apply(&k))
        printf("streaming: prefetch %s, as tuned by %s\n",
               kern_prefetch_setting_name(kern_prefetch_temporal, kern_prefetch_ahead, kern_prefetch_near), msg);
    else if (st != PB_WISDOM_OK)
        fprintf(st == PB_WISDOM_MISSING ? stdout : stderr, "%s: %s\n", h->prog, msg);
    fflush(stdout);
}
