/* symbolize-recording.c: names every frame a recording holds, once, at the
 * end of a recording (see symbolize.h).
 *
 * Frames are bucketed by mapping and the mappings ordered by path, so each
 * binary is opened once and its table freed as soon as every mapping of that
 * path is done: memory peaks at the tables of one path, not of the whole
 * system. A path can name different files in different mount namespaces
 * (containers), so within a path the loaded tables are told apart by device
 * and inode. Kernel frames go to kallsyms, loaded on the first one. The work
 * is O(frames + mappings log mappings) plus the loads.
 *
 * User frames outside any file (anonymous executable memory) are JIT code:
 * they are looked up in the process's perf map (perf-map.c), loaded once per
 * process and kept to the end. */
#include "symbolize.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/grow.h"
#include "lib/keymap.h"
#include "symbolize/jit-timeline.h"
#include "symbolize/perf-map.h"
#include "symbolize/demangle.h"
#include "symbolize/dwarf.h"
#include "symbolize/vdso.h"

#define DELETED_SUFFIX " (deleted)"
#define MAX_INLINE_DEPTH 64 /* inline records kept per frame, innermost first */

/* A file loaded (or found unloadable) for the current path. */
struct binary {
	dev_t dev;
	ino_t ino;
	struct elf_symtab *tab; /* NULL: not an ELF we can read */
	struct dwarf_info *dw;  /* NULL: no DWARF found for it */
};

/* A process's JIT map, loaded on its first frame in anonymous memory. */
struct jit_map {
	uint32_t pid;
	struct perf_map *map; /* NULL: none, or refused */
};

struct symbolizer {
	struct rec_writer *w;
	const char *kallsyms_path;
	const char *root_prefix; /* NULL: try /proc/PID/root first */
	const char *debug_dirs;
	int ids_only; /* symbolize_build_ids(): META entries only */
	const struct symbolize_opts *opts; /* NULL: none given */
	struct jit_timeline *timeline; /* maps read while recording, or NULL */
	struct symbolize_stats st;

	struct keymap jit_index; /* pid -> slot in jits */
	struct jit_map *jits;
	size_t njits, jits_cap;

	struct kallsyms *ksyms;
	int ksyms_tried;

	/* For the path being worked on. */
	struct binary *bins;
	size_t nbins, bins_cap;
	int path_missing_counted, path_build_id_written;
};

/* Interns `name` demangled (recordings hold demangled names). */
static int intern_name(struct symbolizer *s, const char *name, uint32_t *id)
{
	char *d = demangle(name);
	int err;

	if (!d && errno == ENOMEM)
		return -ENOMEM;
	err = rec_writer__string(s->w, d ? d : name, strlen(d ? d : name), id);
	free(d);
	return err;
}

static int emit_flags(struct symbolizer *s, uint32_t frame, const char *name, uint64_t off,
		      uint32_t flags)
{
	struct rec_symbol sym = {
		.frame = frame,
		.offset = off > UINT32_MAX ? UINT32_MAX : (uint32_t)off,
		.flags = flags,
	};
	int err = intern_name(s, name, &sym.name);

	if (!err)
		err = rec_writer__symbol(s->w, &sym);
	if (!err)
		s->st.resolved++;
	return err;
}

/* An ELF symbol's name without its version ("__libc_start_main@@GLIBC_2.34",
 * as debug files' .symtab spell versioned symbols): a function has one name
 * in a profile whichever table named it. */
static int emit(struct symbolizer *s, uint32_t frame, const char *name, uint64_t off)
{
	const char *at = strchr(name, '@');
	char plain[512];

	if (at && at > name && (size_t)(at - name) < sizeof(plain)) {
		memcpy(plain, name, (size_t)(at - name));
		plain[at - name] = '\0';
		return emit_flags(s, frame, plain, off, 0);
	}
	return emit_flags(s, frame, name, off, 0);
}

/* ---- JIT code: /tmp/perf-PID.map (perf-map.c) ---- */

static void note_refused(struct symbolizer *s, int verdict, const char *path)
{
	static const char *const why[] = {
		[PERF_MAP_NOT_REGULAR] = "not a regular file",
		[PERF_MAP_NOT_OWNED] = "not owned by root, the user running prof or the "
				       "process's owner",
		[PERF_MAP_WRITABLE] = "writable by others",
		[PERF_MAP_STALE] = "older than the process: left by an earlier process with "
				   "its pid",
	};

	s->st.perf_maps_ignored++;
	if (!s->st.notice[0])
		snprintf(s->st.notice, sizeof(s->st.notice), "ignoring JIT map '%.200s': %s", path,
			 why[verdict]);
}

static int jit_map_of(struct symbolizer *s, uint32_t pid, struct perf_map **map)
{
	char path[4096];
	uint32_t slot;
	int r;

	if (keymap__get(&s->jit_index, pid, 0, &slot)) {
		*map = s->jits[slot].map;
		return 0;
	}
	r = perf_map__load_pid(pid, s->root_prefix, map, path, sizeof(path));
	if (r < 0)
		return r;
	if (r == PERF_MAP_OK)
		s->st.perf_maps++;
	if (r == PERF_MAP_OK && perf_map__cut(*map) && !s->st.notice[0])
		snprintf(s->st.notice, sizeof(s->st.notice), "JIT map '%.200s' is larger "
			 "than prof reads (%u MB or %u lines): only its start is used", path,
			 PERF_MAP_MAX_BYTES >> 20, PERF_MAP_MAX_ENTRIES);
	else if (r != PERF_MAP_OK && r != PERF_MAP_MISSING)
		note_refused(s, r, path);
	if (GROW(s->jits, s->jits_cap, s->njits + 1) ||
	    keymap__put(&s->jit_index, pid, 0, (uint32_t)s->njits, NULL) < 0) {
		perf_map__free(*map);
		return -ENOMEM;
	}
	s->jits[s->njits++] = (struct jit_map){.pid = pid, .map = *map};
	return 0;
}

/* A named JIT frame: its symbol, and the methods the recorder saw inlined
 * at its pc as its inline records (innermost first, as DWARF's). */
static int emit_jit(struct symbolizer *s, uint32_t id, const struct rec_frame *f, const char *name,
		    uint64_t off)
{
	const char *names[MAX_INLINE_DEPTH];
	int caller = (f->flags & REC_FRAME_CALLER) != 0;
	int err = emit_flags(s, id, name, off, REC_SYMBOL_JIT);
	size_t n = 0;

	if (!err && s->opts && s->opts->frame_inlines && f->pid)
		n = s->opts->frame_inlines(s->opts->frame_name_arg, f->pid,
					   f->addr + (caller ? 1 : 0), caller, names,
					   MAX_INLINE_DEPTH);
	for (size_t i = 0; i < n && !err; i++) {
		struct rec_inline in = {.frame = id};

		err = rec_writer__string(s->w, names[i], strlen(names[i]), &in.name);
		if (!err)
			err = rec_writer__inline(s->w, &in);
	}
	if (n > 1)
		s->st.with_inlines++;
	return err;
}

/* A user frame outside any file: JIT code, if the process has a map. A
 * frame of a JIT epoch (jit-timeline.h) is named by the snapshot that
 * closed its epoch, the map read at the end closing the last one, then by
 * the snapshot that opened it; the map at the end is the last resort, as
 * for a recording without snapshots. */
static int jit_frame(struct symbolizer *s, uint32_t id, const struct rec_frame *f)
{
	uint32_t epoch = f->flags >> REC_FRAME_EPOCH_SHIFT;
	enum jit_found found = JIT_NOT_FOUND;
	struct perf_map *map = NULL;
	const char *name, *tname = NULL;
	uint64_t off, toff = 0;
	int err;

	if (s->ids_only)
		return 0;
	/* a caller's frame is stored one byte back, in its call instruction */
	if (s->opts && s->opts->frame_name && f->pid &&
	    s->opts->frame_name(s->opts->frame_name_arg, f->pid,
				f->addr + ((f->flags & REC_FRAME_CALLER) ? 1 : 0), &name)) {
		s->st.jit_resolved++;
		return emit_flags(s, id, name, 0, REC_SYMBOL_JIT);
	}
	if (s->timeline && f->pid)
		found = jit_timeline__lookup(s->timeline, f->pid, epoch, f->addr, &tname, &toff);
	if (found == JIT_AT_END ||
	    (found && jit_timeline__closed(s->timeline, f->pid, epoch))) {
		s->st.jit_resolved++;
		s->st.jit_by_epoch++;
		return emit_jit(s, id, f, tname, toff);
	}
	err = f->pid ? jit_map_of(s, f->pid, &map) : 0;
	if (err)
		return err;
	if (map && perf_map__lookup(map, f->addr, &name, &off)) {
		s->st.jit_resolved++;
		return emit_jit(s, id, f, name, off);
	}
	if (found) { /* freed during the last epoch */
		s->st.jit_resolved++;
		s->st.jit_by_epoch++;
		return emit_jit(s, id, f, tname, toff);
	}
	s->st.unresolved++;
	return 0;
}

/* Anonymous executable memory, as the kernel names it in mmap events and
 * /proc/PID/maps; memfd mappings too (some JITs map their code twice). */
static int is_jit_path(const char *p)
{
	return !strcmp(p, "//anon") || !strncmp(p, "[anon", 5) || !strncmp(p, "/memfd:", 7) ||
	       !*p;
}

/* The INLINES records of a frame at ELF address vaddr, from DWARF.
 * `symbol` names the out-of-line function when DWARF does not. */
static int emit_inlines(struct symbolizer *s, uint32_t frame, struct dwarf_info *dw,
			uint64_t vaddr, const char *symbol)
{
	struct src_frame chain[MAX_INLINE_DEPTH];
	size_t n = dwarf_info__lookup(dw, vaddr, chain, MAX_INLINE_DEPTH), i;
	int err = 0;

	if (!n)
		return 0;
	for (i = 0; i < n && !err; i++) {
		struct rec_inline in = {.frame = frame, .line = chain[i].line};
		const char *name = chain[i].function;

		if (!name)
			name = i + 1 == n && symbol ? symbol : "??";
		err = intern_name(s, name, &in.name);
		if (!err && chain[i].file)
			err = rec_writer__string(s->w, chain[i].file, strlen(chain[i].file), &in.file);
		if (!err)
			err = rec_writer__inline(s->w, &in);
	}
	if (chain[0].line)
		s->st.with_lines++;
	if (n > 1)
		s->st.with_inlines++;
	return err;
}

/* The DWARF of binary `file`: its own, else that of the separate debug file
 * its symbol table came from or was found with (debuginfo.c: build-id, or
 * .gnu_debuglink with its CRC checked). NULL when there is none (or it
 * cannot be read: frames keep their symbols). */
static struct dwarf_info *load_dwarf(const char *file, const struct elf_symtab *t)
{
	struct dwarf_info *dw = dwarf_info__load(file);
	const char *dbg = elf_symtab__debug_file(t);

	if (!dw && errno == ENODATA && dbg && *dbg)
		dw = dwarf_info__load_pair(file, dbg);
	return dw;
}

/* Split DWARF whose .dwo files are gone: the first such binary says so. */
static void split_notice(struct symbolizer *s, struct dwarf_info *dw)
{
	const char *first;
	size_t n = dw ? dwarf_info__split_missing(dw, &first) : 0;

	if (n && !s->st.notice[0])
		snprintf(s->st.notice, sizeof(s->st.notice),
			 "split DWARF: %zu %s .dwo files not found (first: %.200s)", n,
			 n == 1 ? "unit's" : "units'", first ? first : "?");
}

static int kernel_frame(struct symbolizer *s, uint32_t id, const struct rec_frame *f)
{
	const char *name;
	uint64_t off;

	if (!s->ksyms_tried) {
		s->ksyms_tried = 1;
		s->ksyms = kallsyms__load(s->kallsyms_path);
		if (!s->ksyms && errno == ENOMEM)
			return -ENOMEM;
		if (s->ksyms && kallsyms__hidden(s->ksyms))
			s->st.kernel_hidden = 1;
	}
	if (s->ksyms && kallsyms__lookup(s->ksyms, f->addr, &name, &off))
		return emit(s, id, name, off);
	s->st.unresolved++;
	return 0;
}

/* Paths in /proc/PID/maps that name no file we could open. */
static int is_pseudo_path(const char *p)
{
	static const char *const prefixes[] = {
		"//", "/memfd:", "/dev/", "/SYSV", "/anon_hugepage", "/[",
	};
	size_t i;

	if (p[0] != '/')
		return 1; /* "", "[vdso]", "[heap]", "[stack]", "[anon:...]" */
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(p, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static void release_path(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nbins; i++) {
		elf_symtab__free(s->bins[i].tab);
		dwarf_info__free(s->bins[i].dw);
	}
	s->nbins = 0;
	s->path_missing_counted = 0;
	s->path_build_id_written = 0;
}

/* Sets *bin to loaded binary `b` for mapping `m` unless `m` recorded
 * another build-id; writes the path's build-id META once. 0 or -errno. */
static int use_binary(struct symbolizer *s, const struct rec_mapping *m, struct binary *b,
		      struct binary **bin)
{
	const char *want = m->build_id ? rec_writer__str(s->w, m->build_id) : "";
	const struct elf_symtab *t = b->tab;
	int err;

	/* A binary replaced since it was mapped would give wrong names. */
	if (!t || (*want && strcasecmp(want, elf_symtab__build_id(t))))
		return 0;
	if (!s->path_build_id_written && *elf_symtab__build_id(t)) {
		const char *path = rec_writer__str(s->w, m->path);
		char key[PATH_MAX + 16];

		if ((size_t)snprintf(key, sizeof(key), "build-id:%s", path) < sizeof(key)) {
			err = rec_writer__meta(s->w, key, elf_symtab__build_id(t));
			if (err)
				return err;
		}
		s->path_build_id_written = 1;
	}
	*bin = b;
	return 0;
}

/* The tables for a [vdso] mapping: our own vdso's, loaded once, when the
 * mapping holds the same image (vdso.h). Sets *bin. 0 or -ENOMEM. */
static int load_vdso(struct symbolizer *s, const struct rec_mapping *m, struct binary **bin)
{
	const void *img;
	size_t size, map_size;
	struct binary *b;

	*bin = NULL;
	if (vdso_image(&img, &size, &map_size) || !vdso_matches(m->pid, m->start, m->end))
		return 0;
	if (!s->nbins) { /* this path's bins hold nothing else */
		struct elf_symtab *t = elf_symtab__load_image(img, size);

		if (!t && errno == ENOMEM)
			return -ENOMEM;
		if (GROW(s->bins, s->bins_cap, 1)) {
			elf_symtab__free(t);
			return -ENOMEM;
		}
		s->bins[s->nbins++] = (struct binary){.tab = t};
		if (t)
			s->st.binaries++;
	}
	b = &s->bins[0];
	return use_binary(s, m, b, bin);
}

/* The tables for file `file` (the path of mapping `m`, maybe under a root).
 * Sets *bin (NULL if the file is unusable). 0 or -ENOMEM. */
static int load_file(struct symbolizer *s, const struct rec_mapping *m, const char *file,
		     const char *root, struct binary **bin)
{
	struct elf_symtab_opts lo = {
		.root = root, .debug_dirs = s->debug_dirs, .no_debuginfo = s->ids_only,
	};
	struct elf_symtab *t;
	struct binary *b;
	struct stat st;
	size_t i;

	*bin = NULL;
	if (stat(file, &st))
		return 0;
	for (i = 0; i < s->nbins; i++)
		if (s->bins[i].dev == st.st_dev && s->bins[i].ino == st.st_ino)
			break;
	if (i < s->nbins) {
		b = &s->bins[i];
		t = b->tab;
	} else {
		t = elf_symtab__load_opts(file, &lo);
		if (!t && errno == ENOMEM)
			return -ENOMEM;
		if (GROW(s->bins, s->bins_cap, s->nbins + 1)) {
			elf_symtab__free(t);
			return -ENOMEM;
		}
		b = &s->bins[s->nbins++];
		b->dev = st.st_dev;
		b->ino = st.st_ino;
		b->tab = t;
		b->dw = t && !s->ids_only ? load_dwarf(file, t) : NULL;
		split_notice(s, b->dw);
		if (t)
			s->st.binaries++;
		if (t && (!strcmp(elf_symtab__source(t), "debuginfo") ||
			  !strcmp(elf_symtab__source(t), "minidebuginfo")))
			s->st.debuginfo++;
	}
	return use_binary(s, m, b, bin);
}

/* Finds the tables for mapping `m`: under opts.root_prefix if set, else
 * through /proc/PID/root (the process's own mount namespace) and then
 * as is. Sets *tab, NULL when there is no usable binary. 0 or -ENOMEM. */
static int open_mapping(struct symbolizer *s, const struct rec_mapping *m,
			struct binary **tab)
{
	const char *path = rec_writer__str(s->w, m->path);
	char file[PATH_MAX], clean[PATH_MAX];
	size_t len = strlen(path), suffix = strlen(DELETED_SUFFIX);
	int err, n;

	*tab = NULL;
	if (!strcmp(path, "[vdso]"))
		return load_vdso(s, m, tab);
	if (is_pseudo_path(path) || len >= sizeof(clean))
		return 0;
	/* maps shows a file replaced since it was mapped as "PATH (deleted)";
	 * what is at PATH now is checked against the build-id if known. */
	memcpy(clean, path, len + 1);
	if (len > suffix && !strcmp(clean + len - suffix, DELETED_SUFFIX))
		clean[len - suffix] = '\0';
	if (s->root_prefix) {
		n = snprintf(file, sizeof(file), "%s%s", s->root_prefix, clean);
		err = n > 0 && (size_t)n < sizeof(file)
			      ? load_file(s, m, file, s->root_prefix, tab) : 0;
	} else {
		char root[32];

		err = 0;
		snprintf(root, sizeof(root), "/proc/%u/root", (unsigned)m->pid);
		n = snprintf(file, sizeof(file), "%s%s", root, clean);
		if (m->pid && n > 0 && (size_t)n < sizeof(file))
			err = load_file(s, m, file, root, tab);
		if (!err && !*tab)
			err = load_file(s, m, clean, NULL, tab);
	}
	if (!err && !*tab && !s->path_missing_counted) {
		s->st.binaries_missing++;
		s->path_missing_counted = 1;
	}
	return err;
}

static int mapping_frames(struct symbolizer *s, const struct rec_mapping *m,
			  const uint32_t *ids, size_t n)
{
	const struct rec_frame *frames = rec_writer__frames(s->w);
	struct binary *bin;
	const char *name;
	uint64_t off, vaddr;
	size_t i;
	int err;

	if (is_jit_path(rec_writer__str(s->w, m->path))) {
		for (i = 0, err = 0; i < n && !err; i++)
			err = jit_frame(s, ids[i], &frames[ids[i]]);
		return err;
	}
	err = open_mapping(s, m, &bin);
	if (err || s->ids_only)
		return err;
	for (i = 0; i < n; i++) {
		const struct rec_frame *f = &frames[ids[i]];
		int in_map = bin && f->addr >= m->start && f->addr < m->end;
		uint64_t foff = f->addr - m->start + m->pgoff;

		name = NULL;
		if (in_map && elf_symtab__lookup_offset(bin->tab, foff, &name, &off))
			err = emit(s, ids[i], name, off);
		else
			s->st.unresolved++;
		if (!err && in_map && bin->dw && elf_symtab__offset_to_vaddr(bin->tab, foff, &vaddr))
			err = emit_inlines(s, ids[i], bin->dw, vaddr, name);
		if (err)
			return err;
	}
	return 0;
}

/* Mapping ids by path (string ids: equal paths have equal ids), then id. */
static int mapping_cmp(const void *pa, const void *pb, void *arg)
{
	const struct rec_mapping *maps = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (maps[a].path != maps[b].path)
		return maps[a].path < maps[b].path ? -1 : 1;
	return a < b ? -1 : a > b;
}

enum frame_kind { FRAME_USER, FRAME_KERNEL, FRAME_NO_MAPPING };

static enum frame_kind frame_kind(const struct rec_frame *f, const struct rec_mapping *maps,
				  size_t nmaps)
{
	if (f->flags & REC_FRAME_KERNEL)
		return FRAME_KERNEL;
	if (f->mapping >= nmaps)
		return FRAME_NO_MAPPING;
	return maps[f->mapping].flags & REC_MAPPING_KERNEL ? FRAME_KERNEL : FRAME_USER;
}

static int run(struct rec_writer *w, const struct symbolize_opts *opts,
	       struct symbolize_stats *stats, int ids_only)
{
	const struct rec_frame *frames = rec_writer__frames(w);
	const struct rec_mapping *maps = rec_writer__mappings(w);
	size_t nframes = rec_writer__nframes(w), nmaps = rec_writer__nmappings(w);
	struct symbolizer s = {.w = w, .kallsyms_path = "/proc/kallsyms"};
	size_t *start = NULL, nused = 0, i, done;
	uint32_t *ids = NULL, *order = NULL;
	int err = 0;

	if (opts && opts->kallsyms_path)
		s.kallsyms_path = opts->kallsyms_path;
	if (opts) {
		s.root_prefix = opts->root_prefix;
		s.debug_dirs = opts->debug_dirs;
		s.opts = opts;
		s.timeline = opts->jit_timeline;
	}
	s.ids_only = ids_only;
	s.st.frames = nframes;
	if (keymap__init(&s.jit_index, 16)) {
		err = -ENOMEM;
		goto out;
	}
	if (nframes > UINT32_MAX) {
		err = -EOVERFLOW; /* frame ids are 32-bit: the writer never does this */
		goto out;
	}
	/* A counting sort of the user frames by mapping. start[m + 2] first
	 * counts mapping m's frames; the prefix sums and the placing pass
	 * leave them in ids[start[m] .. start[m + 1]). */
	start = calloc(nmaps + 2, sizeof(*start));
	ids = malloc((nframes ? nframes : 1) * sizeof(*ids));
	order = malloc((nmaps ? nmaps : 1) * sizeof(*order));
	if (!start || !ids || !order) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nframes && !err; i++) {
		switch (frame_kind(&frames[i], maps, nmaps)) {
		case FRAME_KERNEL:
			if (!ids_only)
				err = kernel_frame(&s, (uint32_t)i, &frames[i]);
			break;
		case FRAME_NO_MAPPING:
			err = jit_frame(&s, (uint32_t)i, &frames[i]);
			break;
		case FRAME_USER:
			start[frames[i].mapping + 2]++;
			break;
		}
	}
	if (err)
		goto out;
	for (i = 0; i < nmaps; i++) {
		if (start[i + 2])
			order[nused++] = (uint32_t)i;
		start[i + 2] += start[i + 1];
	}
	for (i = 0; i < nframes; i++)
		if (frame_kind(&frames[i], maps, nmaps) == FRAME_USER)
			ids[start[frames[i].mapping + 1]++] = (uint32_t)i;
	qsort_r(order, nused, sizeof(*order), mapping_cmp, (void *)maps);
	done = nframes - start[nmaps + 1]; /* kernel and unmapped frames */
	for (i = 0; i < nused && !err; i++) {
		uint32_t m = order[i];

		if (i && maps[order[i - 1]].path != maps[m].path)
			release_path(&s);
		err = mapping_frames(&s, &maps[m], ids + start[m], start[m + 1] - start[m]);
		done += start[m + 1] - start[m];
		if (opts && opts->progress)
			opts->progress(opts->progress_arg, done, nframes);
	}
out:
	release_path(&s);
	free(s.bins);
	for (i = 0; i < s.njits; i++)
		perf_map__free(s.jits[i].map);
	free(s.jits);
	keymap__release(&s.jit_index);
	kallsyms__free(s.ksyms);
	free(start);
	free(ids);
	free(order);
	if (stats)
		*stats = s.st;
	return err;
}

int symbolize_recording(struct rec_writer *w, const struct symbolize_opts *opts,
			struct symbolize_stats *stats)
{
	return run(w, opts, stats, 0);
}

int symbolize_build_ids(struct rec_writer *w, const struct symbolize_opts *opts)
{
	return run(w, opts, NULL, 1);
}
