/* pb_cli.c — the option table interpreter: parsing, --help, range checks, POOLBENCH_* environment overrides.
 *
 * Every kind is one row of kind_ops[] in pb_cli_values.c (value parser, default metavar, hint for errors);
 * nothing else switches on the kind. Value parsers write a reason without any prefix; the caller adds "PROG: --name: " or
 * "PROG: VAR=VALUE: ", so a message looks the same whether the value came from argv or the environment, and
 * names where it came from. A harness's own later checks get the same heads from pb_cli_origin, which tells
 * an environment value by its address (getenv's string, which pb_cli stores or records in a list's .text).
 * Parsers fill a local copy first and store into dest only on success, so a rejected value never leaves a
 * half-written list behind. */
#include "pb_cli.h"
#include "pb_cli_values.h"

#include "pb_err.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the table ---------------------------------------------------------------------------------------- */

static const char *prog_of(const pb_cli *cli, char **argv)
{
    return cli->prog ? cli->prog : argv && argv[0] ? argv[0] : "poolbench";
}

static const char *metavar_of(const pb_opt *o)
{
    return o->metavar ? o->metavar : pb_cli_kind_metavar(o);
}

/* The option's environment variable into buf, or NULL when it has none. */
static const char *env_name(const pb_opt *o, char *buf, size_t len)
{
    if (o->env)
        return o->env[0] ? o->env : NULL;
    size_t at = (size_t)snprintf(buf, len, "POOLBENCH_");
    for (const char *p = o->name; *p && at + 1 < len; p++)
        buf[at++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    buf[at] = '\0';
    return buf;
}

static int count_opts(const pb_opt *opts)
{
    int n = 0;
    while (opts && opts[n].name)
        n++;
    return n;
}

static bool name_is(const char *have, const char *name, size_t n)
{
    return have && strlen(have) == n && strncmp(have, name, n) == 0;
}

/* The option called name (n bytes), by its name or its old one (*old then true). */
static int find_opt(const pb_opt *opts, const char *name, size_t n, bool *old)
{
    *old = false;
    for (int k = 0; opts && opts[k].name; k++)
        if (name_is(opts[k].name, name, n) || (*old = name_is(opts[k].old_name, name, n)))
            return k;
    return -1;
}

static void print_help(const pb_cli *cli, char **argv, FILE *f)
{
    char left[128], acc[PB_ERR_MAX / 2], envb[128];
    int width = (int)strlen("--help");
    for (const pb_opt *o = cli->opts; o && o->name; o++) {
        const char *mv = metavar_of(o);
        int w = snprintf(left, sizeof left, "--%s%s%s", o->name, mv ? " " : "", mv ? mv : "");
        width = w > width ? w : width;
    }
    fprintf(f, "usage: %s [options]%s%s\n", prog_of(cli, argv), cli->usage_tail ? " " : "",
            cli->usage_tail ? cli->usage_tail : "");
    if (cli->summary)
        fprintf(f, "%s\n", cli->summary);
    fprintf(f, "\noptions:\n");
    for (const pb_opt *o = cli->opts; o && o->name; o++) {
        const char *mv = metavar_of(o), *env = env_name(o, envb, sizeof envb);
        snprintf(left, sizeof left, "--%s%s%s", o->name, mv ? " " : "", mv ? mv : "");
        pb_cli_accepted_text(o, acc, sizeof acc);
        fprintf(f, "  %-*s  %s", width, left, o->help ? o->help : "");
        if (o->dflt)
            fprintf(f, " (default: %s)", o->dflt);
        if (o->old_name)
            fprintf(f, " (old name: --%s)", o->old_name);
        if (acc[0] || env)
            fprintf(f, " [%s%s%s%s]", acc, acc[0] && env ? "; " : "", env ? "env " : "", env ? env : "");
        fputc('\n', f);
    }
    fprintf(f, "  %-*s  print this help and exit\n", width, "--help");
}

/* One "--name", "--name=VALUE" or "--name VALUE" at argv[*i]; advances *i past a separate value. */
static int parse_option(const pb_cli *cli, int argc, char **argv, int *i, bool *seen, char *err, size_t len)
{
    const char *prog = prog_of(cli, argv), *arg = argv[*i], *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    char why[PB_ERR_MAX];
    bool old;
    int k = find_opt(cli->opts, name, n, &old);
    if (k < 0 && n == 4 && strncmp(name, "help", 4) == 0)
        return pb_errf(err, len, "%s: --help takes no value (got '%s')", prog, arg);
    if (k < 0)
        return pb_errf(err, len, "%s: unknown option '--%.*s' (see %s --help)", prog, (int)n, name, prog);
    const pb_opt *o = &cli->opts[k];
    const char *val = eq ? eq + 1 : NULL;
    if (!metavar_of(o) && eq)
        return pb_errf(err, len, "%s: --%s takes no value (got '%s')", prog, o->name, arg);
    if (metavar_of(o) && !eq) {
        /* a following "--x" is the next option, not this one's value */
        if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
            return pb_errf(err, len, "%s: --%s: missing value (%s)", prog, o->name, metavar_of(o));
        val = argv[++*i];
    }
    if (val && val[0] == '\0')
        return pb_errf(err, len, "%s: --%s: empty value (%s)", prog, o->name, metavar_of(o));
    if (pb_cli_value_parse(o, val, why, sizeof why) < 0)
        return pb_errf(err, len, "%s: --%s: %s", prog, o->name, why);
    if (old)
        fprintf(stderr, "%s: --%s is the old name of --%s; read as it\n", prog, o->old_name, o->name);
    seen[k] = true;
    return 0;
}

/* Options not given on the command line take their environment variable, if set and not empty. Applying
 * these after argv gives the same values as "env first, argv wins", and lets --help and a command-line
 * value work even when the environment holds a bad one. */
static int apply_env(const pb_cli *cli, char **argv, const bool *seen, char *err, size_t len)
{
    char envb[128], why[PB_ERR_MAX];
    for (int k = 0; cli->opts && cli->opts[k].name; k++) {
        const pb_opt *o = &cli->opts[k];
        const char *var = env_name(o, envb, sizeof envb), *val = var ? getenv(var) : NULL;
        if ((!val || val[0] == '\0') && o->old_env && (val = getenv(o->old_env)) && val[0])
            var = o->old_env; /* the harness says once that the name is old (pb_harness_begin) */
        if (seen[k] || !val || val[0] == '\0')
            continue;
        if (pb_cli_value_parse(o, val, why, sizeof why) < 0)
            return pb_errf(err, len, "%s: %s=%s: %s", prog_of(cli, argv), var, val, why);
    }
    return 0;
}

/* Reverses argv[lo..hi). */
static void reverse(char **argv, int lo, int hi)
{
    for (hi--; lo < hi; lo++, hi--) {
        char *t = argv[lo];
        argv[lo] = argv[hi];
        argv[hi] = t;
    }
}

/* Rotates argv[lo..hi) so that argv[mid..hi) comes first, each part in its order. */
static void rotate(char **argv, int lo, int mid, int hi)
{
    reverse(argv, lo, mid);
    reverse(argv, mid, hi);
    reverse(argv, lo, hi);
}

/* The options of argv, from argv[1]. *first: the first positional argument's index. With cli->interleaved a
 * positional met between options is moved past the ones left (the options move up one) and the parse goes on:
 * argv[*first..argc) then holds every positional, in the order given. 0, 1 after --help, or -1 with err. */
static int parse_args(const pb_cli *cli, int argc, char **argv, bool *seen, int *first, char *err, size_t errlen)
{
    const char *prog = prog_of(cli, argv);
    int i = 1, end = argc; /* argv[end..argc): the positionals moved so far */
    for (; i < end; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            rotate(argv, i + 1, end, argc); /* those moved came before the ones after "--" */
            *first = i + 1;
            return 0;
        }
        if ((a[0] != '-' || a[1] == '\0') && !cli->interleaved)
            break; /* the first positional ("-" alone is one, by the stdin convention) */
        if (a[0] != '-' || a[1] == '\0') {
            rotate(argv, i, i + 1, argc);
            end--;
            i--;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(cli, argv, stdout);
            return 1;
        }
        if (a[1] != '-')
            return pb_errf(err, errlen, "%s: unknown option '%s' (see %s --help)", prog, a, prog);
        if (parse_option(cli, end, argv, &i, seen, err, errlen) < 0) /* a value never comes from those moved */
            return -1;
    }
    *first = i;
    return 0;
}

int pb_cli_parse(const pb_cli *cli, int argc, char **argv, int *first_positional, char *err, size_t errlen)
{
    bool seen[PB_CLI_MAX_OPTS] = { false };
    char local[PB_ERR_MAX];
    const char *prog = prog_of(cli, argv);
    if (!err || errlen == 0)
        err = local, errlen = sizeof local;
    if (count_opts(cli->opts) > PB_CLI_MAX_OPTS)
        return pb_errf(err, errlen, "%s: more than %d options in the table", prog, PB_CLI_MAX_OPTS);
    int i = argc, rc = parse_args(cli, argc, argv, seen, &i, err, errlen);
    if (rc != 0)
        return rc;
    if (i < argc && !cli->positional && !cli->interleaved)
        return pb_errf(err, errlen, "%s: unexpected argument '%s' (see %s --help)", prog, argv[i], prog);
    if (apply_env(cli, argv, seen, err, errlen) < 0)
        return -1;
    if (first_positional)
        *first_positional = i;
    return 0;
}

int pb_cli_parse_main(const pb_cli *cli, int argc, char **argv, int *first_positional)
{
    char err[PB_ERR_MAX];
    int rc = pb_cli_parse(cli, argc, argv, first_positional, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "%s\n", err);
    return rc == 0 ? PB_CLI_GO : rc < 0 ? 2 : 0;
}

int pb_cli_parse_tool(const char *prog, const char *usage_tail, const char *summary, const pb_opt *opts, int argc,
                      char **argv, int *first)
{
    const pb_cli cli = {
        .prog = prog, .summary = summary, .usage_tail = usage_tail, .opts = opts, .interleaved = true,
    };
    *first = argc;
    return pb_cli_parse_main(&cli, argc, argv, first);
}

int pb_cli_errf(char *err, size_t errlen, const char *prog, const char *fmt, ...)
{
    /* The head first, then the message straight into what is left: a message as long as err holds is not cut
     * by a smaller buffer on the way. */
    int head = snprintf(err, errlen, "%s: ", prog ? prog : "poolbench");
    if (head >= 0 && (size_t)head < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + head, errlen - (size_t)head, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The environment entry "VAR=value" whose value is text, or NULL. getenv's string is the tail of its entry: an
 * address match is exact, and tells apart the same text given on the command line. */
static const char *env_entry(const char *text)
{
    for (char **e = environ; text && e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (eq && eq + 1 == text)
            return *e;
    }
    return NULL;
}

bool pb_cli_from_env(const char *text) { return env_entry(text) != NULL; }

const char *pb_cli_origin(const char *name, const char *text, char *buf, size_t len)
{
    const char *e = env_entry(text);
    if (e)
        snprintf(buf, len, "%s", e);
    else
        snprintf(buf, len, "--%s", name);
    return buf;
}

int pb_cli_opt_errf(char *err, size_t errlen, const char *prog, const char *name, const char *text, const char *fmt,
                    ...)
{
    char head[PB_ERR_MAX], msg[PB_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pb_cli_errf(err, errlen, prog, "%s: %s", pb_cli_origin(name, text, head, sizeof head), msg);
}
