/* output.c: what `prof dump` prints, from the recording it wrote (read
 * back, so frames are named exactly as `prof report` names them: symbols,
 * JIT maps, inlines, "_[k]" for kernel frames) and from the captures
 * (state, pause, locks):
 * - raw: one block per thread per snapshot, one frame per line, innermost
 *   first, as gdb's `thread apply all bt` prints them ("#N  name");
 * - pmp: identical stacks merged, most frequent first, with the threads
 *   that have them, then the locks;
 * - folded: "thread;root;...;leaf COUNT" (prof report's folded text);
 * - json: every thread of every snapshot, and the locks. */
#include "dump/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/recording.h"
#include "lib/text-clean.h"
#include "report/report.h"

struct view {
	const struct dump_set *set;
	struct recording rec;
	struct profile prof;
	int have_rec, have_prof;
	const char **names; /* scratch: one stack's names, root first */
	size_t names_cap;
};

static size_t stack_of(struct view *v, size_t i, const char ***names)
{
	const struct profile *p = &v->prof;
	const struct profile_stack *st = &p->stacks[p->entries[i].stack];
	const uint32_t *f = profile__stack_frames(p, p->entries[i].stack);
	size_t n = 0;

	for (size_t k = 0; k < st->depth; k++) {
		const char *s = profile__name(p, f[k]);

		if (!strcmp(s, PROFILE_NO_STACK))
			continue;
		v->names[n++] = s;
	}
	*names = v->names;
	return n;
}

static const char *thread_name(const struct view *v, size_t i)
{
	const char *s = profile__name(&v->prof, v->prof.entries[i].thread);

	return *s ? s : v->set->t[i].comm;
}

static int view_open(struct view *v, const struct dump_set *set, const char *path, char *msg,
		     size_t len)
{
	unsigned char *data = NULL;
	size_t size = 0, depth = 1;
	char err_text[256] = "";
	int err = read_whole_file(path, &data, &size);

	memset(v, 0, sizeof(*v));
	v->set = set;
	if (!err) {
		err = recording__parse(&v->rec, data, size, err_text, sizeof(err_text));
		v->have_rec = !err;
	}
	if (!err)
		err = profile__init(&v->prof);
	v->have_prof = !err;
	if (!err)
		err = profile__from_recording_per_sample(&v->prof, &v->rec, NULL);
	if (!err && v->prof.nentries != set->n)
		err = -EBADMSG;
	for (size_t i = 0; !err && i < v->prof.nstacks; i++)
		if (v->prof.stacks[i].depth > depth)
			depth = v->prof.stacks[i].depth;
	if (!err && !(v->names = malloc(depth * sizeof(*v->names))))
		err = -ENOMEM;
	if (err)
		snprintf(msg, len, "cannot read back '%s': %s", path,
			 err_text[0] ? err_text : strerror(-err));
	return err;
}

static void view_close(struct view *v)
{
	if (v->have_prof)
		profile__release(&v->prof);
	if (v->have_rec)
		recording__release(&v->rec);
	free(v->names);
}

static const char *kind_name(enum dump_lock_kind k)
{
	return k == DUMP_LOCK_MUTEX ? "mutex" : k == DUMP_LOCK_RWLOCK ? "rwlock"
	       : k == DUMP_LOCK_COND ? "condition variable" : "";
}

/* ---- raw ---- */

static void write_raw(struct view *v, FILE *out)
{
	for (size_t i = 0; i < v->set->n; i++) {
		const struct dump_thread *t = &v->set->t[i];
		const char **names;
		size_t n = stack_of(v, i, &names);

		fprintf(out, "Thread %d (pid %d) \"", (int)t->tid, (int)t->pid);
		text_put(out, thread_name(v, i));
		fprintf(out, "\" state %c snapshot %u:\n", t->state, t->snapshot);
		for (size_t k = 0; k < n; k++)
			fprintf(out, "#%zu  %s\n", k, names[n - 1 - k]);
		if (!t->captured && t->err == -ETIMEDOUT)
			fprintf(out, "#?  [user stack not taken: the thread did not stop within 1 s "
				     "(state %c)]\n", t->state);
		else if (!t->captured && t->err)
			fprintf(out, "#?  [user stack not taken: %s]\n", strerror(-t->err));
		fputc('\n', out);
	}
}

/* ---- pmp ---- */

struct group {
	size_t first;  /* an entry of the group (its stack) */
	size_t *members;
	size_t n, cap;
	char state;
};

static int same_stack(struct view *v, size_t a, size_t b)
{
	const struct profile *p = &v->prof;
	uint32_t sa = p->entries[a].stack, sb = p->entries[b].stack;
	const struct profile_stack *x = &p->stacks[sa], *y = &p->stacks[sb];

	return sa == sb || (x->depth == y->depth &&
			    !memcmp(profile__stack_frames(p, sa), profile__stack_frames(p, sb),
				    x->depth * sizeof(uint32_t)));
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* The group's members, each thread once (a thread is in a group once per
 * snapshot that found it there): in place, first-seen order kept. */
static size_t distinct_threads(struct view *v, struct group *g)
{
	size_t n = 0;

	for (size_t k = 0; k < g->n; k++) {
		size_t j = 0;

		while (j < n && v->set->t[g->members[j]].tid != v->set->t[g->members[k]].tid)
			j++;
		if (j == n)
			g->members[n++] = g->members[k];
	}
	return n;
}

/* "waiter-0..waiter-7, main": names in first-seen order, runs of one
 * prefix with consecutive numbers collapsed; at most 12 items. */
static void write_thread_list(struct view *v, const struct group *g, FILE *out)
{
	size_t shown = 0;

	for (size_t k = 0; k < g->n; shown++) {
		const char *name = thread_name(v, g->members[k]);
		size_t plen = strlen(name), j = k + 1;
		char *end;
		long first, last;

		while (plen && name[plen - 1] >= '0' && name[plen - 1] <= '9')
			plen--;
		first = last = plen < strlen(name) ? strtol(name + plen, &end, 10) : -1;
		while (first >= 0 && j < g->n) {
			const char *next = thread_name(v, g->members[j]);

			if (strncmp(next, name, plen) || strlen(next) == plen ||
			    strspn(next + plen, "0123456789") != strlen(next + plen) ||
			    strtol(next + plen, &end, 10) != last + 1)
				break;
			last++;
			j++;
		}
		if (shown == 12) {
			fprintf(out, ", +%zu more", g->n - k);
			break;
		}
		if (shown)
			fputs(", ", out);
		if (last > first) {
			/* a thread's name is its owner's: cleaned, as every name */
			text_write(out, name, plen);
			fprintf(out, "%ld..", first);
			text_write(out, name, plen);
			fprintf(out, "%ld", last);
		} else {
			text_put(out, name);
		}
		k = last > first ? j : k + 1;
	}
}

static int write_pmp(struct view *v, FILE *out)
{
	struct group *groups = NULL;
	size_t ngroups = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; i < v->set->n && !err; i++) {
		size_t g;

		for (g = 0; g < ngroups; g++)
			if (groups[g].state == v->set->t[i].state && same_stack(v, groups[g].first, i))
				break;
		if (g == ngroups) {
			if (GROW(groups, cap, ngroups + 1)) {
				err = -ENOMEM;
				break;
			}
			groups[ngroups++] = (struct group){.first = i, .state = v->set->t[i].state};
		}
		if (GROW(groups[g].members, groups[g].cap, groups[g].n + 1))
			err = -ENOMEM;
		else
			groups[g].members[groups[g].n++] = i;
	}
	if (!err)
		qsort(groups, ngroups, sizeof(*groups), cmp_group);
	for (size_t g = 0; g < ngroups && !err; g++) {
		const char **names;
		size_t n = stack_of(v, groups[g].first, &names);

		fprintf(out, "%6zu  ", groups[g].n);
		groups[g].n = distinct_threads(v, &groups[g]);
		write_thread_list(v, &groups[g], out);
		fprintf(out, " (%c)  ", groups[g].state);
		for (size_t k = n; k-- > 0;)
			fprintf(out, "%s%s", names[k], k ? " <- " : "");
		if (!n)
			fputs("[no stack]", out);
		fputc('\n', out);
	}
	for (size_t g = 0; g < ngroups; g++)
		free(groups[g].members);
	free(groups);
	return err;
}

/* ---- locks ---- */

struct lock_row {
	enum dump_lock_kind kind;
	pid_t pid, owner;
	uint64_t addr;
	uint32_t snapshot;
	size_t owner_i, *waiters, n, cap;
	int owner_known;
};

static void write_owner(struct view *v, const struct lock_row *l, FILE *out)
{
	const char **names;
	size_t n = stack_of(v, l->owner_i, &names), shown = 0;

	fputs(" held by ", out);
	text_put(out, thread_name(v, l->owner_i));
	fprintf(out, "/%d (%c", (int)l->owner, v->set->t[l->owner_i].state);
	for (size_t k = n; k-- > 0 && shown < 3; shown++)
		fprintf(out, "%s%s", shown ? " <- " : ": ", names[k]);
	fputc(')', out);
}

static int write_locks(struct view *v, FILE *out)
{
	struct lock_row *rows = NULL;
	size_t nrows = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; i < v->set->n && !err; i++) {
		const char **names;
		size_t n = stack_of(v, i, &names), r;
		uint64_t addr;
		pid_t owner;
		enum dump_lock_kind kind = dump_lock_of(v->set, i, names, n, &addr, &owner);

		if (kind == DUMP_LOCK_NONE)
			continue;
		for (r = 0; r < nrows; r++)
			if (rows[r].addr == addr && rows[r].pid == v->set->t[i].pid &&
			    rows[r].snapshot == v->set->t[i].snapshot)
				break;
		if (r == nrows) {
			const struct dump_thread *o = owner ? dump_owner_thread(v->set, i, owner) : NULL;

			if (GROW(rows, cap, nrows + 1)) {
				err = -ENOMEM;
				break;
			}
			rows[nrows++] = (struct lock_row){
				.kind = kind, .pid = v->set->t[i].pid, .owner = owner, .addr = addr,
				.snapshot = v->set->t[i].snapshot,
				.owner_i = o ? (size_t)(o - v->set->t) : 0, .owner_known = !!o};
		}
		if (GROW(rows[r].waiters, rows[r].cap, rows[r].n + 1))
			err = -ENOMEM;
		else
			rows[r].waiters[rows[r].n++] = i;
	}
	if (nrows && !err)
		fputs("\nlocks:\n", out);
	for (size_t r = 0; r < nrows && !err; r++) {
		const struct lock_row *l = &rows[r];

		fprintf(out, "  %s 0x%llx", kind_name(l->kind), (unsigned long long)l->addr);
		if (v->set->n && v->set->t[v->set->n - 1].snapshot)
			fprintf(out, " (snapshot %u)", l->snapshot);
		if (l->owner_known)
			write_owner(v, l, out);
		else if (l->kind == DUMP_LOCK_COND)
			fputs(": a condition variable has no owner (look for who should signal it)", out);
		else if (l->kind == DUMP_LOCK_RWLOCK)
			fputs(": no writer holds it (held by readers, which glibc does not record)", out);
		else
			fputs(": owner unknown (not a glibc mutex, or released meanwhile)", out);
		fprintf(out, ": %zu waiting: ", l->n);
		for (size_t k = 0; k < l->n; k++) {
			if (k == 12) {
				fprintf(out, ", +%zu more", l->n - k);
				break;
			}
			if (k)
				fputs(", ", out);
			text_put(out, thread_name(v, l->waiters[k]));
			fprintf(out, "/%d", (int)v->set->t[l->waiters[k]].tid);
		}
		fputc('\n', out);
	}
	for (size_t r = 0; r < nrows; r++)
		free(rows[r].waiters);
	free(rows);
	return err;
}

/* ---- json ---- */

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void write_json(struct view *v, FILE *out)
{
	fputs("{\"threads\":[", out);
	for (size_t i = 0; i < v->set->n; i++) {
		const struct dump_thread *t = &v->set->t[i];
		const char **names;
		size_t n = stack_of(v, i, &names);
		uint64_t addr;
		pid_t owner;
		enum dump_lock_kind kind = dump_lock_of(v->set, i, names, n, &addr, &owner);
		char state[2] = {t->state, 0};

		fprintf(out, "%s\n{\"snapshot\":%u,\"pid\":%d,\"tid\":%d,\"name\":", i ? "," : "",
			t->snapshot, (int)t->pid, (int)t->tid);
		json_str(out, thread_name(v, i));
		fputs(",\"state\":", out);
		json_str(out, state);
		fputs(",\"wchan\":", out);
		json_str(out, t->wchan);
		fprintf(out, ",\"captured\":%s,\"pause_ns\":%llu,\"stop_wait_ns\":%llu,"
			"\"time_ns\":%llu,\"frames\":[",
			t->captured ? "true" : "false", (unsigned long long)t->pause_ns,
			(unsigned long long)t->stop_wait_ns, (unsigned long long)t->time);
		for (size_t k = n; k-- > 0;) {
			json_str(out, names[k]);
			if (k)
				fputc(',', out);
		}
		fputc(']', out);
		if (kind != DUMP_LOCK_NONE) {
			fputs(",\"waits_for\":{\"kind\":", out);
			json_str(out, kind_name(kind));
			fprintf(out, ",\"address\":\"0x%llx\",\"owner_tid\":%d}",
				(unsigned long long)addr, (int)owner);
		}
		fputc('}', out);
	}
	fputs("\n]}\n", out);
}

int dump_output(FILE *out, enum dump_format fmt, const struct dump_set *set, const char *path,
		char *msg, size_t len)
{
	struct view v;
	int err = view_open(&v, set, path, msg, len);

	if (err) {
		view_close(&v);
		return err;
	}
	switch (fmt) {
	case DUMP_FORMAT_RAW:
		write_raw(&v, out);
		break;
	case DUMP_FORMAT_PMP:
		err = write_pmp(&v, out);
		if (!err)
			err = write_locks(&v, out);
		break;
	case DUMP_FORMAT_JSON:
		write_json(&v, out);
		break;
	case DUMP_FORMAT_FOLDED: {
		struct profile p;
		struct profile_build_opts bo = {.by = PROFILE_BY_THREAD};
		struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};

		err = profile__init(&p);
		if (!err)
			err = profile__from_recording(&p, &v.rec, &bo);
		if (!err)
			err = profile__write_folded(&p, &fo, out);
		profile__release(&p);
		break;
	}
	}
	if (err && !msg[0])
		snprintf(msg, len, "cannot write the output: %s", strerror(-err));
	view_close(&v);
	return err;
}
