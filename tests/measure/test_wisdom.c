/* Wisdom files (bench/measure/pb_wisdom.h): the text round-trips; another cpu or build is ignored with one line;
 * a malformed or truncated file, or one that is no regular file, is one line and no wisdom; saving is atomic. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_wisdom.h"
#include "test_files.h"

#define CPU "GenuineIntel 6/207/2 Test CPU; isa avx2 avx512; pus 2"
#define BUILD "src 42; gcc 12; -O2"

static pb_wisdom sample(void)
{
    pb_wisdom w = { .has_hint = true, .temporal = false, .has_distance = true, .distance = 3072, .has_near = true,
                    .near = true, .has_streaming = true, .streaming_tuned = true, .streaming_vs = 1.125,
                    .has_steal = true, .steal_pct = 7.5 };
    snprintf(w.cpu, sizeof w.cpu, "%s", CPU);
    snprintf(w.build, sizeof w.build, "%s", BUILD);
    pb_wisdom_kernel k[] = {
        { .fmt = KERN_Q8_0, .threads = 1, .isa = KERN_ISA_AVX2, .prefetch = true, .gbps = 12.5, .vs_rank = 1.021 },
        { .fmt = KERN_Q8_0, .threads = 2, .isa = KERN_ISA_SCALAR, .prefetch = false, .gbps = 3.25, .tuned = true,
          .vs_rank = 1.25 },
        { .fmt = KERN_Q4_K, .threads = 1, .isa = KERN_ISA_AVX512, .prefetch = false, .gbps = 9, .tuned = true },
    };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++)
        cr_assert_eq(pb_wisdom_put_kernel(&w, &k[i]), 0);
    pb_wisdom_dispatch d = { .threads = 2, .tree = true, .flat_ns = 310.5, .tree_ns = 290.25 };
    cr_assert_eq(pb_wisdom_put_dispatch(&w, &d), 0);
    return w;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* The status of loading text from a fresh file, its message in msg (asserted to be one line). */
static pb_wisdom_status load_text(const char *text, size_t len, const char *cpu, const char *build, pb_wisdom *w,
                                  char *msg, size_t msglen)
{
    char dir[256], path[300];
    tf_tmpdir(dir, sizeof dir, "wisdom");
    snprintf(path, sizeof path, "%s/wisdom", dir);
    write_text(path, text, len);
    pb_wisdom_status st = pb_wisdom_load(path, cpu, build, w, msg, msglen);
    cr_assert(msg[0] && !strchr(msg, '\n'), "one line: '%s'", msg);
    tf_rmrf(dir);
    return st;
}

Test(wisdom, text_round_trips)
{
    pb_wisdom w = sample(), back;
    char text[4096], err[256];
    int n = pb_wisdom_format(&w, text, sizeof text);
    cr_assert_gt(n, 0);
    cr_assert_eq(pb_wisdom_parse(text, (size_t)n, &back, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(back.cpu, CPU);
    cr_assert_str_eq(back.build, BUILD);
    cr_assert(back.has_hint && !back.temporal);
    cr_assert(back.has_distance && back.distance == 3072);
    cr_assert(back.has_near && back.near);
    cr_assert_eq(back.nkernels, 3);
    const pb_wisdom_kernel *k = pb_wisdom_kernel_at(&back, KERN_Q8_0, 2);
    cr_assert_not_null(k);
    cr_assert(k->isa == KERN_ISA_SCALAR && !k->prefetch && k->gbps == 3.25);
    cr_assert(k->tuned && k->vs_rank == 1.25, "the why and the ratio to rank's default");
    k = pb_wisdom_kernel_at(&back, KERN_Q8_0, 1);
    cr_assert(!k->tuned && k->vs_rank == 1.021, "rank: the best candidate fell short");
    cr_assert(back.has_streaming && back.streaming_tuned && back.streaming_vs == 1.125);
    cr_assert(back.has_steal && back.steal_pct == 7.5, "the steal it was tuned under");
    cr_assert(pb_wisdom_noisy(&back), "7.5%% is over a quiet host's %.0f%%", PB_STEAL_NOISY_PCT);
    const pb_wisdom_dispatch *d = pb_wisdom_dispatch_at(&back, 2);
    cr_assert_not_null(d, "%s", text);
    cr_assert(d->tree && d->flat_ns == 310.5 && d->tree_ns == 290.25);
    cr_assert_null(pb_wisdom_dispatch_at(&back, 4), "a shape measured at 2 threads says nothing of 4");
    cr_assert_eq(pb_wisdom_format(&back, text + 2048, 2048), n, "formatted again, the same length");
    cr_assert_eq(memcmp(text, text + 2048, (size_t)n), 0);
}

Test(wisdom, nearest_thread_count)
{
    pb_wisdom w = sample();
    cr_assert_eq(pb_wisdom_kernel_near(&w, KERN_Q8_0, 1)->threads, 1);
    cr_assert_eq(pb_wisdom_kernel_near(&w, KERN_Q8_0, 8)->threads, 2);
    cr_assert_eq(pb_wisdom_kernel_near(&w, KERN_Q4_K, 8)->threads, 1, "the only one");
    cr_assert_null(pb_wisdom_kernel_near(&w, KERN_Q1_0, 1));
}

/* Wisdom of another cpu, or of another build on this cpu, is ignored with one line naming which. */
Test(wisdom, another_cpu_or_build_is_ignored_with_its_line)
{
    pb_wisdom w = sample(), got;
    char text[4096], msg[1024];
    int n = pb_wisdom_format(&w, text, sizeof text);
    cr_assert_eq(load_text(text, (size_t)n, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_OK, "%s", msg);
    cr_assert_eq(got.nkernels, 3);
    tf_expect_has(msg, "3 kernels, 2 of them tuned (the rest kept rank's), streaming tuned");
    cr_assert_eq(load_text(text, (size_t)n, "AuthenticAMD 25/17/1 Other; isa avx2; pus 2", BUILD, &got, msg,
                           sizeof msg),
                 PB_WISDOM_OTHER);
    tf_expect_has(msg, "another cpu", "ignored", "ISA rank");
    cr_assert_eq(got.nkernels, 0, "nothing of it is used");
    cr_assert_eq(load_text(text, (size_t)n, CPU, "src 43; gcc 12; -O2", &got, msg, sizeof msg), PB_WISDOM_OTHER);
    tf_expect_has(msg, "another build", "ignored");
    cr_assert_eq(got.nkernels, 0);
    /* the same cpu with more PUs (a resized VM) is another machine too */
    cr_assert_eq(load_text(text, (size_t)n, "GenuineIntel 6/207/2 Test CPU; isa avx2 avx512; pus 4", BUILD, &got,
                           msg, sizeof msg),
                 PB_WISDOM_OTHER);
}

/* Every cut of a good file short of its end is refused in one line, never a crash: the run goes by rank. */
Test(wisdom, truncated_is_one_line_and_no_wisdom)
{
    pb_wisdom w = sample(), got;
    char text[4096], msg[1024], err[256];
    int n = pb_wisdom_format(&w, text, sizeof text);
    for (int cut = 0; cut < n; cut++) {
        cr_assert_neq(pb_wisdom_parse(text, (size_t)cut, &got, err, sizeof err), 0, "a cut at %d parsed", cut);
        cr_assert(!strchr(err, '\n'));
    }
    cr_assert_eq(load_text(text, (size_t)n - 4, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD);
    tf_expect_has(msg, "malformed", "truncated (no end line)", "ISA rank");
    cr_assert_eq(got.nkernels, 0);
    cr_assert_eq(load_text("", 0, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD);
}

/* Each way a line can be wrong, named with its line number. */
Test(wisdom, malformed_lines_are_named)
{
    static const struct {
        const char *body, *says;
    } bad[] = {
        { "kernel q8_0 1 avx9 prefetch 1.0 file tuned 1\n", "line 4: unknown variant 'avx9'" },
        { "kernel q9_0 1 avx2 prefetch 1.0 file tuned 1\n", "unknown format 'q9_0'" },
        { "kernel q8_0 0 avx2 prefetch 1.0 file tuned 1\n", "threads '0'" },
        { "kernel q8_0 1 avx2 maybe 1.0 file tuned 1\n", "neither prefetch nor noprefetch" },
        { "kernel q8_0 1 avx2 prefetch -1 file tuned 1\n", "GB/s '-1'" },
        { "kernel q8_0 1 avx2 prefetch nan file tuned 1\n", "GB/s 'nan'" },
        { "kernel q8_0 1 avx2 prefetch 1 file tuned 1\nkernel q8_0 1 scalar prefetch 2 file rank 1\n",
          "line 5: a second kernel" },
        { "kernel q8_0 1 avx2 prefetch 1.0\n", "kernel takes FORMAT" }, /* version 2's line: no layout, no why */
        { "kernel q8_0 1 avx2 prefetch 1.0 file maybe 1\n", "'maybe' is neither tuned nor rank" },
        { "kernel q8_0 1 avx2 prefetch 1.0 file rank -2\n", "ratio to rank '-2'" },
        { "streaming fast 1\n", "streaming takes tuned|rank RATIO" },
        { "streaming rank\n", "streaming takes" },
        { "streaming rank 1\nstreaming tuned 2\n", "line 5: a second streaming line" },
        { "steal\n", "steal takes a percent, 0 to 100" },
        { "steal -1\n", "steal takes a percent" },
        { "steal 100.5\n", "steal takes a percent" },
        { "steal 1\nsteal 2\n", "line 5: a second steal line" },
        { "read 1 avx512-4s 3\n", "unknown word 'read'" }, /* version 1's floor read kernel: no longer kept */
        { "hint t0\n", "hint takes t2 or nta" },
        { "distance 1000\n", "distance takes one of 1024, 1536, 2048, 3072" },
        { "distance 1536x\n", "distance takes one of" },
        { "distance\n", "distance takes one of" },
        { "distance 1536\ndistance 2048\n", "line 5: a second distance line" },
        { "dispatch 2 ring 1 2\n", "neither flat nor tree" },
        { "dispatch 1 flat 1 2\n", "threads '1' is not 2.." },
        { "dispatch 2 tree 1\n", "dispatch takes THREADS" },
        { "dispatch 2 tree 1 -2\n", "are not numbers >= 0" },
        { "dispatch 2 tree 1 2\ndispatch 2 flat 1 2\n", "a second dispatch at 2 threads" },
        { "near maybe\n", "near takes on or off" },
        { "near on\nnear off\n", "line 5: a second near line" },
        { "frobnicate\n", "unknown word 'frobnicate'" },
        { "cpu again\n", "a second cpu line" },
        { "end\nkernel q8_0 1 avx2 prefetch 1 file rank 1\n", "text after the end line" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[1024], msg[1024];
        pb_wisdom got;
        int n = snprintf(text, sizeof text, PB_WISDOM_MAGIC "\ncpu " CPU "\nbuild " BUILD "\n%send\n", bad[i].body);
        cr_assert_eq(load_text(text, (size_t)n, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD, "%s", bad[i].body);
        tf_expect_has(msg, bad[i].says, "ISA rank");
    }
    char msg[1024];
    pb_wisdom got;
    cr_assert_eq(load_text("hello\n", 6, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD);
    tf_expect_has(msg, "not poolbench wisdom");
    /* an older version's file (its grammar is not this one's): one line naming both versions */
    cr_assert_eq(load_text("poolbench-wisdom 1\ncpu " CPU "\nbuild " BUILD "\nread 1 avx512-4s 3\nend\n",
                           strlen("poolbench-wisdom 1\ncpu " CPU "\nbuild " BUILD "\nread 1 avx512-4s 3\nend\n"), CPU,
                           BUILD, &got, msg, sizeof msg),
                 PB_WISDOM_BAD);
    tf_expect_has(msg, "wisdom format 1, this build reads format " PB_STR(PB_WISDOM_VERSION), "ISA rank");
    cr_assert_eq(load_text("poolbench-wisdom 1\n\0end\n", 24, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD);
    tf_expect_has(msg, "NUL byte");
}

/* Not a regular file (a FIFO would block a plain open; a directory is no input), or none at all. */
Test(wisdom, missing_fifo_and_directory)
{
    char dir[256], path[300], msg[1024];
    pb_wisdom got;
    tf_tmpdir(dir, sizeof dir, "wisdom");
    snprintf(path, sizeof path, "%s/none", dir);
    cr_assert_eq(pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_MISSING);
    tf_expect_has(msg, "none yet", "bench_tune");
    snprintf(path, sizeof path, "%s/fifo", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD);
    tf_expect_has(msg, "not a regular file", "ISA rank");
    cr_assert_eq(pb_wisdom_load(dir, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_BAD);
    tf_expect_has(msg, "not a regular file");
    tf_rmrf(dir);
}

/* Saved into a directory it creates, read back whole, nothing else left beside it. */
Test(wisdom, saved_whole_and_alone)
{
    char dir[256], path[400], msg[1024], err[256];
    tf_tmpdir(dir, sizeof dir, "wisdom");
    snprintf(path, sizeof path, "%s/results/host/wisdom", dir);
    pb_wisdom w = sample(), got;
    cr_assert_eq(pb_wisdom_save(path, &w, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_OK, "%s", msg);
    cr_assert_eq(got.nkernels, 3);
    char sub[300], out[256];
    snprintf(sub, sizeof sub, "ls -A '%s/results/host'", dir);
    tf_run(out, sizeof out, sub);
    cr_assert_str_eq(out, "wisdom\n", "no temporary file left: %s", out);
    tf_rmrf(dir);
}

/* Two processes saving at once while a third reads: every read finds one whole file or the other. */
Test(wisdom, two_writers_never_leave_a_half_file)
{
    char dir[256], path[300], msg[1024];
    tf_tmpdir(dir, sizeof dir, "wisdom");
    snprintf(path, sizeof path, "%s/wisdom", dir);
    pid_t kid[2];
    for (int i = 0; i < 2; i++) {
        kid[i] = fork();
        cr_assert_geq(kid[i], 0);
        if (kid[i] == 0) {
            pb_wisdom w = sample();
            for (int k = 0; k < 40; k++) /* writer i's files differ from the other's in length */
                pb_wisdom_put_kernel(&w, &(pb_wisdom_kernel){ .fmt = (kern_format)(k % KERN_FORMAT_COUNT),
                                                               .threads = 3 + i * 40 + k, .gbps = 1 });
            char err[256];
            for (int r = 0; r < 200; r++)
                if (pb_wisdom_save(path, &w, err, sizeof err) != 0)
                    _exit(1);
            _exit(0);
        }
    }
    int whole = 0, left = 2;
    while (left > 0) { /* reads for as long as a writer writes */
        pb_wisdom got;
        pb_wisdom_status st = pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg);
        cr_assert(st == PB_WISDOM_OK || st == PB_WISDOM_MISSING, "read %d: %s", whole, msg);
        whole += st == PB_WISDOM_OK;
        if (st == PB_WISDOM_OK)
            cr_assert_eq(got.nkernels, 43);
        for (int i = 0; i < 2; i++) {
            int status;
            if (kid[i] > 0 && waitpid(kid[i], &status, WNOHANG) == kid[i]) {
                cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed", i);
                kid[i] = 0;
                left--;
            }
        }
    }
    char out[256], cmd[300];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    tf_run(out, sizeof out, cmd);
    cr_assert_str_eq(out, "wisdom\n", "no temporary file left: %s", out);
    cr_assert_gt(whole, 0, "the reader saw the file at least once");
    tf_rmrf(dir);
}

/* A repacked layout is the kernel line's seventh word: it round-trips, `file` is the file's, and a layout that is
 * not of the line's format is named. */
Test(wisdom, a_repacked_layout_round_trips)
{
    pb_wisdom w = sample(), back;
    pb_wisdom_kernel k = { .fmt = KERN_Q1_0, .threads = 1, .isa = KERN_ISA_AVX512, .gbps = 17.25,
                           .layout = KERN_LAYOUT_Q1_0_R32LUT };
    cr_assert_eq(pb_wisdom_put_kernel(&w, &k), 0);
    char text[4096], err[256];
    int n = pb_wisdom_format(&w, text, sizeof text);
    cr_assert_gt(n, 0);
    cr_assert(strstr(text, "kernel q1_0 1 avx512 noprefetch 17.250 q1_0_r32lut rank 0.000\n"), "%s", text);
    cr_assert_eq(pb_wisdom_parse(text, (size_t)n, &back, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_wisdom_kernel_at(&back, KERN_Q1_0, 1)->layout, KERN_LAYOUT_Q1_0_R32LUT);
    cr_assert_eq(pb_wisdom_kernel_at(&back, KERN_Q8_0, 1)->layout, KERN_LAYOUT_FILE, "file: the file's");
    static const char bad[] = PB_WISDOM_MAGIC "\ncpu " CPU "\nbuild " BUILD "\n"
                                              "kernel q8_0 1 avx2 prefetch 1.0 q1_0_r32lut rank 1\nend\n";
    cr_assert_eq(pb_wisdom_parse(bad, sizeof bad - 1, &back, err, sizeof err), -1);
    cr_assert(strstr(err, "line 4") && strstr(err, "q1_0_r32lut"), "%s", err);
}

/* The steal a file was tuned under: a file without the line (older ones) is quiet; a tuning's own replaces the
 * file's where it timed every entry the file holds, and the worse of the two stays where it timed only some. */
Test(wisdom, the_steal_of_a_merged_file)
{
    char dir[256], path[400], msg[1024], err[256];
    tf_tmpdir(dir, sizeof dir, "wisdom");
    snprintf(path, sizeof path, "%s/wisdom", dir);
    pb_wisdom w = sample(), got;
    w.has_steal = false;
    cr_assert_not(pb_wisdom_noisy(&w), "no steal line: nothing says it was noisy");
    w.has_steal = true;
    w.steal_pct = 20;
    cr_assert_eq(pb_wisdom_save(path, &w, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_OK, "%s", msg);
    tf_expect_has(msg, "hypervisor took up to 20.0%");
    /* a quiet tuning of q8_0 alone: q4_K's entry is still the noisy one's */
    pb_wisdom quiet = sample();
    quiet.steal_pct = 1;
    const kern_format q8 = KERN_Q8_0, all[2] = { KERN_Q8_0, KERN_Q4_K };
    const int threads[2] = { 1, 2 };
    cr_assert_eq(pb_wisdom_update(path, &quiet, &q8, 1, threads, 2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_OK, "%s", msg);
    cr_assert(got.has_steal && got.steal_pct == 20, "%.1f", got.steal_pct);
    /* every entry timed again, quietly */
    cr_assert_eq(pb_wisdom_update(path, &quiet, all, 2, threads, 2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_wisdom_load(path, CPU, BUILD, &got, msg, sizeof msg), PB_WISDOM_OK, "%s", msg);
    cr_assert(got.has_steal && got.steal_pct == 1, "%.1f", got.steal_pct);
    cr_assert_not(pb_wisdom_noisy(&got));
    cr_assert_null(strstr(msg, "hypervisor"), "%s", msg);
    tf_rmrf(dir);
}
