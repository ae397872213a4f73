/* hotspot.h: reading a running HotSpot JVM's own metadata from outside it
 * (jvm/ internal; docs/prof-jvm.md, "HotSpot's metadata"), as the
 * serviceability agent does: libjvm.so exports gHotSpotVMStructs,
 * gHotSpotVMTypes and gHotSpotVMInt/LongConstants, tables that name the
 * offsets of the fields of its C++ classes, the sizes of its types and the
 * values of its constants. With them prof walks the code cache (blob ->
 * code range, frame size, Method*) and names a Method* ("pkg.Class.method"),
 * reading the target's memory with process_vm_readv; the JVM is never
 * stopped or signalled.
 *
 * Everything read is hostile and racy (the JVM runs on while it is read):
 * every count, length and string is bounded, a failed or torn read skips
 * that item, and nothing read is ever followed without a bound. */
#ifndef PROF_JVM_HOTSPOT_H
#define PROF_JVM_HOTSPOT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "lib/prof-error.h"

/* A field of a copy of the JVM's memory, at byte offset off of p (the
 * caller checked that it lies inside). */
static inline int32_t hs_i32_at(const unsigned char *p, uint64_t off)
{
	int32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

static inline uint64_t hs_u64_at(const unsigned char *p, uint64_t off)
{
	uint64_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/* ---- target-mem.c: bounded reads of another process's memory ---- */

#define JVM_MEM_PAGES 32 /* pages cached for string reads */

struct jvm_mem {
	pid_t pid;
	uint64_t reads; /* process_vm_readv calls made */
	struct {
		uint64_t addr; /* page address, 0: empty */
		unsigned char data[4096];
	} page[JVM_MEM_PAGES];
};

void jvm_mem__init(struct jvm_mem *m, pid_t pid);
/* Copies len bytes at addr; 0, or -EFAULT when any of them cannot be read. */
int jvm_mem__read(struct jvm_mem *m, uint64_t addr, void *buf, size_t len);
int jvm_mem__u64(struct jvm_mem *m, uint64_t addr, uint64_t *v);
/* The NUL-terminated string at addr into buf (cap > 0), through the page
 * cache. 0, -EFAULT, or -ENAMETOOLONG when no NUL within cap - 1 bytes. */
int jvm_mem__string(struct jvm_mem *m, uint64_t addr, char *buf, size_t cap);

/* ---- vmstructs.c: the tables ---- */

struct vmstructs;

/* Where the tables are: the runtime addresses of the exported gHotSpot*
 * variables (each holds a pointer to its table, or an offset/stride). */
enum vms_sym {
	VMS_STRUCTS,
	VMS_S_TYPE,
	VMS_S_FIELD,
	VMS_S_STATIC,
	VMS_S_OFFSET,
	VMS_S_ADDRESS,
	VMS_S_STRIDE,
	VMS_TYPES,
	VMS_T_TYPE,
	VMS_T_SIZE,
	VMS_T_STRIDE,
	VMS_INTS,
	VMS_I_NAME,
	VMS_I_VALUE,
	VMS_I_STRIDE,
	VMS_LONGS,
	VMS_L_NAME,
	VMS_L_VALUE,
	VMS_L_STRIDE,
	VMS_NSYMS
};

/* The exported name of each enum vms_sym. */
extern const char *const vms_sym_names[VMS_NSYMS];

/* Most entries a table may have (JDK 17 has about 2,600 fields). */
#define VMS_MAX_ENTRIES 32768

/* Reads the tables of the process m->pid given the runtime addresses of
 * its gHotSpot* symbols (0: missing). Allocates *out (vmstructs__free).
 * 0; -ENOTSUP (a symbol missing: not a HotSpot with its tables, reason in
 * e); -EFAULT (unreadable); -EBADMSG (a table makes no sense); -ENOMEM. */
int vmstructs__parse(struct jvm_mem *m, const uint64_t syms[VMS_NSYMS], struct vmstructs **out,
		     struct prof_error *e);
/* The same for process `pid`: libjvm.so found in /proc/PID/maps, its
 * symbols read from the file (through /proc/PID/root). -ENOENT: no
 * libjvm.so mapped. */
int vmstructs__read(struct jvm_mem *m, struct vmstructs **out, struct prof_error *e);
void vmstructs__free(struct vmstructs *vs);

/* A field's offset (a non-static field) into *off: 0 or -ENOENT. */
int vmstructs__offset(const struct vmstructs *vs, const char *type, const char *field,
		      uint64_t *off);
/* A static field's address: 0 or -ENOENT. */
int vmstructs__static(const struct vmstructs *vs, const char *type, const char *field,
		      uint64_t *addr);
/* A type's size: 0 or -ENOENT. */
int vmstructs__size(const struct vmstructs *vs, const char *type, uint64_t *size);
/* An int or long constant: 0 or -ENOENT. */
int vmstructs__int(const struct vmstructs *vs, const char *name, int64_t *v);
int vmstructs__long(const struct vmstructs *vs, const char *name, int64_t *v);
/* Entry i of table t (0 fields, 1 types, 2 int constants, 3 long
 * constants), for the debug listing: 1 and its parts ("" field for all
 * but fields), or 0 past the end. Names are owned by vs. */
int vmstructs__entry(const struct vmstructs *vs, int t, size_t i, const char **type,
		     const char **field, int *is_static, uint64_t *value);

/* ---- layout.c: the offsets the walkers need, looked up once ---- */

struct hs_layout {
	uint64_t code_heaps;			/* &CodeCache::_heaps */
	uint64_t code_low, code_high;		/* &CodeCache::_low_bound, _high_bound */
	uint64_t ga_len, ga_data;		/* GrowableArray<>: _len, _data */
	uint64_t heap_memory, heap_segmap;	/* CodeHeap: VirtualSpaces */
	uint64_t heap_log2_seg;			/* CodeHeap: int */
	uint64_t vs_low, vs_high;		/* VirtualSpace */
	uint64_t hb_header, hb_length, hb_used; /* HeapBlock, its Header */
	uint64_t hb_size;			/* sizeof(HeapBlock) */
	uint64_t blob_name, blob_size, blob_frame_size, blob_code_begin, blob_code_end;
	uint64_t blob_frame_complete;			    /* CodeBlob::_frame_complete_offset */
	uint64_t nm_method;				    /* CompiledMethod::_method */
	uint64_t nm_compile_id;				    /* nmethod::_compile_id */
	uint64_t method_const;				    /* Method::_constMethod */
	uint64_t cm_constants, cm_name_index, cm_sig_index; /* ConstMethod */
	uint64_t cp_holder, cp_length, cp_size;		    /* ConstantPool, its size */
	uint64_t klass_name;				    /* Klass::_name */
	uint64_t sym_length, sym_body;			    /* Symbol */
	int64_t interp_method_slot; /* frame::interpreter_frame_method_offset */
	/* An nmethod's debug information (scopes.c); nm_scopes 0: not known */
	int nm_scopes;
	uint64_t nm_scopes_data;			   /* CompiledMethod::_scopes_data_begin */
	uint64_t nm_metadata_off, nm_pcs_off, nm_deps_off; /* nmethod: int offsets */
	uint64_t pcd_pc, pcd_scope, pcd_size;		   /* PcDesc */
};

/* Fills l from vs. 0, or -ENOTSUP naming the first missing entry in e. */
int hs_layout__init(struct hs_layout *l, const struct vmstructs *vs, struct prof_error *e);

/* ---- codecache.c: the code blobs ---- */

#define HS_BLOB_NAME 48

struct hs_blob {
	uint64_t addr;		       /* the CodeBlob */
	uint64_t code_begin, code_end; /* its instructions */
	int32_t frame_size;	       /* in words (CodeBlob::_frame_size) */
	int32_t frame_complete;	       /* from code_begin: the frame is built */
	int is_nmethod;		       /* compiled Java (also native wrappers) */
	uint64_t method;	       /* Method*, nmethods only */
	int32_t compile_id;	       /* nmethods only */
	char name[HS_BLOB_NAME];       /* "nmethod", "Interpreter", a stub's */
};

/* Calls fn for every used blob of every code heap, in address order per
 * heap; fn returning non-zero stops the walk with that value. At most
 * HS_MAX_BLOBS blobs per heap and HS_MAX_HEAPS heaps. 0, fn's value,
 * or -EFAULT when the heap list cannot be read. Blobs that cannot be read
 * (freed meanwhile) are skipped and counted in *skipped. */
#define HS_MAX_HEAPS 8
#define HS_MAX_BLOBS (1u << 22)
#define HS_MAX_FRAME_WORDS (1 << 16) /* a larger frame size is garbage, not a frame */
int hs_codecache__each(struct jvm_mem *m, const struct hs_layout *l,
		       int (*fn)(void *ctx, const struct hs_blob *b), void *ctx, uint64_t *skipped);

/* ---- code-table.c: a JVM's code blobs by address, for stack walks ---- */

enum { HS_CODE_OTHER, HS_CODE_INTERPRETER, HS_CODE_NMETHOD };

struct hs_code_entry {
	uint64_t begin, end;	/* the blob's instructions */
	int32_t frame_size;	/* words */
	int32_t frame_complete; /* bytes from begin; < 0: never */
	int kind;		/* HS_CODE_* */
	int32_t compile_id;	/* nmethods only */
	uint64_t blob;		/* the CodeBlob */
	uint64_t method;	/* Method*, nmethods only */
};

struct hs_code_table {
	struct hs_code_entry *e; /* sorted by begin, not overlapping */
	size_t n, cap;
};

/* (Re)loads t with every blob of the code cache (hs_codecache__each).
 * 0, -ENOMEM, or the walk's -errno (t then empty). */
int hs_code_table__load(struct hs_code_table *t, struct jvm_mem *m, const struct hs_layout *l);
/* The blob whose instructions hold pc, or NULL. O(log n). */
const struct hs_code_entry *hs_code_table__find(const struct hs_code_table *t, uint64_t pc);
void hs_code_table__release(struct hs_code_table *t);

/* ---- method-name.c: Method* -> names ---- */

#define HS_NAME_MAX 1024

/* "pkg.Class.method" (sig 0) or "pkg.Class.method(SIG)RET" as HotSpot's
 * Compiler.codelist prints it (sig 1) into buf, NUL-terminated; cut at
 * HS_NAME_MAX. 0, -EFAULT (unreadable), -EBADMSG (an index or length out
 * of bounds: not a Method, or freed). */
int hs_method_name(struct jvm_mem *m, const struct hs_layout *l, uint64_t method, int sig,
		   char *buf, size_t cap);

/* ---- scopes.c: a compiled frame's inlined methods ---- */

/* An nmethod's debug information, copied out of the JVM (as HotSpot's
 * nmethod.hpp lays it out): its PcDesc table (one record per pc with debug
 * information, sorted by pc offset from code_begin), its scopes data (a
 * stream of ScopeDescs: sender decode offset, method index, bci, ...,
 * UNSIGNED5-coded) and its metadata table (the Method* that scopes name by
 * a 1-based index). */
#define HS_MAX_SCOPES  32	  /* inlining depth kept (MaxInlineLevel is 15) */
#define HS_MAX_NM_DATA (1u << 20) /* bytes of an nmethod's tables read, at most */

struct hs_nm_data {
	uint64_t blob, code_begin;
	int32_t compile_id;
	uint64_t method;	  /* the nmethod's own Method*: the outermost scope's */
	unsigned char *buf;	  /* owns the three below */
	const unsigned char *pcs; /* npcs records of pcd_size bytes */
	size_t npcs, pcd_size, pcd_pc, pcd_scope;
	const unsigned char *scopes;
	size_t scopes_len;
	const unsigned char *meta; /* nmeta Metadata* (8 bytes each) */
	size_t nmeta;
};

/* One UNSIGNED5 int (CompressedReadStream::read_int, JDK 9 to 20) at
 * buf[*pos] (len bytes), *pos moved past it. 0, or -EBADMSG past the end. */
int hs_unsigned5(const unsigned char *buf, size_t len, size_t *pos, uint32_t *v);
/* The PcDesc that describes code offset `off`, as HotSpot finds it: for a
 * return address (a caller frame), the one at off; for a sampled pc
 * (leaf), the first after it. Its index, or -1 (none). O(log npcs). */
long hs_pcdesc_find(const struct hs_nm_data *d, uint64_t off, int leaf);
/* The methods of the scope at decode offset `at` and its senders into
 * methods[max], innermost first; the last is d->method. Scope offsets must
 * go down as the chain goes out (HotSpot writes a sender first): a loop or
 * a chain longer than max is refused. The count (>= 1), or -EBADMSG. */
int hs_scope_chain(const struct hs_nm_data *d, uint32_t at, uint64_t *methods, size_t max);
/* Both: the chain of the code at `pc` (leaf: a sampled pc). */
int hs_nm_inlines(const struct hs_nm_data *d, uint64_t pc, int leaf, uint64_t *methods, size_t max);
/* Reads the nmethod of code-table entry e into *d (allocates d->buf).
 * 0; -ENOTSUP (the layout lacks the fields); -EFAULT; -EBADMSG (freed or
 * replaced: its code, compile id or method differ, or offsets out of
 * order); -E2BIG (tables above HS_MAX_NM_DATA); -ENOMEM. */
int hs_nm_data__read(struct hs_nm_data *d, struct jvm_mem *m, const struct hs_layout *l,
		     const struct hs_code_entry *e);
void hs_nm_data__release(struct hs_nm_data *d);

#endif
