/*
 * util/busguard.h — surviving a mapped file that shrinks (SIGBUS).
 *
 * Readers map their inputs and the model points into the mappings for
 * the profile's lifetime. When another process truncates a mapped file,
 * touching a page past the new end raises SIGBUS, whose default action
 * kills the process. The guard turns that into damage a reader can
 * report: a process-wide SIGBUS handler (installed once, when the first
 * file is mapped, and chaining to whatever handler was there before)
 * looks the faulting address up in a registry of profkit's mappings (and
 * put back in front, still chaining, when a mapping is made after the
 * program installed a handler of its own); for
 * one of them it maps zero-filled memory over the rest of the mapping,
 * records where the file ended, and returns, so the reader goes on over
 * zeros and its caller reports the damage (mapfile.h). Any other SIGBUS
 * goes to the previous handler, or gets the default action.
 *
 * The registry is the library's one piece of process-wide state besides
 * the output cleanup list (safeout.h): signal dispositions are
 * process-wide, so it cannot be otherwise. It is lock-free and never
 * shrinks (a few hundred bytes per mapping open at the same time).
 */
#ifndef PK_UTIL_BUSGUARD_H
#define PK_UTIL_BUSGUARD_H

#include <stdint.h>

typedef struct pk_guard pk_guard;

/* Watch the file mapping [base, base + len). NULL if the guard cannot be
 * set up (out of memory, sigaction refused): the mapping then stays
 * unprotected, as without the guard. */
pk_guard *pk_guard_add(const void *base, uint64_t len);
/* 1 if a SIGBUS hit the mapping; *offset gets the first byte that read
 * as zeros instead of the file's contents. */
int pk_guard_faulted(const pk_guard *g, uint64_t *offset);
/* Stop watching (before the mapping is unmapped). NULL is a no-op. */
void pk_guard_remove(pk_guard *g);

#endif
