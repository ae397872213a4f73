/* locks.c: who holds the lock a thread waits for. A thread held in
 * futex() had the 32 bytes at the futex's address read while it was held
 * (capture.c). For glibc's pthread_mutex_t (x86-64: int __lock; unsigned
 * __count; int __owner; ...; int __kind at byte 16) the futex is the
 * mutex's first word and its owner's tid is at byte 8; a PI mutex's lock
 * word holds the owner's tid itself. For a pthread_rwlock_t the futex is
 * one of its words (0, 8 or 12) and the writer's tid is at byte 24. A
 * word is believed to be an owner only when the waiter's stack is in the
 * matching glibc function and the tid is a thread of the same process
 * seen in the same snapshot: a stray futex never names a thread. The tid
 * in a lock is the thread's id in its own pid namespace (a container's),
 * matched as such and reported as the host's. A
 * condition variable has no owner, which is said as such. */
#include "dump/dump.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>

/* Is `name` one of the thread's frames (profile names, root first)? */
static int in_stack(const char *const *names, size_t n, const char *const *want)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; want[k]; k++)
			if (!strcmp(names[i], want[k]))
				return 1;
	return 0;
}

/* The thread of process pid in the snapshot whose id in its own pid
 * namespace is nstid (what glibc writes into a lock: a container's ids). */
static const struct dump_thread *thread_in(const struct dump_set *s, uint32_t snapshot,
					   pid_t pid, pid_t nstid)
{
	if (nstid <= 0)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].snapshot == snapshot && s->t[i].pid == pid && s->t[i].nstid == nstid)
			return &s->t[i];
	return NULL;
}

enum dump_lock_kind dump_lock_of(const struct dump_set *s, size_t i, const char *const *names,
				 size_t n, uint64_t *addr, pid_t *owner)
{
	static const char *const mutex_fns[] = {"pthread_mutex_lock", "__pthread_mutex_lock",
		"___pthread_mutex_lock", "__lll_lock_wait", "pthread_mutex_timedlock",
		"pthread_mutex_clocklock", "__pthread_mutex_lock_full",
		"__pthread_mutex_clocklock_common", NULL};
	static const char *const rw_fns[] = {"pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
		"__pthread_rwlock_rdlock", "__pthread_rwlock_wrlock",
		"___pthread_rwlock_rdlock", "___pthread_rwlock_wrlock",
		"pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock", NULL};
	static const char *const cond_fns[] = {"pthread_cond_wait", "___pthread_cond_wait",
		"__pthread_cond_wait", "pthread_cond_timedwait", "___pthread_cond_timedwait",
		"pthread_cond_clockwait", NULL};
	const struct dump_thread *t = &s->t[i];
	int op;

	*addr = 0;
	*owner = 0;
	if (!t->captured || t->syscall != SYS_futex || !t->futex_read)
		return DUMP_LOCK_NONE;
	op = (int)(t->sysargs[1] & FUTEX_CMD_MASK);
	*addr = t->sysargs[0];
	if (op == FUTEX_LOCK_PI || op == 13 /* FUTEX_LOCK_PI2 */) {
		const struct dump_thread *o =
			thread_in(s, t->snapshot, t->pid, (pid_t)(t->futex_words[0] & FUTEX_TID_MASK));

		if (o)
			*owner = o->tid;
		return DUMP_LOCK_MUTEX;
	}
	if (op != FUTEX_WAIT && op != FUTEX_WAIT_BITSET)
		return DUMP_LOCK_NONE;
	if (in_stack(names, n, mutex_fns)) {
		const struct dump_thread *o = thread_in(s, t->snapshot, t->pid, (pid_t)t->futex_words[2]);

		if (t->futex_words[0] && o)
			*owner = o->tid;
		return DUMP_LOCK_MUTEX;
	}
	if (in_stack(names, n, rw_fns)) {
		/* the futex is the lock's word 0, 2 or 3: __cur_writer is word 6 */
		static const int writer_at[] = {6, 4, 3};

		for (int k = 0; k < 3; k++) {
			const struct dump_thread *o =
				thread_in(s, t->snapshot, t->pid, (pid_t)t->futex_words[writer_at[k]]);

			if (o && o->tid != t->tid) {
				*owner = o->tid;
				*addr -= (uint64_t)(6 - writer_at[k]) * 4;
				break;
			}
		}
		return DUMP_LOCK_RWLOCK;
	}
	if (in_stack(names, n, cond_fns))
		return DUMP_LOCK_COND;
	return DUMP_LOCK_NONE;
}

const struct dump_thread *dump_owner_thread(const struct dump_set *s, size_t i, pid_t owner)
{
	for (size_t k = 0; owner > 0 && k < s->n; k++)
		if (s->t[k].snapshot == s->t[i].snapshot && s->t[k].pid == s->t[i].pid &&
		    s->t[k].tid == owner)
			return &s->t[k];
	return NULL;
}
