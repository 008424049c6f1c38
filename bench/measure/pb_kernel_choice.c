/* pb_kernel_choice.c — see pb_kernel_choice.h. */
#include "pb_kernel_choice.h"

const char *const pb_kernel_why_names[PB_KERNEL_WHY_COUNT + 1] = {
    [PB_KERNEL_WHY_TUNED] = "tuned", [PB_KERNEL_WHY_RANK] = "rank", [PB_KERNEL_WHY_FORCED] = "forced",
    [PB_KERNEL_WHY_ALL] = "all",
    [PB_KERNEL_WHY_COUNT] = NULL,
};

pb_kernel_choice pb_kernel_choice_for(const pb_kernel_picker *k, kern_format f, int threads)
{
    const pb_wisdom_kernel *w = k->wisdom ? pb_wisdom_kernel_near(k->wisdom, f, threads) : NULL;
    /* Forced: the wisdom's choice where it is the forced ISA or under it (a tuning capped alike measured it), else
     * the forced ISA's file kernel. */
    if (k->forced < KERN_ISA_COUNT && !(w && w->tuned && kern_isa_under(w->isa, k->forced)))
        return (pb_kernel_choice){ .isa = k->forced, .prefetch = true, .why = PB_KERNEL_WHY_FORCED };
    /* An entry this CPU cannot run (a file edited by hand past its identity) goes by rank like a missing one; so does
     * one whose tuning kept rank's default (nothing beat it by more than the noise). */
    if (w && w->tuned && kern_isa_supported(w->isa)) {
        /* a layout this build has no kernel of goes as the file's, with the same ISA */
        kern_layout l = kern_repack_isa(w->layout, f, w->isa) < KERN_ISA_COUNT ? w->layout : KERN_LAYOUT_FILE;
        return (pb_kernel_choice){ .isa = w->isa, .prefetch = w->prefetch, .why = PB_KERNEL_WHY_TUNED, .layout = l };
    }
    return (pb_kernel_choice){ .isa = kern_isa_best(), .prefetch = true, .why = PB_KERNEL_WHY_RANK };
}

const char *pb_kernel_choice_stream(kern_format f, const pb_kernel_choice *c)
{
    /* a repacked layout's kernel prefetches or not whatever c->prefetch says (it has no twin without) */
    bool on = c->layout != KERN_LAYOUT_FILE ? kern_repack_prefetches(c->layout, f, c->isa)
                                            : c->prefetch && kern_matvec_prefetches(f, c->isa);
    if (!on)
        return "off";
    return kern_prefetch_setting_name(kern_prefetch_temporal, kern_prefetch_ahead, kern_prefetch_near);
}

bool pb_kernel_picker_apply(const pb_kernel_picker *k)
{
    const pb_wisdom *w = k->wisdom;
    if (!w || (!w->has_hint && !w->has_distance && !w->has_near))
        return false;
    if (w->has_near)
        kern_prefetch_set_near(w->near);
    if (k->wisdom->has_hint)
        kern_prefetch_set_temporal(k->wisdom->temporal);
    if (k->wisdom->has_distance) /* the parser accepted only a distance this build knows */
        kern_prefetch_set_distance(k->wisdom->distance);
    return true;
}
