/* pool_tree.c — the tree-shaped pool (pool.h, "The tree"): groups from the caller's plain data, the level each
 * thread waits at and publishes at (the caller's side of a job is pool.c's, beside the flat pool's).
 *
 * The root level is the flat pool's own words (gen, done, work_q, done_q in struct pool), with the groups'
 * leaders as its waiters instead of every worker; each group has the same words on lines of its own
 * (pool_group). A leader is a flat worker of the root that, between seeing a job and running its share,
 * copies the job to its group's line and publishes it there, and, before counting itself done at the root,
 * waits for its group: so the worker loop in pool.c serves both shapes. */
#include "pool_tree.h"

#include "pool.h"
#include "pool_handshake.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool pool_tree_valid(const pool_config *cfg)
{
    if (!cfg->group)
        return true;
    if (cfg->policy == POOL_SPAWN)
        return false; /* no persistent workers to group */
    for (int i = 0; i < cfg->threads; i++)
        if (cfg->group[i] < 0 || cfg->group[i] >= cfg->threads)
            return false;
    return true;
}

/* p->group: each thread's group renumbered in order of first appearance (the caller's group is 0, and a
 * group's first thread is its leader); the count in p->ngroups. */
static void pool_tree_number(struct pool *p, const int *group, int *renum)
{
    for (int i = 0; i < p->n; i++)
        renum[i] = -1;
    p->ngroups = 0;
    for (int i = 0; i < p->n; i++) {
        if (renum[group[i]] < 0)
            renum[group[i]] = p->ngroups++;
        p->group[i] = renum[group[i]];
    }
}

int pool_tree_init(struct pool *p, const int *group)
{
    p->root_waiters = (unsigned)p->n - 1;
    if (!group)
        return 0;
    int *renum = malloc((size_t)p->n * sizeof *renum);
    p->group = malloc((size_t)p->n * sizeof *p->group);
    if (!renum || !p->group) {
        free(renum);
        free(p->group);
        p->group = NULL;
        return ENOMEM;
    }
    pool_tree_number(p, group, renum);
    free(renum);
    p->groups = pool_alloc_lines((size_t)p->ngroups * sizeof *p->groups);
    if (!p->groups) {
        free(p->group);
        p->group = NULL;
        p->ngroups = 0;
        return ENOMEM;
    }
    for (int g = 0; g < p->ngroups; g++)
        p->groups[g].leader = -1;
    for (int i = 0; i < p->n; i++) {
        pool_group *g = &p->groups[p->group[i]];
        g->leader = g->leader < 0 ? i : g->leader;
        g->size++;
    }
    for (int g = 0; g < p->ngroups; g++) {
        pool_group *gr = &p->groups[g];
        gr->done = gr->size == 2 ? &gr->done_near : &gr->done_far; /* the root's rule (pool_struct.h) */
        gr->p = p;
        pool_sleepq_init(&gr->work_q);
        pool_sleepq_init(&gr->done_q);
    }
    p->root_waiters = (unsigned)p->ngroups - 1; /* every leader but the caller */
    return 0;
}

void pool_tree_free(struct pool *p)
{
    for (int g = 0; g < p->ngroups; g++) {
        pool_sleepq_destroy(&p->groups[g].work_q);
        pool_sleepq_destroy(&p->groups[g].done_q);
    }
    free(p->groups);
    free(p->group);
}

static pool_level pool_level_root(struct pool *p)
{
    return (pool_level){ .gen = &p->gen, .done = p->done, .work_q = &p->work_q, .done_q = &p->done_q,
                         .job = &p->job, .waiters = p->root_waiters };
}

static pool_level pool_level_group(pool_group *g)
{
    return (pool_level){ .gen = &g->gen, .done = g->done, .work_q = &g->work_q, .done_q = &g->done_q,
                         .job = &g->job, .group = g, .waiters = (unsigned)g->size - 1 };
}

void pool_tree_levels(struct pool *p, int id, pool_level *up, pool_level *down)
{
    *down = (pool_level){ .waiters = 0 };
    if (!p->ngroups) {
        *up = pool_level_root(p);
        return;
    }
    pool_group *g = &p->groups[p->group[id]];
    if (g->leader != id) {
        *up = pool_level_group(g);
        return;
    }
    *up = pool_level_root(p);
    *down = pool_level_group(g);
}

void pool_tree_stop(struct pool *p, int started)
{
    /* pool_stop_threads writes stop, then publishes it at the root (to the leaders, who pass it on with their
     * group's publish); the caller's own group gets it from the publish below, which comes after that write. */
    pool_stop_threads(&p->stop, &p->gen, &p->work_q, NULL, 0);
    pool_word_publish(&p->groups[0].gen, &p->groups[0].work_q);
    for (int i = 1; i < started; i++)
        pthread_join(p->tids[i], NULL);
}

int pool_groups(const pool *p)
{
    return p->ngroups;
}
