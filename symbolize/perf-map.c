/* perf-map.c: reads JIT symbol maps (/tmp/perf-PID.map) into a sorted
 * array, checks who wrote them, and finds them for a process in its own
 * pid and mount namespace (see perf-map.h).
 *
 * The text is untrusted (any process can write a file under /tmp): lines
 * are parsed with explicit bounds, numbers must be hex and not overflow,
 * an entry must not wrap around the address space, names are cut at
 * PERF_MAP_MAX_NAME bytes, and at most PERF_MAP_MAX_BYTES of a file are
 * read. Memory is one entry (24 bytes) per line plus a copy of the names. */
#include "perf-map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"

/* Entries below the nearest one that are tried for an address, for maps
 * where pieces of code overlap (a method recompiled into a bigger blob). */
#define SCAN_BACK 16

struct pm_entry {
	uint64_t start, end;
	uint32_t name; /* offset in names */
	uint32_t seq;  /* line order: later lines win */
};

struct perf_map {
	struct pm_entry *e;
	size_t n;
	char *names;
	size_t skipped;
};

/* Parses a hex number at *p (optional 0x), up to end. 1 ok, 0 bad. */
static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end; s++, digits++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (x >> 60)
			return 0; /* would overflow */
		x = x << 4 | d;
	}
	if (!digits)
		return 0;
	*p = s;
	*v = x;
	return 1;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct pm_entry *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

struct perf_map *perf_map__parse(const char *text, size_t len)
{
	struct perf_map *m = calloc(1, sizeof(*m));
	const char *p = text, *end = text + len;
	size_t ecap = 0, ncap = 0, nlen = 0, i, k;
	uint32_t seq = 0;

	if (!m)
		return NULL;
	if (len > PERF_MAP_MAX_BYTES)
		end = text + PERF_MAP_MAX_BYTES;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end, *q = p, *name;
		const char *next = eol ? eol + 1 : end;
		uint64_t start, size;
		size_t name_len;

		if (line_end > p && line_end[-1] == '\r')
			line_end--;
		if (line_end == p) { /* blank lines are not errors */
			p = next;
			continue;
		}
		p = next;
		if (!parse_hex(&q, line_end, &start) || q >= line_end || *q++ != ' ' ||
		    !parse_hex(&q, line_end, &size) || q >= line_end || *q++ != ' ' || !size ||
		    start + size < start) {
			m->skipped++;
			continue;
		}
		name = q;
		name_len = (size_t)(line_end - name);
		if (name_len > PERF_MAP_MAX_NAME)
			name_len = PERF_MAP_MAX_NAME;
		if (!name_len || memchr(name, '\0', name_len) || nlen > UINT32_MAX - name_len - 1 ||
		    seq == UINT32_MAX) {
			m->skipped++;
			continue;
		}
		if (GROW(m->e, ecap, m->n + 1) || GROW(m->names, ncap, nlen + name_len + 1))
			goto nomem;
		m->e[m->n++] = (struct pm_entry){
			.start = start, .end = start + size, .name = (uint32_t)nlen, .seq = seq++,
		};
		memcpy(m->names + nlen, name, name_len);
		m->names[nlen + name_len] = '\0';
		nlen += name_len + 1;
	}
	if (m->n)
		qsort(m->e, m->n, sizeof(*m->e), entry_cmp);
	/* Of entries starting at one address, the last line wins. */
	for (i = 0, k = 0; i < m->n; i++) {
		if (k && m->e[k - 1].start == m->e[i].start)
			k--;
		m->e[k++] = m->e[i];
	}
	m->n = k;
	return m;
nomem:
	perf_map__free(m);
	errno = ENOMEM;
	return NULL;
}

void perf_map__free(struct perf_map *m)
{
	if (!m)
		return;
	free(m->e);
	free(m->names);
	free(m);
}

size_t perf_map__count(const struct perf_map *m)
{
	return m->n;
}

size_t perf_map__skipped(const struct perf_map *m)
{
	return m->skipped;
}

int perf_map__lookup(const struct perf_map *m, uint64_t addr, const char **name,
		     uint64_t *off)
{
	size_t lo = 0, hi = m->n, i;
	const struct pm_entry *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < SCAN_BACK; i--) {
		const struct pm_entry *e = &m->e[i - 1];

		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return 0;
	*name = m->names + best->name;
	*off = addr - best->start;
	return 1;
}

enum perf_map_verdict perf_map__check(const struct stat *st, uid_t euid, uid_t target_uid)
{
	if (!S_ISREG(st->st_mode))
		return PERF_MAP_NOT_REGULAR;
	if (st->st_uid != 0 && st->st_uid != euid &&
	    (target_uid == (uid_t)-1 || st->st_uid != target_uid))
		return PERF_MAP_NOT_OWNED;
	if (st->st_mode & S_IWOTH)
		return PERF_MAP_WRITABLE;
	return PERF_MAP_OK;
}

uint32_t perf_map__nspid(uint32_t pid)
{
	char path[64], line[512];
	uint32_t ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", (unsigned)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + 6;

		if (strncmp(line, "NSpid:", 6))
			continue;
		/* "NSpid:\t1234\t56\n": the last field is the innermost. */
		for (;;) {
			char *e;
			unsigned long v;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				break;
			v = strtoul(p, &e, 10);
			if (v && v <= UINT32_MAX)
				ns = (uint32_t)v;
			p = e;
		}
		break;
	}
	fclose(f);
	return ns;
}

/* Reads at most PERF_MAP_MAX_BYTES of fd. 0 or -errno. */
static int read_capped(int fd, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL;

	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap >= PERF_MAP_MAX_BYTES)
				break;
			if (GROW(b, cap, n + 65536)) {
				free(b);
				return -ENOMEM;
			}
			if (cap > PERF_MAP_MAX_BYTES)
				cap = PERF_MAP_MAX_BYTES;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(b);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Opens, checks and parses one candidate. */
static int load_file(const char *path, uid_t target_uid, struct perf_map **out)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	enum perf_map_verdict v;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (fd < 0)
		return errno == ELOOP ? PERF_MAP_NOT_REGULAR : PERF_MAP_MISSING;
	if (fstat(fd, &st)) {
		close(fd);
		return PERF_MAP_MISSING;
	}
	v = perf_map__check(&st, geteuid(), target_uid);
	if (v != PERF_MAP_OK) {
		close(fd);
		return v;
	}
	err = read_capped(fd, &buf, &len);
	close(fd);
	if (err)
		return err == -ENOMEM ? err : PERF_MAP_MISSING;
	*out = perf_map__parse(buf ? buf : "", len);
	free(buf);
	return *out ? PERF_MAP_OK : -ENOMEM;
}

int perf_map__load_pid(uint32_t pid, const char *root_prefix, struct perf_map **out,
		       char *path, size_t pathlen)
{
	uid_t target_uid = (uid_t)-1;
	char proc[64];
	struct stat st;
	int r = PERF_MAP_MISSING, n;

	*out = NULL;
	if (pathlen)
		path[0] = '\0';
	if (root_prefix) {
		n = snprintf(path, pathlen, "%s/tmp/perf-%u.map", root_prefix, (unsigned)pid);
		return n > 0 && (size_t)n < pathlen ? load_file(path, target_uid, out)
						    : PERF_MAP_MISSING;
	}
	snprintf(proc, sizeof(proc), "/proc/%u", (unsigned)pid);
	if (!stat(proc, &st)) {
		target_uid = st.st_uid;
		n = snprintf(path, pathlen, "/proc/%u/root/tmp/perf-%u.map", (unsigned)pid,
			     (unsigned)perf_map__nspid(pid));
		if (n > 0 && (size_t)n < pathlen)
			r = load_file(path, target_uid, out);
		if (r != PERF_MAP_MISSING)
			return r;
	}
	n = snprintf(path, pathlen, "/tmp/perf-%u.map", (unsigned)pid);
	if (n > 0 && (size_t)n < pathlen) {
		int r2 = load_file(path, target_uid, out);

		/* A refusal in the process's own root is the more telling. */
		if (r2 != PERF_MAP_MISSING || r == PERF_MAP_MISSING)
			r = r2;
	}
	return r;
}
