/* tui.c: prof top's full-screen view (ncurses; top-internal.h). Redrawn
 * each interval and after each key: a header (target, rate, samples, lost
 * in the window), then one of three views of the window: the hottest
 * functions (prof report --top's columns), the threads (CPU % over the
 * window and a sparkline of the last 60 intervals), or folded stacks,
 * busiest first. Keys: f t c views; / a regex filter (prof report
 * --include); in the thread view Up/Down and Enter pick a thread, which
 * narrows every view (Enter again or Esc: all threads); 1 2 3 a window of
 * 1, 10 or 60 intervals; p pause (the view freezes, sampling goes on);
 * s save the window shown as a recording; q quit. The screen is only read
 * by whoever runs prof: names from the target are drawn cleaned. */
#include "top-internal.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/text-clean.h"

#define KEY_POLL_MS 50
#define SPARK_LEVELS " _.-:=+*#@"
#define HISTORY 60

enum tui_view { VIEW_FUNCTIONS, VIEW_THREADS, VIEW_FOLDED };

struct top_tui {
	SCREEN *screen;
	enum tui_view view;
	size_t window;          /* intervals */
	int paused;
	uint64_t frozen;        /* paused: the window ends before this interval */
	uint32_t tid;           /* picked thread, 0: all */
	size_t cursor;          /* thread view: the row under the cursor */
	char filter[256];       /* the regex applied, "" none */
	struct profile_filter pf;
	int prompt;             /* typing a filter */
	char typed[256];
	size_t ntyped;
	char status[640];       /* the last message */
	struct top_snapshot snap;
	int have_snap;
};

static void set_status(struct top_tui *u, const char *msg)
{
	snprintf(u->status, sizeof(u->status), "%s", msg);
}

int top_tui__start(struct top *tp)
{
	struct top_tui *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->screen = newterm(NULL, tp->cmd_out.tty ? tp->cmd_out.tty : stdout, stdin);
	if (!u->screen) {
		free(u);
		return -ENOTTY;
	}
	set_term(u->screen);
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	u->window = tp->opts->window;
	if (profile_filter__init(&u->pf, 0)) {
		endwin();
		delscreen(u->screen);
		free(u);
		return -ENOMEM;
	}
	set_status(u, "f t c: views  /: filter  Enter: pick thread  1 2 3: window  p: pause  "
		      "s: save  q: quit");
	tp->tui = u;
	return 0;
}

void top_tui__stop(struct top *tp)
{
	struct top_tui *u = tp->tui;

	if (!u)
		return;
	endwin(); /* the terminal as it was */
	delscreen(u->screen);
	if (u->have_snap)
		top_snapshot__release(&u->snap);
	profile_filter__release(&u->pf);
	free(u);
	tp->tui = NULL;
}

static int rebuild(struct top *tp)
{
	struct top_tui *u = tp->tui;
	struct top_view_opts vo = {
		.intervals = u->window, .end = u->paused ? u->frozen : 0, .tid = u->tid,
		.threads = 1, .filter = u->filter[0] ? &u->pf : NULL,
	};
	struct top_snapshot s;
	int err = top_snapshot__build(&s, &tp->tap, tp->names, &vo, tp->opts->freq);

	if (err)
		return err;
	if (u->have_snap)
		top_snapshot__release(&u->snap);
	u->snap = s;
	u->have_snap = 1;
	return 0;
}

/* A line of text from the target, cleaned, cut at the screen's width. */
static void put_clean(int y, int x, const char *s)
{
	char buf[1024];
	int w = COLS - x;

	if (w <= 0)
		return;
	text_clean_copy(buf, sizeof(buf), s);
	mvaddnstr(y, x, buf, w);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void draw_functions(struct top_tui *u, int y)
{
	struct profile_top top;
	char line[128];

	if (profile__top(&u->snap.prof, &top))
		return;
	attron(A_BOLD);
	mvprintw(y++, 0, "%7s  %7s  %10s  %10s  %s", "self%", "total%", "self", "total", "function");
	attroff(A_BOLD);
	for (size_t i = 0; i < top.nrows && y < LINES - 1; i++, y++) {
		const struct top_row *r = &top.rows[i];

		snprintf(line, sizeof(line), "%6.2f%%  %6.2f%%  %10" PRIu64 "  %10" PRIu64 "  ",
			 pct(r->self, top.samples), pct(r->total, top.samples), r->self, r->total);
		mvaddnstr(y, 0, line, COLS);
		put_clean(y, (int)strlen(line), profile__name(&u->snap.prof, r->name));
	}
	profile_top__release(&top);
}

static void draw_threads(struct top *tp, int y)
{
	struct top_tui *u = tp->tui;
	const struct window *w = &tp->tap.win;
	uint64_t end = u->paused ? u->frozen : w->cur;
	double per_interval = (double)tp->opts->freq * (double)w->interval_ns / 1e9;
	char line[128];

	attron(A_BOLD);
	if (tp->opts->sched)
		mvprintw(y++, 0, "%7s  %8s  %8s  %-16s  %6s %6s %6s %6s   %s", "cpu%", "samples",
			 "tid", "thread", "run%", "wait%", "sleep%", "io%", "history");
	else
		mvprintw(y++, 0, "%7s  %8s  %8s  %-16s  %s", "cpu%", "samples", "tid", "thread",
			 "history (one column an interval, oldest left)");
	attroff(A_BOLD);
	if (u->cursor >= u->snap.nthreads)
		u->cursor = u->snap.nthreads ? u->snap.nthreads - 1 : 0;
	for (size_t i = 0; i < u->snap.nthreads && y < LINES - 1; i++, y++) {
		const struct top_thread_row *r = &u->snap.threads[i];
		char name[17];
		int x;

		if (i == u->cursor)
			attron(A_REVERSE);
		text_clean_copy(name, sizeof(name), r->name);
		if (tp->opts->sched)
			snprintf(line, sizeof(line), "%6.1f%%  %8" PRIu64 "  %8u  %-16s  %5.1f%% %5.1f%% "
				 "%5.1f%% %5.1f%% %s ", r->cpu, r->samples, r->tid, name,
				 r->sched[WINDOW_RUN], r->sched[WINDOW_WAIT], r->sched[WINDOW_SLEEP],
				 r->sched[WINDOW_IO], r->tid == u->tid ? "*" : " ");
		else
			snprintf(line, sizeof(line), "%6.1f%%  %8" PRIu64 "  %8u  %-16s  %s", r->cpu,
				 r->samples, r->tid, name, r->tid == u->tid ? "*" : " ");
		mvaddnstr(y, 0, line, COLS);
		x = (int)strlen(line);
		for (uint64_t k = end > HISTORY ? end - HISTORY : 0; k < end && x < COLS; k++, x++) {
			double f = per_interval > 0 ? window__thread_count(w, k, r->tid) / per_interval : 0;
			int level = (int)(f * (sizeof(SPARK_LEVELS) - 2) + 0.5);

			if (level > (int)sizeof(SPARK_LEVELS) - 2)
				level = (int)sizeof(SPARK_LEVELS) - 2;
			mvaddch(y, x, (chtype)SPARK_LEVELS[level < 0 ? 0 : level]);
		}
		if (i == u->cursor)
			attroff(A_REVERSE);
	}
}

static int cmp_lines(const void *a, const void *b)
{
	const struct profile_line *x = a, *y = b;

	return x->count != y->count ? (x->count > y->count ? -1 : 1) : 0;
}

static void draw_folded(struct top_tui *u, int y)
{
	struct folded_opts fo = {.thread_root = PROFILE_ROOT_NAME};
	struct profile_line *lines = NULL;
	size_t n = 0;
	char buf[4096];

	if (profile__lines(&u->snap.prof, &fo, &lines, &n))
		return;
	qsort(lines, n, sizeof(*lines), cmp_lines);
	attron(A_BOLD);
	mvprintw(y++, 0, "%10s  %s", "samples", "stack (thread;root;...;leaf)");
	attroff(A_BOLD);
	for (size_t i = 0; i < n && y < LINES - 1; i++, y++) {
		const struct profile *p = &u->snap.prof;
		const uint32_t *f = profile__stack_frames(p, lines[i].stack);
		size_t len = 0;

		buf[0] = '\0';
		if (lines[i].root)
			len += (size_t)snprintf(buf, sizeof(buf), "%s;", profile__name(p, lines[i].root));
		for (uint32_t k = 0; k < p->stacks[lines[i].stack].depth && len < sizeof(buf); k++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", k ? ";" : "",
						profile__name(p, f[k]));
		mvprintw(y, 0, "%10" PRIu64 "  ", lines[i].count);
		put_clean(y, 12, buf);
	}
	free(lines);
}

static void draw(struct top *tp)
{
	struct top_tui *u = tp->tui;
	double secs = (double)tp->tap.win.interval_ns / 1e9;
	char head[512];

	erase();
	snprintf(head, sizeof(head), "prof top  %s  %" PRIu64 " Hz  window %gs (%gs)  samples %"
		 PRIu64 "  lost %" PRIu64 "%s", tp->opts->target ? tp->opts->target : "",
		 tp->opts->freq, secs * (double)u->window, secs * (double)u->snap.n,
		 u->snap.prof.total, tp->sum.lost + tp->sum.sched_lost, u->paused ? "  [paused]" : "");
	attron(A_BOLD);
	put_clean(0, 0, head);
	attroff(A_BOLD);
	snprintf(head, sizeof(head), "view: %s  filter: %s  thread: %s",
		 u->view == VIEW_FUNCTIONS ? "functions" : u->view == VIEW_THREADS ? "threads"
										: "folded",
		 u->filter[0] ? u->filter : "-", u->tid ? top_tap__thread_name(&tp->tap, u->tid) : "all");
	put_clean(1, 0, head);
	if (u->tid)
		mvprintw(1, (int)strlen(head) < COLS ? (int)strlen(head) : COLS - 1, "/%u", u->tid);
	if (u->view == VIEW_FUNCTIONS)
		draw_functions(u, 3);
	else if (u->view == VIEW_THREADS)
		draw_threads(tp, 3);
	else
		draw_folded(u, 3);
	if (u->prompt) {
		mvprintw(LINES - 1, 0, "filter (regex, Enter applies, empty clears): ");
		put_clean(LINES - 1, 46, u->typed);
	} else {
		put_clean(LINES - 1, 0, u->status);
	}
	refresh();
}

static void apply_filter(struct top_tui *u)
{
	char err[256];
	struct profile_filter f;

	if (profile_filter__init(&f, 0))
		return;
	if (u->typed[0] && profile_filter__add_regex(&f, PROFILE_INCLUDE, u->typed, err, sizeof(err))) {
		snprintf(u->status, sizeof(u->status), "bad regex '%s': %s", u->typed, err);
		profile_filter__release(&f);
		return;
	}
	profile_filter__release(&u->pf);
	u->pf = f;
	snprintf(u->filter, sizeof(u->filter), "%s", u->typed);
	set_status(u, u->filter[0] ? "filter applied" : "filter cleared");
}

static void save(struct top *tp)
{
	struct top_tui *u = tp->tui;
	char path[64];
	time_t now = time(NULL);
	struct tm tm;
	int err;

	gmtime_r(&now, &tm);
	strftime(path, sizeof(path), "prof-top-%Y%m%d-%H%M%S.data", &tm);
	err = top_save(path, &tp->tap, &u->snap, tp->opts->freq);
	if (err)
		snprintf(u->status, sizeof(u->status), "cannot save '%s': %s", path, strerror(-err));
	else
		snprintf(u->status, sizeof(u->status), "saved %s (%" PRIu64 " samples)", path,
			 u->snap.prof.total);
}

/* One key: 1 when the window must be made again, 0 when a redraw will do. */
static int key(struct top *tp, int c)
{
	struct top_tui *u = tp->tui;

	if (u->prompt) {
		if (c == '\n' || c == KEY_ENTER || c == '\r') {
			u->prompt = 0;
			apply_filter(u);
			return 1;
		}
		if (c == 27) {
			u->prompt = 0;
		} else if ((c == KEY_BACKSPACE || c == 127 || c == 8) && u->ntyped) {
			u->typed[--u->ntyped] = '\0';
		} else if (c >= 32 && c < 127 && u->ntyped + 1 < sizeof(u->typed)) {
			u->typed[u->ntyped++] = (char)c;
			u->typed[u->ntyped] = '\0';
		}
		return 0;
	}
	switch (c) {
	case 'q':
		record_request_stop();
		return 0;
	case 'f':
		u->view = VIEW_FUNCTIONS;
		return 0;
	case 't':
		u->view = VIEW_THREADS;
		return 0;
	case 'c':
		u->view = VIEW_FOLDED;
		return 0;
	case '/':
		u->prompt = 1;
		snprintf(u->typed, sizeof(u->typed), "%s", u->filter);
		u->ntyped = strlen(u->typed);
		return 0;
	case '1': case '2': case '3':
		u->window = c == '1' ? 1 : c == '2' ? 10 : 60;
		return 1;
	case 'p':
		u->paused = !u->paused;
		u->frozen = tp->tap.win.cur;
		return 1;
	case 's':
		save(tp);
		return 0;
	case KEY_UP: case 'k':
		if (u->cursor)
			u->cursor--;
		return 0;
	case KEY_DOWN: case 'j':
		u->cursor++;
		return 0;
	case '\n': case '\r': case KEY_ENTER:
		if (u->view == VIEW_THREADS && u->cursor < u->snap.nthreads &&
		    u->snap.threads[u->cursor].tid != u->tid)
			u->tid = u->snap.threads[u->cursor].tid;
		else
			u->tid = 0;
		return 1;
	case 27:
		u->tid = 0;
		return 1;
	default:
		return 0;
	}
}

long top_tui__tick(struct top *tp, uint64_t now, int new_interval)
{
	struct top_tui *u = tp->tui;
	int c, redraw = 0, remake = (new_interval && !u->paused) || !u->have_snap;

	(void)now;
	while ((c = getch()) != ERR) {
		redraw = 1;
		if (c == KEY_RESIZE)
			continue;
		remake |= key(tp, c);
	}
	if (remake && rebuild(tp))
		set_status(u, "out of memory");
	if (remake || redraw)
		draw(tp);
	return KEY_POLL_MS;
}
