/* pool_env.c — pool_config_from_env: POOLBENCH_THREADS and POOLBENCH_POLICY (see pool.h).
 *
 * POOLBENCH_THREADS is also every harness's --threads variable, read there by bench/base's option table (a
 * layer the pool may not depend on), so it takes the same forms: "4", "1,2,4", "1-8", "1-3,8". The
 * harness sweeps the list; a pool is sized for its largest count. tests/pool/test_pool.c and tests/base/test_cli.c
 * hold one table of inputs that both must accept or reject alike. */
#include "pool.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char pool_threads_accepted[] = "accepted 1..1024 (a list like 1,2,4 or a range like 1-8)";
/* ", spin, condvar, ...": the policies' one list, for "accepted spin, condvar, ..." (its first two bytes left out). */
#define POOL_ENV_NAME(id, name, words) ", " name
static const char pool_policies_list[] = POOL_POLICY_NAMES(POOL_ENV_NAME);
#undef POOL_ENV_NAME

/* One count at p: digits only (a sign would read as the range separator), within 1..POOL_MAX_THREADS. The
 * count, or -1; *end past its digits. */
static long pool_env_count(const char *p, const char **end)
{
    long v = 0;
    *end = p;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)**end)) {
        if (v <= POOL_MAX_THREADS) /* stop growing past the bound: no overflow however long */
            v = v * 10 + (**end - '0');
        (*end)++;
    }
    return v >= 1 && v <= POOL_MAX_THREADS ? v : -1;
}

/* One item of the list at p, up to the next ',' or the end: "N" or "A-B", A <= B. Sets [*lo, *hi] and
 * returns the item's length, or 0 with the reason in why. */
static size_t pool_env_item(const char *p, long *lo, long *hi, char *why, size_t len)
{
    int n = (int)strcspn(p, ",");
    const char *end;
    if (n == 0) {
        snprintf(why, len, "an empty item");
        return 0;
    }
    *lo = *hi = pool_env_count(p, &end);
    if (*lo > 0 && *end == '-')
        *hi = pool_env_count(end + 1, &end);
    if (*lo < 0 || *hi < 0 || end != p + n) {
        snprintf(why, len, "'%.*s' is not a count in range or a range of them", n, p);
        return 0;
    }
    if (*hi < *lo) {
        snprintf(why, len, "'%.*s' is a descending range", n, p);
        return 0;
    }
    return (size_t)n;
}

/* The largest count of a thread list, or -1 with the reason in why. */
static int pool_env_threads(const char *s, char *why, size_t len)
{
    bool seen[POOL_MAX_THREADS + 1] = { false };
    long largest = 0, lo, hi;
    for (const char *p = s;; p++) { /* p++: past the ',' */
        size_t n = pool_env_item(p, &lo, &hi, why, len);
        if (n == 0)
            return -1;
        for (long v = lo; v <= hi; v++) {
            if (seen[v]) {
                snprintf(why, len, "%ld is given twice", v);
                return -1;
            }
            seen[v] = true;
        }
        largest = hi > largest ? hi : largest;
        p += n;
        if (*p == '\0')
            return (int)largest;
    }
}

static int pool_env_fail(char *err, size_t errlen, const char *var, const char *val, const char *why,
                         const char *accepted)
{
    if (errlen > 0)
        snprintf(err, errlen, "%s=%s: %s: %s", var, val, why, accepted);
    errno = EINVAL;
    return -1;
}

/* The variable's value, or NULL when it is unset or empty (the harnesses' rule for every POOLBENCH_*). */
static const char *pool_env_get(const char *var)
{
    const char *v = getenv(var);
    return v && *v ? v : NULL;
}

/* Both variables are read into a copy: a bad one leaves cfg as it was. */
int pool_config_from_env(pool_config *cfg, char *err, size_t errlen)
{
    pool_config out = *cfg;
    const char *t = pool_env_get("POOLBENCH_THREADS");
    char why[128];
    if (t && (out.threads = pool_env_threads(t, why, sizeof why)) < 0)
        return pool_env_fail(err, errlen, "POOLBENCH_THREADS", t, why, pool_threads_accepted);
    const char *pol = pool_env_get("POOLBENCH_POLICY");
    if (pol && pool_policy_parse(pol, &out.policy) != 0) {
        char accepted[128];
        snprintf(accepted, sizeof accepted, "accepted %s", pool_policies_list + 2);
        return pool_env_fail(err, errlen, "POOLBENCH_POLICY", pol, "unknown policy", accepted);
    }
    *cfg = out;
    return 0;
}
