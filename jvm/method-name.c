/* method-name.c: a Method* of a running JVM to the name profiles show,
 * read from outside it (hotspot.h): Method -> ConstMethod -> its
 * ConstantPool, whose entries at the method's name and signature indexes
 * are Symbol pointers, and whose holder Klass has the class's Symbol name
 * ("java/lang/String"; a hidden class "Foo$$Lambda$14+0x0800c0a000").
 * Written as HotSpot's Method::name_and_sig_as_C_string() does:
 * "java.lang.String.hashCode()I" (sig), else "java.lang.String.hashCode".
 *
 * A Method can be freed (its class unloaded) while this reads: every index
 * is checked against the pool's length and every length against the
 * buffer; a name that reads as nonsense (a non-printable byte) is refused. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <string.h>

/* Appends Symbol `sym`'s text to buf at *n (cap - 1 at most): 0, -EFAULT,
 * -EBADMSG. dots: '/' becomes '.', and a hidden class's last '+' '/'. */
static int put_symbol(struct jvm_mem *m, const struct hs_layout *l, uint64_t sym, int dots,
		      char *buf, size_t cap, size_t *n)
{
	uint16_t len;
	size_t room = cap - 1 - *n, i, plus = SIZE_MAX;

	if (jvm_mem__read(m, sym + l->sym_length, &len, sizeof(len)))
		return -EFAULT;
	if (!len)
		return -EBADMSG;
	if (len > room)
		len = (uint16_t)room;
	if (jvm_mem__read(m, sym + l->sym_body, buf + *n, len))
		return -EFAULT;
	for (i = *n; i < *n + len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c < 0x20 || c == 0x7f)
			return -EBADMSG;
		if (dots && c == '/')
			buf[i] = '.';
		else if (dots && c == '+')
			plus = i;
	}
	if (plus != SIZE_MAX)
		buf[plus] = '/';
	*n += len;
	buf[*n] = 0;
	return 0;
}

/* The Symbol* at constant pool index idx. */
static int cp_symbol(struct jvm_mem *m, const struct hs_layout *l, uint64_t cp, uint16_t idx,
		     uint64_t *sym)
{
	int32_t len;

	if (jvm_mem__read(m, cp + l->cp_length, &len, sizeof(len)))
		return -EFAULT;
	if (!idx || idx >= len)
		return -EBADMSG;
	if (jvm_mem__u64(m, cp + l->cp_size + (uint64_t)idx * 8, sym))
		return -EFAULT;
	return *sym ? 0 : -EBADMSG;
}

int hs_method_name(struct jvm_mem *m, const struct hs_layout *l, uint64_t method, int sig,
		   char *buf, size_t cap)
{
	uint64_t cm, cp, holder, ksym, nsym, ssym = 0;
	uint16_t idx[2];
	size_t n = 0;
	int err;

	if (cap < 4)
		return -ENOSPC;
	buf[0] = 0;
	if (jvm_mem__u64(m, method + l->method_const, &cm) ||
	    jvm_mem__u64(m, cm + l->cm_constants, &cp) ||
	    jvm_mem__read(m, cm + l->cm_name_index, &idx[0], sizeof(idx[0])) ||
	    jvm_mem__read(m, cm + l->cm_sig_index, &idx[1], sizeof(idx[1])) ||
	    jvm_mem__u64(m, cp + l->cp_holder, &holder) ||
	    jvm_mem__u64(m, holder + l->klass_name, &ksym))
		return -EFAULT;
	err = cp_symbol(m, l, cp, idx[0], &nsym);
	if (!err && sig)
		err = cp_symbol(m, l, cp, idx[1], &ssym);
	if (!err)
		err = put_symbol(m, l, ksym, 1, buf, cap, &n);
	if (!err && n + 1 < cap) {
		buf[n++] = '.';
		buf[n] = 0;
	}
	if (!err)
		err = put_symbol(m, l, nsym, 0, buf, cap, &n);
	if (!err && sig)
		err = put_symbol(m, l, ssym, 0, buf, cap, &n);
	if (err)
		buf[0] = 0;
	return err;
}
