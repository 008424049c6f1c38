/* arm64 identity without libcpuid: /proc/cpuinfo text of machines we do not have (the .cpuinfo files beside the
 * arm64 topologies in tests/data, see test_topo_arm.c) parsed into MIDRs and HWCAPs, named from the part table,
 * and merged with the hwloc fixture of the same machine into machine.csv's identity and kinds. Pure functions:
 * these run on every architecture. On arm64 the live probe is checked too (under qemu it reads the emulated
 * CPU's MIDR with MRS, the host's cpuinfo being x86). */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "pb_cpuinfo.h"
#include "test_files.h"
#include "topo_fixture.h"

/* A fixture's cpuinfo parsed (caller frees). */
static pb_cpuinfo *parse(const char *file)
{
    pb_cpuinfo *ci = malloc(sizeof *ci);
    cr_assert_not_null(ci);
    pb_cpuinfo_parse(tf_slurp("tests/data/%s", file), ci); /* tf_slurp's buffer is its own */
    return ci;
}

/* A machine's identity from its two fixtures, as pb_machine_identify builds the live one. */
static void identify(pb_machine *m, const char *name)
{
    char xml[128], cpuinfo[128];
    snprintf(xml, sizeof xml, "%s.xml", name);
    snprintf(cpuinfo, sizeof cpuinfo, "%s.cpuinfo", name);
    pb_topo *t = load(xml);
    pb_cpuinfo *ci = parse(cpuinfo);
    *m = (pb_machine){ .schema = PB_SCHEMA_VERSION };
    pb_machine_merge_topo(m, t);
    pb_machine_arm_identity(m, ci, t);
    free(ci);
    pb_topo_free(t);
}

Test(cpuinfo, rk3588_parsed)
{
    pb_cpuinfo *ci = parse("rk3588-4a76-4a55.cpuinfo");
    cr_assert_eq(ci->n, 8);
    cr_expect_eq(ci->cpu[0].cpu, 0);
    cr_expect_eq(ci->cpu[0].implementer, 0x41u);
    cr_expect_eq(ci->cpu[0].part, 0xd05u);
    cr_expect_eq(ci->cpu[0].variant, 2u);
    cr_expect_eq(ci->cpu[7].cpu, 7);
    cr_expect_eq(ci->cpu[7].part, 0xd0bu);
    cr_expect_eq(ci->cpu[7].variant, 4u);
    cr_expect_eq(ci->cpu[7].revision, 0u);
    cr_expect(ci->hwcap >> PB_HWCAP_ASIMDDP & 1);
    cr_expect(!(ci->hwcap2 >> PB_HWCAP2_I8MM & 1));
    cr_expect_eq(pb_cpuinfo_find(ci, 5)->part, 0xd0bu);
    cr_expect_null(pb_cpuinfo_find(ci, 8));
    free(ci);
}

/* One kind of core as the machine's identity describes it. */
typedef struct kind_want {
    const char *purpose, *core_type;
    int cores, max_mhz;
} kind_want;

/* A machine's identity from its two fixtures (identify): stepping is the MIDR's variant << 4 | revision, ext_family
 * the implementer, ext_model the part of the fastest kind. */
typedef struct identity_want {
    const char *name, *vendor, *brand, *codename, *isa;
    int ext_family, ext_model, stepping, cores, nkinds;
    kind_want kind[2];
} identity_want;

static const identity_want identities[] = {
    { "rk3588-4a76-4a55", "ARM", "Cortex-A76 + Cortex-A55", "Enyo + Ananke", "asimd asimdhp asimddp", 0x41, 0xd0b,
      0x40 /* r4p0 */, 8, 2, { { "performance", "Cortex-A76", 4, 2400 }, { "efficiency", "Cortex-A55", 4, 1800 } } },
    { "graviton3-64c", "ARM", "Neoverse-V1", "Zeus", "asimd asimdhp asimddp asimdfhm i8mm bf16 sve svei8mm svebf16",
      0x41, 0xd40, 0x11 /* r1p1 */, 64, 1, { { "general", "Neoverse-V1", 64, 0 } } },
    /* both kinds' codename, once */
    { "apple-m2pro-6p4e-linux", "Apple", "Avalanche + Blizzard", "M2 Pro", "asimd asimdhp asimddp asimdfhm i8mm bf16",
      0x61, 0x035, 0x11 /* r1p1 */, 10, 2,
      { { "performance", "Avalanche", 6, 3504 }, { "efficiency", "Blizzard", 4, 2424 } } },
};

static void expect_identity(const identity_want *w)
{
    pb_machine m;
    identify(&m, w->name);
    const char *got_s[] = { m.vendor, m.brand, m.codename, m.isa };
    const char *want_s[] = { w->vendor, w->brand, w->codename, w->isa };
    static const char *const field_s[] = { "vendor", "brand", "codename", "isa" };
    for (size_t i = 0; i < sizeof got_s / sizeof got_s[0]; i++)
        cr_expect_str_eq(got_s[i], want_s[i], "%s: %s '%s', want '%s'", w->name, field_s[i], got_s[i], want_s[i]);
    const int got[] = { m.ext_family, m.ext_model, m.stepping };
    const int want[] = { w->ext_family, w->ext_model, w->stepping };
    static const char *const field[] = { "ext_family", "ext_model", "stepping" };
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        cr_expect_eq(got[i], want[i], "%s: %s %#x, want %#x", w->name, field[i], got[i], want[i]);
    cr_expect_eq(m.cores, w->cores, "%s: %d cores, want %d", w->name, m.cores, w->cores);
    cr_expect_eq(m.nkinds, w->nkinds, "%s: %d kinds, want %d", w->name, m.nkinds, w->nkinds);
    for (int k = 0; k < w->nkinds && k < m.nkinds; k++) {
        const pb_machine_kind *g = &m.kind[k];
        const kind_want *c = &w->kind[k];
        cr_expect_str_eq(g->purpose, c->purpose, "%s: kind %d purpose '%s', want '%s'", w->name, k, g->purpose,
                         c->purpose);
        cr_expect_str_eq(g->core_type, c->core_type, "%s: kind %d core type '%s', want '%s'", w->name, k,
                         g->core_type, c->core_type);
        cr_expect_eq(g->cores, c->cores, "%s: kind %d: %d cores, want %d", w->name, k, g->cores, c->cores);
        cr_expect_eq(g->max_mhz, c->max_mhz, "%s: kind %d: %d MHz, want %d", w->name, k, g->max_mhz, c->max_mhz);
    }
}

Test(cpuinfo, identities)
{
    for (size_t i = 0; i < sizeof identities / sizeof identities[0]; i++)
        expect_identity(&identities[i]);
}

/* The merge keeps hwloc's caches beside the MIDR's names. */
Test(cpuinfo, identity_keeps_caches)
{
    pb_machine m;
    identify(&m, "rk3588-4a76-4a55");
    cr_expect_eq(m.cache[1].bytes[0], 512u * 1024);
}

/* machine.csv and the header carry the arm64 identity through the same keys as libcpuid's. */
Test(cpuinfo, identity_reaches_machine_csv)
{
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pb_cpuinfo");
    pb_machine m;
    identify(&m, "rk3588-4a76-4a55");
    char err[256] = "";
    cr_assert_eq(pb_machine_write_csv(&m, dir, "run-arm", err, sizeof err), 0, "%s", err);
    char *csv = tf_slurp("%s/machine.csv", dir);
    tf_expect_has(csv, "\nvendor,ARM\n", "\nbrand,Cortex-A76 + Cortex-A55\n", "\ncodename,Enyo + Ananke\n",
                  "\nkind0_core_type,Cortex-A76\n", "\nkind1_purpose,efficiency\n", "\nisa,asimd asimdhp asimddp\n");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(cpuinfo, midr_fields_and_unknown_names)
{
    pb_midr m = pb_midr_decode(3, 0x410fd0b1);
    cr_expect_eq(m.cpu, 3);
    cr_expect_eq(m.implementer, 0x41u);
    cr_expect_eq(m.variant, 0u);
    cr_expect_eq(m.part, 0xd0bu);
    cr_expect_eq(m.revision, 1u);
    m = pb_midr_decode(0, 0x611f0350);
    cr_expect_eq(m.implementer, 0x61u);
    cr_expect_eq(m.variant, 1u);
    cr_expect_eq(m.part, 0x035u);
    char buf[64];
    pb_arm_part_name(0x41, 0xd4f, buf, sizeof buf);
    cr_expect_str_eq(buf, "Neoverse-V2");
    pb_arm_part_name(0x41, 0xfff, buf, sizeof buf);
    cr_expect_str_eq(buf, "part 0xfff");
    pb_arm_part_name(0x61, 0xd0b, buf, sizeof buf); /* a part number means something only with its implementer */
    cr_expect_str_eq(buf, "part 0xd0b");
    pb_arm_vendor(0x99, buf, sizeof buf);
    cr_expect_str_eq(buf, "implementer 0x99");
    pb_arm_vendor(0x00, buf, sizeof buf);
    cr_expect_str_eq(buf, "software");
    cr_expect_str_eq(pb_arm_codename(0x41, 0xd44), "Hera");
    cr_expect_str_eq(pb_arm_codename(0x41, 0xfff), "");
    pb_arm_isa(0, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "baseline");
    pb_arm_isa(UINT64_C(1) << PB_HWCAP_CPUID, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "baseline", "cpuid is no instruction set: got %s", buf);
}

/* What qemu-user shows an arm64 program (the host's x86 cpuinfo), or a text cut short: no MIDR, no names. */
Test(cpuinfo, text_without_midr)
{
    static const char x86[] = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
                              "flags\t\t: fpu sse2 avx2 asimd\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n";
    pb_cpuinfo *ci = malloc(sizeof *ci);
    cr_assert_not_null(ci);
    cr_expect_eq(pb_cpuinfo_parse(x86, ci), 0);
    cr_expect_eq(ci->hwcap, 0u, "an x86 flags line is no Features line");
    cr_expect_eq(pb_cpuinfo_parse("", ci), 0);
    cr_expect_eq(pb_cpuinfo_parse("processor : 0\nCPU implementer : 0x41\n", ci), 0, "a part is needed too");
    cr_expect_eq(pb_cpuinfo_parse("CPU implementer\t: 0x41\nCPU part\t: 0xd0c", ci), 1, "no processor line, no newline");
    cr_expect_eq(ci->cpu[0].cpu, 0);
    cr_expect_eq(ci->cpu[0].part, 0xd0cu);
    pb_machine m = { 0 };
    pb_cpuinfo_parse(x86, ci);
    pb_machine_arm_identity(&m, ci, NULL);
    cr_expect_str_eq(m.vendor, "unknown");
    cr_expect_str_eq(m.brand, "unknown");
    cr_expect_str_eq(m.isa, "baseline");
    free(ci);
}

#if defined(__aarch64__)
/* The live identity: every arm64 Linux CPU has Advanced SIMD, and some MIDR is found (under qemu, MRS's). */
Test(cpuinfo, live_arm64_identity)
{
    char err[256] = "";
    pb_topo *t = pb_topo_load(NULL, err, sizeof err);
    cr_assert(t, "%s", err);
    pb_machine m;
    cr_expect_eq(pb_machine_probe(&m, t, err, sizeof err), 0, "%s", err);
    cr_expect_str_neq(m.vendor, "unknown");
    cr_expect(strncmp(m.isa, "asimd", 5) == 0, "isa '%s'", m.isa);
    cr_expect(m.kind[0].core_type[0], "kind 0 has no name");
    pb_topo_free(t);
}
#endif
