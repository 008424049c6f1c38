/* pb_membuf.c — a bandwidth buffer from the OS (pb_membuf.h): MemAvailable, aligned mappings, huge pages. */
#include "pb_membuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int pb_mem_available_from(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *out = (uint64_t)kb * 1024;
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

int pb_mem_available(uint64_t *out) { return pb_mem_available_from("/proc/meminfo", out); }

int pb_membuf_map(pb_membuf *b, size_t bytes, bool huge)
{
    memset(b, 0, sizeof *b);
    if (bytes == 0 || bytes > SIZE_MAX - PB_HUGE_PAGE) {
        errno = EINVAL;
        return -1;
    }
    /* Over-map by one huge page, then give back what lies outside the aligned range: the mapping that
     * stays starts on a huge-page boundary, so every 2 MiB of it can be one huge page. */
    size_t len = bytes + PB_HUGE_PAGE;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    uint8_t *p = (uint8_t *)(((uintptr_t)m + PB_HUGE_PAGE - 1) & ~(uintptr_t)(PB_HUGE_PAGE - 1));
    size_t lead = (size_t)(p - m), keep = (bytes + 4095) & ~(size_t)4095;
    if (lead)
        munmap(m, lead);
    if (len - lead > keep)
        munmap(p + keep, len - lead - keep);
    if (huge)
        (void)madvise(p, keep, MADV_HUGEPAGE); /* EINVAL without THP: small pages, reported as thp 0 */
    *b = (pb_membuf){ .p = p, .bytes = bytes, .map = p, .map_bytes = keep };
    return 0;
}

void pb_membuf_unmap(pb_membuf *b)
{
    if (b->map)
        munmap(b->map, b->map_bytes);
    memset(b, 0, sizeof *b);
}

int pb_thp_bytes_from(const char *path, uintptr_t lo, uintptr_t hi, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    bool inside = false;
    uint64_t total = 0;
    while (fgets(line, sizeof line, f)) {
        uintptr_t a, b;
        unsigned long long kb;
        /* A mapping's header line is "start-end perms offset dev inode [path]"; its fields follow. */
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a < hi && b > lo;
        else if (inside && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
            total += (uint64_t)kb * 1024;
    }
    fclose(f);
    *out = total;
    return 0;
}

int pb_thp_bytes(uintptr_t lo, uintptr_t hi, uint64_t *out)
{
    return pb_thp_bytes_from("/proc/self/smaps", lo, hi, out);
}
