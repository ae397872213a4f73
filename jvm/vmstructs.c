/* vmstructs.c: HotSpot's self-description tables read from outside the JVM
 * (hotspot.h). libjvm.so exports, for each of its four tables, a pointer to
 * the table and the offsets and stride of its entries (so a reader needs no
 * C++ header): gHotSpotVMStructs (type, field, static?, offset, address),
 * gHotSpotVMTypes (type, size), gHotSpotVMIntConstants and
 * gHotSpotVMLongConstants (name, value). Each table ends with an entry
 * whose name pointer is NULL. The serviceability agent reads the same
 * (src/jdk.hotspot.agent, HotSpotTypeDataBase.java).
 *
 * Work is bounded: VMS_MAX_ENTRIES per table, names cut at VMS_NAME_MAX,
 * one read per chunk of entries and about one per page of names. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/procfs.h"
#include "symbolize/elf-dynsym.h"

#define VMS_NAME_MAX   128 /* longer type or field names are not ones we look up */
#define VMS_STRIDE_MAX 256 /* a table entry is 32 to 48 bytes */
#define CHUNK	       64  /* entries read per system call */

const char *const vms_sym_names[VMS_NSYMS] = {
    [VMS_STRUCTS] = "gHotSpotVMStructs",
    [VMS_S_TYPE] = "gHotSpotVMStructEntryTypeNameOffset",
    [VMS_S_FIELD] = "gHotSpotVMStructEntryFieldNameOffset",
    [VMS_S_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
    [VMS_S_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
    [VMS_S_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
    [VMS_S_STRIDE] = "gHotSpotVMStructEntryArrayStride",
    [VMS_TYPES] = "gHotSpotVMTypes",
    [VMS_T_TYPE] = "gHotSpotVMTypeEntryTypeNameOffset",
    [VMS_T_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
    [VMS_T_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
    [VMS_INTS] = "gHotSpotVMIntConstants",
    [VMS_I_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
    [VMS_I_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
    [VMS_I_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
    [VMS_LONGS] = "gHotSpotVMLongConstants",
    [VMS_L_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
    [VMS_L_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
    [VMS_L_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

/* One entry of any table; names are offsets into vs->names. */
struct vms_entry {
	uint32_t type, field; /* field: 0 for types and constants */
	int is_static;
	uint64_t value; /* offset, address, size or constant */
};

enum { T_STRUCTS, T_TYPES, T_INTS, T_LONGS, T_N };

struct vmstructs {
	struct vms_entry *e[T_N];
	size_t n[T_N], cap[T_N];
	char *names; /* "" at offset 0, then each name once per entry */
	size_t names_len, names_cap;
};

/* How a table's entries are laid out, from the exported offsets. */
struct table_desc {
	uint64_t base, stride;
	uint64_t name, field, is_static, value, address; /* UINT64_MAX: none */
	int value_size;					 /* 4 or 8 */
};

static int add_name(struct vmstructs *vs, const char *s, uint32_t *off)
{
	size_t len = strlen(s);

	*off = 0;
	if (!len)
		return 0;
	if (!vs->names_len) { /* offset 0 is "" */
		if (GROW(vs->names, vs->names_cap, 1))
			return -ENOMEM;
		vs->names[vs->names_len++] = 0;
	}
	if (vs->names_len + len + 1 > UINT32_MAX ||
	    GROW(vs->names, vs->names_cap, vs->names_len + len + 1))
		return -ENOMEM;
	*off = (uint32_t)vs->names_len;
	memcpy(vs->names + vs->names_len, s, len + 1);
	vs->names_len += len + 1;
	return 0;
}

/* A name pointer's text; "" for a name too long to be one we look up. */
static int read_name(struct jvm_mem *m, uint64_t p, char buf[VMS_NAME_MAX])
{
	int err = jvm_mem__string(m, p, buf, VMS_NAME_MAX);

	if (err == -ENAMETOOLONG) {
		buf[0] = 0;
		return 0;
	}
	return err;
}

static uint64_t field_u64(const unsigned char *ent, uint64_t off, int size)
{
	uint64_t v = 0;

	if (size == 4) {
		int32_t x;

		memcpy(&x, ent + off, 4);
		return (uint64_t)(int64_t)x;
	}
	memcpy(&v, ent + off, 8);
	return v;
}

static int read_table(struct jvm_mem *m, struct vmstructs *vs, int t, const struct table_desc *d)
{
	unsigned char chunk[CHUNK * VMS_STRIDE_MAX];
	char type[VMS_NAME_MAX], field[VMS_NAME_MAX];

	for (uint64_t i = 0; i < VMS_MAX_ENTRIES; i += CHUNK) {
		int err = jvm_mem__read(m, d->base + i * d->stride, chunk, CHUNK * d->stride);

		/* The last chunk may run off the end of a mapping: entry by entry. */
		for (uint64_t k = 0; k < CHUNK; k++) {
			unsigned char *ent = chunk + k * d->stride;
			struct vms_entry v = {0};
			uint64_t p;

			if (err && jvm_mem__read(m, d->base + (i + k) * d->stride, ent, d->stride))
				return -EFAULT;
			memcpy(&p, ent + d->name, 8);
			if (!p)
				return 0;
			if (read_name(m, p, type))
				return -EFAULT;
			field[0] = 0;
			if (d->field != UINT64_MAX) {
				memcpy(&p, ent + d->field, 8);
				if (p && read_name(m, p, field))
					return -EFAULT;
			}
			if (d->is_static != UINT64_MAX)
				v.is_static = (int)field_u64(ent, d->is_static, 4) != 0;
			v.value = field_u64(ent, d->value, d->value_size);
			if (v.is_static && d->address != UINT64_MAX)
				v.value = field_u64(ent, d->address, 8);
			if (!type[0])
				continue; /* a name too long to be asked for */
			if (add_name(vs, type, &v.type) || add_name(vs, field, &v.field) ||
			    GROW(vs->e[t], vs->cap[t], vs->n[t] + 1))
				return -ENOMEM;
			vs->e[t][vs->n[t]++] = v;
		}
	}
	return -EBADMSG; /* no end within VMS_MAX_ENTRIES */
}

/* Reads the exported u64 at each symbol (offsets, strides, and the tables'
 * addresses, which are pointers). */
static int read_syms(struct jvm_mem *m, const uint64_t syms[VMS_NSYMS], uint64_t vals[VMS_NSYMS],
		     struct prof_error *e)
{
	for (int i = 0; i < VMS_NSYMS; i++) {
		if (!syms[i])
			return prof_error_set(e, -ENOTSUP, NULL, "libjvm.so exports no '%s'",
					      vms_sym_names[i]);
		if (jvm_mem__u64(m, syms[i], &vals[i]))
			return prof_error_set(e, -EFAULT, NULL, "cannot read '%s' in process %d",
					      vms_sym_names[i], (int)m->pid);
	}
	return 0;
}

static int bad_desc(const struct table_desc *d)
{
	uint64_t last = d->value + (uint64_t)d->value_size;

	if (d->stride < 16 || d->stride > VMS_STRIDE_MAX || d->name + 8 > d->stride ||
	    last > d->stride || !d->base)
		return 1;
	if (d->field != UINT64_MAX && d->field + 8 > d->stride)
		return 1;
	if (d->is_static != UINT64_MAX && d->is_static + 4 > d->stride)
		return 1;
	return d->address != UINT64_MAX && d->address + 8 > d->stride;
}

int vmstructs__parse(struct jvm_mem *m, const uint64_t syms[VMS_NSYMS], struct vmstructs **out,
		     struct prof_error *e)
{
	static const char *const what[T_N] = {"gHotSpotVMStructs", "gHotSpotVMTypes",
					      "gHotSpotVMIntConstants", "gHotSpotVMLongConstants"};
	uint64_t v[VMS_NSYMS];
	struct table_desc d[T_N];
	struct vmstructs *vs;
	int err = read_syms(m, syms, v, e);

	*out = NULL;
	if (err)
		return err;
	d[T_STRUCTS] =
	    (struct table_desc){v[VMS_STRUCTS],	 v[VMS_S_STRIDE], v[VMS_S_TYPE],    v[VMS_S_FIELD],
				v[VMS_S_STATIC], v[VMS_S_OFFSET], v[VMS_S_ADDRESS], 8};
	d[T_TYPES] = (struct table_desc){v[VMS_TYPES], v[VMS_T_STRIDE], v[VMS_T_TYPE], UINT64_MAX,
					 UINT64_MAX,   v[VMS_T_SIZE],	UINT64_MAX,    8};
	d[T_INTS] = (struct table_desc){v[VMS_INTS], v[VMS_I_STRIDE], v[VMS_I_NAME], UINT64_MAX,
					UINT64_MAX,  v[VMS_I_VALUE],  UINT64_MAX,    4};
	d[T_LONGS] = (struct table_desc){v[VMS_LONGS], v[VMS_L_STRIDE], v[VMS_L_NAME], UINT64_MAX,
					 UINT64_MAX,   v[VMS_L_VALUE],	UINT64_MAX,    8};
	vs = calloc(1, sizeof(*vs));
	if (!vs)
		return -ENOMEM;
	for (int t = 0; t < T_N && !err; t++) {
		if (bad_desc(&d[t]))
			err = prof_error_set(e, -EBADMSG, NULL,
					     "%s: entries of %llu bytes make no sense", what[t],
					     (unsigned long long)d[t].stride);
		else if ((err = read_table(m, vs, t, &d[t])))
			prof_error_set(e, err, NULL, "%s: cannot read the table in process %d",
				       what[t], (int)m->pid);
	}
	if (err) {
		vmstructs__free(vs);
		return err;
	}
	*out = vs;
	return 0;
}

void vmstructs__free(struct vmstructs *vs)
{
	if (!vs)
		return;
	for (int t = 0; t < T_N; t++)
		free(vs->e[t]);
	free(vs->names);
	free(vs);
}

static const struct vms_entry *find(const struct vmstructs *vs, int t, const char *type,
				    const char *field)
{
	for (size_t i = 0; i < vs->n[t]; i++) {
		const struct vms_entry *v = &vs->e[t][i];

		if (!strcmp(vs->names + v->type, type) &&
		    (!field || !strcmp(vs->names + v->field, field)))
			return v;
	}
	return NULL;
}

int vmstructs__offset(const struct vmstructs *vs, const char *type, const char *field,
		      uint64_t *off)
{
	const struct vms_entry *v = find(vs, T_STRUCTS, type, field);

	if (!v || v->is_static)
		return -ENOENT;
	*off = v->value;
	return 0;
}

int vmstructs__static(const struct vmstructs *vs, const char *type, const char *field,
		      uint64_t *addr)
{
	const struct vms_entry *v = find(vs, T_STRUCTS, type, field);

	if (!v || !v->is_static || !v->value)
		return -ENOENT;
	*addr = v->value;
	return 0;
}

/* The value of a type's or constant's entry in table t. */
static int value_of(const struct vmstructs *vs, int t, const char *name, uint64_t *val)
{
	const struct vms_entry *v = find(vs, t, name, NULL);

	if (!v)
		return -ENOENT;
	*val = v->value;
	return 0;
}

int vmstructs__size(const struct vmstructs *vs, const char *type, uint64_t *size)
{
	return value_of(vs, T_TYPES, type, size);
}

int vmstructs__int(const struct vmstructs *vs, const char *name, int64_t *val)
{
	return value_of(vs, T_INTS, name, (uint64_t *)val);
}

int vmstructs__long(const struct vmstructs *vs, const char *name, int64_t *val)
{
	return value_of(vs, T_LONGS, name, (uint64_t *)val);
}

int vmstructs__entry(const struct vmstructs *vs, int t, size_t i, const char **type,
		     const char **field, int *is_static, uint64_t *value)
{
	const struct vms_entry *v;

	if (t < 0 || t >= T_N || i >= vs->n[t])
		return 0;
	v = &vs->e[t][i];
	*type = vs->names + v->type;
	*field = vs->names + v->field;
	*is_static = v->is_static;
	*value = v->value;
	return 1;
}

/* Finding libjvm.so in the target. */
struct jvm_map {
	uint64_t start;
	char path[4096];
};

static int is_libjvm(void *ctx, const struct procfs_map *m)
{
	struct jvm_map *j = ctx;
	size_t len = strlen(m->path);

	if (m->pgoff || len < 10 || strcmp(m->path + len - 10, "/libjvm.so"))
		return 0;
	j->start = m->start;
	snprintf(j->path, sizeof(j->path), "%s", m->path);
	return 1;
}

int vmstructs__read(struct jvm_mem *m, struct vmstructs **out, struct prof_error *e)
{
	struct jvm_map j;
	char path[4096 + 32];
	uint64_t syms[VMS_NSYMS], base;
	int err;

	*out = NULL;
	memset(&j, 0, sizeof(j));
	err = procfs_each_map(m->pid, is_libjvm, &j);
	if (err < 0)
		return prof_error_set(e, err, NULL, "cannot read the mappings of process %d",
				      (int)m->pid);
	if (!j.start)
		return prof_error_set(e, -ENOENT, NULL, "process %d maps no libjvm.so",
				      (int)m->pid);
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)m->pid, j.path);
	err = elf_dynsym_values(path, vms_sym_names, VMS_NSYMS, syms, &base);
	if (err)
		return prof_error_set(e, err == -ENOENT ? -ENOTSUP : err, NULL,
				      "cannot read the symbols of '%s': %s", j.path,
				      strerror(-err));
	for (int i = 0; i < VMS_NSYMS; i++)
		if (syms[i])
			syms[i] += j.start - base;
	return vmstructs__parse(m, syms, out, e);
}
