#include "pb_plot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static bool pb_readable(const char *path) { return access(path, R_OK) == 0; }

int pb_plot_script(const char *name, char *out, size_t len)
{
    const char *env = getenv("POOLBENCH_PLOTS");
    if (env && *env) {
        snprintf(out, len, "%s/%s", env, name);
        if (pb_readable(out))
            return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, len, "%s/../../plots/%s", exe, name);
            if (pb_readable(out))
                return 0;
        }
    }
    snprintf(out, len, "plots/%s", name);
    return pb_readable(out) ? 0 : -1;
}

bool pb_plot_available(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Single-quotes s for sh: the run directory is user input. */
static void pb_sh_quote(char *out, size_t len, const char *s)
{
    size_t o = 0;
    if (o + 1 < len)
        out[o++] = '\'';
    for (; *s && o + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    if (o + 1 < len)
        out[o++] = '\'';
    out[o] = '\0';
}

int pb_plot_run(const char *script, const char *run_dir)
{
    char path[PATH_MAX];
    if (pb_plot_script(script, path, sizeof path) != 0) {
        fprintf(stderr, "plot: %s not found (set POOLBENCH_PLOTS to the plots/ directory); CSV kept\n", script);
        return 1;
    }
    if (!pb_plot_available()) {
        fprintf(stderr, "plot: gnuplot not found (make deps installs gnuplot-nox); CSV kept, no plot\n");
        return 1;
    }
    char qp[2 * PATH_MAX], qd[2 * PATH_MAX], cmd[4 * PATH_MAX + 64];
    pb_sh_quote(qp, sizeof qp, path);
    pb_sh_quote(qd, sizeof qd, run_dir);
    snprintf(cmd, sizeof cmd, "gnuplot -c %s %s", qp, qd);
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
        fprintf(stderr, "plot: gnuplot failed on %s\n", path);
        return -1;
    }
    return 0;
}
