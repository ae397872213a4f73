/* xml-out.c: a libxml2 text writer onto a FILE *, shared by the flamegraph
 * and the scheduler chart: write errors come back to the caller as -errno
 * instead of being printed by libxml2 (data structures never print). */
#include <errno.h>
#include <stdio.h>

#include "svg/xml-out.h"

static int io_write(void *ctx, const char *buf, int len)
{
	struct xml_out *x = ctx;

	errno = 0;
	if (len > 0 && fwrite(buf, 1, (size_t)len, x->f) != (size_t)len) {
		if (!x->err)
			x->err = errno ? -errno : -EIO;
		return -1;
	}
	return len;
}

static int io_close(void *ctx)
{
	(void)ctx;
	return 0;
}

static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

int xml_out__open(struct xml_out *x, FILE *f)
{
	xmlOutputBufferPtr buf;

	x->f = f;
	x->err = 0;
	x->w = NULL;
	x->saved_handler = xmlGenericError;
	x->saved_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(NULL, quiet);
	buf = xmlOutputBufferCreateIO(io_write, io_close, x, NULL);
	x->w = buf ? xmlNewTextWriter(buf) : NULL;
	if (!x->w) {
		if (buf)
			xmlOutputBufferClose(buf);
		return -ENOMEM;
	}
	return 0;
}

int xml_out__close(struct xml_out *x, int err)
{
	if (x->w) {
		xmlFreeTextWriter(x->w); /* closes the output buffer */
		x->w = NULL;
		if (x->err)
			err = x->err;
		errno = 0;
		if (!err && fflush(x->f))
			err = errno ? -errno : -EIO;
	}
	xmlSetGenericErrorFunc(x->saved_ctx, x->saved_handler);
	return err;
}
