/* kernel-names.c: the addresses of the kernel functions that
 * /proc/PID/task/TID/stack names ("futex_wait_queue+0x60/0xa0"), so that
 * kernel frames go into the recording as addresses, symbolized like every
 * other kernel frame. /proc/kallsyms is read once, at the first kernel
 * frame; without root, or when kallsyms hides the addresses, nothing is
 * found and kernel frames are left out. */
#include "dump/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

/* Splits "name+0xoff/0xlen" (or "name+0xoff/0xlen [module]") into the
 * name's length and the offset. 0, or -EINVAL. */
static int split_frame(const char *s, size_t *name_len, uint64_t *off)
{
	const char *plus = strchr(s, '+');
	char *end;

	if (!plus || plus == s)
		return -EINVAL;
	*name_len = (size_t)(plus - s);
	*off = strtoull(plus + 1, &end, 16);
	return end == plus + 1 ? -EINVAL : 0;
}

void dump_kernel_names__release(struct dump_kernel_names *k)
{
	if (k->loaded)
		strtab__release(&k->names);
	free(k->addr);
	memset(k, 0, sizeof(*k));
}

static int load(struct dump_kernel_names *k, const char *path)
{
	FILE *f;
	char line[512];
	size_t cap = 0;
	int err = strtab__init(&k->names);

	if (err)
		return err;
	k->loaded = 1;
	f = fopen(path, "re");
	if (!f)
		return 0; /* no kernel frames: not an error */
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];
		uint32_t id;

		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || !a)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		err = strtab__intern(&k->names, name, strlen(name), &id);
		if (!err)
			err = GROW(k->addr, cap, (size_t)id + 1);
		if (err)
			break;
		if (id >= k->naddr) {
			memset(k->addr + k->naddr, 0, ((size_t)id + 1 - k->naddr) * sizeof(*k->addr));
			k->naddr = (size_t)id + 1;
		}
		if (!k->addr[id])
			k->addr[id] = a;
	}
	fclose(f);
	return err;
}

uint64_t dump_kernel_names__addr(struct dump_kernel_names *k, const char *frame)
{
	size_t len;
	uint64_t off;
	uint32_t id;

	if (split_frame(frame, &len, &off))
		return 0;
	if (!k->loaded && load(k, k->path ? k->path : "/proc/kallsyms"))
		return 0;
	if (!strtab__find(&k->names, frame, len, &id) || id >= k->naddr || !k->addr[id])
		return 0;
	return k->addr[id] + off;
}
