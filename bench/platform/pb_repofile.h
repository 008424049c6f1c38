/* pb_repofile.h — a file the repository ships beside its programs (plots/NAME.gp, expect/invariants.txt), found
 * the same way wherever a program runs from: $ENV/NAME when that variable is set and the file is readable there,
 * then DIR/NAME beside the executable (../../DIR from build/bin/), then ./DIR/NAME (the repository root). */
#ifndef PB_REPOFILE_H
#define PB_REPOFILE_H

#include <stddef.h>

/* 0 and the path in out, or -1 (out then holds the last path tried). env may be NULL: no variable. */
int pb_repo_file(const char *env, const char *dir, const char *name, char *out, size_t len);

#endif
