/* pb_wisdom.h — what bench_tune measured, kept for every later run on this machine and build (FFTW's wisdom): per
 * format and thread count the matvec kernel that streamed fastest at the size a decode streams, with or without its
 * software prefetch; the prefetch hint, distance and near prefetch; the spin pool's shape. A text file the user sees
 * and can delete (default results/<host>/wisdom; --wisdom FILE or POOLBENCH_WISDOM):
 *
 *   poolbench-wisdom 3
 *   cpu VENDOR FAMILY/MODEL/STEPPING BRAND; isa avx2 avx512 ...; pus 2
 *   build src 1234567890; gcc 12.2.0; -std=c11 -O2 ...
 *   # any comment
 *   hint t2
 *   distance 1536                             (bytes the streaming passes prefetch ahead: kern_prefetch_distances)
 *   near on                                   (their near prefetch into L1: on or off)
 *   streaming rank 1.012                      (why those three: tuned, or rank (the vendor's kept); the best ratio)
 *   steal 0.4                                 (the most % of a tuned cpu's time the hypervisor took while its
 *                                              entries were measured: past PB_STEAL_NOISY_PCT, bench_tune
 *                                              --if-missing measures them again; optional, absent in older files)
 *   kernel q8_0 1 avx512 prefetch 12.345 file rank 1.021
 *                                             (format, threads, variant, prefetch or noprefetch, GB/s, layout, why:
 *                                              tuned or rank, its median ratio to rank's default; pb_tune.h)
 *   dispatch 2 flat 181.200 196.400           (threads, the faster spin pool shape, flat's and tree's ns)
 *   end
 *
 * Wisdom is an input like any other: read as a regular file of bounded size; a file that breaks this grammar
 * (truncated: no `end` line) is refused with one line naming the file and the line, and the run goes on by ISA
 * rank. Wisdom of another cpu or build (its `cpu` or `build` line differs from this machine's) is ignored, with
 * one line saying so; so is a file of another format version (line 1), which bench_tune measures again. The floor's
 * read kernel is not kept (version 1's `read` lines; version 3 added `streaming` and each kernel's why): the floor is the best of every read kernel, measured beside
 * each decode. Writing is atomic: a temporary file beside it, renamed over it, so two processes tuning at
 * once leave one whole file or the other. */
#ifndef PB_WISDOM_H
#define PB_WISDOM_H

#include <stdbool.h>
#include <stddef.h>

#include "kern.h"
#include "kern_repack.h"
#include "pb_machine.h"
#include "pb_tuning.h"

#define PB_WISDOM_MAGIC_WORD "poolbench-wisdom"
#define PB_WISDOM_VERSION 3
#define PB_WISDOM_MAGIC PB_WISDOM_MAGIC_WORD " " PB_STR(PB_WISDOM_VERSION)
#define PB_WISDOM_MAX_BYTES ((size_t)1 << 20) /* a whole tuning is a few KiB */
#define PB_WISDOM_MAX_KERNELS 64               /* formats x thread counts */
#define PB_WISDOM_MAX_DISPATCH 8
#define PB_WISDOM_ID 512

typedef struct pb_wisdom_kernel {
    kern_format fmt;
    int threads;
    kern_isa isa;  /* the ISA whose kernel ran (kern_matvec_isa's answer for it) */
    bool prefetch; /* with its software prefetch (false: kern_job.cached's twin) */
    double gbps;   /* what it streamed when measured */
    kern_layout layout; /* the weights' layout it streamed: file, or one repacked at load (q1_0_r32lut) */
    bool tuned;         /* it beat rank's default (pb_tune_judge); false: it is the default (a run says `rank`) */
    double vs_rank;     /* its median ratio to the default (a rank entry: the best candidate's, which fell short;
                         * 0: the default could not run, so nothing was compared) */
} pb_wisdom_kernel;

/* The spin pool's shape measured faster at one thread count: flat (every worker on the root's lines) or the tree of
 * cache groups (pool_config.group). A decode whose policy the user did not force runs that shape. */
typedef struct pb_wisdom_dispatch {
    int threads;             /* 2.. */
    bool tree;               /* the tree was the faster (a tie stays flat: the baseline) */
    double flat_ns, tree_ns; /* one dispatch of each when measured */
} pb_wisdom_dispatch;

typedef struct pb_wisdom {
    char cpu[PB_WISDOM_ID];   /* pb_wisdom_cpu_id of the machine it was measured on */
    char build[PB_WISDOM_ID]; /* pb_wisdom_build_id of the build that measured it */
    bool has_hint;
    bool temporal;            /* the prefetch hint (kern_prefetch_set_temporal) */
    bool has_distance;
    unsigned distance;        /* the prefetch distance in bytes (kern_prefetch_set_distance) */
    bool has_near;
    bool near;                /* the near prefetch into L1 (kern_prefetch_set_near) */
    bool has_streaming;
    bool streaming_tuned;     /* those three beat the vendor's (pb_tune.h); false: they are the vendor's */
    double streaming_vs;      /* the best point's median ratio, tuned settings' choice to the vendor's (1: none) */
    bool has_steal;
    double steal_pct;         /* the most % of a tuned cpu's time the hypervisor took while the entries were timed */
    int nkernels, ndispatch;
    pb_wisdom_kernel kernel[PB_WISDOM_MAX_KERNELS];
    pb_wisdom_dispatch dispatch[PB_WISDOM_MAX_DISPATCH];
} pb_wisdom;

/* Whether w's entries were timed while the hypervisor took more of a cpu than a quiet host's (PB_STEAL_NOISY_PCT):
 * choices made then may be the noise's, so they are measured again. */
bool pb_wisdom_noisy(const pb_wisdom *w);

/* The identity wisdom is keyed by: the cpu (vendor, family/model/stepping, brand, the ISAs the kernels choose from,
 * the PUs this process may use) and the build (a checksum of the kernels' and read kernels' sources, the compiler,
 * the flags). One line each, no newline. */
void pb_wisdom_cpu_id(const pb_machine *m, int pus, char *buf, size_t len);
void pb_wisdom_build_id(const pb_machine *m, char *buf, size_t len);

/* The entry of (f, threads) exactly, or NULL. */
const pb_wisdom_kernel *pb_wisdom_kernel_at(const pb_wisdom *w, kern_format f, int threads);
/* The entry of f measured at the thread count nearest to threads (ties: the fewer), or NULL when f has none. */
const pb_wisdom_kernel *pb_wisdom_kernel_near(const pb_wisdom *w, kern_format f, int threads);
/* The dispatch shape measured at exactly threads, or NULL (a shape measured at another count says nothing here). */
const pb_wisdom_dispatch *pb_wisdom_dispatch_at(const pb_wisdom *w, int threads);
/* Adds or replaces (f, threads)'s entry, or the dispatch entry of threads. 0, or -1 when the table is full. */
int pb_wisdom_put_kernel(pb_wisdom *w, const pb_wisdom_kernel *k);
int pb_wisdom_put_dispatch(pb_wisdom *w, const pb_wisdom_dispatch *d);

/* The file's text into buf (NUL-terminated). The number of bytes, or -1 when it does not fit. */
int pb_wisdom_format(const pb_wisdom *w, char *buf, size_t len);
/* Parses text (len bytes, NUL-terminated or not). 0, or -1 with "line N: WHAT" in err (truncated, an unknown word,
 * a name this build does not know, a number out of range, a duplicate). */
int pb_wisdom_parse(const char *text, size_t len, pb_wisdom *w, char *err, size_t errlen);

typedef enum pb_wisdom_status {
    PB_WISDOM_OK,      /* read, and measured on this cpu and build */
    PB_WISDOM_MISSING, /* no file at that path */
    PB_WISDOM_OTHER,   /* a well-formed file of another cpu or build: ignored */
    PB_WISDOM_BAD,     /* not a regular file, too large, unreadable or malformed: ignored */
} pb_wisdom_status;

/* Reads path and checks it against cpu and build. On PB_WISDOM_OK *w holds it; otherwise *w is empty and msg holds
 * the one line to print ("wisdom FILE: ..."; for MISSING too, for the caller to print or not). */
pb_wisdom_status pb_wisdom_load(const char *path, const char *cpu, const char *build, pb_wisdom *w, char *msg,
                                size_t msglen);
/* Writes w to path: a temporary file in the same directory (created exclusively, never following a link), flushed
 * to disk, then renamed over path; the parent directory is created when missing. 0, or -1 with the reason in err
 * (nothing left behind). */
int pb_wisdom_save(const char *path, const pb_wisdom *w, char *err, size_t errlen);

/* An update of the file at path by another process's tuning: holds an exclusive lock (flock on the file's
 * directory, so the lock never stands for a file that rename replaces) while it re-reads the file, keeps every
 * entry the update does not measure (another format, another thread count) and writes the whole. The update:
 * w's kernel entries of the formats in fmts (nfmts) and of the thread counts in threads (nthreads), its
 * dispatch entries, and its streaming settings. 0, or -1 with the reason in err. */
int pb_wisdom_update(const char *path, const pb_wisdom *w, const kern_format *fmts, int nfmts, const int *threads,
                     int nthreads, char *err, size_t errlen);

/* The longest path wisdom takes (PATH_MAX with its NUL): a longer one is refused, never cut. */
#define PB_WISDOM_PATH_MAX 4096
/* Room for a line that quotes a whole path. */
#define PB_WISDOM_MSG (PB_WISDOM_PATH_MAX + 1024)

/* The path a harness uses: the option's value (--wisdom, or POOLBENCH_WISDOM through it) when given, else
 * results/<host>/wisdom, into buf (PB_WISDOM_PATH_MAX), checked before any work as pb_wisdom_check_path does.
 * 0, or -1 with the reason in err. */
int pb_wisdom_path(const char *given, bool writing, char *buf, char *err, size_t errlen);
/* Whether path can be wisdom's: shorter than PATH_MAX with no component over NAME_MAX; what is there a regular
 * file (writing: not a link, and a wisdom file or an empty one, since it is replaced); where nothing is, its
 * nearest existing ancestor a directory (writing: one a file can be created in). 0, or -1 with the reason. */
int pb_wisdom_check_path(const char *path, bool writing, char *err, size_t errlen);
/* Cuts path (a copy) to its directory in place: "." for a bare name, "/" for one in the root. Whether it held a
 * '/'. */
bool pb_wisdom_parent(char *path);

#endif
