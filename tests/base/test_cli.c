/* test_cli.c — the option table interpreter (bench/base/pb_cli.c) through pb_cli_parse, plus forked checks
 * that it never exits (only the mains do: they print its one line and exit 2). Criterion runs each test in its
 * own process, so the setenv calls below do not leak between tests. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_cli.h"
#include "test_files.h"
#include "threads_forms.h"

static const char *const policy_names[] = { "spin", "condvar", "hybrid", "spawn", NULL };

/* Everything one parse touches, so no test shares state with another. */
typedef struct fx {
    bool quick;
    long iters, warm_up, seed, wait;
    double ratio;
    const char *out, *schedule, *cpus;
    pb_list threads, policy;
    pb_dlist ratios;
    pb_opt opts[13];
    pb_cli cli;
    char err[1024];
    int first;
} fx;

static void fx_init(fx *f, bool positional)
{
    memset(f, 0, sizeof *f);
    const pb_opt opts[] = {
        { .name = "quick", .kind = PB_OPT_FLAG, .dest = &f->quick, .help = "a short run" },
        { .name = "iters", .kind = PB_OPT_INT, .dest = &f->iters, .min = 1, .max = 1000000, .help = "rounds" },
        { .name = "warm-up", .kind = PB_OPT_INT, .dest = &f->warm_up, .min = 0, .max = 100, .help = "dropped" },
        { .name = "seed", .kind = PB_OPT_INT, .dest = &f->seed, .env = "PB_TEST_SEED", .help = "any integer" },
        { .name = "ratio", .kind = PB_OPT_DOUBLE, .dest = &f->ratio, .dmin = 0, .dmax = 1, .dmin_open = true,
          .help = "a fraction" },
        { .name = "out", .kind = PB_OPT_STRING, .dest = &f->out, .metavar = "DIR", .env = "", .help = "where" },
        { .name = "threads", .kind = PB_OPT_LIST, .dest = &f->threads, .min = 1, .max = 1024, .metavar = "LIST",
          .help = "thread counts", .dflt = "1..PUs" },
        { .name = "ratios", .kind = PB_OPT_DLIST, .dest = &f->ratios, .dmin = 0, .dmax = 1, .help = "fractions" },
        { .name = "policy", .kind = PB_OPT_CHOICES, .dest = &f->policy, .choices = policy_names, .help = "pools",
          .dflt = "all" },
        { .name = "wait", .kind = PB_OPT_CHOICE, .dest = &f->wait, .choices = policy_names, .help = "one pool" },
        { .name = "schedule", .kind = PB_OPT_WORDS, .dest = &f->schedule, .help = "static, dynamic:N" },
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &f->cpus, .metavar = "SET", .help = "checked later" },
        { 0 },
    };
    _Static_assert(sizeof opts == sizeof f->opts, "fx.opts holds the whole table");
    memcpy(f->opts, opts, sizeof opts);
    f->cli = (pb_cli){ .prog = "bench_t", .summary = "Tests the option table.", .usage_tail = "[CMD...]",
                       .opts = f->opts, .positional = positional };
}

static int parse_argv(fx *f, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    f->first = -7;
    f->err[0] = '\0';
    return pb_cli_parse(&f->cli, argc, argv, &f->first, f->err, sizeof f->err);
}
/* PARSE(f, "--a", "1") parses { "bench_t", "--a", "1" }; PARSE0(f) parses no arguments. */
#define PARSE(f, ...) parse_argv(f, (char *[]){ "bench_t", __VA_ARGS__, NULL })
#define PARSE0(f) parse_argv(f, (char *[]){ "bench_t", NULL })

/* A failed parse: -1, and one line "bench_t: ..." that names the option (or variable) `what`. */
static void expect_error(fx *f, int r, const char *what)
{
    cr_assert_eq(r, -1, "expected an error naming %s, got %d", what, r);
    cr_assert(strncmp(f->err, "bench_t: ", 9) == 0, "no prefix: %s", f->err);
    cr_assert(strstr(f->err, what), "'%s' not in: %s", what, f->err);
    cr_assert_null(strchr(f->err, '\n'), "more than one line: %s", f->err);
}

static void expect_list(const pb_list *l, int n, const long *v)
{
    cr_assert_eq(l->n, n, "n = %d, expected %d", l->n, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(l->v[i], v[i], "v[%d] = %ld, expected %ld", i, l->v[i], v[i]);
}

/* ---- accepted forms ---------------------------------------------------------------------------------- */

Test(cli, no_arguments_leaves_defaults)
{
    fx f;
    fx_init(&f, false);
    f.iters = 42;
    cr_assert_eq(PARSE0(&f), 0);
    cr_assert_eq(f.first, 1);
    cr_assert_eq(f.iters, 42);
    cr_assert_eq(f.threads.n, 0);
    cr_assert_not(f.quick);
}

Test(cli, value_forms)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--iters", "5", "--warm-up=7", "--quick", "--out", "a=b", "--seed", "-5"), 0, "%s",
                 f.err);
    cr_assert_eq(f.iters, 5);
    cr_assert_eq(f.warm_up, 7);
    cr_assert(f.quick);
    cr_assert_str_eq(f.out, "a=b");
    cr_assert_eq(f.seed, -5);
    cr_assert_eq(f.first, 9);
    cr_assert_eq(PARSE(&f, "--out=x=y", "--iters=+3"), 0, "%s", f.err);
    cr_assert_str_eq(f.out, "x=y");
    cr_assert_eq(f.iters, 3);
}

Test(cli, int_bounds_inclusive)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--iters", "1"), 0);
    cr_assert_eq(f.iters, 1);
    cr_assert_eq(PARSE(&f, "--iters", "1000000"), 0);
    cr_assert_eq(f.iters, 1000000);
}

Test(cli, lists_and_ranges)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--threads", "1,2,4"), 0, "%s", f.err);
    expect_list(&f.threads, 3, (long[]){ 1, 2, 4 });
    cr_assert_eq(PARSE(&f, "--threads=1-3,8"), 0, "%s", f.err);
    expect_list(&f.threads, 4, (long[]){ 1, 2, 3, 8 });
    cr_assert_eq(PARSE(&f, "--threads", "1024"), 0, "%s", f.err);
    expect_list(&f.threads, 1, (long[]){ 1024 });
}

Test(cli, doubles)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--ratio", "0.25"), 0, "%s", f.err);
    cr_assert_float_eq(f.ratio, 0.25, 1e-12);
    cr_assert_eq(PARSE(&f, "--ratio=1"), 0, "%s", f.err); /* the upper bound is inclusive */
    cr_assert_float_eq(f.ratio, 1.0, 1e-12);
    cr_assert_eq(PARSE(&f, "--ratio", "1e-3"), 0, "%s", f.err);
    cr_assert_float_eq(f.ratio, 1e-3, 1e-15);
    cr_assert_eq(PARSE(&f, "--ratios", "0,0.5,1"), 0, "%s", f.err); /* closed at both ends */
    cr_assert_eq(f.ratios.n, 3);
    cr_assert_float_eq(f.ratios.v[0], 0.0, 1e-12);
    cr_assert_float_eq(f.ratios.v[1], 0.5, 1e-12);
    cr_assert_float_eq(f.ratios.v[2], 1.0, 1e-12);
}

Test(cli, choices)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--policy", "spawn,spin"), 0, "%s", f.err);
    expect_list(&f.policy, 2, (long[]){ 3, 0 });
    cr_assert_eq(PARSE(&f, "--policy=all"), 0, "%s", f.err);
    expect_list(&f.policy, 4, (long[]){ 0, 1, 2, 3 });
    cr_assert_eq(PARSE(&f, "--wait", "condvar"), 0, "%s", f.err);
    cr_assert_eq(f.wait, 1);
    cr_assert_eq(PARSE(&f, "--wait=spawn"), 0, "%s", f.err);
    cr_assert_eq(f.wait, 3);
}

Test(cli, repeated_option_last_wins)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--iters", "5", "--iters=9"), 0);
    cr_assert_eq(f.iters, 9);
    cr_assert_eq(PARSE(&f, "--threads", "1,2,3", "--threads", "4"), 0);
    expect_list(&f.threads, 1, (long[]){ 4 });
}

/* ---- rejected input ---------------------------------------------------------------------------------- */

Test(cli, unknown_option)
{
    fx f;
    fx_init(&f, false);
    expect_error(&f, PARSE(&f, "--bogus"), "'--bogus'");
    cr_assert(strstr(f.err, "--help"), "%s", f.err);
    expect_error(&f, PARSE(&f, "--bogus=1"), "'--bogus'");
    expect_error(&f, PARSE(&f, "-x"), "'-x'");
    expect_error(&f, PARSE(&f, "--iter", "5"), "'--iter'"); /* no prefix matching */
    expect_error(&f, PARSE(&f, "--help=1"), "--help");
}

Test(cli, missing_or_unwanted_value)
{
    fx f;
    fx_init(&f, false);
    expect_error(&f, PARSE(&f, "--iters"), "--iters");
    cr_assert(strstr(f.err, "missing"), "%s", f.err);
    expect_error(&f, PARSE(&f, "--threads", "--quick"), "--threads");
    cr_assert(strstr(f.err, "missing"), "%s", f.err);
    expect_error(&f, PARSE(&f, "--iters="), "--iters");
    expect_error(&f, PARSE(&f, "--quick=1"), "--quick");
    cr_assert_not(f.quick);
    expect_error(&f, PARSE(&f, "--out="), "--out"); /* a string may not be empty either */
    expect_error(&f, PARSE(&f, "--out", ""), "--out");
    cr_assert_null(f.out);
}

Test(cli, overflow_without_bounds)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "--seed", "9223372036854775807"), 0, "%s", f.err); /* min = max = 0: any long */
    cr_assert_eq(f.seed, 9223372036854775807L);
    expect_error(&f, PARSE(&f, "--seed", "9223372036854775808"), "--seed");
    expect_error(&f, PARSE(&f, "--seed", "-9223372036854775809"), "--seed");
}

Test(cli, bad_integers)
{
    static const char *const bad[] = { "abc", "5x", " 5", "1.5", "0", "1000001", "-1", "99999999999999999999", "" };
    fx f;
    fx_init(&f, false);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.iters = 77;
        expect_error(&f, PARSE(&f, "--iters", (char *)bad[i]), "--iters");
        cr_assert_eq(f.iters, 77, "'%s' changed the value", bad[i]);
    }
    PARSE(&f, "--iters", "0");
    cr_assert(strstr(f.err, "'0' is out of range: accepted 1..1000000"), "%s", f.err);
    PARSE(&f, "--iters", "abc");
    cr_assert(strstr(f.err, "'abc' is not an integer"), "%s", f.err);
}

/* Each of bad, as --name=VALUE, is refused with an error naming --name (the caller then checks that none
 * was stored: a refused value leaves dest alone). */
static void expect_all_refused(fx *f, const char *name, const char *const *bad, size_t n)
{
    char arg[64], opt[32];
    snprintf(opt, sizeof opt, "--%s", name);
    for (size_t i = 0; i < n; i++) {
        snprintf(arg, sizeof arg, "--%s=%s", name, bad[i]);
        expect_error(f, PARSE(f, arg), opt);
    }
}

Test(cli, bad_lists)
{
    static const char *const bad[] = { "1-", "-1", "abc", "3-1", "", ",", "0", "1025", "1,", ",1", "1,,2",
                                       "1-2-3", "1-300", "1 ,2", "0x10", "1-99999999999999999999" };
    fx f;
    fx_init(&f, false);
    expect_all_refused(&f, "threads", bad, sizeof bad / sizeof bad[0]);
    cr_assert_eq(f.threads.n, 0, "a refused list left %d values", f.threads.n);
}

Test(cli, list_error_message_names_element_option_and_range)
{
    fx f;
    fx_init(&f, false);
    expect_error(&f, PARSE(&f, "--threads", "0"), "--threads");
    cr_assert_str_eq(f.err, "bench_t: --threads: '0' is out of range: accepted 1..1024 "
                            "(a list like 1,2,4 or a range like 1-8)");
    expect_error(&f, PARSE(&f, "--threads", "1-3,2000"), "'2000'");
    expect_error(&f, PARSE(&f, "--threads", "3-1"), "'3-1'");
    cr_assert(strstr(f.err, "descending"), "%s", f.err);
    expect_error(&f, PARSE(&f, "--threads", "1-300"), "256");
}

Test(cli, lists_refuse_values_given_twice)
{
    fx f;
    fx_init(&f, false);
    static const char *const bad[] = { "2,2", "1-3,2", "4,1-4", "1-2,2-3" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_error(&f, PARSE(&f, "--threads", (char *)bad[i]), "--threads");
        cr_assert(strstr(f.err, "twice"), "%s", f.err);
        cr_assert_eq(f.threads.n, 0, "'%s' left values", bad[i]);
    }
    expect_error(&f, PARSE(&f, "--ratios", "0.5,0.25,0.5"), "--ratios");
    cr_assert(strstr(f.err, "'0.5' is given twice"), "%s", f.err);
    cr_assert_eq(PARSE(&f, "--ratios", "0.5,0.25"), 0, "%s", f.err);
}

Test(cli, words_refuse_empty_and_repeated_items)
{
    static const char *const bad[] = { ",static,,static", "static,static", ",static", "static,", "a,,b", ",", "",
                                       "dynamic:4,static,dynamic:4" };
    fx f;
    fx_init(&f, false);
    expect_all_refused(&f, "schedule", bad, sizeof bad / sizeof bad[0]);
    cr_assert_null(f.schedule, "a refused list was stored");
    PARSE(&f, "--schedule", "static,static");
    cr_assert(strstr(f.err, "'static' is given twice"), "%s", f.err);
    cr_assert_eq(PARSE(&f, "--schedule", "static,dynamic:4,dynamic:8"), 0, "%s", f.err);
    cr_assert_str_eq(f.schedule, "static,dynamic:4,dynamic:8");
}

Test(cli, bad_doubles)
{
    static const char *const bad[] = { "0", "-0.1", "1.5", "abc", "nan", "inf", "0.5x", " 0.5", "1e999" };
    fx f;
    fx_init(&f, false);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.ratio = 0.75;
        expect_error(&f, PARSE(&f, "--ratio", (char *)bad[i]), "--ratio");
        cr_assert_float_eq(f.ratio, 0.75, 0, "'%s' changed the value", bad[i]);
    }
    PARSE(&f, "--ratio", "0");
    cr_assert(strstr(f.err, "> 0 and <= 1"), "open lower bound not stated: %s", f.err);
}

/* A number is decimal, as an integer option's is (strtol base 10): strtod's hexadecimal forms read "0x10" as
 * 16 and "0x0.8" as 0.5. */
Test(cli, doubles_refuse_hexadecimal)
{
    static const char *const bad[] = { "0x0.8", "0X.8", "+0x0.8", "0x1p-1", "0x1" };
    fx f;
    fx_init(&f, false);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.ratio = 0.75;
        expect_error(&f, PARSE(&f, "--ratio", (char *)bad[i]), "--ratio");
        cr_expect(strstr(f.err, "is not a number"), "%s", f.err);
        cr_expect_float_eq(f.ratio, 0.75, 0, "'%s' changed the value", bad[i]);
        char list[32];
        snprintf(list, sizeof list, "0.25,%s", bad[i]);
        expect_error(&f, PARSE(&f, "--ratios", list), "--ratios");
    }
    cr_assert_eq(PARSE(&f, "--ratio", "5e-1"), 0, "%s", f.err);
    cr_expect_float_eq(f.ratio, 0.5, 0);
}

Test(cli, bad_double_lists)
{
    static const char *const bad[] = { "0.5,", ",", "", "2", "0.1,abc", "-0.5", "0.1,,0.2" };
    fx f;
    fx_init(&f, false);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_error(&f, PARSE(&f, "--ratios", (char *)bad[i]), "--ratios");
        cr_assert_eq(f.ratios.n, 0, "'%s' left values", bad[i]);
    }
}

Test(cli, bad_choices)
{
    static const char *const bad[] = { "foo", "spin,spin", "all,spin", "", "spin,", "Spin", "spin condvar" };
    fx f;
    fx_init(&f, false);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_error(&f, PARSE(&f, "--policy", (char *)bad[i]), "--policy");
        cr_assert_eq(f.policy.n, 0, "'%s' left values", bad[i]);
    }
    PARSE(&f, "--policy", "foo");
    cr_assert(strstr(f.err, "'foo'") && strstr(f.err, "spin, condvar, hybrid, spawn"), "%s", f.err);
    PARSE(&f, "--policy", "spin,hybrid,spin");
    cr_assert(strstr(f.err, "twice"), "%s", f.err);
}

Test(cli, bad_choice)
{
    static const char *const bad[] = { "all", "spin,condvar", "x", "" };
    fx f;
    fx_init(&f, false);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f.wait = 9;
        expect_error(&f, PARSE(&f, "--wait", (char *)bad[i]), "--wait");
        cr_assert_eq(f.wait, 9);
    }
    PARSE(&f, "--wait", "x");
    cr_assert(strstr(f.err, "spin, condvar, hybrid, spawn"), "%s", f.err);
}

Test(cli, no_positional_accepted)
{
    fx f;
    fx_init(&f, false);
    expect_error(&f, PARSE(&f, "extra"), "'extra'");
    expect_error(&f, PARSE(&f, "--quick", "--", "extra"), "'extra'");
    cr_assert_eq(PARSE(&f, "--quick", "--"), 0, "%s", f.err);
    cr_assert_eq(f.first, 3);
}

/* ---- positional arguments ---------------------------------------------------------------------------- */

Test(cli, positional_index)
{
    fx f;
    fx_init(&f, true);
    cr_assert_eq(PARSE(&f, "sleep", "1"), 0, "%s", f.err);
    cr_assert_eq(f.first, 1);
    cr_assert_eq(PARSE(&f, "--iters", "3", "sleep", "--quick"), 0, "%s", f.err);
    cr_assert_eq(f.first, 3);
    cr_assert_not(f.quick, "an option after the first positional was parsed");
    cr_assert_eq(PARSE(&f, "--", "ls", "-l"), 0, "%s", f.err);
    cr_assert_eq(f.first, 2);
    cr_assert_eq(PARSE(&f, "--iters", "3", "--", "--quick"), 0, "%s", f.err);
    cr_assert_eq(f.first, 4);
    cr_assert_not(f.quick);
    cr_assert_eq(PARSE(&f, "--quick"), 0, "%s", f.err);
    cr_assert_eq(f.first, 2); /* argc: none */
    cr_assert_eq(PARSE(&f, "-", "x"), 0, "%s", f.err); /* "-" alone is an argument */
    cr_assert_eq(f.first, 1);
}

/* bench_compare's "A B --out X": arguments between options move, in order, after them. */
Test(cli, interleaved_arguments_move_after_the_options)
{
    fx f;
    fx_init(&f, false);
    f.cli.interleaved = true;
    char *argv[] = { "bench_t", "a", "--iters", "5", "b", "--quick", "c", "--", "d", "--seed", NULL };
    cr_assert_eq(parse_argv(&f, argv), 0, "%s", f.err);
    cr_assert(f.iters == 5 && f.quick && f.seed == 0, "options before \"--\" only");
    const char *want[] = { "a", "b", "c", "d", "--seed" };
    cr_assert_eq(f.first, 10 - 5, "first argument at %d", f.first);
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(argv[f.first + i], want[i], "argument %d", i);
    char *plain[] = { "bench_t", "x", "--out", "o", "y", NULL };
    cr_assert_eq(parse_argv(&f, plain), 0, "%s", f.err);
    cr_assert(f.first == 3 && strcmp(plain[3], "x") == 0 && strcmp(plain[4], "y") == 0 && strcmp(f.out, "o") == 0);
    char *last[] = { "bench_t", "x", "y", "--out", NULL };
    cr_assert_eq(parse_argv(&f, last), -1, "an argument moved past the options is no option's value");
    cr_assert(strstr(f.err, "--out: missing value"), "%s", f.err);
    char *bad[] = { "bench_t", "x", "--bogus", NULL };
    cr_assert_eq(parse_argv(&f, bad), -1, "an unknown option after an argument is still an error");
    cr_assert(strstr(f.err, "--bogus"), "%s", f.err);
}

/* pb_cli_parse_tool (bench_report, bench_compare, bench_check): arguments anywhere among the options, and the
 * main's exit status instead of pb_cli_parse's -1/1: PB_CLI_GO, 2 after bad input (said on stderr), 0 after --help. */
static void redirect_both(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

Test(cli, a_tool_parses_interleaved_and_returns_the_exit_status, .init = redirect_both)
{
    fx f;
    fx_init(&f, false);
    int first = -7;
    char *argv[] = { "bench_t", "a", "--iters", "5", "b", NULL };
    cr_assert_eq(pb_cli_parse_tool("bench_t", "A B", "Tests.", f.opts, 5, argv, &first), PB_CLI_GO);
    cr_assert(f.iters == 5 && first == 3, "iters %ld, first %d", f.iters, first);
    cr_assert(strcmp(argv[3], "a") == 0 && strcmp(argv[4], "b") == 0, "the arguments after the options, in order");
    char *none[] = { "bench_t", NULL };
    cr_assert_eq(pb_cli_parse_tool("bench_t", "A", "Tests.", f.opts, 1, none, &first), PB_CLI_GO);
    cr_assert_eq(first, 1, "no argument: first is argc");
    char *bad[] = { "bench_t", "a", "--bogus", NULL };
    cr_assert_eq(pb_cli_parse_tool("bench_t", "A", "Tests.", f.opts, 3, bad, &first), 2, "bad input: exit 2");
    char *help[] = { "bench_t", "--help", NULL };
    cr_assert_eq(pb_cli_parse_tool("bench_t", "A B", "Tests the tool parse.", f.opts, 2, help, &first), 0);
    fflush(stdout);
    fflush(stderr);
    cr_assert_stderr_eq_str("bench_t: unknown option '--bogus' (see bench_t --help)\n");
    cr_assert_stdout_neq_str("", "--help printed its usage");
}

/* ---- environment ------------------------------------------------------------------------------------- */

Test(cli, env_sets_value)
{
    fx f;
    fx_init(&f, false);
    setenv("POOLBENCH_THREADS", "2,4", 1);
    setenv("POOLBENCH_WARM_UP", "3", 1); /* '-' becomes '_' */
    setenv("POOLBENCH_POLICY", "all", 1);
    setenv("POOLBENCH_QUICK", "yes", 1);
    cr_assert_eq(PARSE0(&f), 0, "%s", f.err);
    expect_list(&f.threads, 2, (long[]){ 2, 4 });
    cr_assert_eq(f.warm_up, 3);
    cr_assert_eq(f.policy.n, 4);
    cr_assert(f.quick);
}

Test(cli, command_line_wins_over_env)
{
    fx f;
    fx_init(&f, false);
    setenv("POOLBENCH_THREADS", "2,4", 1);
    setenv("POOLBENCH_ITERS", "not a number", 1); /* overridden, so never an error */
    cr_assert_eq(PARSE(&f, "--threads", "8", "--iters", "6"), 0, "%s", f.err);
    expect_list(&f.threads, 1, (long[]){ 8 });
    cr_assert_eq(f.iters, 6);
}

Test(cli, bad_env_names_variable)
{
    fx f;
    fx_init(&f, false);
    setenv("POOLBENCH_THREADS", "0", 1);
    expect_error(&f, PARSE0(&f), "POOLBENCH_THREADS");
    cr_assert_str_eq(f.err, "bench_t: POOLBENCH_THREADS=0: '0' is out of range: accepted 1..1024 (a list like 1,2,4 "
                            "or a range like 1-8)");
    unsetenv("POOLBENCH_THREADS");
    setenv("POOLBENCH_QUICK", "maybe", 1);
    expect_error(&f, PARSE0(&f), "POOLBENCH_QUICK");
}

Test(cli, env_flag_false_and_empty_ignored)
{
    fx f;
    fx_init(&f, false);
    f.quick = true;
    setenv("POOLBENCH_QUICK", "0", 1);
    cr_assert_eq(PARSE0(&f), 0, "%s", f.err);
    cr_assert_not(f.quick);
    setenv("POOLBENCH_ITERS", "", 1); /* empty = unset */
    f.iters = 11;
    cr_assert_eq(PARSE0(&f), 0, "%s", f.err);
    cr_assert_eq(f.iters, 11);
}

Test(cli, env_custom_name_and_none)
{
    fx f;
    fx_init(&f, false);
    setenv("POOLBENCH_SEED", "1", 1);   /* not this option's variable */
    setenv("PB_TEST_SEED", "-12", 1);
    setenv("POOLBENCH_OUT", "/tmp/x", 1); /* .env = "": no variable */
    cr_assert_eq(PARSE0(&f), 0, "%s", f.err);
    cr_assert_eq(f.seed, -12);
    cr_assert_null(f.out);
}

/* The same table as the pool's reader (test_pool.c): what one accepts the other does, the pool sizing itself
 * for the largest count of the list a harness sweeps. */
Test(cli, env_threads_takes_the_pools_forms)
{
    for (size_t i = 0; i < THREADS_FORMS_N; i++) {
        const threads_form *t = &threads_forms[i];
        fx f;
        fx_init(&f, false);
        setenv("POOLBENCH_THREADS", t->text, 1);
        int rc = PARSE0(&f);
        if (t->largest == 0) {
            expect_error(&f, rc, "POOLBENCH_THREADS=");
            cr_assert_eq(f.threads.n, 0, "'%s' left %d values", t->text, f.threads.n);
            continue;
        }
        cr_assert_eq(rc, 0, "'%s' refused: %s", t->text, f.err);
        long largest = 0;
        for (int k = 0; k < f.threads.n; k++)
            largest = f.threads.v[k] > largest ? f.threads.v[k] : largest;
        cr_assert_eq(largest, t->largest, "'%s': largest %ld", t->text, largest);
    }
}

/* A value a harness checks after parsing (a cpu set against the machine) is blamed on where it came from. */
Test(cli, origin_names_the_variable_or_the_option)
{
    fx f;
    fx_init(&f, false);
    char buf[128];
    setenv("POOLBENCH_CPUS", "abc", 1);
    setenv("POOLBENCH_THREADS", "1,2", 1);
    cr_assert_eq(PARSE0(&f), 0, "%s", f.err);
    cr_assert_str_eq(pb_cli_origin("cpus", f.cpus, buf, sizeof buf), "POOLBENCH_CPUS=abc");
    cr_assert_str_eq(pb_cli_origin("threads", f.threads.text, buf, sizeof buf), "POOLBENCH_THREADS=1,2");
    cr_assert_eq(PARSE(&f, "--cpus", "abc", "--threads=1,2"), 0, "%s", f.err); /* the same text, from argv */
    cr_assert_str_eq(pb_cli_origin("cpus", f.cpus, buf, sizeof buf), "--cpus");
    cr_assert_str_eq(pb_cli_origin("threads", f.threads.text, buf, sizeof buf), "--threads");
    cr_assert_str_eq(pb_cli_origin("threads", NULL, buf, sizeof buf), "--threads", "a default");
}

/* ---- --help ------------------------------------------------------------------------------------------ */

static char *read_all(FILE *f)
{
    static char buf[8192]; /* one test process, one call */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

Test(cli, help_prints_table, .init = cr_redirect_stdout)
{
    fx f;
    fx_init(&f, false);
    setenv("POOLBENCH_THREADS", "0", 1); /* a bad environment does not hide --help */
    cr_assert_eq(PARSE(&f, "--quick", "--help", "--bogus"), 1);
    fflush(stdout);
    const char *out = read_all(cr_get_redirected_stdout());
    cr_assert(strncmp(out, "usage: bench_t [options] [CMD...]\nTests the option table.\n", 57) == 0, "%s", out);
    const char *line = strstr(out, "--threads LIST");
    cr_assert(line, "%s", out);
    const char *eol = strchr(line, '\n');
    const char *want[] = { "thread counts", "(default: 1..PUs)", "1..1024", "POOLBENCH_THREADS" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *at = strstr(line, want[i]);
        cr_assert(at && at < eol, "'%s' not on the --threads line: %s", want[i], out);
    }
    tf_expect_has(out, "--warm-up N", "POOLBENCH_WARM_UP", "PB_TEST_SEED", "spin, condvar, hybrid, spawn",
                  "\n  --help ");
    cr_expect_null(strstr(out, "POOLBENCH_OUT"), "%s", out);
    cr_expect(strstr(out, "--quick  "), "a flag shows no metavar: %s", out);
}

Test(cli, short_help, .init = cr_redirect_stdout)
{
    fx f;
    fx_init(&f, false);
    cr_assert_eq(PARSE(&f, "-h"), 1);
}

/* ---- pb_parse_list ----------------------------------------------------------------------------------- */

Test(cli, parse_list_edges)
{
    pb_list l = { .n = 0 };
    char err[256];
    cr_assert_eq(pb_parse_list("7", 1, 8, &l, err, sizeof err), 0);
    expect_list(&l, 1, (long[]){ 7 });
    cr_assert_eq(pb_parse_list("5-5", 1, 8, &l, err, sizeof err), 0);
    expect_list(&l, 1, (long[]){ 5 });
    cr_assert_eq(pb_parse_list("8,1-2", 1, 8, &l, err, sizeof err), 0); /* order kept */
    expect_list(&l, 3, (long[]){ 8, 1, 2 });
    cr_assert_eq(pb_parse_list("1-256", 1, 1024, &l, err, sizeof err), 0, "%s", err);
    cr_assert_eq(l.n, PB_LIST_MAX);
    cr_assert_eq(l.v[255], 256);
    cr_assert_eq(pb_parse_list("0,9223372036854775807", 0, 0, &l, err, sizeof err), 0, "min=max=0 is unbounded");
    cr_assert_eq(l.v[1], 9223372036854775807L);
    cr_assert_eq(pb_parse_list("9223372036854775807-9223372036854775807", 0, 0, &l, err, sizeof err), 0, "%s", err);
    cr_assert_eq(l.n, 1);
    cr_assert_eq(pb_parse_list("9223372036854775808", 0, 0, &l, err, sizeof err), -1, "overflow accepted");
    cr_assert_eq(pb_parse_list("1-9223372036854775808", 0, 0, &l, err, sizeof err), -1, "overflow accepted");
}

Test(cli, parse_list_rejects)
{
    static const char *const bad[] = { "1-",  "-1",  "abc", "3-1",   "", ",",  "1,", ",1", "1,,2", "1-2-3",
                                       " 1",  "+1",  "0x10", "1 ", "1025", "0", "1-257", "1,1-256",
                                       "99999999999999999999", "1-99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pb_list l = { .n = 5 };
        char err[256] = "";
        cr_assert_eq(pb_parse_list(bad[i], 1, 1024, &l, err, sizeof err), -1,
                     "'%s' accepted", bad[i]);
        cr_assert_eq(l.n, 5, "'%s' changed the list", bad[i]);
        cr_assert(err[0], "'%s': no reason", bad[i]);
    }
    pb_list l;
    char err[256];
    cr_assert_eq(pb_parse_list("1-3,9", 1, 8, &l, err, sizeof err), -1);
    cr_assert(strstr(err, "'9'") && strstr(err, "1..8"), "%s", err);
    cr_assert_eq(pb_parse_list("x", 1, 8, &l, NULL, 0), -1, "a NULL err is allowed");
}

/* ---- pb_cli_parse never exits ---------------------------------------------------------------------------- */

/* Runs fn(arg) in a child, stdout to /dev/null; returns its exit status (99 when fn returned) and what it
 * wrote to stderr. */
static int run_in_child(void (*fn)(void *), void *arg, char *errout, size_t len)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(fd[1], 2);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        fn(arg);
        _exit(99);
    }
    close(fd[1]);
    /* Until EOF: the child's stderr is unbuffered, so one line can arrive in several writes. */
    size_t got = 0;
    ssize_t n;
    while (got < len - 1 && (n = read(fd[0], errout + got, len - 1 - got)) > 0)
        got += (size_t)n;
    errout[got] = '\0';
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

typedef struct parse_args {
    fx *f;
    int argc;
    char **argv;
} parse_args;

/* In the child: parses, then writes the returned status and message to stderr itself; a parse that exited
 * instead never gets there (the child's status is then not 99). */
static void parse_fn(void *arg)
{
    parse_args *a = arg;
    fx *f = a->f;
    f->err[0] = '\0';
    int rc = pb_cli_parse(&f->cli, a->argc, a->argv, NULL, f->err, sizeof f->err);
    fprintf(stderr, "rc=%d %s", rc, f->err);
}

/* pb_cli_parse in a child: its exit status (99 when pb_cli_parse returned) and stderr. */
static int parse_in_child(fx *f, int argc, char **argv, char *errout, size_t len)
{
    parse_args a = { .f = f, .argc = argc, .argv = argv };
    return run_in_child(parse_fn, &a, errout, len);
}

Test(cli, parse_returns_the_one_line_and_never_exits)
{
    fx f;
    fx_init(&f, false);
    char err[1024];
    int rc = parse_in_child(&f, 3, (char *[]){ "bench_t", "--threads", "0", NULL }, err, sizeof err);
    const char line[] = "rc=-1 bench_t: --threads: '0' is out of range: accepted 1..1024 "
                        "(a list like 1,2,4 or a range like 1-8)";
    cr_assert_eq(rc, 99, "bad input: pb_cli_parse returned (the main exits 2), stderr: %s", err);
    /* compared as a prefix: under ASan, LeakSanitizer may add its own note about Criterion's threads */
    cr_assert(strncmp(err, line, sizeof line - 1) == 0, "%s", err);
    cr_assert_null(strchr(err, '\n'), "one line, and nothing printed by pb_cli itself: %s", err);
    cr_assert_eq(parse_in_child(&f, 2, (char *[]){ "bench_t", "--help", NULL }, err, sizeof err), 99,
                 "--help returns (the main exits 0)");
    cr_assert(strncmp(err, "rc=1 ", 5) == 0 && !strstr(err, "bench_t"), "--help: 1, nothing on stderr: %s", err);
    cr_assert_eq(parse_in_child(&f, 2, (char *[]){ "bench_t", "--quick", NULL }, err, sizeof err), 99);
    cr_assert(strncmp(err, "rc=0 ", 5) == 0, "a good parse returns 0: %s", err);
}

Test(cli, errf_heads_the_message_with_prog)
{
    char err[128];
    cr_assert_eq(pb_cli_errf(err, sizeof err, "bench_t", "--cpus: cpu %d does not exist", 99), -1);
    cr_assert_str_eq(err, "bench_t: --cpus: cpu 99 does not exist");
    cr_assert_eq(pb_cli_errf(err, 8, "bench_t", "long message"), -1, "a short buffer truncates");
    cr_assert_str_eq(err, "bench_t");
}

Test(cli, opt_errf_names_the_variable_a_value_came_from)
{
    fx f;
    fx_init(&f, false);
    char err[512];
    setenv("POOLBENCH_CPUS", "abc", 1);
    cr_assert_eq(PARSE0(&f), 0, "%s", f.err);
    cr_assert_eq(pb_cli_opt_errf(err, sizeof err, "bench_t", "cpus", f.cpus, "unknown cpu set '%s'", f.cpus), -1);
    cr_assert_str_eq(err, "bench_t: POOLBENCH_CPUS=abc: unknown cpu set 'abc'");
    cr_assert_eq(PARSE(&f, "--cpus", "abc"), 0, "%s", f.err);
    cr_assert_eq(pb_cli_opt_errf(err, sizeof err, "bench_t", "cpus", f.cpus, "unknown cpu set '%s'", f.cpus), -1);
    cr_assert_str_eq(err, "bench_t: --cpus: unknown cpu set 'abc'");
}
