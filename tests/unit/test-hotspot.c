/* test-hotspot.c: jvm/'s out-of-process HotSpot reader (hotspot.h) on a
 * fake JVM built in this process's own memory and read back through
 * process_vm_readv(getpid()): the gHotSpotVM* tables parsed through their
 * exported offsets and strides, the layout looked up, a code heap walked
 * (used, free and torn blocks), a Method named; and hostile tables
 * (strides that make no sense, a missing symbol, indexes past the pool, a
 * name with a control byte) refused; an nmethod's pc descs searched and
 * its scope chains decoded (scopes.c), also from hostile bytes (truncated
 * streams, senders that loop, indexes past the metadata, random bytes).
 * t0645-jvm-vmstructs.bats reads a real JVM 17, t0646 its inlined frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jvm/hotspot.h"

/* HotSpot's own entry layouts (vmStructs.hpp). */
struct s_entry {
	const char *type, *field, *type_string;
	int32_t is_static;
	uint64_t offset;
	void *address;
};
struct t_entry {
	const char *type, *super;
	int32_t is_oop, is_int, is_unsigned;
	uint64_t size;
};
struct i_entry {
	const char *name;
	int32_t value;
};
struct l_entry {
	const char *name;
	uint64_t value;
};

static uint64_t code_heaps_var; /* CodeCache::_heaps: a GrowableArray* */

static struct s_entry structs[] = {
    {"CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, 0, &code_heaps_var},
    {"CodeCache", "_low_bound", "address", 1, 0, &code_heaps_var},
    {"CodeCache", "_high_bound", "address", 1, 0, &code_heaps_var},
    {"GrowableArrayBase", "_len", "int", 0, 0, NULL},
    {"GrowableArray<int>", "_data", "int*", 0, 8, NULL},
    {"CodeHeap", "_memory", "VirtualSpace", 0, 0x8, NULL},
    {"CodeHeap", "_segmap", "VirtualSpace", 0, 0x78, NULL},
    {"CodeHeap", "_log2_segment_size", "int", 0, 0x100, NULL},
    {"VirtualSpace", "_low", "char*", 0, 0x10, NULL},
    {"VirtualSpace", "_high", "char*", 0, 0x18, NULL},
    {"HeapBlock", "_header", "HeapBlock::Header", 0, 0, NULL},
    {"HeapBlock::Header", "_length", "size_t", 0, 0, NULL},
    {"HeapBlock::Header", "_used", "bool", 0, 8, NULL},
    {"CodeBlob", "_name", "const char*", 0, 0x60, NULL},
    {"CodeBlob", "_size", "int", 0, 0xc, NULL},
    {"CodeBlob", "_frame_size", "int", 0, 0x1c, NULL},
    {"CodeBlob", "_frame_complete_offset", "int", 0, 0x14, NULL},
    {"CodeBlob", "_code_begin", "address", 0, 0x20, NULL},
    {"CodeBlob", "_code_end", "address", 0, 0x28, NULL},
    {"CompiledMethod", "_method", "Method*", 0, 0x70, NULL},
    {"nmethod", "_compile_id", "int", 0, 0x130, NULL},
    {"Method", "_constMethod", "ConstMethod*", 0, 0x8, NULL},
    {"ConstMethod", "_constants", "ConstantPool*", 0, 0x8, NULL},
    {"ConstMethod", "_name_index", "u2", 0, 0x22, NULL},
    {"ConstMethod", "_signature_index", "u2", 0, 0x24, NULL},
    {"ConstantPool", "_pool_holder", "InstanceKlass*", 0, 0x18, NULL},
    {"ConstantPool", "_length", "int", 0, 0x3c, NULL},
    {"Klass", "_name", "Symbol*", 0, 0x18, NULL},
    {"Symbol", "_length", "u2", 0, 4, NULL},
    {"Symbol", "_body", "u1", 0, 6, NULL},
    {NULL, NULL, NULL, 0, 0, NULL},
};
static struct t_entry types[] = {
    {"HeapBlock", NULL, 0, 0, 0, 16},
    {"ConstantPool", NULL, 0, 0, 0, 72},
    {NULL, NULL, 0, 0, 0, 0},
};
static struct i_entry ints[] = {
    {"frame::interpreter_frame_sender_sp_offset", -1},
    {"frame::interpreter_frame_last_sp_offset", -2},
    {NULL, 0},
};
static struct l_entry longs[] = {{"markWord::hash_mask", 0x7fffffff}, {NULL, 0}};

/* The exported variables: pointers to the tables, offsets and strides. */
static uint64_t vars[VMS_NSYMS];

static void export_tables(void)
{
	vars[VMS_STRUCTS] = (uintptr_t)structs;
	vars[VMS_S_TYPE] = offsetof(struct s_entry, type);
	vars[VMS_S_FIELD] = offsetof(struct s_entry, field);
	vars[VMS_S_STATIC] = offsetof(struct s_entry, is_static);
	vars[VMS_S_OFFSET] = offsetof(struct s_entry, offset);
	vars[VMS_S_ADDRESS] = offsetof(struct s_entry, address);
	vars[VMS_S_STRIDE] = sizeof(struct s_entry);
	vars[VMS_TYPES] = (uintptr_t)types;
	vars[VMS_T_TYPE] = offsetof(struct t_entry, type);
	vars[VMS_T_SIZE] = offsetof(struct t_entry, size);
	vars[VMS_T_STRIDE] = sizeof(struct t_entry);
	vars[VMS_INTS] = (uintptr_t)ints;
	vars[VMS_I_NAME] = offsetof(struct i_entry, name);
	vars[VMS_I_VALUE] = offsetof(struct i_entry, value);
	vars[VMS_I_STRIDE] = sizeof(struct i_entry);
	vars[VMS_LONGS] = (uintptr_t)longs;
	vars[VMS_L_NAME] = offsetof(struct l_entry, name);
	vars[VMS_L_VALUE] = offsetof(struct l_entry, value);
	vars[VMS_L_STRIDE] = sizeof(struct l_entry);
}

static void syms_of(uint64_t syms[VMS_NSYMS])
{
	for (int i = 0; i < VMS_NSYMS; i++)
		syms[i] = (uintptr_t)&vars[i];
}

static struct jvm_mem mem;

static struct vmstructs *parse_ok(void)
{
	uint64_t syms[VMS_NSYMS];
	struct vmstructs *vs = NULL;
	struct prof_error e;

	export_tables();
	syms_of(syms);
	jvm_mem__init(&mem, getpid());
	assert_int_equal(vmstructs__parse(&mem, syms, &vs, &e), 0);
	return vs;
}

static void test_tables(void **state)
{
	struct vmstructs *vs = parse_ok();
	uint64_t v;
	int64_t c;

	(void)state;
	assert_int_equal(vmstructs__offset(vs, "CodeBlob", "_frame_size", &v), 0);
	assert_int_equal(v, 0x1c);
	assert_int_equal(vmstructs__static(vs, "CodeCache", "_heaps", &v), 0);
	assert_int_equal(v, (uintptr_t)&code_heaps_var);
	assert_int_equal(vmstructs__offset(vs, "CodeCache", "_heaps", &v), -ENOENT); /* static */
	assert_int_equal(vmstructs__size(vs, "ConstantPool", &v), 0);
	assert_int_equal(v, 72);
	assert_int_equal(vmstructs__int(vs, "frame::interpreter_frame_last_sp_offset", &c), 0);
	assert_int_equal(c, -2);
	assert_int_equal(vmstructs__long(vs, "markWord::hash_mask", &c), 0);
	assert_int_equal(c, 0x7fffffff);
	assert_int_equal(vmstructs__offset(vs, "NoSuch", "_field", &v), -ENOENT);
	vmstructs__free(vs);
}

static void test_hostile_tables(void **state)
{
	uint64_t syms[VMS_NSYMS];
	struct vmstructs *vs = NULL;
	struct prof_error e;

	(void)state;
	export_tables();
	syms_of(syms);
	jvm_mem__init(&mem, getpid());
	vars[VMS_S_STRIDE] = 1u << 20;
	assert_int_equal(vmstructs__parse(&mem, syms, &vs, &e), -EBADMSG);
	assert_null(vs);
	vars[VMS_S_STRIDE] = 8; /* shorter than its own fields */
	assert_int_equal(vmstructs__parse(&mem, syms, &vs, &e), -EBADMSG);
	export_tables();
	vars[VMS_TYPES] = 0;
	assert_int_equal(vmstructs__parse(&mem, syms, &vs, &e), -EBADMSG);
	export_tables();
	syms[VMS_LONGS] = 0; /* not exported */
	assert_int_equal(vmstructs__parse(&mem, syms, &vs, &e), -ENOTSUP);
	assert_non_null(strstr(e.msg, "gHotSpotVMLongConstants"));
	syms_of(syms);
	vars[VMS_INTS] = 8; /* unmapped */
	assert_int_equal(vmstructs__parse(&mem, syms, &vs, &e), -EFAULT);
	assert_null(vs);
}

/* A fake Method of class "pkg/Outer$Inner", "work", "(I)J". */
struct fake_symbol {
	uint32_t refcount;
	uint16_t len;
	char body[40];
} __attribute__((packed));

static struct fake_symbol klass_sym = {1, 15, "pkg/Outer$Inner"};
static struct fake_symbol name_sym = {1, 4, "work"};
static struct fake_symbol sig_sym = {1, 4, "(I)J"};
static unsigned char klass[64], cmethod[64], method[32];
static unsigned char pool[72 + 4 * 8];

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void fake_method(void)
{
	int32_t len = 4;
	uint16_t ni = 2, si = 3;

	put64(klass + 0x18, (uintptr_t)&klass_sym);
	put64(pool + 0x18, (uintptr_t)klass);
	memcpy(pool + 0x3c, &len, 4);
	put64(pool + 72 + 2 * 8, (uintptr_t)&name_sym);
	put64(pool + 72 + 3 * 8, (uintptr_t)&sig_sym);
	put64(cmethod + 0x8, (uintptr_t)pool);
	memcpy(cmethod + 0x22, &ni, 2);
	memcpy(cmethod + 0x24, &si, 2);
	put64(method + 0x8, (uintptr_t)cmethod);
}

static void test_method_name(void **state)
{
	struct vmstructs *vs = parse_ok();
	struct hs_layout l;
	struct prof_error e;
	char buf[HS_NAME_MAX], small[12];
	uint16_t bad = 4;

	(void)state;
	assert_int_equal(hs_layout__init(&l, vs, &e), 0);
	assert_int_equal(l.interp_method_slot, -3);
	fake_method();
	assert_int_equal(hs_method_name(&mem, &l, (uintptr_t)method, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pkg.Outer$Inner.work(I)J");
	assert_int_equal(hs_method_name(&mem, &l, (uintptr_t)method, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pkg.Outer$Inner.work");
	/* cut at the buffer, always terminated */
	assert_int_equal(hs_method_name(&mem, &l, (uintptr_t)method, 0, small, sizeof(small)), 0);
	assert_string_equal(small, "pkg.Outer$I");
	/* a name index past the pool's length */
	memcpy(cmethod + 0x22, &bad, 2);
	assert_int_equal(hs_method_name(&mem, &l, (uintptr_t)method, 0, buf, sizeof(buf)),
			 -EBADMSG);
	assert_string_equal(buf, "");
	fake_method();
	/* a control byte in a name: not a Symbol */
	name_sym.body[1] = '\n';
	assert_int_equal(hs_method_name(&mem, &l, (uintptr_t)method, 0, buf, sizeof(buf)),
			 -EBADMSG);
	name_sym.body[1] = 'o';
	/* a Method* that points nowhere */
	assert_int_equal(hs_method_name(&mem, &l, 8, 0, buf, sizeof(buf)), -EFAULT);
	vmstructs__free(vs);
}

/* A code heap of 64-byte segments: an nmethod (16 segments), a free block
 * (1), a stub (16), then a zero header that ends the walk. */
#define SEG 64
static unsigned char heap_mem[64 * SEG] __attribute__((aligned(64)));
static unsigned char code_heap[0x110], heaps_array[16];
static uint64_t heap_list[1];

static void fake_blob(unsigned char *block, uint64_t segs, const char *name, uint64_t m)
{
	unsigned char *blob = block + 16;
	int32_t size = (int32_t)(segs * SEG - 16), fs = 6, id = 42;

	put64(block, segs);
	block[8] = 1;
	memcpy(blob + 0xc, &size, 4);
	memcpy(blob + 0x1c, &fs, 4);
	put64(blob + 0x20, (uintptr_t)blob + 0x140);
	put64(blob + 0x28, (uintptr_t)blob + 0x180);
	put64(blob + 0x60, (uintptr_t)name);
	put64(blob + 0x70, m);
	memcpy(blob + 0x130, &id, 4);
}

struct seen {
	int n, nmethods;
	struct hs_blob last_nmethod;
	char names[4][HS_BLOB_NAME];
};

static int collect(void *ctx, const struct hs_blob *b)
{
	struct seen *s = ctx;

	if (s->n < 4)
		snprintf(s->names[s->n], HS_BLOB_NAME, "%s", b->name);
	s->n++;
	if (b->is_nmethod) {
		s->nmethods++;
		s->last_nmethod = *b;
	}
	return 0;
}

static void test_codecache(void **state)
{
	struct vmstructs *vs = parse_ok();
	struct hs_layout l;
	struct prof_error e;
	struct seen s = {0};
	uint64_t skipped;
	int32_t one = 1, log2 = 6;

	(void)state;
	assert_int_equal(hs_layout__init(&l, vs, &e), 0);
	memset(heap_mem, 0, sizeof(heap_mem));
	fake_blob(heap_mem, 16, "nmethod", (uintptr_t)method);
	put64(heap_mem + 16 * SEG, 1); /* free */
	fake_blob(heap_mem + 17 * SEG, 16, "Interpreter", 0);
	put64(code_heap + 0x8 + 0x10, (uintptr_t)heap_mem);
	put64(code_heap + 0x8 + 0x18, (uintptr_t)heap_mem + sizeof(heap_mem));
	memcpy(code_heap + 0x100, &log2, 4);
	heap_list[0] = (uintptr_t)code_heap;
	memcpy(heaps_array, &one, 4);
	put64(heaps_array + 8, (uintptr_t)heap_list);
	code_heaps_var = (uintptr_t)heaps_array;
	assert_int_equal(hs_codecache__each(&mem, &l, collect, &s, &skipped), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(skipped, 0);
	assert_string_equal(s.names[0], "nmethod");
	assert_string_equal(s.names[1], "Interpreter");
	assert_int_equal(s.nmethods, 1);
	assert_int_equal(s.last_nmethod.frame_size, 6);
	assert_int_equal(s.last_nmethod.compile_id, 42);
	assert_int_equal(s.last_nmethod.method, (uintptr_t)method);
	assert_int_equal(s.last_nmethod.code_end - s.last_nmethod.code_begin, 0x40);
	/* a torn blob (code past its end) is skipped, the walk goes on */
	put64(heap_mem + 16 + 0x28, (uintptr_t)heap_mem + 4096);
	memset(&s, 0, sizeof(s));
	assert_int_equal(hs_codecache__each(&mem, &l, collect, &s, &skipped), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(skipped, 1);
	/* a block longer than the heap ends the walk */
	put64(heap_mem, 1u << 20);
	memset(&s, 0, sizeof(s));
	assert_int_equal(hs_codecache__each(&mem, &l, collect, &s, &skipped), 0);
	assert_int_equal(s.n, 0);
	/* more heaps than any JVM has */
	memcpy(heaps_array, &(int32_t){1000}, 4);
	assert_int_equal(hs_codecache__each(&mem, &l, collect, &s, &skipped), -EBADMSG);
	vmstructs__free(vs);
}

static void test_string_pages(void **state)
{
	static char text[8192] __attribute__((aligned(4096)));
	char buf[64];

	(void)state;
	jvm_mem__init(&mem, getpid());
	memset(text, 'x', sizeof(text));
	memcpy(text + 4090, "across\0", 7); /* crosses a page */
	assert_int_equal(jvm_mem__string(&mem, (uintptr_t)text + 4090, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "across");
	assert_int_equal(jvm_mem__string(&mem, (uintptr_t)text, buf, sizeof(buf)), -ENAMETOOLONG);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_int_equal(jvm_mem__string(&mem, 16, buf, sizeof(buf)), -EFAULT);
}

/* ---- scopes.c: inlined methods from an nmethod's debug information ---- */

/* UNSIGNED5 as HotSpot's CompressedWriteStream::write_int writes it. */
static size_t u5(unsigned char *p, uint32_t v)
{
	size_t n = 0;

	for (int i = 0; i < 4 && v >= 192; i++) {
		p[n++] = (unsigned char)(192 + (v - 192) % 64);
		v = (v - 192) / 64;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static void test_unsigned5(void **state)
{
	static const uint32_t vals[] = {0, 1, 191, 192, 255, 1000, 12345, 1u << 20, 1u << 28};
	unsigned char buf[16], five[5];
	size_t pos;
	uint32_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t n = u5(buf, vals[i]);

		pos = 0;
		assert_int_equal(hs_unsigned5(buf, n, &pos, &v), 0);
		assert_int_equal(v, vals[i]);
		assert_int_equal(pos, n);
		/* cut anywhere before its end: refused */
		for (size_t cut = 0; cut < n; cut++) {
			pos = 0;
			assert_int_equal(hs_unsigned5(buf, cut, &pos, &v), -EBADMSG);
		}
	}
	/* five high bytes: the fifth ends it whatever it is */
	memset(five, 0xff, sizeof(five));
	pos = 0;
	assert_int_equal(hs_unsigned5(five, sizeof(five), &pos, &v), 0);
	assert_int_equal(pos, 5);
}

/* A PcDesc table as HotSpot lays it out: 16-byte records, pc offset
 * first, scope decode offset next; sentinels at -1 and INT_MAX. */
static unsigned char pcs[8 * 16];

static void put_pc(size_t i, int32_t pc, uint32_t scope)
{
	memcpy(pcs + i * 16, &pc, 4);
	memcpy(pcs + i * 16 + 4, &scope, 4);
	memset(pcs + i * 16 + 8, 0, 8);
}

static struct hs_nm_data nm_table(size_t n)
{
	return (struct hs_nm_data){
	    .pcs = pcs, .npcs = n, .pcd_size = 16, .pcd_pc = 0, .pcd_scope = 4};
}

static void test_pcdesc_find(void **state)
{
	struct hs_nm_data d = nm_table(5);

	(void)state;
	put_pc(0, -1, 0);
	put_pc(1, 10, 0);
	put_pc(2, 20, 0);
	put_pc(3, 30, 0);
	put_pc(4, INT32_MAX, 0);
	/* a return address: the record at it */
	assert_int_equal(hs_pcdesc_find(&d, 20, 0), 2);
	assert_int_equal(hs_pcdesc_find(&d, 10, 0), 1);
	/* a sampled pc: the first record after it */
	assert_int_equal(hs_pcdesc_find(&d, 20, 1), 3);
	assert_int_equal(hs_pcdesc_find(&d, 15, 1), 2);
	assert_int_equal(hs_pcdesc_find(&d, 0, 1), 1);
	assert_int_equal(hs_pcdesc_find(&d, 31, 1), 4); /* the end sentinel */
	assert_int_equal(hs_pcdesc_find(&d, (uint64_t)INT32_MAX + 5, 0), -1);
	d.npcs = 0;
	assert_int_equal(hs_pcdesc_find(&d, 10, 0), -1);
	/* all garbage: still ends, within the table */
	memset(pcs, 0xa5, sizeof(pcs));
	d.npcs = sizeof(pcs) / 16;
	for (uint64_t off = 0; off < 100000; off += 777)
		assert_true(hs_pcdesc_find(&d, off, 1) < (long)d.npcs);
	d.npcs = 1; /* one record past every offset: none */
	put_pc(0, 3, 0);
	assert_int_equal(hs_pcdesc_find(&d, 3, 1), -1);
}

#define M_OUTER 0x7000100u
#define M_MID	0x7000200u
#define M_INNER 0x7000300u

static unsigned char scopes[4096];
static uint64_t meta[3] = {M_OUTER, M_MID, M_INNER};

/* Writes a scope (sender, method index, bci, then three offsets) at *at;
 * returns its decode offset. */
static uint32_t put_scope(size_t *at, uint32_t sender, uint32_t index, uint32_t bci)
{
	uint32_t me = (uint32_t)*at;

	*at += u5(scopes + *at, sender);
	*at += u5(scopes + *at, index);
	*at += u5(scopes + *at, bci);
	for (int i = 0; i < 3; i++)
		*at += u5(scopes + *at, 0);
	return me;
}

static struct hs_nm_data nm_scopes(size_t len)
{
	return (struct hs_nm_data){.method = M_OUTER,
				   .scopes = scopes,
				   .scopes_len = len,
				   .meta = (const unsigned char *)meta,
				   .nmeta = 3};
}

static void test_scope_chain(void **state)
{
	uint64_t m[HS_MAX_SCOPES];
	size_t at = 1; /* offset 0 is "none" */
	uint32_t outer, mid, inner, bad;
	struct hs_nm_data d;

	(void)state;
	memset(scopes, 0, sizeof(scopes));
	outer = put_scope(&at, 0, 1, 7);
	mid = put_scope(&at, outer, 2, 300); /* a two-byte bci */
	inner = put_scope(&at, mid, 3, 4);
	d = nm_scopes(at);
	assert_int_equal(hs_scope_chain(&d, inner, m, HS_MAX_SCOPES), 3);
	assert_int_equal(m[0], M_INNER);
	assert_int_equal(m[1], M_MID);
	assert_int_equal(m[2], M_OUTER);
	assert_int_equal(hs_scope_chain(&d, outer, m, HS_MAX_SCOPES), 1);
	/* 0: a sentinel record, the method itself */
	assert_int_equal(hs_scope_chain(&d, 0, m, HS_MAX_SCOPES), 1);
	assert_int_equal(m[0], M_OUTER);
	/* deeper than max */
	assert_int_equal(hs_scope_chain(&d, inner, m, 2), -EBADMSG);
	/* truncated: the stream ends inside the innermost scope */
	d.scopes_len = inner + 1;
	assert_int_equal(hs_scope_chain(&d, inner, m, HS_MAX_SCOPES), -EBADMSG);
	d.scopes_len = at;
	/* an offset past the data */
	assert_int_equal(hs_scope_chain(&d, (uint32_t)at + 100, m, HS_MAX_SCOPES), -EBADMSG);
	assert_int_equal(hs_scope_chain(&d, UINT32_MAX, m, HS_MAX_SCOPES), -EBADMSG);
	/* a loop: a scope that names itself, or a later one, as its sender */
	bad = put_scope(&at, (uint32_t)at, 2, 0);
	d.scopes_len = at;
	assert_int_equal(hs_scope_chain(&d, bad, m, HS_MAX_SCOPES), -EBADMSG);
	scopes[mid] = (unsigned char)inner; /* mid's sender now after it */
	assert_int_equal(hs_scope_chain(&d, inner, m, HS_MAX_SCOPES), -EBADMSG);
	scopes[mid] = (unsigned char)outer;
	/* huge and null method indexes */
	bad = put_scope(&at, outer, 1u << 30, 0);
	d.scopes_len = at;
	assert_int_equal(hs_scope_chain(&d, bad, m, HS_MAX_SCOPES), -EBADMSG);
	bad = put_scope(&at, outer, 0, 0);
	d.scopes_len = at;
	assert_int_equal(hs_scope_chain(&d, bad, m, HS_MAX_SCOPES), -EBADMSG);
	/* the outermost scope is not the nmethod's method (freed, reused) */
	d.method = M_MID;
	assert_int_equal(hs_scope_chain(&d, inner, m, HS_MAX_SCOPES), -EBADMSG);
	d.method = M_OUTER;
	/* a chain longer than HS_MAX_SCOPES, each sender before it */
	{
		uint32_t prev = outer;

		for (int i = 0; i < HS_MAX_SCOPES + 5; i++)
			prev = put_scope(&at, prev, 2, 1);
		d.scopes_len = at;
		assert_int_equal(hs_scope_chain(&d, prev, m, HS_MAX_SCOPES), -EBADMSG);
	}
	/* random bytes: refused or a chain ending in the method, never more */
	for (unsigned seed = 1; seed < 200; seed++) {
		unsigned x = seed;
		int n;

		for (size_t i = 0; i < 256; i++) {
			x = x * 1103515245u + 12345u;
			scopes[i] = (unsigned char)(x >> 16);
		}
		d.scopes_len = 256;
		n = hs_scope_chain(&d, seed % 256, m, HS_MAX_SCOPES);
		assert_true(n == -EBADMSG || (n >= 1 && n <= HS_MAX_SCOPES && m[n - 1] == M_OUTER));
	}
}

/* A fake nmethod in this process's memory, read back as from a JVM. */
static unsigned char blob[1024] __attribute__((aligned(64)));

static void test_nm_data(void **state)
{
	struct hs_layout l = {.nm_scopes = 1,
			      .blob_size = 0x8,
			      .blob_code_begin = 0x10,
			      .nm_method = 0x18,
			      .nm_compile_id = 0x20,
			      .nm_scopes_data = 0x28,
			      .nm_metadata_off = 0x30,
			      .nm_pcs_off = 0x34,
			      .nm_deps_off = 0x38,
			      .pcd_pc = 0,
			      .pcd_scope = 4,
			      .pcd_size = 16};
	uint64_t base = (uintptr_t)blob, m[HS_MAX_SCOPES];
	struct hs_code_entry e = {.begin = base + 768,
				  .end = base + 1000,
				  .kind = HS_CODE_NMETHOD,
				  .compile_id = 42,
				  .blob = base,
				  .method = M_OUTER};
	size_t at = 1;
	uint32_t outer, inner;
	int32_t v;
	struct hs_nm_data d;

	(void)state;
	jvm_mem__init(&mem, getpid());
	memset(blob, 0, sizeof(blob));
	memset(scopes, 0, sizeof(scopes));
	outer = put_scope(&at, 0, 1, 7);
	inner = put_scope(&at, outer, 3, 4);
	/* metadata at 512 (3 entries), scopes at 536 (64 bytes), 4 pc descs
	 * at 600, dependencies at 664 */
	memcpy(blob + 512, meta, sizeof(meta));
	memcpy(blob + 536, scopes, 64);
	memset(pcs, 0, sizeof(pcs));
	put_pc(0, -1, 0);
	put_pc(1, 16, outer);
	put_pc(2, 40, inner);
	put_pc(3, INT32_MAX, 0);
	memcpy(blob + 600, pcs, 64);
	v = 1024;
	memcpy(blob + 0x8, &v, 4);
	put64(blob + 0x10, e.begin);
	put64(blob + 0x18, M_OUTER);
	v = 42;
	memcpy(blob + 0x20, &v, 4);
	put64(blob + 0x28, base + 536);
	v = 512;
	memcpy(blob + 0x30, &v, 4);
	v = 600;
	memcpy(blob + 0x34, &v, 4);
	v = 664;
	memcpy(blob + 0x38, &v, 4);

	assert_int_equal(hs_nm_data__read(&d, &mem, &l, &e), 0);
	assert_int_equal(d.npcs, 4);
	assert_int_equal(d.nmeta, 3);
	/* a sampled pc before the inlined call's pc desc: inside the inlined method */
	assert_int_equal(hs_nm_inlines(&d, e.begin + 20, 1, m, HS_MAX_SCOPES), 2);
	assert_int_equal(m[0], M_INNER);
	assert_int_equal(m[1], M_OUTER);
	/* a return address at the first desc: the outer method alone */
	assert_int_equal(hs_nm_inlines(&d, e.begin + 16, 0, m, HS_MAX_SCOPES), 1);
	assert_int_equal(hs_nm_inlines(&d, e.begin - 1, 1, m, HS_MAX_SCOPES), -EBADMSG);
	/* a native method's wrapper has no pc descs: the method alone */
	d.npcs = 0;
	assert_int_equal(hs_nm_inlines(&d, e.begin + 20, 0, m, HS_MAX_SCOPES), 1);
	assert_int_equal(m[0], M_OUTER);
	hs_nm_data__release(&d);

	/* another nmethod there now: its compile id differs */
	e.compile_id = 43;
	assert_int_equal(hs_nm_data__read(&d, &mem, &l, &e), -EBADMSG);
	e.compile_id = 42;
	/* tables out of order, or past the blob */
	v = 700;
	memcpy(blob + 0x34, &v, 4);
	assert_int_equal(hs_nm_data__read(&d, &mem, &l, &e), -EBADMSG);
	v = 600;
	memcpy(blob + 0x34, &v, 4);
	v = 5000;
	memcpy(blob + 0x38, &v, 4);
	assert_int_equal(hs_nm_data__read(&d, &mem, &l, &e), -EBADMSG);
	v = 664;
	memcpy(blob + 0x38, &v, 4);
	/* a layout without the fields: not supported */
	l.nm_scopes = 0;
	assert_int_equal(hs_nm_data__read(&d, &mem, &l, &e), -ENOTSUP);
	l.nm_scopes = 1;
	/* and, all set again, readable */
	assert_int_equal(hs_nm_data__read(&d, &mem, &l, &e), 0);
	hs_nm_data__release(&d);
	hs_nm_data__release(&d); /* twice: a no-op */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tables),	 cmocka_unit_test(test_hostile_tables),
	    cmocka_unit_test(test_method_name),	 cmocka_unit_test(test_codecache),
	    cmocka_unit_test(test_string_pages), cmocka_unit_test(test_unsigned5),
	    cmocka_unit_test(test_pcdesc_find),	 cmocka_unit_test(test_scope_chain),
	    cmocka_unit_test(test_nm_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
