/* kern_prefetch.c — the streaming passes' software prefetch settings (kern.h): the locality hint and the near L1
 * prefetch chosen before main from the CPU's vendor, the distance; a tuner (bench_tune) or a wisdom file may set
 * others between kernel calls. */
#include "kern.h"

#include <errno.h>

unsigned char kern_prefetch_temporal = 1;
unsigned kern_prefetch_ahead = KERN_PREFETCH_BYTES;
const unsigned kern_prefetch_distances[KERN_PREFETCH_NDIST + 1] = { 1024, KERN_PREFETCH_BYTES, 2048, 3072, 0 };
unsigned char kern_prefetch_near = 0;
/* [near][temporal][distance's index]: the default distance goes unsaid, so rows of a run that never tuned it read as
 * before. */
static const char *const kern_prefetch_names[2][2][KERN_PREFETCH_NDIST] = {
    { { "nta@1024", "nta", "nta@2048", "nta@3072" }, { "t2@1024", "t2", "t2@2048", "t2@3072" } },
    { { "nta+l1@1024", "nta+l1", "nta+l1@2048", "nta+l1@3072" }, { "t2+l1@1024", "t2+l1", "t2+l1@2048", "t2+l1@3072" } },
};
/* The vendor's choices, kept for kern_prefetch_vendor_temporal and _near: written once, before main. */
static unsigned char kern_prefetch_vendor = 1, kern_prefetch_vendor_l1 = 0;

#if defined(__x86_64__)
/* A constructor: every kernel call then reads a settled byte (no first-call race, no check in the hot loops). */
__attribute__((constructor)) static void kern_prefetch_choose(void)
{
    __builtin_cpu_init();
    kern_prefetch_vendor = !__builtin_cpu_is("amd");
    kern_prefetch_temporal = kern_prefetch_vendor;
    kern_prefetch_vendor_l1 = !__builtin_cpu_is("amd"); /* unmeasured on AMD: off there (kern.h) */
    kern_prefetch_near = kern_prefetch_vendor_l1;
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

bool kern_prefetch_vendor_near(void)
{
    return kern_prefetch_vendor_l1;
}

void kern_prefetch_set_near(bool near)
{
    kern_prefetch_near = near;
}

const char *kern_prefetch_hint_name(bool temporal)
{
    return temporal ? "t2" : "nta";
}

const char *kern_prefetch_setting_name(bool temporal, unsigned distance, bool near)
{
    for (int i = 0; i < KERN_PREFETCH_NDIST; i++)
        if (kern_prefetch_distances[i] == distance)
            return kern_prefetch_names[near][temporal][i];
    return kern_prefetch_hint_name(temporal);
}

int kern_prefetch_set_distance(unsigned bytes)
{
    for (const unsigned *d = kern_prefetch_distances; *d; d++) {
        if (*d == bytes) {
            kern_prefetch_ahead = bytes;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}
