/* test-hotspot.c: jvm/'s out-of-process HotSpot reader (hotspot.h) on a
 * fake JVM built in this process's own memory and read back through
 * process_vm_readv(getpid()): the gHotSpotVM* tables parsed through their
 * exported offsets and strides, the layout looked up, a code heap walked
 * (used, free and torn blocks), a Method named; and hostile tables
 * (strides that make no sense, a missing symbol, indexes past the pool, a
 * name with a control byte) refused. t0645-jvm-vmstructs.bats reads a real
 * JVM 17. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tables),	 cmocka_unit_test(test_hostile_tables),
	    cmocka_unit_test(test_method_name),	 cmocka_unit_test(test_codecache),
	    cmocka_unit_test(test_string_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
