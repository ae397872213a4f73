/* thread-info.c: what /proc tells of a thread without stopping it: its
 * name, scheduler state, wait channel and, as root, its kernel stack. Read
 * before the thread is held: once held, the kernel would show the ptrace
 * stop instead of what it was waiting for. Every read is bounded; names
 * are the target's (cleaned when printed). */
#include "dump/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/procfs.h"

static void task_path(char *buf, size_t len, const struct dump_thread *t, const char *file)
{
	snprintf(buf, len, "/proc/%d/task/%d/%s", (int)t->pid, (int)t->tid, file);
}

/* State: the field after the last ')' of stat (the name may hold any). */
static int read_state(struct dump_thread *t)
{
	char path[64], buf[1024];
	size_t n;
	const char *close;
	int err;

	task_path(path, sizeof(path), t, "stat");
	err = procfs_read_into(path, buf, sizeof(buf), &n);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	close = strrchr(buf, ')');
	t->state = close && close[1] == ' ' && close[2] ? close[2] : '?';
	return 0;
}

static void read_wchan(struct dump_thread *t)
{
	char path[64];
	size_t n;

	task_path(path, sizeof(path), t, "wchan");
	if (procfs_read_into(path, t->wchan, sizeof(t->wchan), &n) || !strcmp(t->wchan, "0"))
		t->wchan[0] = 0;
}

/* "[<0>] futex_wait_queue+0x60/0xa0" lines: the names, innermost first. */
static void read_kernel_stack(struct dump_thread *t)
{
	char path[64], *text = NULL, *line, *save = NULL;
	size_t len;

	task_path(path, sizeof(path), t, "stack");
	if (procfs_read(path, 16384, &text, &len))
		return;
	for (line = strtok_r(text, "\n", &save); line && t->nkframes < DUMP_KSTACK_MAX;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *name = strchr(line, ']');

		if (!name || name[1] != ' ' || !name[2])
			continue;
		if (!t->kframes) {
			t->kframes = calloc(DUMP_KSTACK_MAX, sizeof(*t->kframes));
			if (!t->kframes)
				break;
		}
		snprintf(t->kframes[t->nkframes++], sizeof(t->kframes[0]), "%s", name + 2);
	}
	free(text);
}

int dump_thread_info(struct dump_thread *t, int kernel_stack)
{
	int err = read_state(t);

	if (err)
		return err;
	if (procfs_thread_name(t->pid, t->tid, t->comm, sizeof(t->comm)))
		t->comm[0] = 0;
	{
		/* a lock's owner is written as the id the thread has in its
		 * own pid namespace (locks.c) */
		struct procfs_status st;

		t->nstid = procfs_status(t->pid, t->tid, &st) ? t->tid : (pid_t)st.nspid;
	}
	read_wchan(t);
	if (kernel_stack && t->state != 'R')
		read_kernel_stack(t);
	return 0;
}

int dump_list_threads(pid_t pid, pid_t **tids, size_t *n)
{
	return procfs_list_tids(pid, tids, n);
}

int dump_check_traceable(pid_t pid, char *msg, size_t len)
{
	char path[64], *text = NULL, *p = NULL;
	size_t n;
	long tracer = 0;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	err = procfs_read(path, PROCFS_STATUS_MAX, &text, &n);
	if (err) {
		snprintf(msg, len, "no process %d", (int)pid);
		return err == -ENOENT ? -ESRCH : err;
	}
	/* the last TracerPid line: the kernel's own, whatever the name forged */
	for (char *q = text; (q = strstr(q, "\nTracerPid:")); q++)
		p = q;
	if (p)
		tracer = strtol(p + 11, NULL, 10);
	free(text);
	if (tracer > 0) {
		snprintf(msg, len, "process %d is being traced by process %ld (a debugger?): "
			 "detach it and run prof dump again", (int)pid, tracer);
		return -EBUSY;
	}
	return 0;
}

void dump_set__release(struct dump_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->t[i].stack);
		free(s->t[i].kframes);
	}
	free(s->t);
	*s = (struct dump_set){0};
}
