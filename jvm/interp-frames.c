/* interp-frames.c: interpreted Java frames named by the Method* in them
 * (jvm.h, "interpreted Java frames"), from HotSpot's own metadata read out
 * of process (hotspot.h): the tables give the code cache, whose blob named
 * "Interpreter" holds every interpreted frame's pc, and the frame slot of
 * the Method*.
 *
 * Per frame the cost is a hash lookup of the pid, a range check, and for
 * an interpreter pc one of (pid, Method*): a method is read from the JVM
 * (about eight process_vm_readv) the first time it is seen only, and a
 * value that does not read as a method is remembered as bad too. A Method*
 * slot outside the stack copy leaves the frame as it is, but for one below
 * the stack pointer: the interpreter's method entry is building the frame
 * and, as HotSpot's calling convention has it, rbx holds the Method*. Known
 * limit: before the entry's `enter`, rbp is still the caller's and the
 * frame is named as its caller. */
#include "jvm/jvm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jvm/hotspot.h"
#include "lib/grow.h"
#include "lib/keymap.h"
#include "lib/strtab.h"
#include "symbolize/unwind.h"

#define BAD_METHOD UINT32_MAX

struct jvm_pid {
	uint32_t pid;
	int ready;	       /* the interpreter's range and the layout are known */
	int tries;
	uint64_t next_try_ns;  /* monotonic */
	uint64_t interp_begin, interp_end;
	struct hs_layout l;
	struct jvm_mem *mem;
};

struct jvm_frames {
	struct keymap by_pid;  /* (pid, 0) -> slot in pids */
	struct jvm_pid *pids;
	size_t npids, pids_cap;
	struct keymap methods; /* (pid, Method*) -> name id, BAD_METHOD */
	struct strtab names;
	struct jvm_frames_stats st;
};

struct jvm_frames *jvm_frames__new(void)
{
	struct jvm_frames *jf = calloc(1, sizeof(*jf));

	if (!jf)
		return NULL;
	if (keymap__init(&jf->by_pid, 16) || keymap__init(&jf->methods, 1024) ||
	    strtab__init(&jf->names)) {
		jvm_frames__free(jf);
		errno = ENOMEM;
		return NULL;
	}
	return jf;
}

void jvm_frames__free(struct jvm_frames *jf)
{
	if (!jf)
		return;
	for (size_t i = 0; i < jf->npids; i++)
		free(jf->pids[i].mem);
	free(jf->pids);
	keymap__release(&jf->by_pid);
	keymap__release(&jf->methods);
	strtab__release(&jf->names);
	free(jf);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int find_interpreter(void *ctx, const struct hs_blob *b)
{
	struct jvm_pid *p = ctx;

	if (strcmp(b->name, "Interpreter"))
		return 0;
	p->interp_begin = b->code_begin;
	p->interp_end = b->code_end;
	return 1;
}

/* Reads what naming pid's interpreted frames needs: 0 or -errno, why in e. */
static int jvm_setup(struct jvm_pid *p, struct prof_error *e)
{
	struct vmstructs *vs = NULL;
	uint64_t skipped;
	int err;

	if (!p->mem && !(p->mem = malloc(sizeof(*p->mem))))
		return -ENOMEM;
	jvm_mem__init(p->mem, (pid_t)p->pid);
	err = vmstructs__read(p->mem, &vs, e);
	if (!err)
		err = hs_layout__init(&p->l, vs, e);
	vmstructs__free(vs);
	if (!err && !p->l.interp_method_slot)
		err = prof_error_set(e, -ENOTSUP, NULL,
				     "process %u: the interpreter frame's layout is not known",
				     p->pid);
	if (!err && hs_codecache__each(p->mem, &p->l, find_interpreter, p, &skipped) != 1)
		err = prof_error_set(e, -ENOENT, NULL,
				     "process %u: no Interpreter in the code cache yet", p->pid);
	return err;
}

/* pid's entry, set up when due; NULL when not (yet) a readable JVM. */
static struct jvm_pid *jvm_of(struct jvm_frames *jf, uint32_t pid)
{
	struct prof_error e;
	struct jvm_pid *p;
	uint32_t slot;
	uint64_t now;
	int err;

	if (keymap__get(&jf->by_pid, pid, 0, &slot)) {
		p = &jf->pids[slot];
		if (p->ready || p->tries >= JVM_FRAMES_TRIES)
			return p->ready ? p : NULL;
	} else {
		if (GROW(jf->pids, jf->pids_cap, jf->npids + 1) ||
		    keymap__set(&jf->by_pid, pid, 0, (uint32_t)jf->npids))
			return NULL;
		p = &jf->pids[jf->npids++];
		*p = (struct jvm_pid){.pid = pid};
	}
	now = now_ns();
	if (now < p->next_try_ns)
		return NULL;
	p->tries++;
	p->next_try_ns = now + 1000000000u;
	prof_error_clear(&e);
	err = jvm_setup(p, &e);
	if (err) {
		/* Not a JVM at all: not worth more tries. */
		if (err == -ENOENT && strstr(e.msg, "maps no libjvm.so") && p->tries > 5)
			p->tries = JVM_FRAMES_TRIES;
		if (!jf->st.why[0] && err != -ENOENT)
			snprintf(jf->st.why, sizeof(jf->st.why), "%s", e.msg);
		return NULL;
	}
	p->ready = 1;
	jf->st.jvms++;
	return p;
}

/* The name id of Method* m in p, or BAD_METHOD. */
static uint32_t method_id(struct jvm_frames *jf, struct jvm_pid *p, uint64_t m)
{
	char name[HS_NAME_MAX];
	uint32_t id;

	if (keymap__get(&jf->methods, p->pid, m, &id))
		return id;
	if (jf->methods.count >= JVM_FRAMES_MAX_METHODS)
		return BAD_METHOD;
	if (hs_method_name(p->mem, &p->l, m, 0, name, sizeof(name)) ||
	    strtab__intern(&jf->names, name, strlen(name), &id) || id == BAD_METHOD) {
		id = BAD_METHOD;
		jf->st.bad++;
	} else {
		jf->st.methods++;
	}
	if (keymap__set(&jf->methods, p->pid, m, id))
		return BAD_METHOD;
	return id;
}

void jvm_frames__frame(void *ctx, uint32_t pid, const struct unwind_regs *r,
		       const struct unwind_stack *st, uint64_t *pc)
{
	struct jvm_frames *jf = ctx;
	struct jvm_pid *p = jvm_of(jf, pid);
	uint64_t fp, at, m;

	if (!p || *pc < p->interp_begin || *pc >= p->interp_end)
		return;
	jf->st.frames++;
	if (!(r->valid & (1u << UNWIND_RBP)))
		return;
	fp = r->r[UNWIND_RBP];
	at = fp + (uint64_t)(p->l.interp_method_slot * 8);
	if (at < st->start && (r->valid & (1u << UNWIND_RBX)))
		m = r->r[UNWIND_RBX]; /* entry: frame not built yet, rbx is the Method* */
	else if (at < st->start || at - st->start > st->size || st->size - (at - st->start) < 8)
		return;
	else
		memcpy(&m, st->data + (at - st->start), 8);
	if (!m || method_id(jf, p, m) == BAD_METHOD)
		return;
	*pc = m;
	jf->st.named++;
}

int jvm_frames__name(void *ctx, uint32_t pid, uint64_t addr, const char **name)
{
	struct jvm_frames *jf = ctx;
	uint32_t id;

	if (!keymap__get(&jf->methods, pid, addr, &id) || id == BAD_METHOD)
		return 0;
	*name = strtab__str(&jf->names, id);
	return 1;
}

void jvm_frames__stats(const struct jvm_frames *jf, struct jvm_frames_stats *st)
{
	*st = jf->st;
}
