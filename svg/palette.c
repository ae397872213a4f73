/* palette.c: the color of every frame (see svg.h, svg-internal.h).
 *
 * A name's color is a function of the name alone: a 32-bit FNV-1a hash of
 * it picks one of a few shades of the palette's hue (few, so one CSS class
 * per color stays cheap), the same in every graph and on every machine.
 * The hue formulas are flamegraph.pl's, so graphs look the way users
 * expect. The java palette first sorts a frame into a kind by its
 * annotation or its shape, each kind in its own hue: JIT-compiled `_[j]`
 * green, HotSpot's interpreter (`Interpreter_[j]`) pale mint, inlined
 * aqua, Java without annotation lime, C++ (libjvm) yellow, kernel orange,
 * other native code red.
 *
 * Palette maps hold name -> color pairs read from and written back to a
 * palette file, so graphs compared side by side use the same colors
 * (flamegraph.pl's --cp and palette.map). flamegraph.pl's files start with
 * "->rgb(...)", the color of its root, whose name is empty: kept and
 * written back, not used (prof's root has its own color). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/strtab.h"
#include "svg/svg-internal.h"

static uint32_t fnv1a(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static uint32_t rgb(double r, double g, double b)
{
	return (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

/* The annotation letter of "name_[x]" ('k', 'j', 'i'), or 0. */
static char annotation(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kji", name[len - 2]) && name[len - 2])
		return name[len - 2];
	return 0;
}

static int has(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

/* Java class names as perf maps and JVM agents print them: a package path
 * ("java/util/HashMap.get", "Ljava/lang/Object;::<init>",
 * "org.example.Foo::bar") or perf-map-agent's ":::" separator. */
static int looks_java(const char *s, size_t len)
{
	static const char *const roots[] = {"java", "javax", "jdk", "sun", "com", "org",
					    "net", "io", "scala", "kotlin", "clojure"};
	size_t i, off = len && s[0] == 'L' ? 1 : 0;

	if (has(s, len, ":::"))
		return 1;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i]);

		if (len > off + n && !memcmp(s + off, roots[i], n) &&
		    (s[off + n] == '/' || s[off + n] == '.'))
			return 1;
	}
	return 0;
}

uint32_t svg_palette_color(enum svg_palette pal, const char *name, size_t len)
{
	char ann = annotation(name, len);
	uint32_t h = fnv1a(name, ann ? len - 4 : len);
	/* Shades: v1 in 16 steps, v2 and v3 in 4 (at most 256 colors). */
	double v1 = (h & 15) / 15.0, v2 = (h >> 4 & 3) / 3.0, v3 = (h >> 6 & 3) / 3.0;
	double x;

	switch (pal) {
	case SVG_PALETTE_MEM:
		return rgb(0, 190 + 50 * v2, 210 * v1);
	case SVG_PALETTE_IO:
		x = 80 + 60 * v1;
		return rgb(x, x, 190 + 55 * v2);
	case SVG_PALETTE_JAVA:
		if (ann == 'k') /* kernel: orange */
			return rgb(190 + 65 * v1, 90 + 65 * v1, 0);
		if (ann == 'j' && len == 15 && !memcmp(name, "Interpreter", 11)) {
			/* HotSpot's template interpreter (a method not compiled
			 * yet, or running its first iterations): pale mint, as
			 * async-profiler shows interpreted frames, apart from
			 * compiled ones */
			x = 190 + 30 * v1;
			return rgb(x, 235 + 20 * v1, x + 10 * v1);
		}
		if (ann == 'j') { /* JIT-compiled: green */
			x = 50 + 60 * v1;
			return rgb(x, 200 + 55 * v1, x);
		}
		if (ann == 'i') /* inlined: aqua */
			return rgb(50 + 60 * v1, 165 + 55 * v1, 165 + 55 * v1);
		if (looks_java(name, len)) /* Java (interpreted, unannotated): lime */
			return rgb(150 + 40 * v1, 200 + 40 * v1, 60 + 40 * v1);
		if (has(name, len, "::")) { /* C++: yellow */
			x = 175 + 55 * v1;
			return rgb(x, x, 50 + 20 * v1);
		}
		x = 50 + 80 * v1; /* native: red */
		return rgb(200 + 55 * v1, x, x);
	case SVG_PALETTE_HOT:
	default:
		return rgb(205 + 50 * v3, 230 * v1, 55 * v2);
	}
}

/* ---- palette maps ---- */

struct svg_palette_map {
	struct strtab names; /* id 0 is "" and unused */
	uint32_t *colors;    /* by name id */
	size_t colors_cap;
	size_t count;
	int changed;
	int has_root;        /* an "->rgb(...)" line: flamegraph.pl's root */
	uint32_t root_color;
};

struct svg_palette_map *svg_palette_map__new(void)
{
	struct svg_palette_map *m = calloc(1, sizeof(*m));

	if (!m || strtab__init(&m->names)) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void svg_palette_map__free(struct svg_palette_map *m)
{
	if (!m)
		return;
	strtab__release(&m->names);
	free(m->colors);
	free(m);
}

static int set(struct svg_palette_map *m, const char *name, size_t len, uint32_t color)
{
	uint32_t id;

	if (strtab__intern(&m->names, name, len, &id) || GROW(m->colors, m->colors_cap, id + 1))
		return -ENOMEM;
	m->count = m->names.count - 1; /* ids are dense, 0 is "" */
	m->colors[id] = color;
	return 0;
}

int svg_palette_map__get(const struct svg_palette_map *m, const char *name, size_t len,
			 uint32_t *color)
{
	uint32_t id;

	if (!len || !strtab__find(&m->names, name, len, &id))
		return 0;
	*color = m->colors[id];
	return 1;
}

int svg_palette_map__add(struct svg_palette_map *m, const char *name, size_t len, uint32_t color)
{
	m->changed = 1;
	return set(m, name, len, color);
}

int svg_palette_map__changed(const struct svg_palette_map *m)
{
	return m->changed;
}

size_t svg_palette_map__count(const struct svg_palette_map *m)
{
	return m->count;
}

/* Parses "rgb(R,G,B)" (spaces allowed around numbers) exactly. */
static int parse_rgb(const char *s, size_t len, uint32_t *out)
{
	unsigned v[3] = {0, 0, 0};
	size_t i = 4, k;

	if (len < 10 || memcmp(s, "rgb(", 4) || s[len - 1] != ')')
		return -EINVAL;
	len--;
	for (k = 0; k < 3; k++) {
		size_t digits = 0;

		while (i < len && s[i] == ' ')
			i++;
		while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 4) {
			v[k] = v[k] * 10 + (unsigned)(s[i++] - '0');
			digits++;
		}
		while (i < len && s[i] == ' ')
			i++;
		if (!digits || v[k] > 255)
			return -EINVAL;
		if (k < 2 && (i >= len || s[i++] != ','))
			return -EINVAL;
	}
	if (i != len)
		return -EINVAL;
	*out = v[0] << 16 | v[1] << 8 | v[2];
	return 0;
}

int svg_palette_map__read(struct svg_palette_map *m, const char *text, size_t len,
			  size_t *bad_line)
{
	size_t pos = 0, lineno = 0;

	*bad_line = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, llen = end - pos, sep;
		const char *line = text + pos;
		uint32_t color;

		lineno++;
		pos = end + 1;
		if (llen && line[llen - 1] == '\r')
			llen--;
		if (!llen)
			continue;
		/* The color has no "->"; the name may. */
		for (sep = llen; sep >= 2 && !(line[sep - 2] == '-' && line[sep - 1] == '>'); sep--)
			;
		if (sep < 2 || parse_rgb(line + sep, llen - sep, &color)) {
			*bad_line = lineno;
			return -EBADMSG;
		}
		if (sep == 2) {
			m->has_root = 1;
			m->root_color = color;
		} else if (set(m, line, sep - 2, color)) {
			return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_ids(const void *a, const void *b, void *arg)
{
	const struct strtab *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t lx = strtab__len(t, x), ly = strtab__len(t, y);
	int r = memcmp(strtab__str(t, x), strtab__str(t, y), lx < ly ? lx : ly);

	return r ? r : (lx > ly) - (lx < ly);
}

int svg_palette_map__write(const struct svg_palette_map *m, FILE *out)
{
	uint32_t *ids = malloc((m->count ? m->count : 1) * sizeof(*ids));
	size_t i;
	int err = 0;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < m->count; i++)
		ids[i] = (uint32_t)i + 1;
	qsort_r(ids, m->count, sizeof(*ids), cmp_ids, (void *)&m->names);
	errno = 0;
	if (m->has_root && fprintf(out, "->rgb(%u,%u,%u)\n", m->root_color >> 16,
				   m->root_color >> 8 & 0xff, m->root_color & 0xff) < 0)
		err = errno ? -errno : -EIO;
	for (i = 0; i < m->count && !err; i++) {
		uint32_t c = m->colors[ids[i]];

		/* flamegraph.pl splits a line at every "->": such a name would
		 * give its first part a broken color. Left out (its color is
		 * the palette's, the same every time). */
		if (memmem(strtab__str(&m->names, ids[i]), strtab__len(&m->names, ids[i]), "->", 2))
			continue;
		if (fwrite(strtab__str(&m->names, ids[i]), 1, strtab__len(&m->names, ids[i]), out) !=
			    strtab__len(&m->names, ids[i]) ||
		    fprintf(out, "->rgb(%u,%u,%u)\n", c >> 16, c >> 8 & 0xff, c & 0xff) < 0)
			err = errno ? -errno : -EIO;
	}
	free(ids);
	if (!err && fflush(out))
		err = errno ? -errno : -EIO;
	return err;
}
