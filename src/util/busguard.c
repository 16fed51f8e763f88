/*
 * util/busguard.c — see busguard.h.
 *
 * Slots live in chunks linked by an atomic pointer; a chunk, once
 * published, is never freed, so the handler can walk the list while other
 * threads add and remove mappings. A slot is claimed with a compare-and-
 * swap on its state, filled, then published (state LIVE, release order);
 * the handler reads only LIVE slots.
 */
#define _GNU_SOURCE
#include "busguard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { FREE = 0, CLAIMED = 1, LIVE = 2 };
#define SLOTS_PER_CHUNK 32

struct pk_guard {
    _Atomic int state;
    _Atomic uintptr_t lo, hi;    /* the mapping: [lo, hi) */
    _Atomic uint64_t fault_plus; /* first zero-filled offset + 1; 0: no fault */
};

typedef struct chunk {
    struct pk_guard slot[SLOTS_PER_CHUNK];
    struct chunk *_Atomic next;
} chunk;

static chunk first_chunk;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static struct sigaction previous;
static uintptr_t page_size = 4096;
static _Atomic int installed;

/* The signal was not ours: what the program would have done without us. */
static void chain(int sig, siginfo_t *si, void *ctx)
{
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, si, ctx);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    /* Default (or ignored, which the kernel does not honour for a fault):
     * restore the default action. A fault then recurs when the handler
     * returns and kills the process as it would have; a sent signal is
     * raised again (and stays ignored if it was). */
    if (previous.sa_handler == SIG_IGN && si->si_code <= 0) return;
    signal(sig, SIG_DFL);
    if (si->si_code <= 0) raise(sig);
}

static pk_guard *find(uintptr_t a)
{
    for (chunk *c = &first_chunk; c; c = atomic_load_explicit(&c->next, memory_order_acquire))
        for (int i = 0; i < SLOTS_PER_CHUNK; i++) {
            pk_guard *g = &c->slot[i];
            if (atomic_load_explicit(&g->state, memory_order_acquire) != LIVE) continue;
            if (a >= atomic_load_explicit(&g->lo, memory_order_relaxed) &&
                a < atomic_load_explicit(&g->hi, memory_order_relaxed))
                return g;
        }
    return NULL;
}

static void record(pk_guard *g, uint64_t offset)
{
    uint64_t old = atomic_load(&g->fault_plus);
    while ((old == 0 || old > offset + 1) &&
           !atomic_compare_exchange_weak(&g->fault_plus, &old, offset + 1)) {
    }
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    int saved = errno;
    uintptr_t a = (uintptr_t)si->si_addr;
    pk_guard *g = si->si_code == BUS_ADRERR ? find(a) : NULL;
    if (g) {
        uintptr_t lo = atomic_load_explicit(&g->lo, memory_order_relaxed);
        uintptr_t hi = atomic_load_explicit(&g->hi, memory_order_relaxed);
        uintptr_t from = a & ~(page_size - 1), to = (hi + page_size - 1) & ~(page_size - 1);
        if (from < lo) from = lo; /* mappings start on a page boundary */
        /* mmap is a plain system call; it is what makes the retry of the
         * faulting access read a zero instead of faulting again. */
        void *z = mmap((void *)from, to - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                       -1, 0);
        if (z != MAP_FAILED) {
            record(g, (uint64_t)(from - lo));
            errno = saved;
            return;
        }
    }
    errno = saved;
    chain(sig, si, ctx);
}

static void page_size_once(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0) page_size = (uintptr_t)ps;
}

/* Ours first in line for SIGBUS, the handler found there next. Checked
 * at every new mapping: a program (or test harness) that installs its own
 * handler after profkit's gets profkit's back in front of it, chained, so
 * it still receives every SIGBUS that is not from profkit's mappings. */
static void install(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    struct sigaction cur, sa;
    pthread_mutex_lock(&lock);
    if (sigaction(SIGBUS, NULL, &cur) == 0 &&
        !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus)) {
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        previous = cur; /* before ours can run */
        if (sigaction(SIGBUS, &sa, NULL) == 0) atomic_store(&installed, 1);
    }
    pthread_mutex_unlock(&lock);
}

static pk_guard *claim(void)
{
    for (chunk *c = &first_chunk;; c = atomic_load_explicit(&c->next, memory_order_acquire)) {
        for (int i = 0; i < SLOTS_PER_CHUNK; i++) {
            int expected = FREE;
            if (atomic_compare_exchange_strong(&c->slot[i].state, &expected, CLAIMED))
                return &c->slot[i];
        }
        if (!atomic_load_explicit(&c->next, memory_order_acquire)) {
            chunk *fresh = calloc(1, sizeof *fresh);
            if (!fresh) return NULL;
            chunk *none = NULL;
            if (!atomic_compare_exchange_strong(&c->next, &none, fresh))
                free(fresh); /* another thread added one: use that */
        }
    }
}

pk_guard *pk_guard_add(const void *base, uint64_t len)
{
    pthread_once(&install_once, page_size_once);
    install();
    if (!atomic_load(&installed)) return NULL;
    pk_guard *g = claim();
    if (!g) return NULL;
    atomic_store_explicit(&g->lo, (uintptr_t)base, memory_order_relaxed);
    atomic_store_explicit(&g->hi, (uintptr_t)base + (uintptr_t)len, memory_order_relaxed);
    atomic_store(&g->fault_plus, 0);
    atomic_store_explicit(&g->state, LIVE, memory_order_release);
    return g;
}

int pk_guard_faulted(const pk_guard *g, uint64_t *offset)
{
    uint64_t f = g ? atomic_load(&((pk_guard *)g)->fault_plus) : 0;
    if (f && offset) *offset = f - 1;
    return f != 0;
}

void pk_guard_remove(pk_guard *g)
{
    if (g) atomic_store_explicit(&g->state, FREE, memory_order_release);
}
