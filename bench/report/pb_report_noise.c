/* Noise notes: placements, spreads and load, each with its figures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_findings.h"
#include "pb_fmt.h"
#include "pb_tunings.h"

static void placements(pb_findings *f, const pb_noise_digest *n)
{
    int total = n->near + n->far + n->other;
    if (!total)
        return;
    pb_findings_add(f, "Placement tags on the dispatch, floor and sweep rows: %d near, %d far%s%s; the core-to-core "
                    "round trip ranged %s to %s.%s",
                    n->near, n->far, n->other ? ", other " : "", n->other ? PB_NUM(n->other, 0) : "", PB_NS(n->rt_min),
                    PB_NS(n->rt_max),
                    n->near && n->far ? " Both placements occurred, so the cpus moved during the run: compare figures "
                                        "only within one tag." : "");
}

/* smt and smt? tags: two threads of one core, known from the topology or guessed from a round trip. */
static void smt_pairs(pb_findings *f, const pb_noise_digest *n)
{
    if (n->smt)
        pb_findings_add(f, "%d row%s ran on two hardware threads of one core (smt, from the topology): they share the "
                        "core's caches and execution units, so their figures are not two cores'.", n->smt, PB_S(n->smt));
    if (n->hidden_smt)
        pb_findings_add(f, "%d row%s tagged smt?: the tightest round trip between their two cpus was under %s ns, "
                        "faster than a line can travel between two cores, though the topology shows them as separate "
                        "cores: most likely two hyperthreads of one physical core that the hypervisor hides.",
                        n->hidden_smt, PB_S(n->hidden_smt), PB_STR(PB_HIDDEN_SMT_RT_NS));
}

static void spreads(pb_findings *f, const pb_digest *d)
{
    const pb_dispatch_digest *spin = pb_digest_pool_policy(&d->pool, "spin");
    if (spin && !isnan(d->noise.dispatch_p99_over_median))
        pb_findings_add(f, "Spin dispatch at %d thread%s: p99 is %s the median (%s vs %s).", d->pool.threads, PB_S(d->pool.threads),
                        PB_X(d->noise.dispatch_p99_over_median), PB_NS(spin->ns_p99), PB_NS(spin->ns_median));
    if (!isnan(d->noise.floor_spread_max)) {
        const pb_floor_point *p = pb_digest_floor_at(&d->floor, d->noise.floor_spread_threads);
        pb_findings_add(f, "Read floor: the widest spread is at %d thread%s, where the slowest pass ran %s below the "
                        "best (%s vs %s GB/s).",
                        p->threads, PB_S(p->threads), PB_PCT(100 * d->noise.floor_spread_max), PB_NUM(p->min, 1), PB_NUM(p->best, 1));
    }
    const pb_sweep_digest *s = &d->sweep;
    if (!isnan(s->ms_spread_max))
        pb_findings_add(f, "Decode: the noisiest point (%s %s, %d thread%s on %s) spread %s of its median token time "
                        "(%s ms) between its fastest and slowest token.",
                        s->noisiest.policy, s->noisiest.format, s->noisiest.threads, PB_S(s->noisiest.threads),
                        s->noisiest.cpuset[0] ? s->noisiest.cpuset : "?", PB_PCT(100 * s->ms_spread_max),
                        PB_NUM(s->noisiest.ms_median, 2));
}

static const char *machine_first(const pb_rundata *rd, const char *a, const char *b)
{
    const char *v = pb_machine_value(rd, a);
    return v && *v ? v : pb_machine_value(rd, b);
}

/* The clock against the nominal one (the TSC's rate in machine.csv), "; LO-HIx the nominal N MHz, the TSC's rate:
 * above it, a turbo", or "" where the run has no TSC rate. */
static void against_nominal(char *buf, size_t len, const pb_noise_digest *n, const pb_rundata *rd)
{
    const char *v = pb_machine_value(rd, PB_MKEY(tsc_mhz));
    double mhz;
    buf[0] = '\0';
    if (!v || pb_parse_num(v, &mhz) != 0 || !(mhz > 0))
        return;
    double lo = n->ghz_min * 1000 / mhz, hi = n->ghz_max * 1000 / mhz;
    snprintf(buf, len, "; %s-%sx the nominal %s MHz, the TSC's rate%s", PB_NUM(lo, 2), PB_NUM(hi, 2),
             PB_NUM(mhz, 0), lo > 1 ? ": above it, a turbo" : hi < 1 ? ": below it, throttled or saving power" : "");
}

/* Whether the clock held over the run: the add chain's range around every point, and a warning past
 * PB_CLOCK_MOVED_PCT (a turbo that fell off, throttling, or a vCPU moved to a slower core). */
static void clock(pb_findings *f, const pb_noise_digest *n, const pb_rundata *rd)
{
    if (n->ghz_points == 0 || !(n->ghz_max > 0))
        return;
    char nominal[160];
    against_nominal(nominal, sizeof nominal, n, rd);
    double moved = 100 * (n->ghz_max - n->ghz_min) / n->ghz_max;
    if (moved > PB_CLOCK_MOVED_PCT)
        pb_findings_add(f, "The clock moved during the run: %s-%s GHz around its %d points with one (a dependent add "
                        "chain on their cpus%s), %s of its highest (more than " PB_STR(PB_CLOCK_MOVED_PCT) "%%): "
                        "throttling, a turbo that fell off, or vCPUs moved to other cores; the figures were not all "
                        "measured at one clock.", PB_NUM(n->ghz_min, 2), PB_NUM(n->ghz_max, 2), n->ghz_points,
                        nominal, PB_PCT(moved));
    else
        pb_findings_add(f, "The clock held: %s-%s GHz around the run's %d points with one (a dependent add chain on "
                        "their cpus%s).", PB_NUM(n->ghz_min, 2), PB_NUM(n->ghz_max, 2), n->ghz_points, nominal);
}

static void load(pb_findings *f, const pb_digest *d, const pb_rundata *rd)
{
    const char *la = machine_first(rd, PB_MKEY(loadavg_1m), "loadavg"), /* older runs: loadavg */
               *pus = machine_first(rd, PB_MKEY(pus), PB_MKEY(cores));
    double l, n;
    if (la && pb_parse_num(la, &l) == 0 && pus && pb_parse_num(pus, &n) == 0 && n > 0)
        pb_findings_add(f, "Load average at start: %s over %s PUs (%s per PU)%s.", la, pus, PB_NUM(l / n, 2),
                        l / n > PB_LOADED_PER_CPU ? ": above " PB_STR(PB_LOADED_PER_CPU) " per PU, other work shared the "
                                                    "machine and may have disturbed the figures" : "");
    const char *hv = pb_machine_value(rd, PB_MKEY(hypervisor));
    if (hv && *hv && strcmp(hv, "none") != 0)
        pb_findings_add(f, "Hypervisor: %s. Virtual cpus can be moved under a run; the placement tags above say "
                        "where they were.", hv);
    clock(f, &d->noise, rd);
    const char *gov = pb_machine_value(rd, PB_MKEY(governor));
    if (gov && *gov && strcmp(gov, "performance") != 0)
        pb_findings_add(f, "Frequency governor: %s (not performance).", gov);
    const char *thp = pb_machine_value(rd, PB_MKEY(thp));
    const pb_floor_point *one = d->floor.have ? &d->floor.pt[0] : NULL;
    if (one && !isnan(one->thp_mib))
        pb_findings_add(f, "Transparent huge pages: %s; the read buffer got %s MiB of huge pages out of %s MiB.",
                        thp && *thp ? thp : "mode unknown", PB_NUM(one->thp_mib, 0), PB_NUM(one->size_mib, 0));
    for (int i = 0; i < d->util.n; i++)
        if (d->util.c[i].steal_max > 0)
            pb_findings_add(f, "Steal time on cpu%d peaked at %s: the host took that core for other guests.",
                            d->util.c[i].cpu, PB_PCT(d->util.c[i].steal_max));
}

/* One sentence listing the table's rows whose key starts with prefix ("threshold_" or "tuning_"), as this build
 * has them, and a note for each the run's machine.csv gives another value (the run was tagged by that one). */
static void tuning_list(pb_findings *f, const pb_rundata *rd, const char *prefix, const char *what)
{
    char buf[600], diff[300];
    size_t o = 0, od = 0, plen = strlen(prefix);
    buf[0] = diff[0] = '\0';
    for (const pb_tuning *t = pb_tunings; t->key; t++) {
        if (strncmp(t->key, prefix, plen) != 0)
            continue;
        if (o < sizeof buf)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s %g %s", o ? "; " : "", t->key + plen, t->value,
                                  t->unit);
        const char *v = pb_machine_value(rd, t->key);
        double run;
        if (v && pb_parse_num(v, &run) == 0 && run != t->value && od < sizeof diff)
            od += (size_t)snprintf(diff + od, sizeof diff - od, "%s%s %s", od ? ", " : "", t->key, v);
    }
    if (o)
        pb_findings_add(f, "%s (machine.csv, keys %s...): %s.%s%s%s", what, prefix, buf,
                        od ? " This run's machine.csv has " : "", diff,
                        od ? ": its harnesses tagged their rows by those; this report judges by its own." : "");
}

void pb_noise_notes(pb_findings *f, const pb_digest *d, const pb_rundata *rd)
{
    memset(f, 0, sizeof *f);
    placements(f, &d->noise);
    smt_pairs(f, &d->noise);
    spreads(f, d);
    load(f, d, rd);
    tuning_list(f, rd, "threshold_", "Judged by these thresholds");
    tuning_list(f, rd, "tuning_", "Run with these tunables");
}
