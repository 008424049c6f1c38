/* pb_cpuinfo.c — arm64 /proc/cpuinfo parsing, MIDR decoding and the name tables (see pb_cpuinfo.h). */
#include "pb_cpuinfo.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct arm_vendor {
    unsigned implementer;
    const char *name;
} arm_vendor;

/* MIDR implementer codes (Arm ARM, MIDR_EL1; Linux's arch/arm64/include/asm/cputype.h). 0x00 is "reserved for
 * software use": qemu's 'max' CPU reports it. Names fit pb_machine.vendor (15 characters). */
static const arm_vendor vendors[] = {
    { 0x00, "software" }, { 0x41, "ARM" },      { 0x42, "Broadcom" }, { 0x43, "Cavium" },
    { 0x46, "Fujitsu" },          { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },   { 0x50, "APM" },
    { 0x51, "Qualcomm" },         { 0x53, "Samsung" },   { 0x61, "Apple" },    { 0x6d, "Microsoft" },
    { 0xc0, "Ampere" },
};

typedef struct arm_part {
    unsigned implementer, part;
    const char *name;
    const char *codename; /* Arm's codename; for Apple's cores, the chip */
} arm_part;

/* The parts a decode benchmark is likely to meet: phones' and boards' big.LITTLE cores, the server cores of the
 * clouds, Apple's M1/M2 under Asahi Linux. Names as lscpu prints them. */
static const arm_part parts[] = {
    { 0x00, 0x051, "QEMU max", "" }, /* 'Q': qemu's 'max' CPU, which emulates every feature it has */
    { 0x41, 0xd03, "Cortex-A53", "Apollo" },      { 0x41, 0xd04, "Cortex-A35", "Mercury" },
    { 0x41, 0xd05, "Cortex-A55", "Ananke" },      { 0x41, 0xd07, "Cortex-A57", "Atlas" },
    { 0x41, 0xd08, "Cortex-A72", "Maia" },        { 0x41, 0xd09, "Cortex-A73", "Artemis" },
    { 0x41, 0xd0a, "Cortex-A75", "Prometheus" },  { 0x41, 0xd0b, "Cortex-A76", "Enyo" },
    { 0x41, 0xd0c, "Neoverse-N1", "Ares" },       { 0x41, 0xd0d, "Cortex-A77", "Deimos" },
    { 0x41, 0xd40, "Neoverse-V1", "Zeus" },       { 0x41, 0xd41, "Cortex-A78", "Hercules" },
    { 0x41, 0xd44, "Cortex-X1", "Hera" },         { 0x41, 0xd46, "Cortex-A510", "Klein" },
    { 0x41, 0xd47, "Cortex-A710", "Matterhorn" }, { 0x41, 0xd48, "Cortex-X2", "Matterhorn-ELP" },
    { 0x41, 0xd49, "Neoverse-N2", "Perseus" },    { 0x41, 0xd4d, "Cortex-A715", "Makalu" },
    { 0x41, 0xd4e, "Cortex-X3", "Makalu-ELP" },   { 0x41, 0xd4f, "Neoverse-V2", "Demeter" },
    { 0x41, 0xd80, "Cortex-A520", "Hayes" },      { 0x41, 0xd81, "Cortex-A720", "Hunter" },
    { 0x41, 0xd82, "Cortex-X4", "Hunter-ELP" },   { 0x41, 0xd84, "Neoverse-V3", "Poseidon" },
    { 0x46, 0x001, "A64FX", "" },                 { 0x48, 0xd01, "TaiShan-v110", "Kunpeng 920" },
    { 0x4e, 0x004, "Carmel", "" },                { 0x51, 0x001, "Oryon", "" },
    { 0x51, 0x801, "Kryo-2xx-Silver", "" },       { 0x51, 0x802, "Kryo-3xx-Gold", "" },
    { 0x51, 0x803, "Kryo-3xx-Silver", "" },       { 0x51, 0x804, "Kryo-4xx-Gold", "" },
    { 0x51, 0x805, "Kryo-4xx-Silver", "" },       { 0x51, 0xc00, "Falkor", "" },
    { 0x61, 0x022, "Icestorm", "M1" },            { 0x61, 0x023, "Firestorm", "M1" },
    { 0x61, 0x024, "Icestorm", "M1 Pro" },        { 0x61, 0x025, "Firestorm", "M1 Pro" },
    { 0x61, 0x028, "Icestorm", "M1 Max" },        { 0x61, 0x029, "Firestorm", "M1 Max" },
    { 0x61, 0x032, "Blizzard", "M2" },            { 0x61, 0x033, "Avalanche", "M2" },
    { 0x61, 0x034, "Blizzard", "M2 Pro" },        { 0x61, 0x035, "Avalanche", "M2 Pro" },
    { 0x61, 0x038, "Blizzard", "M2 Max" },        { 0x61, 0x039, "Avalanche", "M2 Max" },
    { 0xc0, 0xac3, "Ampere-1", "" },              { 0xc0, 0xac4, "Ampere-1a", "" },
};

typedef struct arm_feature {
    const char *name; /* as /proc/cpuinfo's Features line spells it */
    int word;         /* 1: AT_HWCAP, 2: AT_HWCAP2 */
    int bit;
} arm_feature;

/* The extensions the ISA line lists, in its order: SIMD, then the dot products the q8/q4 kernels need, then
 * the matrix and vector extensions. */
static const arm_feature features[] = {
    { "asimd", 1, PB_HWCAP_ASIMD },       { "asimdhp", 1, PB_HWCAP_ASIMDHP },   { "asimddp", 1, PB_HWCAP_ASIMDDP },
    { "asimdfhm", 1, PB_HWCAP_ASIMDFHM }, { "i8mm", 2, PB_HWCAP2_I8MM },        { "bf16", 2, PB_HWCAP2_BF16 },
    { "sve", 1, PB_HWCAP_SVE },           { "sve2", 2, PB_HWCAP2_SVE2 },        { "svei8mm", 2, PB_HWCAP2_SVEI8MM },
    { "svebf16", 2, PB_HWCAP2_SVEBF16 },  { "sme", 2, PB_HWCAP2_SME },          { "cpuid", 1, PB_HWCAP_CPUID },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* "cpuid" says whether the kernel emulates MRS reads of the ID registers: a fact for the live reader, not an
 * instruction set, so the ISA line stops before it. */
#define ISA_FEATURES (COUNT(features) - 1)

/* The Features line's names into HWCAP bits. */
static void parse_features(const char *v, size_t len, pb_cpuinfo *out)
{
    for (size_t i = 0; i < len;) {
        while (i < len && isspace((unsigned char)v[i]))
            i++;
        size_t w = i;
        while (i < len && !isspace((unsigned char)v[i]))
            i++;
        for (size_t f = 0; f < COUNT(features) && i > w; f++) {
            if (strlen(features[f].name) != i - w || strncmp(features[f].name, v + w, i - w) != 0)
                continue;
            uint64_t *word = features[f].word == 1 ? &out->hwcap : &out->hwcap2;
            *word |= UINT64_C(1) << features[f].bit;
        }
    }
}

/* One "key<blanks>: value" line: the key without its trailing blanks, the value without its leading ones.
 * false for a line without a colon. */
static bool split_line(const char *line, size_t len, size_t *klen, const char **value, size_t *vlen)
{
    const char *colon = memchr(line, ':', len);
    if (!colon)
        return false;
    size_t k = (size_t)(colon - line);
    while (k > 0 && isspace((unsigned char)line[k - 1]))
        k--;
    const char *v = colon + 1;
    const char *end = line + len;
    while (v < end && isspace((unsigned char)*v))
        v++;
    *klen = k;
    *value = v;
    *vlen = (size_t)(end - v);
    return true;
}

static bool key_is(const char *line, size_t klen, const char *key)
{
    return strlen(key) == klen && strncmp(line, key, klen) == 0;
}

/* The cpu being read: its fields, and which of the two that identify a part were seen. */
typedef struct cpu_block {
    pb_midr m;
    bool have_impl, have_part;
} cpu_block;

/* A finished block joins out when it named a part (an x86 block names none). */
static void end_block(cpu_block *b, pb_cpuinfo *out)
{
    if (b->have_impl && b->have_part && out->n < PB_MAX_CPUS)
        out->cpu[out->n++] = b->m;
    *b = (cpu_block){ .m = { .cpu = b->m.cpu + 1 } };
}

static void parse_line(const char *line, size_t len, cpu_block *b, bool *features_seen, pb_cpuinfo *out)
{
    size_t klen, vlen;
    const char *v;
    if (!split_line(line, len, &klen, &v, &vlen))
        return;
    unsigned long n = strtoul(v, NULL, 0); /* "0x41" and "8" alike; read within the line (a digit run ends it) */
    if (key_is(line, klen, "processor")) {
        if (b->have_impl || b->have_part)
            end_block(b, out);
        b->m.cpu = (int)n;
    } else if (key_is(line, klen, "CPU implementer")) {
        b->m.implementer = (unsigned)n;
        b->have_impl = true;
    } else if (key_is(line, klen, "CPU variant")) {
        b->m.variant = (unsigned)n;
    } else if (key_is(line, klen, "CPU part")) {
        b->m.part = (unsigned)n;
        b->have_part = true;
    } else if (key_is(line, klen, "CPU revision")) {
        b->m.revision = (unsigned)n;
    } else if (key_is(line, klen, "Features") && !*features_seen) {
        parse_features(v, vlen, out); /* every cpu of a Linux machine reports the same (the common subset) */
        *features_seen = true;
    }
}

int pb_cpuinfo_parse(const char *text, pb_cpuinfo *out)
{
    memset(out, 0, sizeof *out);
    cpu_block b = { .m = { .cpu = 0 } };
    bool features_seen = false;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        parse_line(p, len, &b, &features_seen, out);
        p = nl ? nl + 1 : NULL;
    }
    end_block(&b, out);
    return out->n;
}

pb_midr pb_midr_decode(int cpu, uint64_t midr)
{
    return (pb_midr){ .cpu = cpu, .implementer = (unsigned)(midr >> 24) & 0xff, .variant = (unsigned)(midr >> 20) & 0xf,
                      .part = (unsigned)(midr >> 4) & 0xfff, .revision = (unsigned)midr & 0xf };
}

const pb_midr *pb_cpuinfo_find(const pb_cpuinfo *ci, int cpu)
{
    for (int i = 0; i < ci->n; i++)
        if (ci->cpu[i].cpu == cpu)
            return &ci->cpu[i];
    return NULL;
}

static const arm_part *find_part(unsigned implementer, unsigned part)
{
    for (size_t i = 0; i < COUNT(parts); i++)
        if (parts[i].implementer == implementer && parts[i].part == part)
            return &parts[i];
    return NULL;
}

void pb_arm_vendor(unsigned implementer, char *buf, size_t len)
{
    for (size_t i = 0; i < COUNT(vendors); i++)
        if (vendors[i].implementer == implementer) {
            snprintf(buf, len, "%s", vendors[i].name);
            return;
        }
    snprintf(buf, len, "implementer 0x%02x", implementer);
}

void pb_arm_part_name(unsigned implementer, unsigned part, char *buf, size_t len)
{
    const arm_part *p = find_part(implementer, part);
    if (p)
        snprintf(buf, len, "%s", p->name);
    else
        snprintf(buf, len, "part 0x%03x", part);
}

const char *pb_arm_codename(unsigned implementer, unsigned part)
{
    const arm_part *p = find_part(implementer, part);
    return p ? p->codename : "";
}

void pb_arm_isa(uint64_t hwcap, uint64_t hwcap2, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t f = 0; f < ISA_FEATURES; f++) {
        uint64_t word = features[f].word == 1 ? hwcap : hwcap2;
        size_t used = strlen(buf);
        if (word >> features[f].bit & 1)
            snprintf(buf + used, len - used, "%s%s", used ? " " : "", features[f].name);
    }
    if (!buf[0])
        snprintf(buf, len, "baseline");
}
