/* filter.c: grep-style filters over a profile (see report.h).
 *
 * Regexes are evaluated once per unique name id (a match bit cached per id)
 * and the frame filters once per unique stack, so the cost is bounded by the
 * number of distinct names and stacks, never by samples. */
#include "report.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "report/user-regex.h"

int profile_filter__init(struct profile_filter *f, int ignore_case)
{
	memset(f, 0, sizeof(*f));
	f->cflags = REG_EXTENDED | REG_NOSUB | (ignore_case ? REG_ICASE : 0);
	return 0;
}

void profile_filter__release(struct profile_filter *f)
{
	size_t k, i;

	for (k = 0; k < 3; k++) {
		regex_t *res = f->match[k].res;

		for (i = 0; i < f->match[k].n; i++)
			regfree(&res[i]);
		free(res);
		free(f->match[k].cache);
	}
	free(f->pids);
	free(f->tids);
	memset(f, 0, sizeof(*f));
}

int profile_filter__add_regex(struct profile_filter *f, enum profile_filter_kind kind,
			      const char *re, char *errbuf, size_t errlen)
{
	struct name_matcher *m;
	regex_t *res;
	int rc;

	if ((unsigned)kind > PROFILE_THREAD)
		return -EINVAL;
	m = &f->match[kind];
	if (grow_array(&m->res, &m->cap, m->n + 1, sizeof(regex_t)))
		return -ENOMEM;
	res = m->res;
	rc = user_regcomp(&res[m->n], re, f->cflags, errbuf, errbuf ? errlen : 0);
	if (rc)
		return rc == REG_ESPACE ? -ENOMEM : -EINVAL;
	m->n++;
	return 0;
}

static int add_u32(uint32_t **arr, size_t *n, size_t *cap, uint32_t v)
{
	if (GROW(*arr, *cap, *n + 1))
		return -ENOMEM;
	(*arr)[(*n)++] = v;
	return 0;
}

int profile_filter__add_pid(struct profile_filter *f, uint32_t pid)
{
	return add_u32(&f->pids, &f->npids, &f->pids_cap, pid);
}

int profile_filter__add_tid(struct profile_filter *f, uint32_t tid)
{
	return add_u32(&f->tids, &f->ntids, &f->tids_cap, tid);
}

int profile_filter__active(const struct profile_filter *f)
{
	return f->match[0].n || f->match[1].n || f->match[2].n || f->npids || f->ntids;
}

/* Resets the per-name cache for a profile with `count` names. */
static int matcher_reset(struct name_matcher *m, size_t count)
{
	if (!m->n)
		return 0;
	if (GROW(m->cache, m->cache_cap, count ? count : 1))
		return -ENOMEM;
	memset(m->cache, -1, m->cache_cap);
	return 0;
}

/* Does name `id` match any of the matcher's regexes? Once per id. */
static int matches(const struct profile *p, struct name_matcher *m, uint32_t id)
{
	const regex_t *res = m->res;
	size_t i;

	if (id >= m->cache_cap)
		return 0; /* cannot happen: the cache covers every name */
	if (m->cache[id] < 0) {
		const char *name = profile__name(p, id);

		m->cache[id] = 0;
		for (i = 0; i < m->n; i++)
			if (!regexec(&res[i], name, 0, NULL, 0)) {
				m->cache[id] = 1;
				break;
			}
	}
	return m->cache[id];
}

static int stack_matches(const struct profile *p, struct name_matcher *m, uint32_t stack)
{
	const struct profile_stack *s = &p->stacks[stack];
	uint32_t i;

	for (i = 0; i < s->depth; i++)
		if (matches(p, m, p->frames[s->first + i]))
			return 1;
	return 0;
}

static int in_set(const uint32_t *set, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return 1;
	return 0;
}

/* Per stack: 1 keep, 0 drop, by the frame filters (include, exclude). */
static int keep_stack(const struct profile *p, struct profile_filter *f, uint32_t stack)
{
	struct name_matcher *inc = &f->match[PROFILE_INCLUDE], *exc = &f->match[PROFILE_EXCLUDE];

	if (inc->n && !stack_matches(p, inc, stack))
		return 0;
	if (exc->n && stack_matches(p, exc, stack))
		return 0;
	return 1;
}

int profile__filter(struct profile *p, struct profile_filter *f)
{
	struct name_matcher *thr = &f->match[PROFILE_THREAD];
	int8_t *keep = NULL; /* per stack: -1 unknown, 0, 1 */
	size_t i, j, k;
	uint64_t total = 0;

	if (!profile_filter__active(f))
		return 0;
	for (k = 0; k < 3; k++)
		if (matcher_reset(&f->match[k], p->names.count))
			return -ENOMEM;
	keep = malloc(p->nstacks ? p->nstacks : 1);
	if (!keep)
		return -ENOMEM;
	memset(keep, -1, p->nstacks);
	for (i = 0, j = 0; i < p->nentries; i++) {
		const struct profile_entry *e = &p->entries[i];

		if (f->npids && !in_set(f->pids, f->npids, e->pid))
			continue;
		if (f->ntids && !in_set(f->tids, f->ntids, e->tid))
			continue;
		if (thr->n) {
			uint32_t name = p->has_threads ? e->thread
				      : p->frames[p->stacks[e->stack].first];

			if (!matches(p, thr, name))
				continue;
		}
		if (keep[e->stack] < 0)
			keep[e->stack] = (int8_t)keep_stack(p, f, e->stack);
		if (!keep[e->stack])
			continue;
		if (p->alloc_objects) {
			p->alloc_objects[j] = p->alloc_objects[i];
			p->alloc_bytes[j] = p->alloc_bytes[i];
		}
		if (p->cells)
			p->cells[j] = p->cells[i];
		p->entries[j++] = *e;
		total = total > UINT64_MAX - e->count ? UINT64_MAX : total + e->count;
	}
	p->nentries = j;
	p->total = total;
	free(keep);
	return 0;
}
