/* pb_powercap.c — the powercap tree's zones and counters; see pb_powercap.h. */
#include "pb_powercap.h"

#include "pb_err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every file read here is a short line: a counter or a zone name. */
#define FILE_MAX 64

/* Reads dir/file (a regular file, at most FILE_MAX - 1 bytes) into buf without its trailing newline. -1 with
 * errno set, EINVAL for a file that is not regular or too long. */
static int read_small(const char *root, const char *dir, const char *file, char *buf)
{
    char path[4096 + 2 * PB_POWERCAP_NAME_LEN];
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, file);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    ssize_t n = read(fd, buf, FILE_MAX);
    int saved = errno;
    close(fd);
    if (n < 0) {
        errno = saved;
        return -1;
    }
    if (n >= FILE_MAX) {
        errno = EINVAL;
        return -1;
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* A decimal counter of dir/file; -1 with errno set (EINVAL when it is not one). */
static int read_u64(const char *root, const char *dir, const char *file, uint64_t *out)
{
    char buf[FILE_MAX + 1];
    if (read_small(root, dir, file, buf) != 0)
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (buf[0] < '0' || buf[0] > '9' || *end != '\0' || errno == ERANGE) {
        errno = EINVAL;
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* A zone directory is named intel-rapl:N or intel-rapl:N:M (also intel-rapl-mmio:N on some Intel parts). */
static bool is_zone_dir(const char *d)
{
    return strncmp(d, "intel-rapl", 10) == 0 && strchr(d, ':') != NULL;
}

static int zone_filter(const struct dirent *e)
{
    return is_zone_dir(e->d_name) && strlen(e->d_name) < PB_POWERCAP_NAME_LEN;
}

static int zone_cmp(const void *a, const void *b)
{
    return strcmp(((const pb_powercap_zone *)a)->dir, ((const pb_powercap_zone *)b)->dir);
}

static const char *default_root(void)
{
    const char *env = getenv("POOLBENCH_POWERCAP");
    return env && *env ? env : "/sys/class/powercap";
}

/* Adds the zone in directory d; -1 with why filled when its files cannot be read. */
static int add_zone(pb_powercap *pc, const char *d, char *why, size_t whylen)
{
    pb_powercap_zone *z = &pc->zone[pc->nzones];
    char name[FILE_MAX + 1];
    uint64_t uj;
    size_t dlen = strlen(d); /* under PB_POWERCAP_NAME_LEN: pb_powercap_open skips longer names */
    if (dlen >= sizeof z->dir)
        return pb_errf(why, whylen, "powercap: a zone directory name longer than %zu bytes", sizeof z->dir - 1);
    memcpy(z->dir, d, dlen + 1);
    if (read_small(pc->root, d, "name", name) != 0 || read_u64(pc->root, d, "max_energy_range_uj", &z->max_range_uj) != 0)
        return pb_errf(why, whylen, "powercap: %s/%s: name or max_energy_range_uj unreadable (%s)", pc->root, d,
                       strerror(errno));
    if (read_u64(pc->root, d, "energy_uj", &uj) != 0)
        return pb_errf(why, whylen, "powercap: %s/%s/energy_uj unreadable (%s%s)", pc->root, d, strerror(errno),
                       errno == EACCES ? ": root only since Linux 5.10" : "");
    if (z->max_range_uj == 0)
        return pb_errf(why, whylen, "powercap: %s/%s: max_energy_range_uj is 0", pc->root, d);
    if (strlen(name) >= sizeof z->name)
        return pb_errf(why, whylen, "powercap: %s/%s/name is longer than %zu bytes", pc->root, d, sizeof z->name - 1);
    for (char *c = name; *c; c++) /* a name reaches the console and machine.csv: no CR, ESC or other control */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    memcpy(z->name, name, strlen(name) + 1);
    pc->nzones++;
    return 0;
}

int pb_powercap_open(pb_powercap *pc, const char *root, char *why, size_t whylen)
{
    memset(pc, 0, sizeof *pc);
    if (!root)
        root = default_root();
    if (strlen(root) >= sizeof pc->root)
        return pb_errf(why, whylen, "powercap: the tree's path is longer than %zu bytes", sizeof pc->root - 1);
    snprintf(pc->root, sizeof pc->root, "%s", root);
    struct dirent **names;
    int n = scandir(root, &names, zone_filter, alphasort);
    if (n < 0)
        return pb_errf(why, whylen, "powercap: no %s (%s): no RAPL driver here (a VM, or not Linux)", root,
                       strerror(errno));
    /* In name order, so that past the table's room the packages (intel-rapl:0, :1, ...) are the ones kept. */
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && pc->nzones < PB_POWERCAP_MAX_ZONES)
            rc = add_zone(pc, names[i]->d_name, why, whylen);
        free(names[i]);
    }
    free(names);
    pc->nfound = n;
    if (rc != 0)
        return -1;
    if (pc->nzones == 0)
        return pb_errf(why, whylen, "powercap: %s holds no RAPL zone (a VM, or no RAPL driver)", root);
    qsort(pc->zone, (size_t)pc->nzones, sizeof pc->zone[0], zone_cmp);
    return pc->nzones;
}

int pb_powercap_read(const pb_powercap *pc, pb_powercap_sample *s, char *why, size_t whylen)
{
    for (int z = 0; z < pc->nzones; z++)
        if (read_u64(pc->root, pc->zone[z].dir, "energy_uj", &s->uj[z]) != 0)
            return pb_errf(why, whylen, "powercap: %s/%s/energy_uj unreadable (%s)", pc->root, pc->zone[z].dir,
                           strerror(errno));
    return 0;
}

uint64_t pb_powercap_delta_uj(uint64_t prev, uint64_t cur, uint64_t max_range_uj)
{
    if (cur >= prev)
        return cur - prev;
    /* A value above the range (a corrupt reading) cannot be unwrapped: no energy rather than a huge one. */
    if (prev > max_range_uj)
        return 0;
    return (max_range_uj - prev) + 1 + cur;
}

double pb_powercap_joules(const pb_powercap *pc, int z, const pb_powercap_sample *before,
                          const pb_powercap_sample *after, double seconds, char *why, size_t whylen)
{
    uint64_t prev = before->uj[z], cur = after->uj[z];
    double j = (double)pb_powercap_delta_uj(prev, cur, pc->zone[z].max_range_uj) * 1e-6;
    if (seconds > 0 && j / seconds <= PB_POWERCAP_MAX_WATTS)
        return j;
    pb_errf(why, whylen, "powercap: %s (%s) went from %llu to %llu uJ in %.3f s: %.0f W if it wrapped at %llu, "
                         "more than any zone draws (%.0f W); left empty", pc->zone[z].dir, pc->zone[z].name,
            (unsigned long long)prev, (unsigned long long)cur, seconds, seconds > 0 ? j / seconds : INFINITY,
            (unsigned long long)pc->zone[z].max_range_uj, PB_POWERCAP_MAX_WATTS);
    return NAN;
}

double pb_powercap_joules_of(const pb_powercap *pc, const char *prefix, const pb_powercap_sample *before,
                             const pb_powercap_sample *after, double seconds, char *why, size_t whylen)
{
    double j = 0;
    bool any = false;
    for (int z = 0; z < pc->nzones; z++) {
        if (strncmp(pc->zone[z].name, prefix, strlen(prefix)) != 0)
            continue;
        j += pb_powercap_joules(pc, z, before, after, seconds, why, whylen); /* one NAN makes the sum NAN */
        any = true;
    }
    return any ? j : NAN;
}
