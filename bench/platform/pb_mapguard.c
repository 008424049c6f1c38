/* pb_mapguard.c — see pb_mapguard.h. */
#include "pb_mapguard.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

/* A signal handler has no context argument, so what it guards reaches it through statics, as pb_stop's signal
 * number does; lock-free atomics, since the read that faults may be on any thread (a pool worker's). The range is
 * stored before the handler is installed and cleared before the mapping goes: a handler that sees base 0 lets
 * SIGBUS take its default action. tripped_at: the first fault's offset + 1 (0: none yet). */
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2, "a handler may only use lock-free atomics");
static _Atomic uintptr_t pb_mapguard_base;
static _Atomic uintptr_t pb_mapguard_end;
static _Atomic uintptr_t pb_mapguard_page;
static _Atomic unsigned long long pb_mapguard_tripped_at;

static void pb_mapguard_default(int sig)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL); /* async-signal-safe; returning re-runs the access, which now takes the default */
}

static void pb_mapguard_handler(int sig, siginfo_t *si, void *uctx)
{
    (void)uctx;
    uintptr_t base = atomic_load(&pb_mapguard_base), end = atomic_load(&pb_mapguard_end);
    uintptr_t at = (uintptr_t)si->si_addr, page = atomic_load(&pb_mapguard_page);
    if (base == 0 || at < base || at >= end) {
        pb_mapguard_default(sig);
        return;
    }
    uintptr_t from = at & ~(page - 1);
    /* mmap is not on POSIX's async-signal-safe list, but on Linux it is the bare system call (no lock, no
     * allocation): the one way to give the faulting read something to read, so that it can be retried. */
    void *z = mmap((void *)from, end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (z == MAP_FAILED) {
        pb_mapguard_default(sig);
        return;
    }
    unsigned long long none = 0;
    atomic_compare_exchange_strong(&pb_mapguard_tripped_at, &none, (unsigned long long)(at - base) + 1);
}

int pb_mapguard_arm(const void *base, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    atomic_store(&pb_mapguard_page, (uintptr_t)(page > 0 ? page : 4096));
    atomic_store(&pb_mapguard_base, 0); /* a replaced range is never half old, half new */
    atomic_store(&pb_mapguard_end, (uintptr_t)base + len);
    atomic_store(&pb_mapguard_tripped_at, 0ull);
    atomic_store(&pb_mapguard_base, (uintptr_t)base);
    struct sigaction sa = { .sa_sigaction = pb_mapguard_handler, .sa_flags = SA_SIGINFO };
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGBUS, &sa, NULL);
}

void pb_mapguard_disarm(void)
{
    atomic_store(&pb_mapguard_base, 0);
    atomic_store(&pb_mapguard_end, 0);
}

bool pb_mapguard_tripped(void) { return atomic_load(&pb_mapguard_tripped_at) != 0; }

uint64_t pb_mapguard_offset(void)
{
    unsigned long long at = atomic_load(&pb_mapguard_tripped_at);
    return at ? at - 1 : 0;
}
