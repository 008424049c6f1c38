/* pool_tree.h — the tree-shaped pool's steps (pool_tree.c), which pool.c takes at create, dispatch and destroy.
 * Not part of the API. */
#ifndef POOL_TREE_H
#define POOL_TREE_H

#include <stdbool.h>

#include "pool_struct.h"

/* cfg->group holds values in range and comes with a persistent policy (or is NULL). */
bool pool_tree_valid(const pool_config *cfg);
/* root_waiters, and for a group array the groups: 0, or ENOMEM (nothing left allocated, the pool flat). */
int pool_tree_init(struct pool *p, const int *group);
void pool_tree_free(struct pool *p);
/* Where worker id waits for a job (up) and, a group's leader, where it publishes it (down; waiters 0: none). */
void pool_tree_levels(struct pool *p, int id, pool_level *up, pool_level *down);
/* Tells workers 1..started-1 of a tree-shaped pool to stop, and joins them. */
void pool_tree_stop(struct pool *p, int started);

#endif
