/* target-mem.c: bounded reads of a running process's memory for jvm/'s
 * HotSpot metadata readers (hotspot.h), with process_vm_readv: the target
 * is never stopped. Strings go through a small direct-mapped page cache,
 * because HotSpot's table names sit close together in libjvm.so's
 * read-only data: about one system call per page instead of per string. */
#include "jvm/hotspot.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#define PAGE 4096u

void jvm_mem__init(struct jvm_mem *m, pid_t pid)
{
	memset(m, 0, sizeof(*m));
	m->pid = pid;
}

int jvm_mem__read(struct jvm_mem *m, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};

	if (!len)
		return 0;
	if (!addr || addr + len < addr)
		return -EFAULT;
	m->reads++;
	return process_vm_readv(m->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

int jvm_mem__u64(struct jvm_mem *m, uint64_t addr, uint64_t *v)
{
	return jvm_mem__read(m, addr, v, sizeof(*v));
}

/* The cached copy of the page holding addr, or NULL when unreadable. */
static const unsigned char *page_of(struct jvm_mem *m, uint64_t addr)
{
	uint64_t base = addr & ~(uint64_t)(PAGE - 1);
	size_t slot = (size_t)(base / PAGE) % JVM_MEM_PAGES;

	if (!base) /* the null page; 0 also marks an empty slot */
		return NULL;
	if (m->page[slot].addr != base) {
		m->page[slot].addr = 0;
		if (jvm_mem__read(m, base, m->page[slot].data, PAGE))
			return NULL;
		m->page[slot].addr = base;
	}
	return m->page[slot].data;
}

int jvm_mem__string(struct jvm_mem *m, uint64_t addr, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		const unsigned char *p = page_of(m, addr + n);
		size_t at = (size_t)((addr + n) % PAGE), k;

		if (!p)
			return -EFAULT;
		for (k = at; k < PAGE && n + 1 < cap; k++, n++) {
			buf[n] = (char)p[k];
			if (!p[k])
				return 0;
		}
	}
	buf[n] = 0;
	return -ENAMETOOLONG;
}
