/* format-speedscope.c: the profile as speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json; formats.h).
 *
 * One "sampled" profile per thread (name and tid; one profile in all when
 * the input has no threads), busiest first; the frames are shared by all
 * profiles ("shared.frames", one per distinct name). Each entry of the
 * model is one sample (its stack, root first) with its count as weight, so
 * the file grows with unique stacks, not with samples. Names are escaped
 * for JSON; bytes that are not UTF-8 become U+FFFD (JSON is UTF-8). */
#include "report/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

struct group {
	uint32_t thread, tid;
	uint64_t total;
	size_t first, n; /* entries: order[first .. first + n) */
};

/* Writes `s` (n bytes) as a JSON string. */
static void json_str(FILE *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	putc('"', out);
	while (i < n) {
		unsigned c = u[i], len = 0, k;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc((int)c, out);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		if (c < 0x80) {
			putc((int)c, out);
			i++;
			continue;
		}
		/* A well-formed UTF-8 sequence (no overlongs, surrogates, or
		 * code points past U+10FFFF) is copied; else U+FFFD. */
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		for (k = 1; len && k < len; k++)
			if (i + k >= n || (u[i + k] & 0xc0) != 0x80)
				len = 0;
		if (len == 3 && ((c == 0xe0 && u[i + 1] < 0xa0) || (c == 0xed && u[i + 1] >= 0xa0)))
			len = 0;
		if (len == 4 && ((c == 0xf0 && u[i + 1] < 0x90) || (c == 0xf4 && u[i + 1] >= 0x90)))
			len = 0;
		if (!len) {
			fputs("\\ufffd", out);
			i++;
			continue;
		}
		fwrite(u + i, 1, len, out);
		i += len;
	}
	putc('"', out);
}

static const struct profile *sort_profile;

static int cmp_entries(const void *x, const void *y)
{
	const struct profile_entry *a = &sort_profile->entries[*(const size_t *)x];
	const struct profile_entry *b = &sort_profile->entries[*(const size_t *)y];

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_groups(const void *x, const void *y)
{
	const struct group *a = x, *b = y;
	int r;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	r = strcmp(profile__name(sort_profile, a->thread), profile__name(sort_profile, b->thread));
	return r ? r : (a->tid < b->tid ? -1 : a->tid > b->tid);
}

/* Groups the entries with a count by thread: *order gets entry indexes,
 * *groups the runs, busiest first. */
static int group_entries(const struct profile *p, size_t **order, struct group **groups,
			 size_t *ngroups)
{
	size_t n = 0, i, cap = 0;
	int threads = p->has_threads;

	*groups = NULL;
	*ngroups = 0;
	*order = malloc((p->nentries ? p->nentries : 1) * sizeof(**order));
	if (!*order)
		return -ENOMEM;
	for (i = 0; i < p->nentries; i++)
		if (p->entries[i].count)
			(*order)[n++] = i;
	sort_profile = p;
	if (threads)
		qsort(*order, n, sizeof(**order), cmp_entries);
	for (i = 0; i < n; i++) {
		const struct profile_entry *e = &p->entries[(*order)[i]];
		struct group *g = *ngroups ? &(*groups)[*ngroups - 1] : NULL;
		uint64_t c = e->count;

		if (!g || (threads && (g->thread != e->thread || g->tid != e->tid))) {
			if (GROW(*groups, cap, *ngroups + 1))
				return -ENOMEM;
			g = &(*groups)[(*ngroups)++];
			*g = (struct group){.thread = threads ? e->thread : 0,
					    .tid = threads ? e->tid : 0,
					    .first = i};
		}
		g->n++;
		g->total = g->total > UINT64_MAX - c ? UINT64_MAX : g->total + c;
	}
	if (*ngroups > 1)
		qsort(*groups, *ngroups, sizeof(**groups), cmp_groups);
	return 0;
}

int profile__write_speedscope(const struct profile *p, const struct speedscope_opts *o,
			      FILE *out)
{
	const char *unit = o && o->weight != PROFILE_WEIGHT_CPU ? "microseconds" : "none";
	uint32_t *index = calloc(p->names.count + 1, sizeof(*index)), nframes = 0;
	uint32_t *frames = malloc((p->names.count + 1) * sizeof(*frames));
	size_t *order = NULL, ngroups = 0, g, i, k;
	struct group *groups = NULL;
	int err = -ENOMEM;

	if (!index || !frames || group_entries(p, &order, &groups, &ngroups))
		goto out;
	/* Frame indexes in order of first use. */
	for (g = 0; g < ngroups; g++) {
		for (i = groups[g].first; i < groups[g].first + groups[g].n; i++) {
			const struct profile_entry *e = &p->entries[order[i]];
			const uint32_t *names = profile__stack_frames(p, e->stack);

			for (k = 0; k < p->stacks[e->stack].depth; k++)
				if (!index[names[k]]) {
					frames[nframes] = names[k];
					index[names[k]] = ++nframes;
				}
		}
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"prof\",\"name\":",
	      out);
	json_str(out, o && o->name ? o->name : "prof", o && o->name ? strlen(o->name) : 4);
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", out);
	for (i = 0; i < nframes; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		json_str(out, profile__name(p, frames[i]), strtab__len(&p->names, frames[i]));
		putc('}', out);
	}
	fputs("]},\n\"profiles\":[", out);
	for (g = 0; g < ngroups; g++) {
		const struct group *gr = &groups[g];
		char num[PROFILE_COUNT_TEXT];

		fputs(g ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":",
		      out);
		if (gr->thread) {
			char tid[16] = "";
			size_t len = strtab__len(&p->names, gr->thread);
			char *name = malloc(len + sizeof(tid));

			if (!name)
				goto out;
			if (gr->tid)
				snprintf(tid, sizeof(tid), " (%" PRIu32 ")", gr->tid);
			memcpy(name, profile__name(p, gr->thread), len);
			memcpy(name + len, tid, strlen(tid));
			json_str(out, name, len + strlen(tid));
			free(name);
		} else {
			json_str(out, "all", 3);
		}
		profile_count_text(num, gr->total, p->count_decimals);
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%s,\n\"samples\":[",
			unit, num);
		for (i = 0; i < gr->n; i++) {
			const struct profile_entry *e = &p->entries[order[gr->first + i]];
			const uint32_t *names = profile__stack_frames(p, e->stack);

			fputs(i ? ",[" : "[", out);
			for (k = 0; k < p->stacks[e->stack].depth; k++)
				fprintf(out, k ? ",%" PRIu32 : "%" PRIu32, index[names[k]] - 1);
			putc(']', out);
		}
		fputs("],\n\"weights\":[", out);
		/* Weights may be fractional (folded input, report.h): JSON
		 * numbers, exact as decimal text. */
		for (i = 0; i < gr->n; i++) {
			profile_count_text(num, p->entries[order[gr->first + i]].count,
					   p->count_decimals);
			fprintf(out, i ? ",%s" : "%s", num);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
	errno = 0;
	err = fflush(out) || ferror(out) ? (errno ? -errno : -EIO) : 0;
out:
	free(index);
	free(frames);
	free(order);
	free(groups);
	return err;
}
