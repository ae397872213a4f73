/* print.c: prof top's output when stdout is not a terminal: one block per
 * interval, for logs and pipes. Text: a header line, then rows in prof
 * report --top's columns (report/top.c writes them), then with --threads
 * the busiest threads; a blank line ends the block. JSON: one object per
 * line. Names from the target are printed cleaned (lib/text-clean.h). */
#include "top-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "lib/text-clean.h"

#define THREAD_ROWS 20

static void utc_text(char *buf, size_t size, uint64_t wall_ns)
{
	time_t secs = (time_t)(wall_ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "?");
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
		   : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!len || len > n || (len == 2 && s[0] < 0xc2))
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* A JSON string of a name: control bytes and broken UTF-8 as '?', the
 * rule of every name prof prints. */
static void json_name(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	fputc('"', out);
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seq(u + i, n - i);

		if (!len || text_is_control(u[i])) {
			fputc('?', out);
			i++;
			continue;
		}
		if (u[i] == '"' || u[i] == '\\')
			fputc('\\', out);
		fwrite(u + i, 1, len, out);
		i += len;
	}
	fputc('"', out);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_threads_text(FILE *out, const struct top_snapshot *s, int sched)
{
	size_t n = s->nthreads < THREAD_ROWS ? s->nthreads : THREAD_ROWS;

	fprintf(out, "%7s  %10s  %8s  ", "cpu%", "samples", "tid");
	if (sched)
		fprintf(out, "%6s  %6s  %6s  %6s  ", "run%", "wait%", "sleep%", "io%");
	fputs("thread\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct top_thread_row *r = &s->threads[i];

		fprintf(out, "%6.1f%%  %10" PRIu64 "  %8u  ", r->cpu, r->samples, r->tid);
		if (sched)
			fprintf(out, "%5.1f%%  %5.1f%%  %5.1f%%  %5.1f%%  ", r->sched[WINDOW_RUN],
				r->sched[WINDOW_WAIT], r->sched[WINDOW_SLEEP], r->sched[WINDOW_IO]);
		text_put(out, r->name);
		fputc('\n', out);
	}
}

static int print_json(FILE *out, const struct top_block *b, struct top_snapshot *s,
		      const struct profile_top *top, const char *when)
{
	const struct top_opts *o = b->opts;
	size_t n = o->rows && o->rows < top->nrows ? o->rows : top->nrows;
	double interval = (double)o->interval_ns / 1e9;

	fprintf(out, "{\"time\":\"%s\",\"interval_s\":%g,\"window_s\":%g,\"covered_s\":%g,"
		"\"samples\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"total_samples\":%" PRIu64
		",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"interned\":%" PRIu64
		",\"forgets\":%" PRIu64 ",\"functions\":[", when, interval,
		interval * o->window, interval * (double)s->n, top->samples, b->lost, b->total,
		b->start_ns, b->start_ns + s->n * o->interval_ns, b->interned, b->forgets);
	for (size_t i = 0; i < n; i++) {
		const struct top_row *r = &top->rows[i];

		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_name(out, profile__name(&s->prof, r->name));
		fprintf(out, ",\"self\":%" PRIu64 ",\"total\":%" PRIu64
			",\"self_pct\":%.2f,\"total_pct\":%.2f}", r->self, r->total,
			pct(r->self, top->samples), pct(r->total, top->samples));
	}
	fputs("],\"threads\":[", out);
	for (size_t i = 0; i < s->nthreads; i++) {
		const struct top_thread_row *r = &s->threads[i];

		fprintf(out, "%s{\"tid\":%u,\"pid\":%u,\"name\":", i ? "," : "", r->tid, r->pid);
		json_name(out, r->name);
		fprintf(out, ",\"samples\":%" PRIu64 ",\"cpu_pct\":%.1f", r->samples, r->cpu);
		if (o->sched)
			fprintf(out, ",\"run_pct\":%.1f,\"wait_pct\":%.1f,\"sleep_pct\":%.1f,"
				"\"io_pct\":%.1f", r->sched[WINDOW_RUN], r->sched[WINDOW_WAIT],
				r->sched[WINDOW_SLEEP], r->sched[WINDOW_IO]);
		fputc('}', out);
	}
	fputs("]}\n", out);
	return 0;
}

int top_print_block(FILE *out, const struct top_block *b, struct top_snapshot *s)
{
	const struct top_opts *o = b->opts;
	struct profile_top top;
	char when[32];
	int err = profile__top(&s->prof, &top);

	if (err)
		return err;
	utc_text(when, sizeof(when), b->wall_ns);
	errno = 0;
	if (o->format == TOP_JSON) {
		err = print_json(out, b, s, &top, when);
	} else {
		fprintf(out, "%s  window %gs (%gs so far)  samples %" PRIu64 "  lost %" PRIu64 "\n",
			when, (double)o->interval_ns / 1e9 * o->window,
			(double)o->interval_ns / 1e9 * (double)s->n, top.samples, b->lost);
		err = profile_top__write(&s->prof, &top, o->rows ? o->rows : 20, out);
		if (!err && o->threads) {
			fputc('\n', out);
			print_threads_text(out, s, o->sched);
		}
		fputc('\n', out);
	}
	profile_top__release(&top);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}
