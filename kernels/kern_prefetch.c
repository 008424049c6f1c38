/* kern_prefetch.c — the locality hint of the streaming passes' software prefetch (kern.h): chosen before main from
 * the CPU's vendor; a tuner (bench_tune) or a wisdom file may set another between kernel calls. */
#include "kern.h"

unsigned char kern_prefetch_temporal = 1;
/* The vendor's choice, kept for kern_prefetch_vendor_temporal: written once, before main. */
static unsigned char kern_prefetch_vendor = 1;

#if defined(__x86_64__)
/* A constructor: every kernel call then reads a settled byte (no first-call race, no check in the hot loops). */
__attribute__((constructor)) static void kern_prefetch_choose(void)
{
    __builtin_cpu_init();
    kern_prefetch_vendor = !__builtin_cpu_is("amd");
    kern_prefetch_temporal = kern_prefetch_vendor;
}
#endif

bool kern_prefetch_vendor_temporal(void)
{
    return kern_prefetch_vendor;
}

void kern_prefetch_set_temporal(bool temporal)
{
    kern_prefetch_temporal = temporal;
}

const char *kern_prefetch_hint_name(bool temporal)
{
    return temporal ? "t2" : "nta";
}
