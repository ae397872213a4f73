/* perf-map.c: reads JIT symbol maps (/tmp/perf-PID.map) into a sorted
 * array, checks who wrote them, and finds them for a process in its own
 * pid and mount namespace (see perf-map.h).
 *
 * The text is untrusted (the target's owner writes it, and root reads
 * it): lines are parsed with explicit bounds, numbers must be hex and not
 * overflow, an entry must not wrap around the address space, names are cut
 * at PERF_MAP_MAX_NAME bytes, and at most PERF_MAP_MAX_BYTES of a file and
 * PERF_MAP_MAX_ENTRIES lines are read (the map then says it was cut). A
 * file is read in READ_CHUNK pieces, never whole: memory is one entry (24
 * bytes) per line plus a copy of the names. A map older than the process
 * it is looked up for was left by an earlier process with that pid. */
#include "perf-map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/procfs.h"

/* Entries below the nearest one that are tried for an address, for maps
 * where pieces of code overlap (a method recompiled into a bigger blob). */
#define SCAN_BACK 16
/* A file is read this much at a time (a longer line is cut here). */
#define READ_CHUNK 65536
/* How much earlier than the process's start a map may seem to be written
 * and still be its own: clock granularity (the start time is in 10 ms
 * ticks, file times lag by a tick) plus the drift between the wall clock
 * and the boot clock while the process ran (NTP slews up to 0.05%). */
#define STALE_SLACK_NS 1000000000LL
#define STALE_SLACK_PER_MILLE 1

struct pm_entry {
	uint64_t start, end;
	uint32_t name; /* offset in names */
	uint32_t seq;  /* line order: later lines win */
};

struct perf_map {
	struct pm_entry *e;
	size_t n, ecap;
	char *names;
	size_t nlen, ncap;
	uint32_t seq;
	size_t skipped;
	uint64_t cut; /* bytes in the file when it was not read to its end */
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

/* One line [p, line_end) (without its '\n'). 0, 1 when a cap was reached
 * (nothing more is taken), -ENOMEM. */
static int add_line(struct perf_map *m, const char *p, const char *line_end)
{
	const char *q = p, *name;
	uint64_t start, size;
	size_t name_len;

	if (line_end > p && line_end[-1] == '\r')
		line_end--;
	if (line_end == p) /* blank lines are not errors */
		return 0;
	if (!parse_hex(&q, line_end, &start) || q >= line_end || *q++ != ' ' ||
	    !parse_hex(&q, line_end, &size) || q >= line_end || *q++ != ' ' || !size ||
	    start + size < start) {
		m->skipped++;
		return 0;
	}
	name = q;
	name_len = (size_t)(line_end - name);
	if (name_len > PERF_MAP_MAX_NAME)
		name_len = PERF_MAP_MAX_NAME;
	if (!name_len || memchr(name, '\0', name_len)) {
		m->skipped++;
		return 0;
	}
	if (m->n >= PERF_MAP_MAX_ENTRIES || m->nlen > UINT32_MAX - name_len - 1 ||
	    m->seq == UINT32_MAX)
		return 1;
	if (GROW(m->e, m->ecap, m->n + 1) || GROW(m->names, m->ncap, m->nlen + name_len + 1))
		return -ENOMEM;
	m->e[m->n++] = (struct pm_entry){
		.start = start, .end = start + size, .name = (uint32_t)m->nlen, .seq = m->seq++,
	};
	memcpy(m->names + m->nlen, name, name_len);
	m->names[m->nlen + name_len] = '\0';
	m->nlen += name_len + 1;
	return 0;
}

/* The lines of [p, end), the last one maybe without '\n'. As add_line. */
static int add_lines(struct perf_map *m, const char *p, const char *end)
{
	int r = 0;

	while (p < end && !r) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		r = add_line(m, p, eol ? eol : end);
		p = eol ? eol + 1 : end;
	}
	return r;
}

/* Sorted by address; of entries starting at one address, the last line
 * wins. */
static void finish(struct perf_map *m)
{
	size_t i, k;

	if (m->n)
		qsort(m->e, m->n, sizeof(*m->e), entry_cmp);
	for (i = 0, k = 0; i < m->n; i++) {
		if (k && m->e[k - 1].start == m->e[i].start)
			k--;
		m->e[k++] = m->e[i];
	}
	m->n = k;
}

struct perf_map *perf_map__parse(const char *text, size_t len)
{
	struct perf_map *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return NULL;
	r = add_lines(m, text, text + (len > PERF_MAP_MAX_BYTES ? PERF_MAP_MAX_BYTES : len));
	if (r < 0) {
		perf_map__free(m);
		errno = ENOMEM;
		return NULL;
	}
	if (r || len > PERF_MAP_MAX_BYTES)
		m->cut = len;
	finish(m);
	return m;
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

uint64_t perf_map__cut(const struct perf_map *m)
{
	return m->cut;
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

void perf_map__entry(const struct perf_map *m, size_t i, uint64_t *start, uint64_t *end,
		     const char **name)
{
	*start = m->e[i].start;
	*end = m->e[i].end;
	*name = m->names + m->e[i].name;
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
	struct procfs_status st;

	procfs_status((pid_t)pid, 0, &st); /* st.nspid is pid when unreadable */
	return st.nspid;
}

/* Reads the lines of fd into m, READ_CHUNK bytes at a time, at most
 * PERF_MAP_MAX_BYTES (and PERF_MAP_MAX_ENTRIES lines); sets m->cut when
 * there was more. 0 or -errno. */
static int read_lines(int fd, const struct stat *st, struct perf_map *m)
{
	char *buf = malloc(READ_CHUNK);
	size_t have = 0, total = 0;
	int skipping = 0, full = 0, err = 0;

	if (!buf)
		return -ENOMEM;
	while (!full && !err) {
		size_t want = READ_CHUNK - have;
		const char *p = buf, *nl;
		ssize_t r;

		if (want > PERF_MAP_MAX_BYTES - total)
			want = PERF_MAP_MAX_BYTES - total;
		r = want ? read(fd, buf + have, want) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r) { /* the end, or the cap: the last line may lack its '\n' */
			if (have && !skipping)
				full = add_line(m, buf, buf + have);
			break;
		}
		total += (size_t)r;
		have += (size_t)r;
		while (!full && (nl = memchr(p, '\n', (size_t)(buf + have - p)))) {
			if (!skipping)
				full = add_line(m, p, nl);
			skipping = 0;
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == READ_CHUNK) { /* a line longer than a chunk: its start */
			if (!skipping)
				full = add_line(m, buf, buf + have);
			skipping = 1;
			have = 0;
		}
	}
	free(buf);
	if (full < 0)
		return full;
	if (err)
		return err;
	if (full || total >= PERF_MAP_MAX_BYTES) {
		char c;

		if (full || read(fd, &c, 1) > 0)
			m->cut = (uint64_t)st->st_size > total ? (uint64_t)st->st_size : total + 1;
	}
	return 0;
}

int perf_map__proc_start(uint32_t pid, int64_t *start_ns, int64_t *ran_ns)
{
	struct timespec boot, real;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0 || procfs_start_ticks((pid_t)pid, &ticks) ||
	    clock_gettime(CLOCK_BOOTTIME, &boot) || clock_gettime(CLOCK_REALTIME, &real))
		return -EIO;
	*ran_ns = (int64_t)boot.tv_sec * 1000000000LL + boot.tv_nsec -
		  (int64_t)(ticks / (unsigned long long)hz) * 1000000000LL -
		  (int64_t)(ticks % (unsigned long long)hz) * (1000000000LL / hz);
	*start_ns = (int64_t)real.tv_sec * 1000000000LL + real.tv_nsec - *ran_ns;
	return 0;
}

int perf_map__stale(const struct stat *st, int64_t start_ns, int64_t ran_ns)
{
	int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
	int64_t slack = STALE_SLACK_NS + (ran_ns > 0 ? ran_ns / 1000 * STALE_SLACK_PER_MILLE : 0);

	return mtime < start_ns - slack;
}

/* Opens, checks and parses one candidate; start_ns/ran_ns: the process's
 * start (proc_start), or ran_ns < 0 when unknown. */
static int load_file(const char *path, uid_t target_uid, int64_t start_ns, int64_t ran_ns,
		     struct perf_map **out)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	enum perf_map_verdict v;
	struct perf_map *m;
	struct stat st;
	int err;

	if (fd < 0)
		return errno == ELOOP ? PERF_MAP_NOT_REGULAR : PERF_MAP_MISSING;
	if (fstat(fd, &st)) {
		close(fd);
		return PERF_MAP_MISSING;
	}
	v = perf_map__check(&st, geteuid(), target_uid);
	if (v == PERF_MAP_OK && ran_ns >= 0 && perf_map__stale(&st, start_ns, ran_ns))
		v = PERF_MAP_STALE;
	m = v == PERF_MAP_OK ? calloc(1, sizeof(*m)) : NULL;
	if (v != PERF_MAP_OK || !m) {
		close(fd);
		return v != PERF_MAP_OK ? (int)v : -ENOMEM;
	}
	err = read_lines(fd, &st, m);
	close(fd);
	if (err) {
		perf_map__free(m);
		return err == -ENOMEM ? err : PERF_MAP_MISSING;
	}
	finish(m);
	*out = m;
	return PERF_MAP_OK;
}

int perf_map__load_pid(uint32_t pid, const char *root_prefix, struct perf_map **out,
		       char *path, size_t pathlen)
{
	uid_t target_uid = (uid_t)-1;
	int64_t start_ns = 0, ran_ns = -1;
	char proc[64];
	struct stat st;
	int r = PERF_MAP_MISSING, n;

	*out = NULL;
	if (pathlen)
		path[0] = '\0';
	if (root_prefix) {
		n = snprintf(path, pathlen, "%s/tmp/perf-%u.map", root_prefix, (unsigned)pid);
		return n > 0 && (size_t)n < pathlen ? load_file(path, target_uid, 0, -1, out)
						    : PERF_MAP_MISSING;
	}
	snprintf(proc, sizeof(proc), "/proc/%u", (unsigned)pid);
	if (!stat(proc, &st)) {
		target_uid = st.st_uid;
		if (perf_map__proc_start(pid, &start_ns, &ran_ns))
			ran_ns = -1;
		n = snprintf(path, pathlen, "/proc/%u/root/tmp/perf-%u.map", (unsigned)pid,
			     (unsigned)perf_map__nspid(pid));
		if (n > 0 && (size_t)n < pathlen)
			r = load_file(path, target_uid, start_ns, ran_ns, out);
		if (r != PERF_MAP_MISSING)
			return r;
	}
	n = snprintf(path, pathlen, "/tmp/perf-%u.map", (unsigned)pid);
	if (n > 0 && (size_t)n < pathlen) {
		int r2 = load_file(path, target_uid, start_ns, ran_ns, out);

		/* A refusal in the process's own root is the more telling. */
		if (r2 != PERF_MAP_MISSING || r == PERF_MAP_MISSING)
			r = r2;
	}
	return r;
}
