/* pb_counters_names_x86.c — event names to perf_event_attr through libpfm4; see pb_counters.h. */
#include "pb_counters.h"

#include <perfmon/pfmlib_perf_event.h>
#include <string.h>

#include "pb_err.h"

int pb_counters_encode(const char *name, void *attr, char *why, size_t whylen)
{
    /* pfm_initialize is idempotent: libpfm4 keeps its own tables, set up once per process. */
    int rc = pfm_initialize();
    if (rc != PFM_SUCCESS)
        return pb_errf(why, whylen, "libpfm4 did not initialize (%s)", pfm_strerror(rc));
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = attr; /* the caller's struct perf_event_attr, which libpfm4 fills */
    arg.size = sizeof arg;
    rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (rc != PFM_SUCCESS)
        return pb_errf(why, whylen, "'%s': %s in libpfm4's tables for this CPU", name, pfm_strerror(rc));
    return 0;
}
