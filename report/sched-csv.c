/* sched-csv.c: the scheduler view as CSV, one row per thread (sched.h).
 * Times are milliseconds with three decimals, rounded to the microsecond
 * in integer arithmetic (no float formatting, so the bytes are the same
 * everywhere); names are quoted as RFC 4180 says when they need it, and
 * their control bytes (ESC, line breaks, ...) are '?' (lib/text-clean.h):
 * a thread names itself, and the CSV is read on terminals too. */
#include "report/sched.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/text-clean.h"

static const char header[] =
    "tid,pid,name,start_ms,end_ms,switches,on_cpu_ms,runnable_ms,sleep_ms,iowait_ms,"
    "other_ms,preempted_ms,wakeup_wait_ms,switches_r,switches_s,switches_d,"
    "switches_other,top_preemptor,cpus\n";

static void put_ms(uint64_t ns, FILE *out)
{
	uint64_t us = ns / 1000 + (ns % 1000 >= 500);

	fprintf(out, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
}

/* A field, cleaned, in double quotes (inner quotes doubled) when it holds
 * a comma or a quote (line breaks are '?' by then). */
static void put_field(const char *s, size_t len, FILE *out)
{
	const char *q;

	if (!memchr(s, ',', len) && !memchr(s, '"', len)) {
		text_write(out, s, len);
		return;
	}
	putc('"', out);
	while ((q = memchr(s, '"', len))) {
		text_write(out, s, (size_t)(q - s) + 1);
		putc('"', out);
		len -= (size_t)(q - s) + 1;
		s = q + 1;
	}
	text_write(out, s, len);
	putc('"', out);
}

static void put_name(const struct sched_profile *sp, uint32_t id, FILE *out)
{
	put_field(sched_profile__name(sp, id), strtab__len(&sp->names, id), out);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void put_row(const struct sched_profile *sp, const struct sched_thread *t, FILE *out)
{
	const uint64_t *sw = t->switches;
	uint64_t other = sat_add(sat_add(sw[REC_STATE_STOPPED], sw[REC_STATE_DEAD]),
				 sat_add(sw[REC_STATE_IDLE], sw[REC_STATE_OTHER]));
	size_t c;
	int first = 1;

	fprintf(out, "%" PRIu32 ",%" PRIu32 ",", t->tid, t->pid);
	put_name(sp, t->name, out);
	putc(',', out);
	put_ms(t->start - sp->start, out);
	putc(',', out);
	put_ms(t->end - sp->start, out);
	fprintf(out, ",%" PRIu64 ",", t->nswitches);
	put_ms(t->ns[SCHED_ON_CPU], out);
	putc(',', out);
	put_ms(sat_add(t->ns[SCHED_PREEMPTED], t->ns[SCHED_WOKEN]), out);
	putc(',', out);
	put_ms(t->ns[SCHED_SLEEPING], out);
	putc(',', out);
	put_ms(t->ns[SCHED_DISK], out);
	putc(',', out);
	put_ms(t->ns[SCHED_OTHER], out);
	putc(',', out);
	put_ms(t->ns[SCHED_PREEMPTED], out);
	putc(',', out);
	put_ms(t->ns[SCHED_WOKEN], out);
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
		sat_add(sw[REC_STATE_RUNNING], sw[REC_STATE_PREEMPTED]), sw[REC_STATE_SLEEPING],
		sw[REC_STATE_DISK], other);
	if (t->npreemptors)
		put_name(sp, t->preemptors[0].name, out);
	putc(',', out);
	for (c = 0; c < sp->ncpus; c++) {
		if (!t->cpu_ns[c])
			continue;
		fprintf(out, "%s%zu:", first ? "" : " ", c);
		put_ms(t->cpu_ns[c], out);
		first = 0;
	}
	putc('\n', out);
}

int sched_profile__write_csv(const struct sched_profile *sp, FILE *out)
{
	size_t i;

	errno = 0;
	fputs(header, out);
	for (i = 0; i < sp->nthreads && !ferror(out); i++)
		put_row(sp, &sp->threads[i], out);
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
