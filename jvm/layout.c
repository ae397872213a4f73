/* layout.c: the HotSpot field offsets, type sizes and constants that the
 * code cache walker and the method namer need (struct hs_layout), looked
 * up once in the tables read by vmstructs.c. A JVM whose tables lack one
 * of them (another version, a stripped build) is refused with its name,
 * so callers fall back to what they did without. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <stddef.h>

struct want {
	const char *type, *field; /* field NULL: the type's size */
	size_t at;		  /* offsetof(struct hs_layout, ...) */
	const char *alt_type;	  /* where an older or newer JVM declares it */
};

#define AT(f) offsetof(struct hs_layout, f)

static const struct want wants[] = {
    {"GrowableArrayBase", "_len", AT(ga_len), "GenericGrowableArray"},
    {"GrowableArray<int>", "_data", AT(ga_data), NULL},
    {"CodeHeap", "_memory", AT(heap_memory), NULL},
    {"CodeHeap", "_segmap", AT(heap_segmap), NULL},
    {"CodeHeap", "_log2_segment_size", AT(heap_log2_seg), NULL},
    {"VirtualSpace", "_low", AT(vs_low), NULL},
    {"VirtualSpace", "_high", AT(vs_high), NULL},
    {"HeapBlock", "_header", AT(hb_header), NULL},
    {"HeapBlock::Header", "_length", AT(hb_length), NULL},
    {"HeapBlock::Header", "_used", AT(hb_used), NULL},
    {"HeapBlock", NULL, AT(hb_size), NULL},
    {"CodeBlob", "_name", AT(blob_name), NULL},
    {"CodeBlob", "_size", AT(blob_size), NULL},
    {"CodeBlob", "_frame_size", AT(blob_frame_size), NULL},
    {"CodeBlob", "_frame_complete_offset", AT(blob_frame_complete), NULL},
    {"CodeBlob", "_code_begin", AT(blob_code_begin), NULL},
    {"CodeBlob", "_code_end", AT(blob_code_end), NULL},
    {"CompiledMethod", "_method", AT(nm_method), "nmethod"},
    {"nmethod", "_compile_id", AT(nm_compile_id), NULL},
    {"Method", "_constMethod", AT(method_const), NULL},
    {"ConstMethod", "_constants", AT(cm_constants), NULL},
    {"ConstMethod", "_name_index", AT(cm_name_index), NULL},
    {"ConstMethod", "_signature_index", AT(cm_sig_index), NULL},
    {"ConstantPool", "_pool_holder", AT(cp_holder), NULL},
    {"ConstantPool", "_length", AT(cp_length), NULL},
    {"ConstantPool", NULL, AT(cp_size), NULL},
    {"Klass", "_name", AT(klass_name), NULL},
    {"Symbol", "_length", AT(sym_length), NULL},
    {"Symbol", "_body", AT(sym_body), NULL},
};

static int look(const struct vmstructs *vs, const char *type, const char *field, uint64_t *v)
{
	return field ? vmstructs__offset(vs, type, field, v) : vmstructs__size(vs, type, v);
}

/* What decoding a compiled frame's inlined methods needs (scopes.c): all
 * of it, or nm_scopes stays 0 and frames are shown without their inlines
 * (JDK 23 and later lay nmethods out otherwise). */
static void scopes_layout(struct hs_layout *l, const struct vmstructs *vs)
{
	l->nm_scopes = (!look(vs, "CompiledMethod", "_scopes_data_begin", &l->nm_scopes_data) ||
			!look(vs, "nmethod", "_scopes_data_begin", &l->nm_scopes_data)) &&
		       !look(vs, "nmethod", "_metadata_offset", &l->nm_metadata_off) &&
		       !look(vs, "nmethod", "_scopes_pcs_offset", &l->nm_pcs_off) &&
		       !look(vs, "nmethod", "_dependencies_offset", &l->nm_deps_off) &&
		       !look(vs, "PcDesc", "_pc_offset", &l->pcd_pc) &&
		       !look(vs, "PcDesc", "_scope_decode_offset", &l->pcd_scope) &&
		       !look(vs, "PcDesc", NULL, &l->pcd_size);
}

int hs_layout__init(struct hs_layout *l, const struct vmstructs *vs, struct prof_error *e)
{
	int64_t slot;

	*l = (struct hs_layout){0};
	if (vmstructs__static(vs, "CodeCache", "_heaps", &l->code_heaps))
		return prof_error_set(e, -ENOTSUP, NULL,
				      "this JVM's tables have no CodeCache::_heaps");
	if (vmstructs__static(vs, "CodeCache", "_low_bound", &l->code_low) ||
	    vmstructs__static(vs, "CodeCache", "_high_bound", &l->code_high))
		return prof_error_set(
		    e, -ENOTSUP, NULL,
		    "this JVM's tables have no CodeCache::_low_bound/_high_bound");
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];
		uint64_t *v = (uint64_t *)((char *)l + w->at);

		if (look(vs, w->type, w->field, v) &&
		    (!w->alt_type || look(vs, w->alt_type, w->field, v)))
			return prof_error_set(e, -ENOTSUP, NULL, "this JVM's tables have no %s%s%s",
					      w->type, w->field ? "::" : "",
					      w->field ? w->field : " size");
	}
	scopes_layout(l, vs);
	/* JDK 17 exports the interpreter frame's first two slots only; on
	 * x86-64 the Method* is the next one down (frame_x86.hpp: sender_sp
	 * -1, last_sp -2, method -3). Only the interpreted-frame namer needs
	 * it: 0 when unknown. */
	if (!vmstructs__int(vs, "frame::interpreter_frame_method_offset", &slot))
		l->interp_method_slot = slot;
	else if (!vmstructs__int(vs, "frame::interpreter_frame_last_sp_offset", &slot))
		l->interp_method_slot = slot - 1;
	return 0;
}
