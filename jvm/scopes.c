/* scopes.c: the Java methods inlined at a pc of a compiled method, read
 * from outside the JVM (hotspot.h), as HotSpot's own stack walks find them
 * (nmethod.cpp, pcDesc.hpp, scopeDesc.cpp, debugInfo.hpp): the nmethod's
 * PcDesc for the pc (a sorted table, binary searched) gives the decode
 * offset of the innermost ScopeDesc in the scopes data; each scope holds
 * its sender's decode offset (0: none, the outermost), its method as a
 * 1-based index into the nmethod's metadata table, and its bci, all
 * UNSIGNED5-coded.
 *
 * The nmethod may be freed or replaced while this reads it, and the bytes
 * are the JVM's, not ours: every offset is checked against what was read,
 * a scope's sender must lie before it in the stream (HotSpot writes the
 * outer scope first), so a chain ends within HS_MAX_SCOPES steps, and the
 * outermost scope must be the nmethod's own method, or the chain is
 * refused (-EBADMSG) and the frame keeps its one name. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_READ 512 /* bytes of the nmethod read for its fields */

/* UNSIGNED5 (compressedStream.hpp): a byte below L ends the number; up to
 * five bytes, the i-th weighted by 64^i. */
#define U5_L	 192
#define U5_LG_H	 6
#define U5_BYTES 5

int hs_unsigned5(const unsigned char *buf, size_t len, size_t *pos, uint32_t *v)
{
	uint32_t sum = 0;
	unsigned shift = 0;

	for (int i = 0; i < U5_BYTES; i++, shift += U5_LG_H) {
		uint32_t b;

		if (*pos >= len)
			return -EBADMSG;
		b = buf[(*pos)++];
		sum += b << shift;
		if (b < U5_L || i == U5_BYTES - 1)
			break;
	}
	*v = sum;
	return 0;
}

static int32_t pc_at(const struct hs_nm_data *d, size_t i)
{
	int32_t v;

	memcpy(&v, d->pcs + i * d->pcd_size + d->pcd_pc, sizeof(v));
	return v;
}

long hs_pcdesc_find(const struct hs_nm_data *d, uint64_t off, int leaf)
{
	int64_t want = (int64_t)off + (leaf ? 1 : 0);
	size_t lo = 0, hi = d->npcs;

	if (off > INT32_MAX)
		return -1;
	while (lo < hi) { /* the first record at or after want */
		size_t mid = lo + (hi - lo) / 2;

		if (pc_at(d, mid) < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* An unsorted table (torn, or not one) gives some record in it, whose
	 * scope is then checked like any other. */
	return lo < d->npcs ? (long)lo : -1;
}

int hs_scope_chain(const struct hs_nm_data *d, uint32_t at, uint64_t *methods, size_t max)
{
	size_t n = 0;

	if (!max)
		return -EBADMSG;
	if (!at) { /* a sentinel record: the method itself */
		methods[0] = d->method;
		return d->method ? 1 : -EBADMSG;
	}
	while (at) {
		size_t pos = at;
		uint32_t sender, index, bci;
		uint64_t m;

		if (n == max || at >= d->scopes_len ||
		    hs_unsigned5(d->scopes, d->scopes_len, &pos, &sender) ||
		    hs_unsigned5(d->scopes, d->scopes_len, &pos, &index) ||
		    hs_unsigned5(d->scopes, d->scopes_len, &pos, &bci))
			return -EBADMSG;
		/* metadata index 0 is null; senders come earlier (no loops) */
		if (!index || index > d->nmeta || sender >= at)
			return -EBADMSG;
		memcpy(&m, d->meta + (size_t)(index - 1) * 8, sizeof(m));
		if (!m)
			return -EBADMSG;
		methods[n++] = m;
		at = sender;
	}
	return methods[n - 1] == d->method ? (int)n : -EBADMSG;
}

int hs_nm_inlines(const struct hs_nm_data *d, uint64_t pc, int leaf, uint64_t *methods, size_t max)
{
	uint32_t at;
	long i;

	if (pc < d->code_begin)
		return -EBADMSG;
	if (!d->npcs && max) { /* a native method's wrapper: no pc descs at all */
		methods[0] = d->method;
		return 1;
	}
	i = hs_pcdesc_find(d, pc - d->code_begin, leaf);
	if (i < 0)
		return -EBADMSG;
	memcpy(&at, d->pcs + (size_t)i * d->pcd_size + d->pcd_scope, sizeof(at));
	return hs_scope_chain(d, at, methods, max);
}

int hs_nm_data__read(struct hs_nm_data *d, struct jvm_mem *m, const struct hs_layout *l,
		     const struct hs_code_entry *e)
{
	const uint64_t offs[] = {l->blob_code_begin, l->nm_compile_id,	 l->nm_method,
				 l->nm_scopes_data,  l->nm_metadata_off, l->nm_pcs_off,
				 l->nm_deps_off,     l->blob_size};
	unsigned char hdr[HEADER_READ];
	uint64_t meta, scopes, pcs, end;
	int32_t size;

	memset(d, 0, sizeof(*d));
	if (!l->nm_scopes || e->kind != HS_CODE_NMETHOD || l->pcd_size < 8 || l->pcd_size > 64 ||
	    l->pcd_pc > l->pcd_size - 4 || l->pcd_scope > l->pcd_size - 4)
		return -ENOTSUP;
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] > HEADER_READ - 8)
			return -ENOTSUP;
	if (jvm_mem__read(m, e->blob, hdr, sizeof(hdr)))
		return -EFAULT;
	/* still the nmethod the code table saw */
	if (hs_u64_at(hdr, l->blob_code_begin) != e->begin ||
	    hs_i32_at(hdr, l->nm_compile_id) != e->compile_id ||
	    hs_u64_at(hdr, l->nm_method) != e->method || !e->method)
		return -EBADMSG;
	size = hs_i32_at(hdr, l->blob_size);
	meta = e->blob + (uint64_t)(int64_t)hs_i32_at(hdr, l->nm_metadata_off);
	scopes = hs_u64_at(hdr, l->nm_scopes_data);
	pcs = e->blob + (uint64_t)(int64_t)hs_i32_at(hdr, l->nm_pcs_off);
	end = e->blob + (uint64_t)(int64_t)hs_i32_at(hdr, l->nm_deps_off);
	/* metadata, scopes data, pc descs: in this order, inside the blob */
	if (size <= 0 || meta <= e->blob || meta > scopes || scopes > pcs || pcs > end ||
	    end > e->blob + (uint64_t)size || (scopes - meta) % 8 || (end - pcs) % l->pcd_size)
		return -EBADMSG;
	if (end - meta > HS_MAX_NM_DATA)
		return -E2BIG;
	if (!(d->buf = malloc(end - meta + 1)))
		return -ENOMEM;
	if (jvm_mem__read(m, meta, d->buf, end - meta)) {
		hs_nm_data__release(d);
		return -EFAULT;
	}
	/* freed and reused while the tables were read: they may be torn */
	if (jvm_mem__read(m, e->blob, hdr, sizeof(hdr)) ||
	    hs_i32_at(hdr, l->nm_compile_id) != e->compile_id ||
	    hs_u64_at(hdr, l->blob_code_begin) != e->begin) {
		hs_nm_data__release(d);
		return -EBADMSG;
	}
	d->blob = e->blob;
	d->code_begin = e->begin;
	d->compile_id = e->compile_id;
	d->method = e->method;
	d->meta = d->buf;
	d->nmeta = (scopes - meta) / 8;
	d->scopes = d->buf + (scopes - meta);
	d->scopes_len = pcs - scopes;
	d->pcs = d->buf + (pcs - meta);
	d->pcd_size = l->pcd_size;
	d->pcd_pc = l->pcd_pc;
	d->pcd_scope = l->pcd_scope;
	d->npcs = (end - pcs) / l->pcd_size;
	return 0;
}

void hs_nm_data__release(struct hs_nm_data *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}
