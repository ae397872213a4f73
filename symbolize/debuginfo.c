/* debuginfo.c: finds a binary's separate debug file through its build-id or
 * its .gnu_debuglink, in the binary's directory, its .debug/ subdirectory
 * and the global debug directories, inside a container's root first and
 * then on the host (see debuginfo.h for the order and the checks).
 *
 * Work is bounded: at most 2 candidates per debug directory for the
 * build-id and 2 + 2 per directory for the debuglink; each candidate costs a
 * stat, and an open + ELF header read when it exists; a debuglink candidate
 * is read once in full for its CRC. Nothing is cached here: the caller
 * looks each binary up once. */
#include "debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int debuginfo_read_debuglink(Elf *elf, struct debuglink *link)
{
	Elf_Scn *scn = elf_section_by_name(elf, ".gnu_debuglink");
	const unsigned char *p;
	size_t len, crc_at;
	Elf_Data *d;
	GElf_Ehdr eh;
	uint32_t crc;

	if (!scn || !gelf_getehdr(elf, &eh))
		return 0;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return 0;
	p = d->d_buf;
	len = strnlen((const char *)p, d->d_size);
	/* The name, its NUL, padding to 4 bytes, then the CRC. */
	crc_at = (len + 4) & ~(size_t)3;
	if (!len || len >= sizeof(link->name) || crc_at > d->d_size || d->d_size - crc_at < 4)
		return 0;
	if (memchr(p, '/', len) || !strcmp((const char *)p, ".") || !strcmp((const char *)p, ".."))
		return 0;
	memcpy(&crc, p + crc_at, 4);
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		crc = __builtin_bswap32(crc);
	memcpy(link->name, p, len);
	link->name[len] = '\0';
	link->crc = crc;
	return 1;
}

int debuginfo_file_crc(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (!n)
			break;
		c = crc32(c, buf, (uInt)n);
	}
	close(fd);
	*crc = (uint32_t)c;
	return 0;
}

struct search {
	const struct debuginfo_query *q;
	struct stat bin; /* the binary: never its own debug file */
	int have_bin;
	char *out;
	size_t outlen;
};

/* Is `path` the debug file we want? 1 yes, 0 no, -ENOMEM. */
static int check_candidate(struct search *s, const char *path, const struct debuglink *link)
{
	const char *want = s->q->build_id ? s->q->build_id : "";
	char have[DEBUGINFO_BUILD_ID_HEX];
	struct stat st;
	Elf *elf;
	int fd, ok;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (s->have_bin && st.st_dev == s->bin.st_dev && st.st_ino == s->bin.st_ino)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (ok) {
		elf_build_id_hex(elf, have);
		ok = !strcasecmp(have, want);
	}
	elf_end(elf);
	close(fd);
	if (ok && link) {
		uint32_t crc;

		ok = !debuginfo_file_crc(path, &crc) && crc == link->crc;
	}
	if (!ok || strlen(path) >= s->outlen)
		return 0;
	memcpy(s->out, path, strlen(path) + 1);
	return 1;
}

/* Tries the path made of the parts (NULLs skipped); a path too long for
 * PATH_MAX is no candidate. */
static int try_path(struct search *s, const struct debuglink *link, const char *a,
		    const char *b, const char *c, const char *d)
{
	const char *parts[4] = {a, b, c, d};
	char path[PATH_MAX];
	size_t len = 0, i, n;

	for (i = 0; i < 4; i++) {
		if (!parts[i])
			continue;
		n = strlen(parts[i]);
		if (n >= sizeof(path) - len)
			return 0;
		memcpy(path + len, parts[i], n);
		len += n;
	}
	path[len] = '\0';
	return check_candidate(s, path, link);
}

/* Calls fn for each directory in the ':'-separated list. Stops at the first
 * nonzero result and returns it. */
static int each_dir(struct search *s, const char *dirs, const char *arg,
		    int (*fn)(struct search *s, const char *dir, const char *arg))
{
	char dir[PATH_MAX];

	while (*dirs) {
		size_t n = strcspn(dirs, ":");

		if (n && n < sizeof(dir)) {
			int r;

			memcpy(dir, dirs, n);
			dir[n] = '\0';
			r = fn(s, dir, arg);
			if (r)
				return r;
		}
		dirs += n;
		if (*dirs == ':')
			dirs++;
	}
	return 0;
}

/* D/.build-id/xx/rest.debug, in the root first. arg: "xx/rest". */
static int by_build_id(struct search *s, const char *dir, const char *arg)
{
	int r = 0;

	if (s->q->root)
		r = try_path(s, NULL, s->q->root, dir, "/.build-id/", arg);
	if (!r)
		r = try_path(s, NULL, dir, "/.build-id/", arg, NULL);
	return r;
}

/* D/DIR/NAME, in the root first. arg: "DIR/NAME" (DIR as seen inside the
 * root, starting with '/'). */
static int by_link_in_dir(struct search *s, const char *dir, const char *arg)
{
	int r = 0;

	if (s->q->root)
		r = try_path(s, s->q->link, s->q->root, dir, arg, NULL);
	if (!r)
		r = try_path(s, s->q->link, dir, arg, NULL, NULL);
	return r;
}

int debuginfo_locate(const struct debuginfo_query *q, char *out, size_t outlen)
{
	const char *dirs = q->dirs ? q->dirs : getenv(DEBUGINFO_ENV);
	const char *bid = q->build_id ? q->build_id : "";
	struct search s = {.q = q, .out = out, .outlen = outlen};
	int r = 0;

	if (!dirs || !*dirs)
		dirs = DEBUGINFO_DEFAULT_DIRS;
	s.have_bin = !stat(q->binary, &s.bin);
	/* A build-id is at least 2 bytes (4 hex digits) to make xx/rest. */
	if (strlen(bid) >= 4 && strspn(bid, "0123456789abcdefABCDEF") == strlen(bid)) {
		char name[DEBUGINFO_BUILD_ID_HEX + 8];

		name[0] = bid[0];
		name[1] = bid[1];
		name[2] = '/';
		memcpy(name + 3, bid + 2, strlen(bid + 2));
		memcpy(name + 3 + strlen(bid + 2), ".debug", 7);
		r = each_dir(&s, dirs, name, by_build_id);
	}
	if (!r && q->link) {
		const char *slash = strrchr(q->binary, '/');
		const char *inner = q->binary;
		char bindir[PATH_MAX], rel[PATH_MAX];
		size_t n, rootlen = q->root ? strlen(q->root) : 0;

		/* The binary's directory as opened, and as seen in its root. */
		n = slash ? (size_t)(slash - q->binary) : 0;
		if (!slash)
			memcpy(bindir, ".", 2);
		else if (n < sizeof(bindir)) {
			memcpy(bindir, q->binary, n);
			bindir[n] = '\0';
		} else {
			return -ENOENT;
		}
		if (rootlen && !strncmp(q->binary, q->root, rootlen) && q->binary[rootlen] == '/')
			inner = q->binary + rootlen;
		r = try_path(&s, q->link, bindir, "/", q->link->name, NULL);
		if (!r)
			r = try_path(&s, q->link, bindir, "/.debug/", q->link->name, NULL);
		if (!r && inner[0] == '/') {
			n = (size_t)(strrchr(inner, '/') - inner); /* the dir, no trailing '/' */
			if (n + strlen(q->link->name) + 2 <= sizeof(rel)) {
				memcpy(rel, inner, n);
				rel[n] = '/';
				memcpy(rel + n + 1, q->link->name, strlen(q->link->name) + 1);
				r = each_dir(&s, dirs, rel, by_link_in_dir);
			}
		}
	}
	if (r < 0)
		return r;
	return r ? 0 : -ENOENT;
}

int debuginfo_find(const char *binary, const char *root, char *out, size_t outlen)
{
	char bid[DEBUGINFO_BUILD_ID_HEX];
	struct debuglink link;
	struct debuginfo_query q = {.binary = binary, .root = root, .build_id = bid};
	int fd, have_link = 0;
	Elf *elf;

	fd = open(binary, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	elf_build_id_hex(elf, bid);
	have_link = debuginfo_read_debuglink(elf, &link);
	elf_end(elf);
	close(fd);
	q.link = have_link ? &link : NULL;
	return debuginfo_locate(&q, out, outlen);
}
