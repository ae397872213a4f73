/* java-frames.c: Java frames in stack walks of a JVM (jvm.h, "Java
 * frames"), from HotSpot's own metadata read out of process (hotspot.h):
 * the tables give the code cache (code-table.c), whose blob named
 * "Interpreter" holds every interpreted frame's pc, and the frame slot of
 * the Method*. An interpreted frame is named by the Method* in it; a
 * compiled frame (an nmethod or a stub with a frame size) is stepped over
 * by its frame size, as HotSpot's frame::sender_for_compiled_frame does:
 * the caller's sp is sp + frame_size words, the return address the word
 * below it, the saved rbp the word below that; in the leaf, before the
 * frame is complete (its prologue), the return address is at sp.
 * Interpreted and other frames go on through rbp as before.
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
#define NM_CACHE   8 /* nmethods' debug tables kept per JVM (direct-mapped) */
/* A pc in no blob read so far (code compiled since): the code cache is
 * read again, not more often than this (a read is about 20 system calls
 * of 64 KB and takes a few ms; a warming JVM compiles all the time). */
#define RELOAD_NS 100000000u

struct jvm_pid {
	uint32_t pid;
	int ready; /* the interpreter's range and the layout are known */
	int tries;
	uint64_t next_try_ns; /* monotonic */
	uint64_t interp_begin, interp_end;
	struct hs_code_table code;
	uint64_t code_low, code_high; /* the code cache's reserved range */
	uint64_t next_load_ns;	      /* a pc not in code: reload not before */
	struct hs_layout l;
	struct jvm_mem *mem;
	struct hs_nm_data nm[NM_CACHE];
};

/* A pc's scope chain: names ids[first .. first + n), innermost first (n 0:
 * none), of the nmethod (begin, compile_id) it was decoded from. */
struct inl_pc {
	uint32_t first, n;
	int32_t compile_id;
	uint64_t begin;
};

struct jvm_frames {
	struct keymap by_pid; /* (pid, 0) -> slot in pids */
	struct jvm_pid *pids;
	size_t npids, pids_cap;
	struct keymap methods; /* (pid, Method*) -> name id, BAD_METHOD */
	struct strtab names;
	struct keymap inl; /* (pid | caller << 32, pc) -> slot in inls */
	struct inl_pc *inls;
	size_t ninls, inls_cap;
	uint32_t *inl_ids; /* name ids of the chains */
	size_t nids, ids_cap;
	struct jvm_frames_stats st;
};

struct jvm_frames *jvm_frames__new(void)
{
	struct jvm_frames *jf = calloc(1, sizeof(*jf));

	if (!jf)
		return NULL;
	if (keymap__init(&jf->by_pid, 16) || keymap__init(&jf->methods, 1024) ||
	    keymap__init(&jf->inl, 1024) || strtab__init(&jf->names)) {
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
	for (size_t i = 0; i < jf->npids; i++) {
		free(jf->pids[i].mem);
		hs_code_table__release(&jf->pids[i].code);
		for (size_t k = 0; k < NM_CACHE; k++)
			hs_nm_data__release(&jf->pids[i].nm[k]);
	}
	free(jf->pids);
	keymap__release(&jf->by_pid);
	keymap__release(&jf->methods);
	keymap__release(&jf->inl);
	free(jf->inls);
	free(jf->inl_ids);
	strtab__release(&jf->names);
	free(jf);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reloads p's code table; the interpreter's range from it. 0 or -errno. */
static int load_code(struct jvm_pid *p, uint64_t now)
{
	int err = hs_code_table__load(&p->code, p->mem, &p->l);

	p->next_load_ns = now + RELOAD_NS;
	for (size_t i = 0; !err && i < p->code.n; i++)
		if (p->code.e[i].kind == HS_CODE_INTERPRETER) {
			p->interp_begin = p->code.e[i].begin;
			p->interp_end = p->code.e[i].end;
		}
	return err;
}

/* Reads what naming pid's interpreted frames needs: 0 or -errno, why in e. */
static int jvm_setup(struct jvm_pid *p, struct prof_error *e)
{
	struct vmstructs *vs = NULL;
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
	if (!err && (jvm_mem__u64(p->mem, p->l.code_low, &p->code_low) ||
		     jvm_mem__u64(p->mem, p->l.code_high, &p->code_high)))
		err = prof_error_set(e, -EFAULT, NULL,
				     "process %u: cannot read the code cache's bounds", p->pid);
	if (!err)
		err = load_code(p, now_ns());
	if (!err && !p->interp_end)
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

/* The 8 bytes at addr in the stack copy: 0, or -EFAULT outside it. */
static int stack_u64(const struct unwind_stack *st, uint64_t addr, uint64_t *v)
{
	if (addr < st->start || addr - st->start > st->size || st->size - (addr - st->start) < 8)
		return -EFAULT;
	memcpy(v, st->data + (addr - st->start), 8);
	return 0;
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
	else if (stack_u64(st, at, &m))
		return;
	if (!m || method_id(jf, p, m) == BAD_METHOD)
		return;
	*pc = m;
	jf->st.named++;
}

/* Where a compiled frame's caller starts (csp: return address at csp - 8),
 * and its rbp, for a frame of e at r. 0, or -EFAULT (outside the copy). */
static int compiled_caller(const struct jvm_pid *p, const struct hs_code_entry *e,
			   const struct unwind_regs *r, const struct unwind_stack *st,
			   uint64_t *csp, uint64_t *ra, uint64_t *fp)
{
	uint64_t pc = r->r[UNWIND_RIP], sp = r->r[UNWIND_RSP];
	/* The leaf has rax (a sample's registers); a walk's later frames have
	 * the callee-saved ones only. */
	int leaf = (r->valid & (1u << UNWIND_RAX)) != 0;

	*fp = r->r[UNWIND_RBP];
	if (leaf && e->frame_complete >= 0 && pc < e->begin + (uint64_t)e->frame_complete) {
		*csp = sp + 8; /* the prologue: nothing pushed yet */
		return stack_u64(st, sp, ra);
	}
	*csp = sp + (uint64_t)e->frame_size * 8;
	if (stack_u64(st, *csp - 8, ra) || stack_u64(st, *csp - 16, fp))
		return -EFAULT;
	if (!leaf || hs_code_table__find(&p->code, *ra))
		return 0;
	/* A leaf in the epilogue (rsp added back, rbp popped or not) returns
	 * to code the table does not know, when a Java frame's caller is
	 * always in the code cache (compiled code, the interpreter, the call
	 * stub, an adapter): try the frame as the epilogue leaves it. */
	if (!stack_u64(st, sp, ra) && hs_code_table__find(&p->code, *ra)) {
		*csp = sp + 8;
		*fp = r->r[UNWIND_RBP];
		return 0;
	}
	if (!stack_u64(st, sp + 8, ra) && hs_code_table__find(&p->code, *ra) &&
	    !stack_u64(st, sp, fp)) {
		*csp = sp + 16;
		return 0;
	}
	*csp = sp + (uint64_t)e->frame_size * 8; /* as the frame size says, then */
	return stack_u64(st, *csp - 8, ra) || stack_u64(st, *csp - 16, fp) ? -EFAULT : 0;
}

/* e's debug tables, from the cache or read now; NULL when unreadable. */
static const struct hs_nm_data *nm_of(struct jvm_frames *jf, struct jvm_pid *p,
				      const struct hs_code_entry *e)
{
	struct hs_nm_data *d = &p->nm[(e->blob >> 6) % NM_CACHE];

	if (d->buf && d->blob == e->blob && d->compile_id == e->compile_id &&
	    d->code_begin == e->begin)
		return d;
	hs_nm_data__release(d);
	if (hs_nm_data__read(d, p->mem, &p->l, e))
		return NULL;
	jf->st.nm_reads++;
	return d;
}

/* Decodes the methods inlined at pc of nmethod e once per (pid, pc): a
 * return address (caller) and a sampled pc are looked up apart. */
static void note_inlines(struct jvm_frames *jf, struct jvm_pid *p, const struct hs_code_entry *e,
			 uint64_t pc, int caller)
{
	uint64_t a = p->pid | (uint64_t)caller << 32, methods[HS_MAX_SCOPES];
	const struct hs_nm_data *d;
	struct inl_pc *x;
	uint32_t slot;
	int n;

	if (keymap__get(&jf->inl, a, pc, &slot)) {
		x = &jf->inls[slot];
		if (x->n && (x->compile_id != e->compile_id || x->begin != e->begin)) {
			x->n = 0; /* which code a frame was in is not known any more */
			jf->st.inline_moved++;
		}
		return;
	}
	if (jf->ninls >= JVM_FRAMES_MAX_INLINE_PCS || GROW(jf->inls, jf->inls_cap, jf->ninls + 1) ||
	    GROW(jf->inl_ids, jf->ids_cap, jf->nids + HS_MAX_SCOPES) ||
	    keymap__set(&jf->inl, a, pc, (uint32_t)jf->ninls))
		return;
	x = &jf->inls[jf->ninls++];
	*x = (struct inl_pc){
	    .first = (uint32_t)jf->nids, .compile_id = e->compile_id, .begin = e->begin};
	jf->st.inline_pcs++;
	d = nm_of(jf, p, e);
	n = d ? hs_nm_inlines(d, pc, !caller, methods, HS_MAX_SCOPES) : -EFAULT;
	for (int i = 0; i < n; i++) {
		uint32_t id = method_id(jf, p, methods[i]);

		if (id == BAD_METHOD) {
			n = -EBADMSG;
			break;
		}
		jf->inl_ids[jf->nids + (size_t)i] = id;
	}
	if (n < 0) {
		jf->st.inline_failed++;
		return;
	}
	if (n > 1) {
		x->n = (uint32_t)n;
		jf->nids += (size_t)n;
		jf->st.inline_deep++;
	}
}

size_t jvm_frames__inlines(void *ctx, uint32_t pid, uint64_t pc, int caller, const char **names,
			   size_t max)
{
	struct jvm_frames *jf = ctx;
	const struct inl_pc *x;
	uint32_t slot;
	size_t i;

	if (!keymap__get(&jf->inl, pid | (uint64_t)(caller != 0) << 32, pc, &slot))
		return 0;
	x = &jf->inls[slot];
	if (x->n < 2 || x->n > max)
		return 0;
	for (i = 0; i < x->n; i++)
		names[i] = strtab__str(&jf->names, jf->inl_ids[x->first + i]);
	return x->n;
}

int jvm_frames__step(void *ctx, uint32_t pid, const struct unwind_regs *r,
		     const struct unwind_stack *st, struct unwind_regs *next)
{
	struct jvm_frames *jf = ctx;
	struct jvm_pid *p = jvm_of(jf, pid);
	const struct hs_code_entry *e;
	uint64_t csp, ra, fp, now;

	if (!p)
		return 0;
	e = hs_code_table__find(&p->code, r->r[UNWIND_RIP]);
	/* a pc in the code cache not read yet: compiled since */
	if (!e && r->r[UNWIND_RIP] >= p->code_low && r->r[UNWIND_RIP] < p->code_high &&
	    (now = now_ns()) >= p->next_load_ns) {
		jf->st.reloads++;
		load_code(p, now);
		e = hs_code_table__find(&p->code, r->r[UNWIND_RIP]);
	}
	if (e && e->kind == HS_CODE_NMETHOD && p->l.nm_scopes)
		note_inlines(jf, p, e, r->r[UNWIND_RIP], !(r->valid & (1u << UNWIND_RAX)));
	if (!e || e->kind == HS_CODE_INTERPRETER || e->frame_size <= 0 ||
	    e->frame_size > HS_MAX_FRAME_WORDS || compiled_caller(p, e, r, st, &csp, &ra, &fp))
		return 0;
	memset(next, 0, sizeof(*next));
	next->r[UNWIND_RSP] = csp;
	next->r[UNWIND_RIP] = ra;
	next->r[UNWIND_RBP] = fp;
	next->valid = (1u << UNWIND_RSP) | (1u << UNWIND_RIP) | (1u << UNWIND_RBP);
	jf->st.compiled++;
	return 1;
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

int jvm_frames__ready(const struct jvm_frames *jf, uint32_t pid)
{
	uint32_t slot;

	return jf && keymap__get(&jf->by_pid, pid, 0, &slot) && jf->pids[slot].ready;
}

void jvm_frames__stats(const struct jvm_frames *jf, struct jvm_frames_stats *st)
{
	*st = jf->st;
}
