/* cli-io.c: opening a command's input and output as every front end does
 * (see report-cli.h): the input's name in messages, reading it whole with
 * the same errors and hints, and an -o FILE that takes its name only once
 * it was written whole (lib/out-file.h). */
#include "report/report-cli.h"

#include <errno.h>
#include <string.h>

#include "lib/cli.h"

void profile_input_name(char *shown, size_t len, const char *path)
{
	if (!strcmp(path, "-"))
		snprintf(shown, len, "standard input");
	else
		snprintf(shown, len, "'%s'", path);
}

int profile_input_read(const char *path, const char *shown, const char *hint,
		       unsigned char **data, size_t *size)
{
	int err = read_whole_file(path, data, size);

	return err ? profile_input_read_error(path, shown, hint, err) : 0;
}

int profile_input_read_error(const char *path, const char *shown, const char *hint, int err)
{
	if (!strcmp(path, "-"))
		cli_error("cannot read standard input: %s", strerror(-err));
	else if (err == -EISDIR || err == -ENOMEM)
		cli_error("cannot read %s: %s", shown, strerror(-err));
	else
		cli_error("cannot open %s: %s", shown, strerror(-err));
	if (err == -ENOENT && hint)
		cli_hint("%s", hint);
	return EXIT_FAIL;
}

int profile_output__open(struct profile_output *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return 0;
	}
	o->fp = out_file__fopen(&o->of, path);
	if (!o->fp)
		return -errno;
	o->path = path;
	setvbuf(o->fp, NULL, _IOFBF, 1 << 16);
	return 0;
}

int profile_output__close(struct profile_output *o, int err)
{
	int close_err = 0;

	if (o->path && o->fp)
		close_err = out_file__fclose(&o->of, o->fp, !err);
	o->fp = NULL;
	o->path = NULL;
	return err ? err : close_err;
}
