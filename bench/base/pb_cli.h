/* pb_cli.h — one option table per harness drives parsing, --help, range checks and POOLBENCH_* environment
 * overrides (stress-ng / mimalloc style). Every error is one line naming the option, the value and what is
 * accepted, returned in the caller's buffer (pb_err's convention: nothing here exits); the main prints it and
 * exits 2, before the harness does any work.
 *
 *   static long threads_v[PB_LIST_MAX]; static pb_list threads = { .v = threads_v };
 *   static const pb_opt opts[] = {
 *       { .name = "threads", .kind = PB_OPT_LIST, .dest = &threads, .min = 1, .max = 1024,
 *         .metavar = "LIST", .help = "thread counts, e.g. 1,2,4 or 1-8", .dflt = "1..PUs" },
 *       { .name = "policy", .kind = PB_OPT_CHOICES, .dest = &policies, .choices = policy_names, ... },
 *       { 0 } };
 *   pb_cli cli = { .prog = "bench_x", .summary = "...", .opts = opts };
 *   int first, rc = pb_cli_parse(&cli, argc, argv, &first, err, sizeof err);  // 1: --help printed; -1: err
 *
 * Lists are "1,2,4", ranges "1-8", or both ("1-3,8"); a range's ends are inclusive and ascending.
 * Values come from "--name VALUE" or "--name=VALUE". An option's environment variable (POOLBENCH_<NAME>,
 * upper-case, '-' as '_', unless .env names another) is read first; the command line wins over it.
 * A bare "--" ends the options: pb_cli_parse returns the index of the first argument after the options.
 *
 * Details the table relies on:
 *  - A repeated option: the last one wins. A flag takes no value ("--quick=1" is an error); "-h" = "--help".
 *  - With .positional, options end at "--" or at the first argument not starting with '-' ("-" alone is an
 *    argument); with .interleaved, only at "--": arguments may come between options, and argv is reordered
 *    (options first, then the arguments in their order); without either, any argument left over is an error.
 *  - A value may not be empty; "--name VALUE" does not take a VALUE that starts with "--" (missing value).
 *  - An empty environment variable counts as unset; a flag's variable takes 1/0, yes/no, true/false, on/off.
 *    An option given on the command line ignores its variable, even a bad one. An error about a value that
 *    came from a variable names the variable and its value ("POOLBENCH_CPUS=abc: ..."), not the option.
 *  - min == max == 0: no bound (INT: any long; LIST: 0..LONG_MAX). dmin == dmax == 0: no upper bound and no
 *    lower bound unless dmin_open (then > 0). NaN and infinities are never accepted.
 *  - List elements are non-negative integers (a '-' separates a range's ends); at most PB_LIST_MAX values.
 *  - Every list kind (LIST, DLIST, CHOICES, WORDS) refuses an empty item (",1", "1,,2", "1,") and a value
 *    given twice ("2,2", "1-3,2", "static,static"). CHOICES: "all" is every choice in table order.
 *  - A rejected value leaves dest unchanged. */
#ifndef PB_CLI_H
#define PB_CLI_H

#include <stdbool.h>
#include <stddef.h>

#define PB_LIST_MAX 256
/* Options a table may hold: bounds the "given on the command line" marks kept on the stack, and the copy a
 * harness makes of its table to add the options every harness shares (pb_harness_setup). */
#define PB_CLI_MAX_OPTS 128

typedef enum pb_opt_kind {
    PB_OPT_FLAG,    /* bool *dest = true; takes no value */
    PB_OPT_INT,     /* long *dest, within [min, max] */
    PB_OPT_DOUBLE,  /* double *dest, within [dmin, dmax] */
    PB_OPT_STRING,  /* const char **dest */
    PB_OPT_LIST,    /* pb_list *dest: integers within [min, max], lists and ranges */
    PB_OPT_DLIST,   /* pb_dlist *dest: doubles within [dmin, dmax], comma-separated */
    PB_OPT_CHOICES, /* pb_list *dest: indices into choices[] (NULL-terminated), comma-separated names, or "all" */
    PB_OPT_CHOICE,  /* long *dest: one index into choices[] */
    PB_OPT_WORDS,   /* const char **dest: comma-separated words the harness reads itself ("static,dynamic:4") */
    PB_OPT_REPEAT,  /* pb_strs *dest: a string, once per time the option is given (--host A --host B) */
} pb_opt_kind;

/* The values of a PB_OPT_REPEAT option, in the order given. */
#define PB_STRS_MAX 16
typedef struct pb_strs {
    int n;
    const char *v[PB_STRS_MAX];
} pb_strs;

/* text: the string an option's values were parsed from (argv's or the environment's, alive as long as the
 * process: pass it to pb_cli_opt_errf); NULL when pb_cli did not fill the list (a harness's default). */
typedef struct pb_list {
    int n;           /* 0 = not given: the harness applies its default */
    long v[PB_LIST_MAX];
    const char *text;
} pb_list;

typedef struct pb_dlist {
    int n;
    double v[PB_LIST_MAX];
    const char *text;
} pb_dlist;

typedef struct pb_opt {
    const char *name;    /* long name without the dashes; NULL ends the table */
    pb_opt_kind kind;
    void *dest;          /* typed by kind, see above */
    long min, max;       /* PB_OPT_INT, PB_OPT_LIST */
    double dmin, dmax;   /* PB_OPT_DOUBLE, PB_OPT_DLIST */
    bool dmin_open;      /* the lower bound is exclusive (a ratio must be > 0) */
    const char *const *choices; /* PB_OPT_CHOICES, PB_OPT_CHOICE */
    const char *metavar; /* "LIST", "N", "DIR" in --help */
    const char *help;    /* one line */
    const char *dflt;    /* the default, as text for --help */
    const char *env;     /* environment variable; NULL = POOLBENCH_<NAME>, "" = none */
    const char *old_name; /* an earlier name of the option, still accepted: using it says so on stderr (NULL: none) */
    const char *old_env;  /* the same for its variable, read where env is unset */
} pb_opt;

typedef struct pb_cli {
    const char *prog;
    const char *summary;   /* one or more lines under the usage line of --help */
    const char *usage_tail; /* after "[options]" in the usage line, e.g. "-- CMD [ARGS...]"; may be NULL */
    const pb_opt *opts;
    bool positional;        /* accepts arguments after the options (a "--" is then optional) */
    bool interleaved;       /* accepts arguments anywhere among the options ("A B --out X", GNU getopt's way):
                             * pb_cli_parse moves them, in order, after the options in argv */
} pb_cli;

/* Parses argv: 0; 1 after --help was printed to stdout (the main then exits 0); or -1 with the one-line error
 * "PROG: --name: ..." in err (the main prints it and exits 2). *first_positional (may be NULL): the index of
 * the first positional argument, argc when there is none. Never exits. */
int pb_cli_parse(const pb_cli *cli, int argc, char **argv, int *first_positional, char *err, size_t errlen);

/* pb_cli_parse for a main that has no harness to refuse through (bench_report, bench_compare): prints the error
 * line on stderr itself. PB_CLI_GO to go on, else the main's exit status: 0 after --help, 2 after bad input. */
#define PB_CLI_GO (-1)
int pb_cli_parse_main(const pb_cli *cli, int argc, char **argv, int *first_positional);

/* pb_cli_parse_main for a tool that takes files or directories anywhere among its options (bench_report,
 * bench_compare, bench_check: .interleaved). *first: the first of them once they are moved after the options. */
int pb_cli_parse_tool(const char *prog, const char *usage_tail, const char *summary, const pb_opt *opts, int argc,
                      char **argv, int *first);

/* Parses "1,2,4", "1-8", "1-3,8" into out within [min, max]. 0, or -1 with a reason in err. */
int pb_parse_list(const char *s, long min, long max, pb_list *out, char *err, size_t errlen);

/* "PROG: MESSAGE" into err; returns -1: the one-line error of an input check a table cannot express (a cpu
 * that does not exist, a buffer larger than memory). */
int pb_cli_errf(char *err, size_t errlen, const char *prog, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Where option `name`'s value came from, as an error's head: "VAR=TEXT" when text is the value of an
 * environment variable (the very string pb_cli stored: a STRING or WORDS option's dest, a list's .text),
 * "--NAME" otherwise (the command line, or NULL: a default). Returns buf. */
const char *pb_cli_origin(const char *name, const char *text, char *buf, size_t len);

/* Whether text is the value of an environment variable (the very string pb_cli stored, as pb_cli_origin tells
 * it): a harness choosing between two options lets one given on the command line win over the other's variable. */
bool pb_cli_from_env(const char *text);

/* pb_cli_errf for a value the harness checks after parsing (a cpu set against this machine):
 * "PROG: ORIGIN: MESSAGE", ORIGIN from pb_cli_origin, so a bad POOLBENCH_CPUS is named as such. Returns -1. */
int pb_cli_opt_errf(char *err, size_t errlen, const char *prog, const char *name, const char *text, const char *fmt,
                    ...) __attribute__((format(printf, 6, 7)));

#endif
