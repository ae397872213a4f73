/* xml-out.h: a libxml2 text writer onto a FILE * (xml-out.c), for the svg/
 * writers only: it keeps libxml2 out of svg/svg-internal.h, which the fuzz
 * targets build without it. libxml2 is loaded by the first xml_out__open()
 * (lib/dynlib.h: with ICU and libstdc++, linking it cost every prof
 * command 1.7 ms at start), and the writers call its functions through
 * the table `libxml`. */
#ifndef PROF_SVG_XML_OUT_H
#define PROF_SVG_XML_OUT_H

#include <stdio.h>

#include <libxml/xmlwriter.h>

/* open: 0 or -ENOMEM (close it all the same); close frees the writer,
 * flushes, and returns `err`, else the first write error, else 0. */
struct xml_out {
	FILE *f;
	int err;
	xmlTextWriterPtr w;
	xmlGenericErrorFunc saved_handler;
	void *saved_ctx;
	int loaded; /* libxml2 was loaded: the handler is to be put back */
};

/* libxml2's xmlTextWriter functions that the writers use, valid after a
 * successful xml_out__open(). */
struct libxml_writer {
	int (*start_document)(xmlTextWriterPtr, const char *, const char *, const char *);
	int (*end_document)(xmlTextWriterPtr);
	int (*flush)(xmlTextWriterPtr);
	int (*start_element)(xmlTextWriterPtr, const xmlChar *);
	int (*end_element)(xmlTextWriterPtr);
	int (*write_raw)(xmlTextWriterPtr, const xmlChar *);
	int (*write_attribute)(xmlTextWriterPtr, const xmlChar *, const xmlChar *);
	int (*write_string)(xmlTextWriterPtr, const xmlChar *);
	int (*write_cdata)(xmlTextWriterPtr, const xmlChar *);
};

extern struct libxml_writer libxml;

/* For the writers: every libxml2 writer call returns < 0 on failure; X()
 * returns -EIO from the calling function then. S() makes a C string the
 * writer's type. */
#define X(call)                                                                                    \
	do {                                                                                       \
		if ((call) < 0)                                                                    \
			return -EIO;                                                               \
	} while (0)

#define S(str) ((const xmlChar *)(str))

/* Writes <metadata id=ID [NAME=VALUE]><![CDATA[...]]></metadata> and a
 * newline with w, the section's content from body(ctx), which writes it
 * past libxml2 (flushed first) straight to the file: tables of megabytes,
 * no escaping (the body keeps "]]>" out). name NULL: no second attribute.
 * 0, -EIO, or body's error. */
int xml_out__cdata_metadata(xmlTextWriterPtr w, const char *id, const char *name,
			    const char *value, int (*body)(void *ctx), void *ctx);

/* -ENOTSUP when libxml2 cannot be loaded (said on stderr). */
int xml_out__open(struct xml_out *x, FILE *f);
int xml_out__close(struct xml_out *x, int err);

#endif
