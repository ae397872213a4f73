/* probe-spec.c: `-e` probe specs turned into probe definitions (probes.h):
 *
 *   usdt:PROVIDER:NAME          the binary among the targets' mappings (or
 *                               the launched program) that has the probe
 *   usdt:PATH:PROVIDER:NAME     that binary
 *   uprobe:PATH:SYMBOL[+OFF]    a function's entry (or OFF bytes into it)
 *   uretprobe:PATH:SYMBOL       its returns
 *
 * PATH may itself hold ':' (the fields are split from the right). A probe
 * may have several sites (a USDT probe inlined in several places): each
 * becomes a definition of the same event. A PATH the attached processes do
 * not map is refused: its probes could never fire. */
#include "probes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/prof-error.h"
#include "lib/path-buf.h"

int probe_spec_is_probe(const char *spec)
{
	return !strncmp(spec, "usdt:", 5) || !strncmp(spec, "uprobe:", 7) ||
	       !strncmp(spec, "uretprobe:", 10);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Adds every site of PROVIDER:NAME in the binary at open_path. */
static int add_usdt_sites(const char *open_path, const char *provider, const char *name,
			  const char *event, struct probe_def **defs, size_t *ndefs, size_t *cap,
			  struct prof_error *w, int *found)
{
	struct usdt_list l;
	int err = usdt_read_file(open_path, &l);

	*found = 0;
	if (err)
		return err;
	for (size_t i = 0; i < l.n; i++) {
		const struct usdt_probe *p = &l.probes[i];
		struct probe_def *d;

		if (strcmp(p->provider, provider) || strcmp(p->name, name))
			continue;
		if (p->nargs < 0) {
			err = prof_error_set(w, -EINVAL,
					     "record it as a plain probe without arguments: "
					     "uprobe:PATH:FUNCTION of the function around it",
					     "probe %s: cannot decode its arguments: %s", event,
					     p->arg_error);
			break;
		}
		if (!p->pc_offset) {
			err = prof_error_set(w, -EINVAL, NULL,
					     "probe %s: its address 0x%llx is in no loaded "
					     "segment of '%s'",
					     event, (unsigned long long)p->pc, open_path);
			break;
		}
		if (GROW(*defs, *cap, *ndefs + 1)) {
			err = -ENOMEM;
			break;
		}
		d = &(*defs)[(*ndefs)++];
		memset(d, 0, sizeof(*d));
		snprintf(d->event, sizeof(d->event), "%s", event);
		snprintf(d->path, sizeof(d->path), "%s", open_path);
		d->kind = PROBE_USDT;
		d->offset = p->pc_offset;
		d->ref_ctr = p->semaphore ? p->sem_offset : 0;
		d->nargs = p->nargs;
		memcpy(d->arg, p->arg, sizeof(d->arg));
		for (int k = 0; k < p->nargs; k++)
			if (p->arg[k].kind == USDT_ARG_MEM &&
			    (p->arg[k].reg == USDT_REG_SP || p->arg[k].reg == USDT_REG_BP))
				d->stack_args = 1;
		(*found)++;
	}
	usdt_list__release(&l);
	return err;
}

/* The program a launched command runs: argv[0], or found in $PATH. */
int probe_find_program(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return access(out, R_OK) ? -errno : 0;
	}
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(out, len, "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (!access(out, X_OK))
			return 0;
		path = colon ? colon + 1 : NULL;
	}
	return -ENOENT;
}

/* Is the file at `path` mapped by one of the pids? 1, 0, or -errno. */
static int mapped_by(const char *path, const pid_t *pids, size_t npids, pid_t *missing)
{
	struct stat want, st;

	if (stat(path, &want))
		return -errno;
	for (size_t i = 0; i < npids; i++) {
		struct probe_binary *bins;
		size_t n;
		int hit = 0;

		if (probe_binaries_of(pids[i], &bins, &n))
			continue;
		for (size_t k = 0; k < n && !hit; k++)
			hit = !stat(bins[k].open_path, &st) && st.st_dev == want.st_dev &&
			      st.st_ino == want.st_ino;
		probe_binaries_free(bins, n);
		if (hit)
			return 1;
		*missing = pids[i];
	}
	return 0;
}

static int resolve_usdt(const char *rest, const pid_t *pids, size_t npids, const char *cmd,
			struct probe_def **defs, size_t *ndefs, size_t *cap, struct prof_error *w)
{
	char *copy = strdup(rest), *name, *provider, event[512], prog[PATH_BUF];
	const char *path = NULL;
	int err = 0, found = 0;
	pid_t missing = 0;

	if (!copy)
		return -ENOMEM;
	name = strrchr(copy, ':');
	if (!name || !name[1]) {
		free(copy);
		return prof_error_set(w, -EINVAL,
				      "write usdt:PROVIDER:NAME or usdt:PATH:PROVIDER:NAME "
				      "('prof probes BINARY' lists them)",
				      "invalid probe 'usdt:%s'", rest);
	}
	*name++ = '\0';
	provider = strrchr(copy, ':');
	if (provider) {
		*provider++ = '\0';
		path = copy;
	} else {
		provider = copy;
	}
	if (!*provider || (path && !*path)) {
		free(copy);
		return prof_error_set(w, -EINVAL,
				      "write usdt:PROVIDER:NAME or usdt:PATH:PROVIDER:NAME",
				      "invalid probe 'usdt:%s'", rest);
	}
	snprintf(event, sizeof(event), "usdt:%s:%s", provider, name);
	if (path) {
		err = add_usdt_sites(path, provider, name, event, defs, ndefs, cap, w, &found);
		if (err == -ENOENT || err == -EACCES || err == -ENOEXEC)
			err =
			    prof_error_set(w, err, NULL, "cannot read '%s': %s", path,
					   err == -ENOEXEC ? "not an ELF binary" : strerror(-err));
		else if (!err && !found)
			err = prof_error_set(w, -ENOENT,
					     "'prof probes BINARY' lists a binary's probes",
					     "no probe %s:%s in '%s'", provider, name, path);
		else if (!err && npids && mapped_by(path, pids, npids, &missing) == 0)
			err = prof_error_set(w, -ENOENT,
					     "'prof probes -p PID' lists the probes of what a "
					     "process maps",
					     "'%s' is not mapped by process %d: probe %s "
					     "would never fire",
					     path, (int)missing, event);
	} else if (npids) {
		for (size_t i = 0; i < npids && !err && !found; i++) {
			struct probe_binary *bins;
			size_t n;

			err = probe_binaries_of(pids[i], &bins, &n);
			if (err == -ESRCH || err == -ENOENT) {
				err = 0;
				continue;
			}
			for (size_t k = 0; k < n && !err && !found; k++) {
				err = add_usdt_sites(bins[k].open_path, provider, name, event, defs,
						     ndefs, cap, w, &found);
				if (err && err != -ENOMEM && err != -EINVAL)
					err = 0; /* an unreadable binary has no probe for us */
			}
			probe_binaries_free(bins, n);
		}
		if (!err && !found)
			err = prof_error_set(w, -ENOENT,
					     "'prof probes -p PID' lists the probes of what a "
					     "process maps (HotSpot's are in libjvm.so)",
					     "no probe %s in the mappings of the target process%s",
					     event, npids > 1 ? "es" : "");
	} else if (cmd) {
		err = probe_find_program(cmd, prog, sizeof(prog));
		if (!err)
			err = add_usdt_sites(prog, provider, name, event, defs, ndefs, cap, w, &found);
		if (err == -ENOEXEC)
			err = 0;
		if (!err && !found)
			err = prof_error_set(w, -ENOENT,
					     "for a probe in a library, give its path: "
					     "usdt:PATH:PROVIDER:NAME",
					     "no probe %s in '%s'", event, base_name(cmd));
		else if (err && err != -ENOMEM && err != -EINVAL)
			err = prof_error_set(w, err, NULL, "cannot read '%s': %s", cmd,
					     strerror(-err));
	}
	free(copy);
	return err;
}

static int resolve_uprobe(const char *rest, int ret, const pid_t *pids, size_t npids,
			  struct probe_def **defs, size_t *ndefs, size_t *cap, struct prof_error *w)
{
	const char *kind = ret ? "uretprobe" : "uprobe";
	char *copy = strdup(rest), *sym, *plus;
	uint64_t off = 0, foff, size;
	struct probe_def *d;
	int err, any;
	pid_t missing = 0;

	if (!copy)
		return -ENOMEM;
	sym = strrchr(copy, ':');
	if (!sym || sym == copy || !sym[1]) {
		free(copy);
		return prof_error_set(
		    w, -EINVAL,
		    ret ? "write uretprobe:PATH:FUNCTION"
			: "write uprobe:PATH:FUNCTION or uprobe:PATH:FUNCTION+OFFSET",
		    "invalid probe '%s:%s'", kind, rest);
	}
	*sym++ = '\0';
	plus = strchr(sym, '+');
	if (plus) {
		char *end;

		*plus++ = '\0';
		errno = 0;
		off = strtoull(plus, &end, 0);
		if (ret || errno || *end || end == plus) {
			free(copy);
			return prof_error_set(w, -EINVAL,
					      ret ? "a return probe is on a whole function" : NULL,
					      "invalid offset in '%s:%s'", kind, rest);
		}
	}
	err = elf_symbol_file_offset(copy, sym, off, &foff, &size, &any);
	if (err == -ENOENT && any)
		err = prof_error_set(w, err, "'nm -D BINARY' or 'nm BINARY' lists its functions",
				     "no function '%s' in '%s'", sym, copy);
	else if (err == -ENOENT)
		err = access(copy, R_OK) ? prof_error_set(w, err, NULL, "cannot read '%s': %s",
							  copy, strerror(ENOENT))
					 : prof_error_set(w, err, NULL,
							  "no function '%s' in '%s' (it has no "
							  "symbol table)",
							  sym, copy);
	else if (err == -ERANGE)
		err = prof_error_set(w, err, NULL, "offset %s is past the end of '%s' (%llu bytes)",
				     plus, sym, (unsigned long long)size);
	else if (err == -ENOEXEC)
		err = prof_error_set(w, err, NULL, "cannot read '%s': not an ELF binary", copy);
	else if (err && err != -ENOMEM)
		err = prof_error_set(w, err, NULL, "cannot read '%s': %s", copy, strerror(-err));
	if (!err && npids && mapped_by(copy, pids, npids, &missing) == 0)
		err = prof_error_set(w, -ENOENT, NULL,
				     "'%s' is not mapped by process %d: %s:%s would never "
				     "fire",
				     copy, (int)missing, kind, sym);
	if (!err && GROW(*defs, *cap, *ndefs + 1))
		err = -ENOMEM;
	if (!err) {
		d = &(*defs)[(*ndefs)++];
		memset(d, 0, sizeof(*d));
		if (plus)
			snprintf(d->event, sizeof(d->event), "%s:%s:%s+%s", kind, base_name(copy), sym,
				 plus);
		else
			snprintf(d->event, sizeof(d->event), "%s:%s:%s", kind, base_name(copy), sym);
		snprintf(d->path, sizeof(d->path), "%s", copy);
		d->kind = ret ? PROBE_URETPROBE : PROBE_UPROBE;
		d->offset = foff;
		if (ret) { /* the return value, in rax (System V ABI) */
			d->nargs = 1;
			d->arg[0] = (struct usdt_arg){.kind = USDT_ARG_REG, .size = 8, .is_signed = 1,
						      .reg = USDT_REG_AX, .index = USDT_REG_NONE};
		}
	}
	free(copy);
	return err;
}

int probe_resolve(const char *spec, const pid_t *pids, size_t npids, const char *cmd,
		  struct probe_def **defs, size_t *ndefs, size_t *cap, struct prof_error *w)
{
	int err;

	prof_error_clear(w);
	if (!strncmp(spec, "usdt:", 5))
		err = resolve_usdt(spec + 5, pids, npids, cmd, defs, ndefs, cap, w);
	else if (!strncmp(spec, "uprobe:", 7))
		err = resolve_uprobe(spec + 7, 0, pids, npids, defs, ndefs, cap, w);
	else if (!strncmp(spec, "uretprobe:", 10))
		err = resolve_uprobe(spec + 10, 1, pids, npids, defs, ndefs, cap, w);
	else
		err = prof_error_set(w, -EINVAL,
				     "events are cpu-clock, usdt:PROVIDER:NAME, "
				     "usdt:PATH:PROVIDER:NAME, uprobe:PATH:FUNCTION[+OFF], "
				     "uretprobe:PATH:FUNCTION",
				     "unknown event '%s'", spec);
	if (err == -ENOMEM && !w->msg[0])
		prof_error_set(w, err, NULL, "out of memory");
	return err;
}
