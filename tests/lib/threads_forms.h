/* threads_forms.h — POOLBENCH_THREADS values, accepted or not, for both of its readers: the pool's
 * (pool_config_from_env, tests/pool/test_pool.c) and every harness's --threads list (pb_cli, tests/base/test_cli.c).
 * The pool may not depend on bench/, so the two parse it apart; this one table keeps them agreeing.
 * largest: the count a pool takes (the list's largest), 0 = refused by both. An empty value means unset to
 * both and is tested beside the table. One difference is stated rather than tabled: a harness also caps a
 * list at PB_LIST_MAX (256) values ("1-1024" is fine for a pool, too many for a sweep). */
#ifndef THREADS_FORMS_H
#define THREADS_FORMS_H

typedef struct threads_form {
    const char *text;
    int largest;
} threads_form;

static const threads_form threads_forms[] = {
    { "4", 4 },      { "1,2,4", 4 },  { "1-8", 8 },     { "1-3,8", 8 }, { "8,1", 8 },    { "5-5", 5 },
    { "1024", 1024 }, { "1,1000-1002", 1002 },
    { "0", 0 },      { "-1", 0 },     { "abc", 0 },     { "3x", 0 },    { "1025", 0 },   { "1-1025", 0 },
    { "99999999999999999999", 0 },    { "+1", 0 },      { " 1", 0 },    { "1 ", 0 },     { "0x10", 0 },
    { ",", 0 },      { ",1", 0 },     { "1,", 0 },      { "1,,2", 0 },  { "1-", 0 },     { "-3", 0 },
    { "3-1", 0 },    { "1-2-3", 0 },  { "2,2", 0 },     { "1-3,2", 0 }, { "1-4,3-5", 0 },
};

#define THREADS_FORMS_N (sizeof threads_forms / sizeof threads_forms[0])

#endif
