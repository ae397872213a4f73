/* names.c: prof top's live names for frames (top-internal.h), the way the
 * end of prof record names them (symbolize/symbolize-recording.c) and prof
 * report shows them (report/builder.c): ELF symbols by file offset,
 * demangled and without "@VERSION"; JIT code from /tmp/perf-PID.map with
 * "_[j]"; kernel frames from /proc/kallsyms with "_[k]"; else
 * "[binary+0xoffset]". Names are cached per frame (in the tap) and
 * binaries per (device, inode); a JIT map is read again at most once per
 * RELOAD_NS for a process with unnamed JIT frames, as the JIT adds code.
 * No DWARF inline expansion (prof report shows inlined frames; top shows
 * the out-of-line function). */
#include "top-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/grow.h"
#include "symbolize/demangle.h"
#include "symbolize/perf-map.h"
#include "symbolize/symbolize.h"
#include "symbolize/vdso.h"

#define RELOAD_NS 1000000000ULL
#define MAX_BINARIES 4096 /* distinct files kept open; past it, names stay raw */

struct binary {
	dev_t dev;
	ino_t ino;
	struct elf_symtab *tab; /* NULL: unusable */
};

struct jit {
	uint32_t pid;
	struct perf_map *map;
	uint64_t loaded_ns;
};

struct top_names {
	struct strtab names[2]; /* by the tap's generation of the frames */
	struct binary *bins;
	size_t nbins, bins_cap;
	struct keymap bin_of_path; /* (pid, tap strs id of the path) -> bins index + 1 */
	struct jit *jits;
	size_t njits, jits_cap;
	struct kallsyms *ksyms;
	int ksyms_tried;
	struct elf_symtab *vdso;
	int vdso_tried;
	char text[PATH_MAX + 64];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct top_names *top_names__new(void)
{
	struct top_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	if (strtab__init(&n->names[0]) || strtab__init(&n->names[1]) ||
	    keymap__init(&n->bin_of_path, 64)) {
		top_names__free(n);
		errno = ENOMEM;
		return NULL;
	}
	return n;
}

void top_names__free(struct top_names *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nbins; i++)
		elf_symtab__free(n->bins[i].tab);
	free(n->bins);
	for (i = 0; i < n->njits; i++)
		perf_map__free(n->jits[i].map);
	free(n->jits);
	kallsyms__free(n->ksyms);
	elf_symtab__free(n->vdso);
	keymap__release(&n->bin_of_path);
	strtab__release(&n->names[0]);
	strtab__release(&n->names[1]);
	free(n);
}

/* As symbolize-recording.c: paths in maps that name no file to open. */
static int is_pseudo_path(const char *p)
{
	static const char *const prefixes[] = {
		"//", "/memfd:", "/dev/", "/SYSV", "/anon_hugepage", "/[",
	};

	if (p[0] != '/')
		return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(p, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static int is_jit_path(const char *p)
{
	return !strcmp(p, "//anon") || !strncmp(p, "[anon", 5) || !strncmp(p, "/memfd:", 7) ||
	       !*p;
}

static struct elf_symtab *load_file(struct top_names *n, const char *file, const char *root)
{
	struct elf_symtab_opts lo = {.root = root};
	struct stat st;
	size_t i;

	if (stat(file, &st))
		return NULL;
	for (i = 0; i < n->nbins; i++)
		if (n->bins[i].dev == st.st_dev && n->bins[i].ino == st.st_ino)
			return n->bins[i].tab;
	if (n->nbins >= MAX_BINARIES || GROW(n->bins, n->bins_cap, n->nbins + 1))
		return NULL;
	n->bins[n->nbins] = (struct binary){.dev = st.st_dev, .ino = st.st_ino,
					    .tab = elf_symtab__load_opts(file, &lo)};
	return n->bins[n->nbins++].tab;
}

/* The symbols of mapping m (path: its text): through /proc/PID/root first
 * (the process's mount namespace), then as is; cached per (pid, path). */
static struct elf_symtab *binary_of(struct top_names *n, const struct rec_mapping *m,
				    const char *path)
{
	char file[PATH_MAX], root[32];
	struct elf_symtab *tab = NULL;
	uint32_t v;
	size_t i;

	if (keymap__get(&n->bin_of_path, m->pid, m->path, &v))
		return v ? n->bins[v - 1].tab : NULL;
	if (!strcmp(path, "[vdso]")) {
		const void *img;
		size_t size, map_size;

		if (!n->vdso_tried && !vdso_image(&img, &size, &map_size)) {
			n->vdso_tried = 1;
			n->vdso = elf_symtab__load_image(img, size);
		}
		return vdso_matches(m->pid, m->start, m->end) ? n->vdso : NULL;
	}
	if (is_pseudo_path(path))
		return NULL;
	snprintf(root, sizeof(root), "/proc/%u/root", (unsigned)m->pid);
	if ((size_t)snprintf(file, sizeof(file), "%s%s", root, path) < sizeof(file))
		tab = load_file(n, file, root);
	if (!tab)
		tab = load_file(n, path, NULL);
	for (i = 0; i < n->nbins && n->bins[i].tab != tab; i++)
		;
	keymap__set(&n->bin_of_path, m->pid, m->path, tab && i < n->nbins ? (uint32_t)i + 1 : 0);
	return tab;
}

static struct perf_map *jit_of(struct top_names *n, uint32_t pid)
{
	char path[PATH_MAX];
	struct perf_map *map = NULL;
	size_t i;

	for (i = 0; i < n->njits && n->jits[i].pid != pid; i++)
		;
	if (i < n->njits && (n->jits[i].map || now_ns() - n->jits[i].loaded_ns < RELOAD_NS))
		return n->jits[i].map;
	if (i == n->njits) {
		if (GROW(n->jits, n->jits_cap, n->njits + 1))
			return NULL;
		n->jits[n->njits++] = (struct jit){.pid = pid};
	}
	if (perf_map__load_pid(pid, NULL, &map, path, sizeof(path)) != PERF_MAP_OK)
		map = NULL;
	n->jits[i].map = map;
	n->jits[i].loaded_ns = now_ns();
	return map;
}

/* The JIT map of pid read again (new code), when the last read is old. */
static struct perf_map *jit_reload(struct top_names *n, uint32_t pid)
{
	for (size_t i = 0; i < n->njits; i++)
		if (n->jits[i].pid == pid && now_ns() - n->jits[i].loaded_ns >= RELOAD_NS) {
			perf_map__free(n->jits[i].map);
			n->jits[i].map = NULL;
			n->jits[i].loaded_ns = 0;
			return jit_of(n, pid);
		}
	return NULL;
}

/* `name` demangled and without "@VERSION", + suffix, into n->text. */
static void set_text(struct top_names *n, const char *name, const char *suffix)
{
	char *d = demangle(name);
	const char *s = d ? d : name;
	const char *at = strchr(s, '@');
	size_t len = at && at > s ? (size_t)(at - s) : strlen(s);

	snprintf(n->text, sizeof(n->text), "%.*s%s", (int)(len < 4096 ? len : 4096), s, suffix);
	free(d);
}

/* report/builder.c's name of an unresolved frame. */
static void raw_text(struct top_names *n, const struct top_tap *t, const struct rec_frame *f)
{
	uint64_t addr = f->addr + ((f->flags & REC_FRAME_CALLER) ? 1 : 0);
	const char *suffix = (f->flags & REC_FRAME_KERNEL) ? "_[k]" : "";

	if (f->mapping != REC_NO_MAPPING && f->mapping < t->nmaps) {
		const struct rec_mapping *m = &t->maps[f->mapping];
		const char *path = top_tap__str(t, m->path);
		const char *slash = strrchr(path, '/');
		const char *base = slash && slash[1] ? slash + 1 : path;
		size_t len = strlen(base);

		if (len >= 3 && base[0] == '[' && base[len - 1] == ']') {
			base++;
			len -= 2;
		}
		if (!len) {
			base = "unknown";
			len = 7;
		}
		snprintf(n->text, sizeof(n->text), "[%.*s+0x%" PRIx64 "]%s",
			 (int)(len < 4096 ? len : 4096), base, addr - m->start + m->pgoff, suffix);
	} else {
		snprintf(n->text, sizeof(n->text), "[%s+0x%" PRIx64 "]%s",
			 (f->flags & REC_FRAME_KERNEL) ? "kernel.kallsyms" : "unknown", addr, suffix);
	}
}

/* Names frame f into n->text; 1 when final (cached), 0 when worth asking
 * again later (JIT code not in the map yet). */
static int resolve(struct top_names *n, const struct top_tap *t, const struct rec_frame *f)
{
	const char *name;
	uint64_t off;

	if (f->flags & REC_FRAME_KERNEL) {
		if (!n->ksyms_tried) {
			n->ksyms_tried = 1;
			n->ksyms = kallsyms__load("/proc/kallsyms");
		}
		if (n->ksyms && kallsyms__lookup(n->ksyms, f->addr, &name, &off))
			set_text(n, name, "_[k]");
		else
			raw_text(n, t, f);
		return 1;
	}
	if (f->mapping == REC_NO_MAPPING || f->mapping >= t->nmaps ||
	    is_jit_path(top_tap__str(t, t->maps[f->mapping].path))) {
		struct perf_map *map = f->pid ? jit_of(n, f->pid) : NULL;

		if (map && perf_map__lookup(map, f->addr, &name, &off)) {
			set_text(n, name, "_[j]");
			return 1;
		}
		map = f->pid ? jit_reload(n, f->pid) : NULL;
		if (map && perf_map__lookup(map, f->addr, &name, &off)) {
			set_text(n, name, "_[j]");
			return 1;
		}
		raw_text(n, t, f);
		return 0;
	}
	{
		const struct rec_mapping *m = &t->maps[f->mapping];
		struct elf_symtab *tab = binary_of(n, m, top_tap__str(t, m->path));

		if (tab && f->addr >= m->start && f->addr < m->end &&
		    elf_symtab__lookup_offset(tab, f->addr - m->start + m->pgoff, &name, &off))
			set_text(n, name, "");
		else
			raw_text(n, t, f);
	}
	return 1;
}

const char *top_names__frame(struct top_names *n, struct top_tap *t, unsigned gen,
			     uint32_t frame)
{
	struct top_gen *g = &t->gen[gen & 1];
	struct strtab *names = &n->names[gen & 1];
	uint32_t id;

	if (frame >= g->nframes)
		return "?";
	if (frame < g->frame_names_cap && g->frame_names[frame])
		return strtab__str(names, g->frame_names[frame] - 1);
	if (!resolve(n, t, &g->frames[frame]))
		return n->text; /* not cached: asked again next time */
	if (frame >= g->frame_names_cap) {
		size_t old = g->frame_names_cap;

		if (GROW(g->frame_names, g->frame_names_cap, g->nframes))
			return n->text;
		memset(g->frame_names + old, 0, (g->frame_names_cap - old) * sizeof(*g->frame_names));
	}
	if (!names->index || strtab__intern(names, n->text, strlen(n->text), &id))
		return n->text;
	g->frame_names[frame] = id + 1;
	return strtab__str(names, id);
}

void top_names__forget(struct top_names *n, unsigned gen)
{
	struct strtab *names = &n->names[gen & 1];

	strtab__release(names);
	strtab__init(names); /* failed: index NULL, nothing cached (top_names__frame) */
}
