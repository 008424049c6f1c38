/* Reading a CSV file for the loaders of pb_csvread.h, through pb_infile: regular files only, opened without
 * blocking, never more than PB_CSV_MAX_MIB read. */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csvread.h"
#include "pb_infile.h"

#define MAX_BYTES ((size_t)PB_CSV_MAX_MIB << 20)

/* The file's text (pb_infile's rules), or -1 with e filled: missing when there is no such file, else
 * unreadable. */
static int read_csv(const char *path, char **buf, size_t *len, pb_csverr *e)
{
    if (pb_infile_read(AT_FDCWD, path, MAX_BYTES, "a CSV", buf, len, e->msg, sizeof e->msg) == 0)
        return 0;
    e->missing = errno == ENOENT;
    e->unreadable = true;
    return -1;
}

/* The length of data up to its last line end outside quotes: a killed writer's partial file ends with the line
 * it was writing, cut anywhere, inside a quoted field too. (A doubled quote toggles twice: no change.) */
static size_t complete_length(const char *data, size_t len)
{
    bool quoted = false;
    size_t end = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '"')
            quoted = !quoted;
        else if (data[i] == '\n' && !quoted)
            end = i + 1;
    }
    return end;
}

static int load(pb_table *t, const char *path, bool *cut, pb_csverr *e)
{
    memset(t, 0, sizeof *t);
    memset(e, 0, sizeof *e);
    size_t len = 0;
    char *buf = NULL;
    if (read_csv(path, &buf, &len, e) != 0)
        return -1;
    size_t use = cut ? complete_length(buf, len) : len;
    if (cut)
        *cut = use < len;
    int rc = pb_table_parse(t, path, buf, use, e);
    free(buf);
    return rc;
}

int pb_table_load(pb_table *t, const char *path, pb_csverr *e) { return load(t, path, NULL, e); }

int pb_table_load_partial(pb_table *t, const char *path, bool *cut, pb_csverr *e) { return load(t, path, cut, e); }

int pb_table_load_in(pb_table *t, const char *dir, const char *file, const char *const *need, char *err,
                     size_t errlen)
{
    char path[4200];
    int n = snprintf(path, sizeof path, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= sizeof path) { /* never a path cut short */
        snprintf(err, errlen, "a path longer than %zu bytes: %s/%s", sizeof path - 1, dir, file);
        return -1;
    }
    pb_csverr e;
    if (pb_table_load(t, path, &e) != 0) {
        if (e.missing)
            return 1;
        snprintf(err, errlen, "%s", e.msg);
        return -1;
    }
    if (pb_table_require(t, need, &e) != 0) {
        snprintf(err, errlen, "%s", e.msg);
        pb_table_free(t);
        return -1;
    }
    return 0;
}
