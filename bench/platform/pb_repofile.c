/* pb_repofile.c — see pb_repofile.h. */
#include "pb_repofile.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether path is readable; if so, out holds it without its "bin/../../" detour (a name people read in messages). */
static bool found(char *out, size_t len)
{
    if (access(out, R_OK) != 0)
        return false;
    char *real = realpath(out, NULL);
    if (real && strlen(real) < len)
        memcpy(out, real, strlen(real) + 1);
    free(real);
    return true;
}

int pb_repo_file(const char *env, const char *dir, const char *name, char *out, size_t len)
{
    const char *from_env = env ? getenv(env) : NULL;
    if (from_env && *from_env) {
        snprintf(out, len, "%s/%s", from_env, name);
        if (found(out, len))
            return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, len, "%s/../../%s/%s", exe, dir, name);
            if (found(out, len))
                return 0;
        }
    }
    snprintf(out, len, "%s/%s", dir, name);
    return found(out, len) ? 0 : -1;
}
