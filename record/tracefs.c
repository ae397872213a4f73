/* tracefs.c: tracefs discovery and tracepoint formats (see tracefs.h). The
 * format files are parsed by libtraceevent, so field offsets follow the
 * running kernel rather than a layout compiled in. */
#include "tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>

#include "lib/recording.h"

static int is_tracefs_dir(const char *dir)
{
	char path[8300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int tracefs_find(char *dir, size_t len, char *why, size_t whylen)
{
	FILE *f = fopen("/proc/mounts", "re");
	char line[4096], src[256], mnt[4096], type[64];
	int err;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s", src, mnt, type) != 3)
			continue;
		if (!strcmp(type, "tracefs") && is_tracefs_dir(mnt)) {
			snprintf(dir, len, "%s", mnt);
			fclose(f);
			return 0;
		}
		if (!strcmp(type, "debugfs")) {
			char sub[8200];

			snprintf(sub, sizeof(sub), "%s/tracing", mnt);
			if (is_tracefs_dir(sub)) {
				snprintf(dir, len, "%s", sub);
				fclose(f);
				return 0;
			}
		}
	}
	if (f)
		fclose(f);
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    is_tracefs_dir("/sys/kernel/tracing")) {
		snprintf(dir, len, "/sys/kernel/tracing");
		return 0;
	}
	err = errno ? errno : ENOENT;
	snprintf(why, whylen, "tracefs is not mounted and mounting it at /sys/kernel/tracing "
		 "failed: %s", strerror(err));
	return -err;
}

static int read_file(const char *path, char **buf, size_t *len)
{
	unsigned char *data;
	int err = read_whole_file(path, &data, len);

	if (err)
		return err;
	*buf = (char *)data;
	return 0;
}

int tracepoint_load(const char *dir, const char *sys, const char *name,
		    const char *const *fields, struct tracepoint *tp)
{
	char path[8300];
	char *text = NULL;
	size_t len, i;
	struct tep_handle *tep;
	struct tep_event *ev;
	int err;

	memset(tp, 0, sizeof(*tp));
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, name);
	err = read_file(path, &text, &len);
	if (err)
		return err;
	tp->id = strtoull(text, NULL, 10);
	free(text);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, name);
	err = read_file(path, &text, &len);
	if (err)
		return err;
	tep = tep_alloc();
	if (!tep) {
		free(text);
		return -ENOMEM;
	}
	err = -EBADMSG;
	if (tep_parse_event(tep, text, len, sys) != 0)
		goto out;
	ev = tep_find_event_by_name(tep, sys, name);
	if (!ev)
		goto out;
	for (i = 0; fields[i] && i < TP_MAX_FIELDS; i++) {
		struct tep_format_field *fl = tep_find_field(ev, fields[i]);

		if (!fl)
			continue;
		if (fl->offset < 0 || fl->size <= 0 || fl->offset + fl->size > 65535)
			goto out;
		tp->field[i].offset = (uint16_t)fl->offset;
		tp->field[i].size = (uint16_t)fl->size;
		if (fl->offset + fl->size > tp->raw_size)
			tp->raw_size = (uint16_t)(fl->offset + fl->size);
	}
	err = 0;
out:
	tep_free(tep);
	free(text);
	return err;
}
