/* kern_prefetch.c — the locality hint of the streaming passes' software prefetch (kern.h), chosen once, before
 * main, from the CPU's vendor, and only read after. */
#include "kern.h"

unsigned char kern_prefetch_temporal = 1;

#if defined(__x86_64__)
/* A constructor: every kernel call then reads a settled byte (no first-call race, no check in the hot loops). */
__attribute__((constructor)) static void kern_prefetch_choose(void)
{
    __builtin_cpu_init();
    kern_prefetch_temporal = !__builtin_cpu_is("amd");
}
#endif
