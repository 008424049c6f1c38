/* Which kernel a run picks and why (bench/measure/pb_kernel_choice.h): forced over everything, wisdom's where it has
 * the format (at the nearest thread count), rank otherwise; the streaming setting as the CSVs say it. */
#include <criterion/criterion.h>

#include "pb_kernel_choice.h"

static pb_wisdom wisdom_with(kern_format f, int threads, kern_isa isa, bool prefetch)
{
    pb_wisdom w = { .has_hint = true, .temporal = !kern_prefetch_vendor_temporal() };
    cr_assert_eq(pb_wisdom_put_kernel(&w, &(pb_wisdom_kernel){ .fmt = f, .threads = threads, .isa = isa,
                                                                .prefetch = prefetch, .gbps = 1, .tuned = true }),
                 0);
    return w;
}

Test(kernel_choice, the_why_of_each_choice)
{
    pb_wisdom w = wisdom_with(KERN_Q8_0, 2, KERN_ISA_SCALAR, false);
    pb_kernel_picker none = { .wisdom = NULL, .forced = KERN_ISA_COUNT };
    pb_kernel_picker tuned = { .wisdom = &w, .forced = KERN_ISA_COUNT };
    pb_kernel_picker forced = { .wisdom = &w, .forced = KERN_ISA_SCALAR };
    pb_kernel_choice c = pb_kernel_choice_for(&none, KERN_Q8_0, 1);
    cr_assert(c.why == PB_KERNEL_WHY_RANK && c.isa == kern_isa_best() && c.prefetch);
    c = pb_kernel_choice_for(&tuned, KERN_Q8_0, 8); /* the nearest timed count: 2 */
    cr_assert(c.why == PB_KERNEL_WHY_TUNED && c.isa == KERN_ISA_SCALAR && !c.prefetch);
    c = pb_kernel_choice_for(&tuned, KERN_Q4_0, 2); /* a format wisdom lacks */
    cr_assert(c.why == PB_KERNEL_WHY_RANK && c.isa == kern_isa_best());
    c = pb_kernel_choice_for(&forced, KERN_Q8_0, 2); /* POOLBENCH_KERNEL is a cap: the wisdom's scalar is under it */
    cr_assert(c.why == PB_KERNEL_WHY_TUNED && c.isa == KERN_ISA_SCALAR && !c.prefetch);
    pb_wisdom above = wisdom_with(KERN_Q8_0, 2, kern_isa_best(), false);
    pb_kernel_picker capped = { .wisdom = &above, .forced = KERN_ISA_SCALAR };
    c = pb_kernel_choice_for(&capped, KERN_Q8_0, 2); /* the wisdom's kernel above the cap: the cap's own */
    if (kern_isa_best() != KERN_ISA_SCALAR)
        cr_assert(c.why == PB_KERNEL_WHY_FORCED && c.isa == KERN_ISA_SCALAR && c.prefetch);
    cr_assert_str_eq(pb_kernel_why_names[PB_KERNEL_WHY_TUNED], "tuned");
    cr_assert_str_eq(pb_kernel_why_names[PB_KERNEL_WHY_RANK], "rank");
    cr_assert_str_eq(pb_kernel_why_names[PB_KERNEL_WHY_FORCED], "forced");
    cr_assert_str_eq(pb_kernel_why_names[PB_KERNEL_WHY_ALL], "all");
}

/* An entry whose tuning kept rank's default (no candidate beat it by more than the noise) runs rank's kernel and
 * says rank, whatever the line's kernel; wisdom's streaming settings still apply. */
Test(kernel_choice, an_entry_that_kept_rank_says_rank)
{
    pb_wisdom w = wisdom_with(KERN_Q8_0, 1, KERN_ISA_SCALAR, false);
    w.kernel[0].tuned = false;
    pb_kernel_picker tuned = { .wisdom = &w, .forced = KERN_ISA_COUNT };
    pb_kernel_choice c = pb_kernel_choice_for(&tuned, KERN_Q8_0, 1);
    cr_assert(c.why == PB_KERNEL_WHY_RANK && c.isa == kern_isa_best() && c.prefetch && c.layout == KERN_LAYOUT_FILE);
}

/* An entry for an ISA this CPU lacks (a file edited past its identity) goes by rank. */
Test(kernel_choice, an_entry_this_cpu_cannot_run_goes_by_rank)
{
    kern_isa lacking = KERN_ISA_COUNT;
    for (int v = 0; v < KERN_ISA_COUNT; v++)
        if (!kern_isa_supported((kern_isa)v))
            lacking = (kern_isa)v;
    cr_assert_neq(lacking, KERN_ISA_COUNT, "every build lacks the other architecture's ISAs");
    pb_wisdom w = wisdom_with(KERN_Q8_0, 1, lacking, true);
    pb_kernel_picker tuned = { .wisdom = &w, .forced = KERN_ISA_COUNT };
    pb_kernel_choice c = pb_kernel_choice_for(&tuned, KERN_Q8_0, 1);
    cr_assert(c.why == PB_KERNEL_WHY_RANK && c.isa == kern_isa_best());
}

/* The hint and distance are wisdom's once applied (forced too: a tuning capped alike measured them); the stream
 * names follow them. */
Test(kernel_choice, hint_applied_and_stream_named)
{
    pb_wisdom w = wisdom_with(KERN_Q8_0, 1, kern_isa_best(), true);
    w.has_distance = w.has_near = true;
    w.distance = 3072;
    w.near = !kern_prefetch_vendor_near();
    pb_kernel_picker none = { .wisdom = NULL, .forced = kern_isa_best() };
    cr_assert(!pb_kernel_picker_apply(&none));
    cr_assert_eq(kern_prefetch_temporal, kern_prefetch_vendor_temporal());
    pb_kernel_picker tuned = { .wisdom = &w, .forced = KERN_ISA_COUNT };
    cr_assert(pb_kernel_picker_apply(&tuned));
    cr_assert_eq(kern_prefetch_temporal, w.temporal);
    cr_assert_eq(kern_prefetch_ahead, 3072u);
    cr_assert_eq(kern_prefetch_near, w.near);
    pb_kernel_choice on = { .isa = kern_isa_best(), .prefetch = true }, off = on;
    off.prefetch = false;
    cr_assert_str_eq(pb_kernel_choice_stream(KERN_Q8_0, &off), "off");
    cr_assert_str_eq(pb_kernel_choice_stream(KERN_Q8_0, &on), kern_matvec_prefetches(KERN_Q8_0, on.isa)
                                                            ? kern_prefetch_setting_name(w.temporal, 3072, w.near)
                                                            : "off");
    pb_kernel_choice scalar = { .isa = KERN_ISA_SCALAR, .prefetch = true };
    cr_assert_str_eq(pb_kernel_choice_stream(KERN_Q8_0, &scalar), "off", "scalar never prefetches");
    /* a repacked layout's kernel says what it does, whatever .prefetch holds: its AVX-512 one prefetches */
    pb_kernel_choice rp = { .isa = KERN_ISA_SCALAR, .prefetch = true, .layout = KERN_LAYOUT_Q1_0_R32LUT };
    cr_assert_str_eq(pb_kernel_choice_stream(KERN_Q1_0, &rp), "off", "the scalar group kernel does not prefetch");
    if (kern_isa_supported(KERN_ISA_AVX512)) {
        rp = (pb_kernel_choice){ .isa = KERN_ISA_AVX512, .prefetch = false, .layout = KERN_LAYOUT_Q1_0_R32LUT };
        cr_assert_str_eq(pb_kernel_choice_stream(KERN_Q1_0, &rp), kern_prefetch_setting_name(w.temporal, 3072, w.near));
    }
    kern_prefetch_set_temporal(kern_prefetch_vendor_temporal());
    kern_prefetch_set_distance(KERN_PREFETCH_BYTES);
    kern_prefetch_set_near(kern_prefetch_vendor_near());
}

/* Wisdom's layout comes with its kernel, under a cap (POOLBENCH_KERNEL) too when its kernel is under it; ranked
 * choices read the file's layout. */
Test(kernel_choice, a_tuned_layout_is_chosen_with_its_kernel)
{
    pb_wisdom w = { .nkernels = 0 };
    cr_assert_eq(pb_wisdom_put_kernel(&w, &(pb_wisdom_kernel){ .fmt = KERN_Q1_0, .threads = 1,
                                                                .isa = KERN_ISA_SCALAR, .gbps = 1, .tuned = true,
                                                                .layout = KERN_LAYOUT_Q1_0_R32LUT }),
                 0);
    pb_kernel_picker tuned = { .wisdom = &w, .forced = KERN_ISA_COUNT };
    pb_kernel_picker forced = { .wisdom = &w, .forced = KERN_ISA_SCALAR };
    cr_assert_eq(pb_kernel_choice_for(&tuned, KERN_Q1_0, 2).layout, KERN_LAYOUT_Q1_0_R32LUT);
    cr_assert_eq(pb_kernel_choice_for(&forced, KERN_Q1_0, 1).layout, KERN_LAYOUT_Q1_0_R32LUT,
                 "its scalar is under the cap");
    cr_assert_eq(pb_kernel_choice_for(&tuned, KERN_Q4_0, 1).layout, KERN_LAYOUT_FILE, "rank");
}
