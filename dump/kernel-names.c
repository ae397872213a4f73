/* kernel-names.c: the addresses of the kernel functions that
 * /proc/PID/task/TID/stack names ("futex_wait_queue+0x60/0xa0", or
 * "func+0x10/0x40 [module]"), so that kernel frames go into the recording
 * as addresses, symbolized like every other kernel frame. The names are
 * looked up in the symbolizer's own kallsyms table (symbolize/kallsyms.c),
 * read once, at the first kernel frame; without root, or when kallsyms
 * hides the addresses, nothing is found and kernel frames are left out. */
#include "dump/dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Splits "name+0xoff/0xlen" (or "name+0xoff/0xlen [module]") into the
 * name's length, the offset and the module ("" when none). 0, or -EINVAL. */
static int split_frame(const char *s, size_t *name_len, uint64_t *off, const char **mod,
		       size_t *mod_len)
{
	const char *plus = strchr(s, '+'), *m;
	char *end;

	if (!plus || plus == s)
		return -EINVAL;
	*name_len = (size_t)(plus - s);
	*off = strtoull(plus + 1, &end, 16);
	if (end == plus + 1)
		return -EINVAL;
	m = strchr(end, '[');
	*mod = m ? m : "";
	*mod_len = m ? strcspn(m, "]") + 1 : 0;
	if (m && m[*mod_len - 1] != ']')
		*mod_len = 0;
	return 0;
}

void dump_kernel_names__release(struct dump_kernel_names *k)
{
	kallsyms__free(k->syms);
	memset(k, 0, sizeof(*k));
}

uint64_t dump_kernel_names__addr(struct dump_kernel_names *k, const char *frame)
{
	char key[512];
	const char *mod;
	size_t len, mod_len;
	uint64_t off, addr;

	if (split_frame(frame, &len, &off, &mod, &mod_len))
		return 0;
	if (!k->loaded) {
		k->loaded = 1;
		k->syms = kallsyms__load(k->path ? k->path : "/proc/kallsyms");
	}
	if (!k->syms)
		return 0;
	/* kallsyms.c spells a module's functions "func [module]" */
	if (len + 1 + mod_len >= sizeof(key))
		return 0;
	memcpy(key, frame, len);
	if (mod_len) {
		key[len] = ' ';
		memcpy(key + len + 1, mod, mod_len);
		len += 1 + mod_len;
	}
	if (!kallsyms__find(k->syms, key, len, &addr))
		return 0;
	return addr + off;
}
