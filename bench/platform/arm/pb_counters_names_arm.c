/* pb_counters_names_arm.c — the arm64 build links no libpfm4: no event name resolves; see pb_counters.h. */
#include "pb_counters.h"

#include "pb_err.h"

int pb_counters_encode(const char *name, void *attr, char *why, size_t whylen)
{
    (void)attr;
    return pb_errf(why, whylen, "'%s': the arm64 build has no libpfm4 to name events", name);
}
