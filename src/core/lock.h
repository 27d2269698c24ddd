/*
 * lock.h -- distributed locks (spec 9.13) on a symmetric long: the
 * algorithm behind shmem_set_lock / test_lock / clear_lock (lock.c).  The
 * caller has checked the address (symmetric, aligned).  Thread-safe as the
 * spec asks: each PE holds a given lock at most once at a time.
 */
#ifndef SHR_LOCK_H
#define SHR_LOCK_H

/* Takes `lock`, waiting first-come-first-served behind its holders. */
void shr_lock_set(long *lock);
/* Takes `lock` only if it is free, without queueing: 0 taken, 1 held. */
int shr_lock_test(long *lock);
/* Completes this PE's accesses (quiet) and hands `lock` on. */
void shr_lock_clear(long *lock);

#endif
