/* pb_infile.h — the one way poolbench opens a file it reads (a CSV, machine.csv, an expect file, a GGUF model,
 * a plot's facts): a regular file only, opened without blocking, and never more than a stated number of bytes.
 * A FIFO under an input's name would block the open until a writer came; a device (a link to /dev/zero) would
 * feed bytes forever; a directory or a socket is no input. Each is refused at once with one line:
 *   "PATH: not a regular file (a FIFO)", "PATH: 300 MiB, more than the 256 MiB a CSV may hold".
 * dirfd: AT_FDCWD for a plain path, or a directory's descriptor for a name inside it (openat's rule). what: the
 * kind of input for that message ("a CSV", "an expect file"). After -1, errno is ENOENT when the file is
 * missing (a caller may treat that as "not there" rather than "bad"), EINVAL otherwise. */
#ifndef PB_INFILE_H
#define PB_INFILE_H

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>

/* The most a small text input may hold (an expect file, a line a plot reads its facts from): people write
 * these by hand, a few KiB each. */
#define PB_INFILE_TEXT_MAX ((size_t)16 << 20)

/* A descriptor open for reading (blocking again), and the file's size then in *size (may be NULL); or -1 with
 * the reason in err. */
int pb_infile_open(int dirfd, const char *path, size_t max, const char *what, size_t *size, char *err,
                   size_t errlen);

/* The whole file into a new NUL-terminated buffer (*data, the caller frees it; its length in *len). The size at
 * the open is where reading starts, not a promise: a file that grows past max while it is read is refused too.
 * 0, or -1 with the reason in err (*data then NULL). */
int pb_infile_read(int dirfd, const char *path, size_t max, const char *what, char **data, size_t *len, char *err,
                   size_t errlen);

/* pb_infile_read as a stream, for readers that take lines (fgets, getline): the text is read whole first, so
 * the stream ends where the bound says whatever the file does afterwards. NULL with the reason in err. */
FILE *pb_infile_fopen(int dirfd, const char *path, size_t max, const char *what, char *err, size_t errlen);

#endif
