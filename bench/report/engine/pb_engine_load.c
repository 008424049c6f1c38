/* The engine files of a run: DIR/llama-bench.* in name order, then --engine FILE. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_engine.h"

#define LB_PREFIX "llama-bench."

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names in dir that start with LB_PREFIX, sorted: how many (at most max), each malloc'ed. */
static int found_names(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, LB_PREFIX, strlen(LB_PREFIX)) == 0 && n < max && (names[n] = strdup(e->d_name)))
            n++;
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof *names, name_cmp);
    return n;
}

static int load_one(pb_engines *eng, const char *path, char *err, size_t len)
{
    if (eng->n == PB_ENGINE_FILES) {
        snprintf(err, len, "%s: more than %d llama-bench files for one run", path, PB_ENGINE_FILES);
        return -1;
    }
    pb_csverr e;
    if (pb_llamabench_load(&eng->lb[eng->n], path, &e) != 0) {
        snprintf(err, len, "%s", e.msg);
        return -1;
    }
    eng->n++;
    return 0;
}

/* Whether path is one of the files loaded already (--engine naming a file of the run directory). */
static bool already(const pb_engines *eng, const char *path)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(path, a))
        return false;
    for (int i = 0; i < eng->n; i++)
        if (realpath(eng->lb[i].name, b) && strcmp(a, b) == 0)
            return true;
    return false;
}

int pb_engines_load(pb_rundata *rd, const char *extra, char *err, size_t len)
{
    pb_engines *eng = &rd->eng;
    char *names[PB_ENGINE_FILES + 1];
    int n = found_names(rd->dir, names, PB_ENGINE_FILES + 1), rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", rd->dir, names[i]);
        if (rc == 0)
            rc = load_one(eng, path, err, len);
        free(names[i]);
    }
    if (rc == 0 && extra && !already(eng, extra))
        rc = load_one(eng, extra, err, len);
    if (rc != 0) {
        for (int i = 0; i < eng->n; i++)
            pb_llamabench_free(&eng->lb[i]);
        eng->n = 0;
    }
    return rc;
}
