/* kallsyms.c: the kernel's function symbols from /proc/kallsyms, for naming
 * kernel frames (see symbolize.h).
 *
 * Lines look like "ffffffff81000000 T _stext" or, for modules,
 * "ffffffffc0a01000 t func\t[module]". Only text symbols (t T w W) are kept,
 * named "func" or "func [module]", sorted by address with aliases dropped.
 * kallsyms has no sizes, so a symbol runs to the next one, bounded so that an
 * address the file does not describe is left unresolved: core kernel text
 * ends at _etext, the last symbol of a module (or of anything) gets at most
 * KSYM_TAIL bytes, and no symbol more than KSYM_MAX bytes.
 *
 * The file is read once with getline (about 10 MB and 150k lines on a
 * typical kernel); names go into one growing buffer, not a malloc each. */
#include "symbolize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/strtab.h"

#define KSYM_MAX (1u << 20) /* no kernel function is this large */
#define KSYM_TAIL (64u << 10) /* after the last symbol of a module */
#define KSYM_NAME_MAX 1024 /* longer lines are not kallsyms */

struct ksym {
	uint64_t addr, end;
	uint64_t obj;  /* hash of the module name; 0: core kernel */
	uint32_t name; /* offset in names */
	uint32_t seq;  /* line number, to keep file order among equals */
	uint8_t local; /* lowercase type */
	uint8_t underscores;
};

/* For kallsyms__find(): a name, its address and line number. */
struct ksym_name {
	uint64_t addr;
	uint32_t name, seq;
};

struct kallsyms {
	struct ksym *syms;
	size_t nsyms, syms_cap;
	char *names;
	size_t names_len, names_cap;
	int hidden;
	/* the aliases the address order dropped, and (built at the first
	 * kallsyms__find) every name in name order */
	struct ksym_name *aliases, *byname;
	size_t naliases, aliases_cap, nbyname;
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int add_name(struct kallsyms *k, const char *s, size_t len, const char *mod,
		    size_t mod_len, uint32_t *off)
{
	size_t need = len + (mod_len ? mod_len + 3 : 0) + 1;
	char *p;

	if (k->names_len > UINT32_MAX - need)
		return -ENOMEM;
	if (GROW(k->names, k->names_cap, k->names_len + need))
		return -ENOMEM;
	*off = (uint32_t)k->names_len;
	p = k->names + k->names_len;
	memcpy(p, s, len);
	p += len;
	if (mod_len) {
		*p++ = ' ';
		*p++ = '[';
		memcpy(p, mod, mod_len);
		p += mod_len;
		*p++ = ']';
	}
	*p = '\0';
	k->names_len += need;
	return 0;
}

/* Parses one line and keeps it if it is a text symbol. Returns 1 for a
 * well-formed line (with *addr set), 0 for one that is not, or -ENOMEM. */
static int parse_line(struct kallsyms *k, const char *line, uint32_t seq, uint64_t *addr,
		      uint64_t *etext)
{
	const char *p = line, *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	struct ksym *s;
	int digits = 0, v, type, i;
	uint64_t a = 0;

	while ((v = hexval(*p)) >= 0 && digits < 16) {
		a = a << 4 | (uint64_t)v;
		p++;
		digits++;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;
	type = p[1];
	name = p + 3;
	name_len = strcspn(name, " \t\r\n");
	if (!name_len || name_len > KSYM_NAME_MAX)
		return 0;
	*addr = a;
	if (name[name_len] == '\t' || name[name_len] == ' ') {
		const char *m = name + name_len + 1;

		if (*m == '[') {
			mod = m + 1;
			mod_len = strcspn(mod, "]\r\n");
			if (mod[mod_len] != ']' || mod_len > KSYM_NAME_MAX)
				return 0;
		}
	}
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 1;
	if (!mod && name_len == 6 && !memcmp(name, "_etext", 6))
		*etext = a;
	if (GROW(k->syms, k->syms_cap, k->nsyms + 1))
		return -ENOMEM;
	s = &k->syms[k->nsyms];
	if (add_name(k, name, name_len, mod, mod_len, &s->name))
		return -ENOMEM;
	s->addr = a;
	s->end = 0;
	s->obj = mod_len ? hash_bytes(mod, mod_len) | 1 : 0;
	s->seq = seq;
	s->local = type == 't' || type == 'w';
	for (i = 0; i < 3 && name[i] == '_'; i++)
		;
	s->underscores = (uint8_t)i;
	k->nsyms++;
	return 1;
}

/* Address order; among aliases: global first, then fewest leading
 * underscores, then the file's order. */
static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->local != b->local)
		return a->local - b->local;
	if (a->underscores != b->underscores)
		return a->underscores - b->underscores;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int finish(struct kallsyms *k, uint64_t etext)
{
	struct ksym *s = k->syms;
	size_t i, n = 0;

	if (k->nsyms)
		qsort(s, k->nsyms, sizeof(*s), ksym_cmp);
	for (i = 0; i < k->nsyms; i++) {
		if (!n || s[n - 1].addr != s[i].addr) {
			s[n++] = s[i];
			continue;
		}
		if (GROW(k->aliases, k->aliases_cap, k->naliases + 1))
			return -ENOMEM;
		k->aliases[k->naliases++] = (struct ksym_name){s[i].addr, s[i].name, s[i].seq};
	}
	k->nsyms = n;
	for (i = 0; i < n; i++) {
		uint64_t end;

		if (i + 1 < n && s[i + 1].obj == s[i].obj)
			end = s[i + 1].addr;
		else if (i + 1 < n && s[i + 1].addr - s[i].addr < KSYM_TAIL)
			end = s[i + 1].addr;
		else
			end = s[i].addr + KSYM_TAIL;
		if (end - s[i].addr > KSYM_MAX)
			end = s[i].addr + KSYM_MAX;
		if (!s[i].obj && etext && s[i].addr < etext && end > etext)
			end = etext;
		if (!s[i].obj && etext && s[i].addr == etext)
			end = etext; /* the _etext marker itself covers nothing */
		if (end < s[i].addr) /* wrapped past the top of memory */
			end = UINT64_MAX;
		s[i].end = end;
	}
	return 0;
}

struct kallsyms *kallsyms__load(const char *path)
{
	struct kallsyms *k;
	char *line = NULL;
	size_t cap = 0, lines = 0, nonzero = 0;
	uint64_t etext = 0;
	uint32_t seq = 0;
	int err = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		uint64_t addr = 0;
		int r;

		/* A NUL inside a line only ends it early: parsing is by C string. */
		r = parse_line(k, line, seq++, &addr, &etext);
		if (r < 0) {
			err = -r;
			break;
		}
		if (r) {
			lines++;
			nonzero += addr != 0;
		}
	}
	if (!err && ferror(f))
		err = errno ? errno : EIO;
	free(line);
	fclose(f);
	if (err) {
		kallsyms__free(k);
		errno = err;
		return NULL;
	}
	if (lines && !nonzero) {
		/* kernel.kptr_restrict: every address reads as 0. */
		k->hidden = 1;
		k->nsyms = 0;
	}
	err = -finish(k, etext);
	if (err) {
		kallsyms__free(k);
		errno = err;
		return NULL;
	}
	return k;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k->aliases);
	free(k->byname);
	free(k);
}

int kallsyms__hidden(const struct kallsyms *k)
{
	return k->hidden;
}

int kallsyms__lookup(const struct kallsyms *k, uint64_t addr, const char **name,
		     uint64_t *sym_off)
{
	size_t lo = 0, hi = k->nsyms;
	const struct ksym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	s = &k->syms[lo - 1];
	if (addr >= s->end)
		return 0;
	*name = k->names + s->name;
	*sym_off = addr - s->addr;
	return 1;
}

/* Name order, then the file's: the first of a name's lines wins. */
static int name_cmp(const void *pa, const void *pb, void *names)
{
	const struct ksym_name *a = pa, *b = pb;
	int c = strcmp((const char *)names + a->name, (const char *)names + b->name);

	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static int build_byname(struct kallsyms *k)
{
	size_t n = k->nsyms + k->naliases;

	k->byname = malloc((n ? n : 1) * sizeof(*k->byname));
	if (!k->byname)
		return -ENOMEM;
	for (size_t i = 0; i < k->nsyms; i++)
		k->byname[i] = (struct ksym_name){k->syms[i].addr, k->syms[i].name, k->syms[i].seq};
	if (k->naliases)
		memcpy(k->byname + k->nsyms, k->aliases, k->naliases * sizeof(*k->aliases));
	if (n)
		qsort_r(k->byname, n, sizeof(*k->byname), name_cmp, k->names);
	k->nbyname = n;
	return 0;
}

/* strcmp of the len bytes at name (a NUL-free piece) against s. */
static int piece_cmp(const char *name, size_t len, const char *s)
{
	int c = strncmp(name, s, len);

	return c ? c : -(s[len] != '\0');
}

int kallsyms__find(struct kallsyms *k, const char *name, size_t len, uint64_t *addr)
{
	size_t lo = 0, hi;

	if (!k->byname && build_byname(k))
		return 0;
	if (memchr(name, '\0', len))
		return 0;
	hi = k->nbyname;
	while (lo < hi) { /* the first entry not below name */
		size_t mid = lo + (hi - lo) / 2;

		if (piece_cmp(name, len, k->names + k->byname[mid].name) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == k->nbyname || piece_cmp(name, len, k->names + k->byname[lo].name))
		return 0;
	*addr = k->byname[lo].addr;
	return 1;
}
