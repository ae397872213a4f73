/* xml-out.h: a libxml2 text writer onto a FILE * (xml-out.c), for the svg/
 * writers only: it keeps libxml2 out of svg/internal.h, which the fuzz
 * targets build without it. */
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
};

int xml_out__open(struct xml_out *x, FILE *f);
int xml_out__close(struct xml_out *x, int err);

#endif
