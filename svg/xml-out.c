/* xml-out.c: a libxml2 text writer onto a FILE *, shared by the flamegraph
 * and the scheduler chart: write errors come back to the caller as -errno
 * instead of being printed by libxml2 (data structures never print). */
#include <errno.h>
#include <stdio.h>

#include "svg/xml-out.h"

#include "lib/dynlib.h"

struct libxml_writer libxml;

/* What xml-out.c itself calls. */
static struct {
	xmlTextWriterPtr (*new_text_writer)(xmlOutputBufferPtr);
	void (*free_text_writer)(xmlTextWriterPtr);
	xmlOutputBufferPtr (*output_buffer_create_io)(xmlOutputWriteCallback, xmlOutputCloseCallback,
						      void *, xmlCharEncodingHandlerPtr);
	int (*output_buffer_close)(xmlOutputBufferPtr);
	void (*set_generic_error_func)(void *, xmlGenericErrorFunc);
	xmlGenericErrorFunc *(*generic_error)(void);
	void **(*generic_error_context)(void);
} own;

/* 0, or -1 (said on stderr) when libxml2 cannot be loaded. */
static int load_libxml(void)
{
	static const char *const names[] = {
		"xmlTextWriterStartDocument", "xmlTextWriterEndDocument",
		"xmlTextWriterFlush",	      "xmlTextWriterStartElement",
		"xmlTextWriterEndElement",    "xmlTextWriterWriteRaw",
		"xmlTextWriterWriteAttribute", "xmlTextWriterWriteString",
		"xmlTextWriterWriteCDATA",    "xmlNewTextWriter",
		"xmlFreeTextWriter",	      "xmlOutputBufferCreateIO",
		"xmlOutputBufferClose",	      "xmlSetGenericErrorFunc",
		"__xmlGenericError",	      "__xmlGenericErrorContext",
	};
	void **const slots[] = {
		(void **)&libxml.start_document,  (void **)&libxml.end_document,
		(void **)&libxml.flush,		  (void **)&libxml.start_element,
		(void **)&libxml.end_element,	  (void **)&libxml.write_raw,
		(void **)&libxml.write_attribute, (void **)&libxml.write_string,
		(void **)&libxml.write_cdata,	  (void **)&own.new_text_writer,
		(void **)&own.free_text_writer,	  (void **)&own.output_buffer_create_io,
		(void **)&own.output_buffer_close, (void **)&own.set_generic_error_func,
		(void **)&own.generic_error,	  (void **)&own.generic_error_context,
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	static int state; /* 0 not tried, 1 loaded, -1 failed */
	void *fns[N];
	size_t i;

	_Static_assert(sizeof(slots) / sizeof(slots[0]) == N, "one slot per name");
	if (!state) {
		state = dynlib_load("libxml2.so.2", "libxml2", names, fns, N) ? -1 : 1;
		for (i = 0; state > 0 && i < N; i++)
			*slots[i] = fns[i];
	}
	return state > 0 ? 0 : -1;
}

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
	x->loaded = 0;
	if (load_libxml())
		return -ENOTSUP;
	x->loaded = 1;
	x->saved_handler = *own.generic_error();
	x->saved_ctx = *own.generic_error_context();
	own.set_generic_error_func(NULL, quiet);
	buf = own.output_buffer_create_io(io_write, io_close, x, NULL);
	x->w = buf ? own.new_text_writer(buf) : NULL;
	if (!x->w) {
		if (buf)
			own.output_buffer_close(buf);
		return -ENOMEM;
	}
	return 0;
}

int xml_out__close(struct xml_out *x, int err)
{
	if (x->w) {
		own.free_text_writer(x->w); /* closes the output buffer */
		x->w = NULL;
		if (x->err)
			err = x->err;
		errno = 0;
		if (!err && fflush(x->f))
			err = errno ? -errno : -EIO;
	}
	if (x->loaded)
		own.set_generic_error_func(x->saved_ctx, x->saved_handler);
	return err;
}

int xml_out__cdata_metadata(xmlTextWriterPtr w, const char *id, const char *name,
			    const char *value, int (*body)(void *ctx), void *ctx)
{
	int err;

	X(libxml.start_element(w, S("metadata")));
	X(libxml.write_attribute(w, S("id"), S(id)));
	if (name)
		X(libxml.write_attribute(w, S(name), S(value)));
	X(libxml.write_raw(w, S("<![CDATA[")));
	X(libxml.flush(w));
	if ((err = body(ctx)))
		return err;
	X(libxml.write_raw(w, S("]]>")));
	X(libxml.end_element(w));
	X(libxml.write_raw(w, S("\n")));
	return 0;
}
