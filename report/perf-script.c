/* perf-script.c: `perf script` text into the profile model (formats.h), the
 * way FlameGraph's stackcollapse-perf.pl --all collapses it, but in one pass
 * at memory speed, as the text streams in (perf-script-read.c feeds it in
 * chunks: memory is the distinct frames and stacks, not the input).
 *
 * The text is a run of samples: a header line ("comm pid/tid [cpu] time:
 * period event:"; which fields appear depends on `perf script -F`), then
 * one indented line per frame, leaf first ("addr sym+off (dso)"), then a
 * blank line. Per line the work is a memchr for its end and a hash of the
 * frame text: a frame line's names are computed once per distinct text
 * (the cache keeps a copy of each distinct text in ps.keys), a
 * sample's stack is a run of name ids hashed into a table of unique
 * (thread, stack) pairs with their counts. Nothing is allocated per line;
 * the tables grow by doubling. */
#include "report/formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/keymap.h"

#define NO_THREAD UINT32_MAX
#define FRAME_JAVA 1u      /* of a "java" thread: tidy Java signatures */
#define FRAME_KERNEL_IP 2u /* an x86-64 kernel address: "_[k]" even without a DSO */

/* A distinct frame text (what follows the address) and its names. */
struct ps_frame {
	uint64_t hash; /* 0: empty slot */
	size_t key; /* its text: ps.keys + key */
	uint32_t len;
	uint32_t flags; /* FRAME_JAVA, FRAME_KERNEL_IP */
	uint32_t first, n; /* names: ps.names[first .. first + n), leaf first */
};

struct ps_thread {
	size_t comm; /* ps.keys + comm */
	uint32_t comm_len;
	uint32_t pid, tid;
	int has_pid;
	uint32_t name; /* profile name id */
	int java;      /* the name is "java": tidy Java signatures */
};

/* A distinct (thread, stack) and its count. */
struct ps_stack {
	uint64_t hash;
	uint32_t thread; /* NO_THREAD for a sample without a header */
	uint32_t first, depth; /* ps.stack_ids[first .. first + depth), leaf first */
	uint64_t count;
};

struct ps {
	struct profile *p;
	const struct perf_script_opts *o;
	struct perf_script_stats *st;

	/* Its own tables, not lib/keymap: their keys are variable-length (a
	 * frame's text, a run of name ids), compared whole; keymap's are 128
	 * bits. Frame texts, comms and the event are copied once into keys
	 * (offsets, as it grows): the input is gone after each chunk. */
	char *keys;
	size_t nkeys, keys_cap;
	struct ps_frame *frames; /* open addressing */
	size_t frames_mask, nframes;
	uint32_t *names; /* name ids of frames */
	size_t nnames, names_cap;

	struct ps_thread *threads;
	size_t nthreads, threads_cap;
	struct keymap thread_ids; /* (hash(comm), pid << 32 | tid) -> thread */

	struct ps_stack *stacks;
	size_t nstacks, stacks_cap;
	uint32_t *stack_index; /* open addressing: stack + 1, 0 empty */
	size_t stack_mask;
	uint32_t *stack_ids;
	size_t nstack_ids, stack_ids_cap;

	/* The sample being read. */
	int in_sample, skipping;
	uint32_t thread;
	uint64_t weight;
	size_t lineno, sample_line; /* the line being read, the sample's header */
	uint64_t total;             /* the weights counted so far */
	uint32_t *cur; /* its name ids, leaf first */
	size_t ncur, cur_cap;

	int has_event;
	size_t event, event_len; /* the first event seen: keys + event */
	char *text; /* scratch for a name */
	size_t text_cap;
};

/* ---- small text helpers ---- */

static inline int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static inline int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A fast 64-bit hash, 8 bytes a step; never 0. */
static uint64_t fast_hash(const char *s, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL), w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 29;
	return h | 1;
}

static const char *find_bytes(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

/* Copies `n` bytes of text into ps->keys; *off is where. */
static int keep(struct ps *ps, const char *s, size_t n, size_t *off)
{
	if (GROW(ps->keys, ps->keys_cap, ps->nkeys + n + 1))
		return -ENOMEM;
	memcpy(ps->keys + ps->nkeys, s, n);
	*off = ps->nkeys;
	ps->nkeys += n;
	return 0;
}

/* ---- frame names ---- */

/* Does `mod` contain "/tmp/perf-DIGITS.map" or "/jitted-DIGITS-DIGITS.so"? */
static int is_jit_dso(const char *mod, size_t n)
{
	const char *m = mod, *end = mod + n;

	while ((m = find_bytes(m, (size_t)(end - m), "/tmp/perf-"))) {
		const char *d = m + 10;

		while (d < end && is_digit(*d))
			d++;
		if (d > m + 10 && end - d >= 4 && !memcmp(d, ".map", 4))
			return 1;
		m++;
	}
	for (m = mod; (m = find_bytes(m, (size_t)(end - m), "/jitted-")); m++) {
		const char *d = m + 8, *s;

		for (s = d; d < end && is_digit(*d); d++)
			;
		if (d == s || d >= end || *d != '-')
			continue;
		for (s = ++d; d < end && is_digit(*d); d++)
			;
		if (d > s && end - d >= 3 && !memcmp(d, ".so", 3))
			return 1;
	}
	return 0;
}

static int is_kernel_dso(const char *mod, size_t n)
{
	if (find_bytes(mod, n, "unknown"))
		return 0;
	return (n && mod[0] == '[') || (n >= 7 && !memcmp(mod + n - 7, "vmlinux", 7));
}

/* Go method names ("net/http.(*Client).Do") keep their parentheses. */
static int looks_like_go(const char *s, size_t n)
{
	const char *open = find_bytes(s, n, ".(");

	return open && find_bytes(open + 2, n - (size_t)(open + 2 - s), ").") != NULL;
}

/* One "->"-separated part of a symbol, tidied and annotated, interned and
 * appended to ps->names. */
static int add_name(struct ps *ps, const char *f, size_t n, const char *mod, size_t mod_len,
		    int has_mod, uint32_t flags, int inlined)
{
	size_t i, o = 0, cut = n;
	int err, jit = has_mod && is_jit_dso(mod, mod_len); /* before mod becomes a base name */
	uint32_t id;

	if (GROW(ps->text, ps->text_cap, n + mod_len + 8))
		return -ENOMEM;
	if (n == 9 && !memcmp(f, "[unknown]", 9)) {
		/* An unknown symbol: its DSO's base name, if that is known. */
		if (has_mod && !(mod_len == 9 && !memcmp(mod, "[unknown]", 9))) {
			const char *slash = memrchr(mod, '/', mod_len);

			if (slash) {
				mod_len -= (size_t)(slash + 1 - mod);
				mod = slash + 1;
			}
			f = mod;
			n = mod_len;
		} else {
			f = "unknown";
			n = 7;
		}
		ps->text[o++] = '[';
		memcpy(ps->text + o, f, n);
		o += n;
		ps->text[o++] = ']';
		f = ps->text; /* tidied below in place */
		n = cut = o;
		o = 0;
	}
	/* Everything from the first '(' on is argument noise, except in Go
	 * names and "(anonymous namespace)". */
	if (!looks_like_go(f, n)) {
		for (i = 0; i < n; i++) {
			if (f[i] == '(' && !(n - i >= 21 && !memcmp(f + i, "(anonymous namespace)", 21))) {
				cut = i;
				break;
			}
		}
	}
	i = 0;
	if ((flags & FRAME_JAVA) && cut && f[0] == 'L' && memchr(f, '/', cut))
		i = 1;
	for (; i < cut; i++) {
		char c = f[i];

		if (c == '"' || c == '\'')
			continue;
		ps->text[o++] = c == ';' ? ':' : c;
	}
	if (inlined) {
		memcpy(ps->text + o, "_[i]", 4);
		o += 4;
	} else if (has_mod ? is_kernel_dso(mod, mod_len) : (flags & FRAME_KERNEL_IP) != 0) {
		memcpy(ps->text + o, "_[k]", 4);
		o += 4;
	} else if (jit) {
		memcpy(ps->text + o, "_[j]", 4);
		o += 4;
	}
	err = profile__intern(ps->p, ps->text, o, &id);
	if (err)
		return err;
	if (GROW(ps->names, ps->names_cap, ps->nnames + 1))
		return -ENOMEM;
	ps->names[ps->nnames++] = id;
	return 0;
}

/* Computes the names of frame text `s` (after the address): "sym+0xOFF
 * (dso)", "sym (dso)", "sym", or "(dso)". Appends them to ps->names, leaf
 * first; *n gets how many (0: a frame to skip). */
static int frame_names(struct ps *ps, const char *s, size_t len, uint32_t flags, uint32_t *n)
{
	const char *mod = NULL, *f = s, *part;
	size_t mod_len = 0, flen = len, first = ps->nnames, i, j;
	int err, k = 0;

	/* The DSO: a last token "(...)". */
	if (len >= 2 && s[len - 1] == ')') {
		size_t t = len - 1;

		while (t > 0 && !is_space(s[t - 1]))
			t--;
		if (s[t] == '(') {
			mod = s + t + 1;
			mod_len = len - 2 - t;
			flen = t ? t - 1 : 0;
		}
	}
	if (!flen) {
		f = "[unknown]";
		flen = 9;
	}
	/* "+0xOFF" at the end. */
	for (i = flen; i > 0 && is_hex(f[i - 1]) && !(f[i - 1] >= 'A' && f[i - 1] <= 'F'); i--)
		;
	if (i < flen && i >= 3 && !memcmp(f + i - 3, "+0x", 3))
		flen = i - 3;
	*n = 0;
	if (flen && f[0] == '(')
		return 0; /* a process name, not a frame */
	/* Inlined parts "a->b->c": a first, then b_[i], c_[i] (root side
	 * first); stored leaf first, so reversed below. */
	for (part = f; part <= f + flen; part = f + j + 2) {
		const char *arrow = find_bytes(part, (size_t)(f + flen - part), "->");

		j = arrow ? (size_t)(arrow - f) : flen;
		err = add_name(ps, part, (size_t)(f + j - part), mod, mod_len, mod != NULL, flags, k++);
		if (err)
			return err;
		if (!arrow)
			break;
	}
	for (i = first, j = ps->nnames - 1; i < j; i++, j--) {
		uint32_t t = ps->names[i];

		ps->names[i] = ps->names[j];
		ps->names[j] = t;
	}
	*n = (uint32_t)(ps->nnames - first);
	return 0;
}

static int grow_frames(struct ps *ps)
{
	size_t cap = (ps->frames_mask + 1) * 2, i;
	struct ps_frame *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i <= ps->frames_mask; i++) {
		size_t j;

		if (!ps->frames[i].hash)
			continue;
		for (j = ps->frames[i].hash & (cap - 1); t[j].hash; j = (j + 1) & (cap - 1))
			;
		t[j] = ps->frames[i];
	}
	free(ps->frames);
	ps->frames = t;
	ps->frames_mask = cap - 1;
	return 0;
}

/* Appends the names of frame text `s` to the current sample; `addr_len`
 * hex digits of address `addr` before it. */
static int add_frame(struct ps *ps, const char *addr, size_t addr_len, const char *s, size_t len)
{
	uint32_t flags = ps->thread != NO_THREAD && ps->threads[ps->thread].java ? FRAME_JAVA : 0;
	uint64_t h;
	size_t i;
	struct ps_frame *fr;
	uint32_t k;
	int err;

	if (addr_len == 16 && addr[0] >= '8' && s[len - 1] != ')')
		flags |= FRAME_KERNEL_IP; /* no DSO to tell */
	h = fast_hash(s, len, flags);
	for (i = h & ps->frames_mask;; i = (i + 1) & ps->frames_mask) {
		fr = &ps->frames[i];
		if (!fr->hash)
			break;
		if (fr->hash == h && fr->len == len && fr->flags == flags &&
		    !memcmp(ps->keys + fr->key, s, len))
			goto found;
	}
	if (len > UINT32_MAX)
		return 0;
	*fr = (struct ps_frame){.hash = h, .len = (uint32_t)len, .flags = flags,
				.first = (uint32_t)ps->nnames};
	if (keep(ps, s, len, &fr->key)) {
		fr->hash = 0;
		return -ENOMEM;
	}
	err = frame_names(ps, s, len, flags, &fr->n);
	if (err) {
		fr->hash = 0;
		return err;
	}
	if (++ps->nframes * 4 > (ps->frames_mask + 1) * 3) {
		if (grow_frames(ps))
			return -ENOMEM;
		return add_frame(ps, addr, addr_len, s, len); /* found now */
	}
found:
	/* The folded reader's limit: no real stack is that deep, and a
	 * hostile one would cost memory in proportion. */
	if (ps->ncur + fr->n > PROFILE_MAX_DEPTH) {
		ps->st->bad_line = ps->sample_line;
		return -E2BIG;
	}
	if (GROW(ps->cur, ps->cur_cap, ps->ncur + fr->n))
		return -ENOMEM;
	for (k = 0; k < fr->n; k++)
		ps->cur[ps->ncur++] = ps->names[fr->first + k];
	return 0;
}

/* ---- stacks ---- */

static int grow_stack_index(struct ps *ps)
{
	size_t cap = (ps->stack_mask + 1) * 2, i;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < ps->nstacks; i++) {
		size_t j;

		for (j = ps->stacks[i].hash & (cap - 1); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = (uint32_t)i + 1;
	}
	free(ps->stack_index);
	ps->stack_index = t;
	ps->stack_mask = cap - 1;
	return 0;
}

/* Counts the current sample (if any) and starts over. */
static int end_sample(struct ps *ps)
{
	uint64_t h;
	size_t i;
	struct ps_stack *s;

	if (!ps->in_sample || ps->skipping) {
		ps->in_sample = ps->skipping = 0;
		ps->ncur = 0;
		return 0;
	}
	ps->in_sample = 0;
	/* The sum must fit: saturating would lose data silently (as the
	 * folded reader, report/folded.c). */
	if (ps->total > UINT64_MAX - ps->weight) {
		ps->st->bad_line = ps->sample_line;
		return -EOVERFLOW;
	}
	ps->total += ps->weight;
	ps->st->samples++;
	h = fast_hash((const char *)ps->cur, ps->ncur * sizeof(*ps->cur), ps->thread);
	for (i = h & ps->stack_mask; ps->stack_index[i]; i = (i + 1) & ps->stack_mask) {
		s = &ps->stacks[ps->stack_index[i] - 1];
		if (s->hash == h && s->thread == ps->thread && s->depth == ps->ncur &&
		    !memcmp(ps->stack_ids + s->first, ps->cur, ps->ncur * sizeof(*ps->cur))) {
			s->count += ps->weight; /* <= total, which fits */
			ps->ncur = 0;
			return 0;
		}
	}
	if (ps->nstacks >= UINT32_MAX - 1 || ps->nstack_ids + ps->ncur > UINT32_MAX ||
	    GROW(ps->stacks, ps->stacks_cap, ps->nstacks + 1) ||
	    GROW(ps->stack_ids, ps->stack_ids_cap, ps->nstack_ids + ps->ncur + 1))
		return -ENOMEM;
	memcpy(ps->stack_ids + ps->nstack_ids, ps->cur, ps->ncur * sizeof(*ps->cur));
	ps->stacks[ps->nstacks] = (struct ps_stack){.hash = h, .thread = ps->thread,
						    .first = (uint32_t)ps->nstack_ids,
						    .depth = (uint32_t)ps->ncur, .count = ps->weight};
	ps->nstack_ids += ps->ncur;
	ps->stack_index[i] = (uint32_t)++ps->nstacks;
	ps->ncur = 0;
	if (ps->nstacks * 4 > (ps->stack_mask + 1) * 3)
		return grow_stack_index(ps);
	return 0;
}

/* ---- header lines ---- */

/* Digits into *v, 0 or -ERANGE past `max` (never wrapped or clamped). */
static int parse_num(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (*v > (max - d) / 10)
			return -ERANGE;
		*v = *v * 10 + d;
	}
	return 0;
}

/* The thread of a header: (comm, pid, tid), named once. */
static int find_thread(struct ps *ps, const char *comm, size_t clen, uint32_t pid, int has_pid,
		       uint32_t tid, uint32_t *out)
{
	uint64_t h = fast_hash(comm, clen, has_pid);
	uint64_t ids = (uint64_t)pid << 32 | tid;
	struct ps_thread *t;
	uint32_t v;
	char num[32];
	size_t n, i;
	int err;

	while (keymap__get(&ps->thread_ids, h, ids, &v)) {
		t = &ps->threads[v];
		if (t->comm_len == clen && !memcmp(ps->keys + t->comm, comm, clen) &&
		    t->has_pid == has_pid) {
			*out = v;
			return 0;
		}
		h = h * 31 + 7; /* another comm with the same hash: probe on */
	}
	if (GROW(ps->threads, ps->threads_cap, ps->nthreads + 1) ||
	    GROW(ps->text, ps->text_cap, clen + 48))
		return -ENOMEM;
	t = &ps->threads[ps->nthreads];
	*t = (struct ps_thread){.comm_len = (uint32_t)clen, .pid = pid, .tid = tid,
				.has_pid = has_pid};
	if (keep(ps, comm, clen, &t->comm))
		return -ENOMEM;
	memcpy(ps->text, comm, clen);
	n = clen;
	if (ps->o->root != PERF_SCRIPT_ROOT_COMM) {
		if (has_pid)
			n += (size_t)snprintf(ps->text + n, 32, "-%u", pid);
		else
			n += (size_t)snprintf(ps->text + n, 32, "-?");
		if (ps->o->root == PERF_SCRIPT_ROOT_TID) {
			snprintf(num, sizeof(num), "/%u", tid);
			memcpy(ps->text + n, num, strlen(num));
			n += strlen(num);
		}
	}
	for (i = 0; i < n; i++)
		if (ps->text[i] == ' ')
			ps->text[i] = '_';
	/* stackcollapse-perf.pl's `$pname =~ m/^java/`, whatever --pid/--tid add */
	t->java = n >= 4 && !memcmp(ps->text, "java", 4);
	err = profile__intern(ps->p, ps->text, n, &t->name);
	if (err)
		return err;
	if (keymap__put(&ps->thread_ids, h, ids, (uint32_t)ps->nthreads, NULL) < 0)
		return -ENOMEM;
	*out = (uint32_t)ps->nthreads++;
	return 0;
}

static void copy_event(char *dst, const char *s, size_t n)
{
	if (n > 63)
		n = 63;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Where a header's "comm [pid/]tid" is: comm the shortest prefix
 * followed by whitespace, [pid/]tid and whitespace (comms may hold
 * spaces: "V8 WorkerThread 25607"). comm_len 0: not a header. */
struct header_ids {
	size_t comm_len, pid_at, pid_len, tid_at, tid_len, end;
};

static void find_ids(const char *l, size_t n, struct header_ids *h)
{
	size_t i, j = 0, k, pid_at = 0, pid_len = 0, tid_at = 0, tid_len = 0, comm_len = 0;

	for (i = 1; i < n && !comm_len; i++) {
		if (!is_space(l[i]) || is_space(l[i - 1]))
			continue;
		for (j = i; j < n && is_space(l[j]); j++)
			;
		for (k = j; k < n && is_digit(l[k]); k++)
			;
		if (k == j)
			continue;
		pid_at = j;
		pid_len = k - j;
		tid_at = tid_len = 0;
		if (k < n && l[k] == '/') {
			tid_at = k + 1;
			for (k = tid_at; k < n && is_digit(l[k]); k++)
				;
			tid_len = k - tid_at;
		}
		if (k < n && !is_space(l[k]))
			continue;
		comm_len = i;
		j = k;
	}
	*h = (struct header_ids){comm_len, pid_at, pid_len, tid_at, tid_len, comm_len ? j : 0};
}

static int is_header(const char *l, size_t n)
{
	struct header_ids h;

	find_ids(l, n, &h);
	return h.comm_len != 0;
}

/* A header line: "comm [pid/]tid [fields...] [period] [event:] [ip sym
 * (dso)]". 1 if it is one, 0 if not, -ENOMEM, -EOVERFLOW (its period) or
 * -ERANGE (its pid or tid). */
static int header_line(struct ps *ps, const char *l, size_t n)
{
	struct header_ids h;
	size_t i, j, k, pid_at, pid_len, tid_at, tid_len, comm_len;
	const char *period = NULL, *ev = NULL, *after = NULL;
	size_t period_len = 0, ev_len = 0, prev_at = 0, prev_len = 0;
	int prev_colon = 0, colon = 0; /* the token before the period ends in ':' */
	uint64_t pid, tid;
	int err;

	find_ids(l, n, &h);
	if (!h.comm_len)
		return 0;
	comm_len = h.comm_len;
	pid_at = h.pid_at;
	pid_len = h.pid_len;
	tid_at = h.tid_at;
	tid_len = h.tid_len;
	j = h.end;
	/* The rest: tokens; the event is the first one ending in ':' that is
	 * not a time ("123.456:"); a digits-only token just before it is the
	 * period; text after it is the sampled ip (no callchain). */
	for (i = j; i < n;) {
		size_t t;
		int time = 1;

		while (i < n && is_space(l[i]))
			i++;
		if (i >= n)
			break;
		for (t = i; t < n && !is_space(l[t]); t++)
			if (!is_digit(l[t]) && l[t] != '.' && l[t] != ':')
				time = 0;
		if (l[t - 1] == ':' && !time) {
			ev = l + i;
			ev_len = t - i - 1;
			if (prev_len) {
				for (k = prev_at; k < prev_at + prev_len && is_digit(l[k]); k++)
					;
				if (k == prev_at + prev_len) {
					period = l + prev_at;
					period_len = prev_len;
					colon = prev_colon;
				}
			}
			while (t < n && is_space(l[t]))
				t++;
			if (t < n)
				after = l + t;
			break;
		}
		prev_colon = prev_len && l[prev_at + prev_len - 1] == ':';
		prev_at = i;
		prev_len = t - i;
		i = t;
	}
	ps->in_sample = 1;
	ps->skipping = 0;
	ps->ncur = 0;
	if (ev) {
		if (!ps->has_event) {
			if (keep(ps, ev, ev_len, &ps->event))
				return -ENOMEM;
			ps->has_event = 1;
			ps->event_len = ev_len;
			copy_event(ps->st->event, ev, ev_len);
		} else if (ev_len != ps->event_len || memcmp(ev, ps->keys + ps->event, ev_len)) {
			if (!ps->st->other_events++)
				copy_event(ps->st->other_event, ev, ev_len);
			ps->skipping = 1;
			return 1;
		}
	}
	ps->weight = 1;
	ps->sample_line = ps->lineno;
	/* stackcollapse-perf.pl takes the period of "TIME: PERIOD EVENT:"
	 * only (its regex wants a ':' before it); --period takes it after
	 * any field. */
	if (period && ps->o->period == PERF_SCRIPT_WEIGHT_DEFAULT && !colon)
		period = NULL;
	if (ps->o->period != PERF_SCRIPT_WEIGHT_SAMPLES) {
		if (period && parse_num(period, period_len, UINT64_MAX, &ps->weight)) {
			ps->st->bad_line = ps->lineno;
			return -EOVERFLOW;
		}
		if (period)
			ps->st->weighed++;
		else
			ps->st->no_period++;
	}
	if (parse_num(l + pid_at, pid_len, PERF_SCRIPT_MAX_ID, &pid) ||
	    parse_num(l + tid_at, tid_len, PERF_SCRIPT_MAX_ID, &tid)) {
		ps->st->bad_line = ps->lineno;
		return -ERANGE;
	}
	/* "pid/0" (swapper 0/0): stackcollapse-perf.pl's `not $tid` takes
	 * it as a tid alone, named "comm-?/PID". */
	if (tid_len && tid)
		err = find_thread(ps, l, comm_len, (uint32_t)pid, 1, (uint32_t)tid, &ps->thread);
	else
		err = find_thread(ps, l, comm_len, 0, 0, (uint32_t)pid, &ps->thread);
	if (err)
		return err;
	if (after) {
		/* "ip sym (dso)" on the header line: a sample without a
		 * callchain. Trace text (tracepoints) is not a frame. */
		const char *a = after, *end = l + n;

		while (a < end && is_hex(*a))
			a++;
		if (a > after && a < end && is_space(*a)) {
			size_t alen = (size_t)(a - after);

			while (a < end && is_space(*a))
				a++;
			if (a < end) {
				err = add_frame(ps, after, alen, a, (size_t)(end - a));
				return err ? err : 1;
			}
		}
	}
	return 1;
}

/* An indented line: a frame "addr sym...", or a source line ("file.c:42",
 * from -F srcline): 1 if it is one of those, 0 if not, -ENOMEM or -E2BIG. */
static int indented_line(struct ps *ps, const char *l, size_t n)
{
	size_t i = 0, a;
	int err;

	while (i < n && is_space(l[i]))
		i++;
	for (a = i; i < n && is_hex(l[i]); i++)
		;
	if (i > a && i < n && is_space(l[i])) {
		size_t addr_len = i - a;

		while (i < n && is_space(l[i]))
			i++;
		if (i == n)
			return 0;
		if (ps->skipping)
			return 1;
		if (!ps->in_sample) {
			/* Frames without a header (perf script -F ip,sym). */
			ps->in_sample = 1;
			ps->thread = NO_THREAD;
			ps->weight = 1;
			ps->sample_line = ps->lineno;
		}
		err = add_frame(ps, l + a, addr_len, l + i, n - i);
		return err ? err : 1;
	}
	/* "file.c:42" or "??:0": one token ending in ':' and digits. */
	for (i = a; i < n && !is_space(l[i]); i++)
		;
	if (i == n && i > a + 1 && is_digit(l[n - 1])) {
		for (i = n; i > a && is_digit(l[i - 1]); i--)
			;
		if (i > a + 1 && l[i - 1] == ':')
			return 1;
	}
	return 0;
}

/* ---- the whole text ---- */

static int finish(struct ps *ps)
{
	uint32_t *ids = NULL;
	size_t cap = 0, i, k;
	uint32_t no_stack;
	int err = profile__intern(ps->p, PROFILE_NO_STACK, strlen(PROFILE_NO_STACK), &no_stack);

	for (i = 0; i < ps->nstacks && !err; i++) {
		const struct ps_stack *s = &ps->stacks[i];
		struct profile_entry e = {.count = s->count};
		size_t depth = s->depth ? s->depth : 1;

		if (GROW(ids, cap, depth)) {
			err = -ENOMEM;
			break;
		}
		if (!s->depth)
			ids[0] = no_stack;
		for (k = 0; k < s->depth; k++)
			ids[k] = ps->stack_ids[s->first + s->depth - 1 - k];
		if (s->thread != NO_THREAD) {
			const struct ps_thread *t = &ps->threads[s->thread];

			e.thread = t->name;
			e.pid = t->has_pid ? t->pid : 0;
			e.tid = t->tid;
		}
		err = profile__add_stack(ps->p, ids, depth, &e.stack);
		if (!err)
			err = profile__add(ps->p, &e);
	}
	free(ids);
	return err;
}

/* One line (without its '\n'). */
static int one_line(struct ps *ps, const char *l, size_t n)
{
	struct perf_script_stats *st = ps->st;
	int r, err = 0;

	ps->lineno++;
	if (n && l[n - 1] == '\r')
		n--;
	if (!n)
		return end_sample(ps);
	st->lines++;
	if (l[0] == '#')
		return 0;
	if (is_space(l[0])) {
		size_t i = 0;

		while (i < n && is_space(l[i]))
			i++;
		if (i == n)
			return end_sample(ps);
		r = indented_line(ps, l, n);
	} else if (ps->in_sample && !is_header(l, n)) {
		/* A frame line without indentation (perf-java-stacks-02
		 * of FlameGraph's tests): stackcollapse-perf.pl's
		 * `^\s*(\w+)\s*(.+) \((.*)\)` takes it after a header. */
		r = indented_line(ps, l, n);
		if (!r) {
			err = end_sample(ps);
			ps->in_sample = ps->skipping = 1;
		}
	} else {
		err = end_sample(ps);
		if (err)
			return err;
		r = header_line(ps, l, n);
		if (!r) {
			/* Its frames belong to no sample we can name. */
			ps->in_sample = ps->skipping = 1;
		}
	}
	if (r < 0)
		return r;
	if (!r && !st->malformed++)
		st->first_malformed = ps->lineno;
	return err;
}

struct perf_script_reader {
	struct ps ps;
	struct perf_script_opts opts;
	char *carry; /* the start of a line the last chunk cut */
	size_t ncarry, carry_cap;
};

void perf_script_reader__free(struct perf_script_reader *r)
{
	struct ps *ps;

	if (!r)
		return;
	ps = &r->ps;
	free(ps->keys);
	free(ps->frames);
	free(ps->names);
	free(ps->threads);
	keymap__release(&ps->thread_ids);
	free(ps->stacks);
	free(ps->stack_index);
	free(ps->stack_ids);
	free(ps->cur);
	free(ps->text);
	free(r->carry);
	free(r);
}

int perf_script_reader__new(struct perf_script_reader **out, struct profile *p,
			    const struct perf_script_opts *opts, struct perf_script_stats *st)
{
	struct perf_script_reader *r = calloc(1, sizeof(*r));
	struct ps *ps;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	if (opts)
		r->opts = *opts;
	ps = &r->ps;
	*ps = (struct ps){.p = p, .o = &r->opts, .st = st};
	memset(st, 0, sizeof(*st));
	p->has_threads = 1;
	ps->frames_mask = 1023;
	ps->stack_mask = 1023;
	ps->frames = calloc(ps->frames_mask + 1, sizeof(*ps->frames));
	ps->stack_index = calloc(ps->stack_mask + 1, sizeof(*ps->stack_index));
	/* cur is never NULL: memcpy and memcmp of empty stacks get a pointer. */
	if (!ps->frames || !ps->stack_index || keymap__init(&ps->thread_ids, 64) ||
	    GROW(ps->cur, ps->cur_cap, 64)) {
		perf_script_reader__free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

/* A line past PERF_SCRIPT_MAX_LINE: the next one to be read. */
static int too_long(struct perf_script_reader *r)
{
	r->ps.st->bad_line = r->ps.lineno + 1;
	return -EMSGSIZE;
}

int perf_script_reader__feed(struct perf_script_reader *r, const char *text, size_t len)
{
	size_t pos = 0;
	int err = 0;

	if (r->ncarry) {
		/* The cut line's end is in this chunk (or the chunk is all
		 * of its middle). */
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;

		if (r->ncarry + n > PERF_SCRIPT_MAX_LINE)
			return too_long(r);
		if (GROW(r->carry, r->carry_cap, r->ncarry + n + 1))
			return -ENOMEM;
		memcpy(r->carry + r->ncarry, text, n);
		r->ncarry += n;
		if (!nl)
			return 0;
		err = one_line(&r->ps, r->carry, r->ncarry);
		r->ncarry = 0;
		pos = n + 1;
	}
	while (pos < len && !err) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n;

		if (!nl) {
			n = len - pos;
			if (n > PERF_SCRIPT_MAX_LINE)
				return too_long(r);
			if (GROW(r->carry, r->carry_cap, n + 1))
				return -ENOMEM;
			memcpy(r->carry, l, n);
			r->ncarry = n;
			break;
		}
		n = (size_t)(nl - l);
		pos += n + 1;
		err = one_line(&r->ps, l, n);
	}
	return err;
}

int perf_script_reader__finish(struct perf_script_reader *r)
{
	int err = 0;

	if (r->ncarry)
		err = one_line(&r->ps, r->carry, r->ncarry);
	r->ncarry = 0;
	if (!err)
		err = end_sample(&r->ps);
	if (!err)
		err = finish(&r->ps);
	return err;
}

int profile__from_perf_script(struct profile *p, const char *text, size_t len,
			      const struct perf_script_opts *opts, struct perf_script_stats *st)
{
	struct perf_script_reader *r;
	int err = perf_script_reader__new(&r, p, opts, st);

	if (err)
		return err;
	err = perf_script_reader__feed(r, text, len);
	if (!err)
		err = perf_script_reader__finish(r);
	perf_script_reader__free(r);
	return err;
}

/* ---- detection ---- */

int perf_script_detect(const char *text, size_t len)
{
	size_t pos = 0, lines = 0;

	if (len > 1 << 16)
		len = 1 << 16;
	while (pos < len && lines < 200) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, i = 0, a;

		pos += n + 1;
		if (!n || l[0] == '#')
			continue;
		lines++;
		if (is_space(l[0])) {
			/* A frame: indentation, a hex address, a space, a name. */
			while (i < n && is_space(l[i]))
				i++;
			for (a = i; i < n && is_hex(l[i]); i++)
				;
			if (i > a && i + 1 < n && is_space(l[i]) && !is_space(l[n - 1]))
				return 1;
			continue;
		}
		/* An unindented frame "HEX sym (dso)" (folded lines end
		 * in a count, never in ')'). */
		for (a = 0; a < n && is_hex(l[a]); a++)
			;
		if (a && a + 1 < n && l[a] == ' ' && l[n - 1] == ')' &&
		    find_bytes(l + a, n - a, " ("))
			return 1;
		/* A header with a time: a token "DIGITS.DIGITS:". */
		for (i = 0; i + 3 < n; i++) {
			if (!is_space(l[i]) || !is_digit(l[i + 1]))
				continue;
			for (a = i + 1; a < n && is_digit(l[a]); a++)
				;
			if (a < n && l[a] == '.') {
				size_t d = ++a;

				while (a < n && is_digit(l[a]))
					a++;
				if (a > d && a < n && l[a] == ':')
					return 1;
			}
		}
	}
	return 0;
}
