/* rec-args.c: probe argument records (see rec-args.h). */
#include "rec-args.h"

#include <errno.h>

static size_t put_uleb(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	do {
		unsigned char b = v & 0x7f;

		v >>= 7;
		p[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static int get_uleb(const unsigned char *p, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	for (;;) {
		unsigned char b;

		if (*pos >= len || shift > 63)
			return -EBADMSG;
		b = p[(*pos)++];
		if (shift == 63 && (b & 0x7e))
			return -EBADMSG; /* would overflow 64 bits */
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	*v = x;
	return 0;
}

size_t rec_args_encode(unsigned char *buf, uint32_t delta, unsigned n, uint32_t strmask,
		       const int64_t *vals)
{
	size_t len = put_uleb(buf, delta);

	buf[len++] = (unsigned char)n;
	len += put_uleb(buf + len, strmask);
	for (unsigned i = 0; i < n; i++) {
		uint64_t z = ((uint64_t)vals[i] << 1) ^ (uint64_t)(vals[i] >> 63);

		len += put_uleb(buf + len, z);
	}
	return len;
}

int rec_args_decode(const unsigned char *p, size_t len, size_t *pos, uint32_t *delta,
		    unsigned *n, uint32_t *strmask, int64_t *vals)
{
	uint64_t v;

	if (get_uleb(p, len, pos, &v) || v > UINT32_MAX)
		return -EBADMSG;
	*delta = (uint32_t)v;
	if (*pos >= len || p[*pos] > REC_ARGS_MAX)
		return -EBADMSG;
	*n = p[(*pos)++];
	if (get_uleb(p, len, pos, &v) || v >> *n)
		return -EBADMSG;
	*strmask = (uint32_t)v;
	for (unsigned i = 0; i < *n; i++) {
		if (get_uleb(p, len, pos, &v))
			return -EBADMSG;
		vals[i] = (int64_t)((v >> 1) ^ (0 - (v & 1)));
	}
	return 0;
}
