/* null-recorder.c: a recorder that does nothing with what it records, for
 * bench/overhead-parts.sh. It opens one sampling event per thread of PID
 * and CPU (as `perf record -p` and `prof record -p` do), with either
 * perf's attributes or prof's, maps one ring per CPU, and only moves the
 * rings' tails on until PID exits: what remains of a recorder's cost to
 * its target is the kernel's side of sampling. Comparing it with the real
 * recorders splits their cost into the kernel's part (the attributes) and
 * the recorder's own (its process: waking, decoding, writing).
 *
 *   null-recorder perf|prof|prof-leaf|prof-noclock|prof-stackonly FREQ PID
 *
 * perf:      IP|TID|TIME|CALLCHAIN|PERIOD, exclude_guest, 512 KiB rings,
 *            woken at half (perf record -g -e cpu-clock's attributes).
 * prof:      IP|TID|TIME|CPU|CALLCHAIN, CLOCK_MONOTONIC, exclude_hv and
 *            exclude_idle, 1 MiB rings woken at a quarter (prof record
 *            --no-leaf-fix's, record/perf-events.c).
 * prof-leaf: prof's, with the leaf fix's rip, rsp, rbp and 64 bytes of
 *            user stack per sample (prof record's default).
 * prof-stackonly: prof-leaf's 64 bytes of stack without the registers.
 * prof-noclock: prof's without use_clockid (the kernel's perf clock, as
 *            perf's): what reading CLOCK_MONOTONIC per record costs.
 * Prints samples, bytes per sample and wake-ups on stderr. Linux, x86-64. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 256

static void fill(struct perf_event_attr *a, const char *variant, int freq, size_t ring_bytes)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = (uint64_t)freq;
	a->sample_id_all = 1;
	a->inherit = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->task = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	if (!strcmp(variant, "perf")) {
		a->sample_type |= PERF_SAMPLE_PERIOD;
		a->exclude_guest = 1;
		return;
	}
	a->sample_type |= PERF_SAMPLE_CPU;
	a->exclude_hv = 1;
	a->exclude_idle = 1;
	if (strcmp(variant, "prof-noclock")) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_bytes / 4);
	if (!strcmp(variant, "prof-stackonly")) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = 64;
	}
	if (!strcmp(variant, "prof-leaf")) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = 1ULL << PERF_REG_X86_IP | 1ULL << PERF_REG_X86_SP |
				      1ULL << PERF_REG_X86_BP;
		a->sample_stack_user = 64;
	}
}

static int known_variant(const char *v)
{
	static const char *const names[] = {"perf", "prof", "prof-leaf", "prof-noclock",
					    "prof-stackonly"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static int rings[MAX_CPUS];
	static unsigned char *base[MAX_CPUS];
	struct pollfd pfds[MAX_CPUS + 1];
	struct perf_event_attr a;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages, ring_bytes;
	unsigned long long samples = 0, bytes = 0, wakeups = 0;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	char path[64];
	struct dirent *e;
	DIR *dir;
	int pid, freq, pidfd, c, done = 0;

	if (argc != 4 || !known_variant(argv[1])) {
		fprintf(stderr,
			"usage: null-recorder perf|prof|prof-leaf|prof-noclock|prof-stackonly FREQ PID\n");
		return 2;
	}
	freq = atoi(argv[2]);
	pid = atoi(argv[3]);
	if (ncpus < 1 || ncpus > MAX_CPUS) {
		fprintf(stderr, "null-recorder: %ld CPUs: 1 to %d supported\n", ncpus, MAX_CPUS);
		return 1;
	}
	pages = strcmp(argv[1], "perf") ? 256 : 128;
	ring_bytes = pages * page;
	fill(&a, argv[1], freq, ring_bytes);
	for (c = 0; c < ncpus; c++)
		rings[c] = -1;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (!dir || pidfd < 0) {
		fprintf(stderr, "null-recorder: no process %d\n", pid);
		return 1;
	}
	while ((e = readdir(dir))) {
		int tid = atoi(e->d_name);

		for (c = 0; tid > 0 && c < ncpus; c++) {
			int fd = (int)syscall(SYS_perf_event_open, &a, tid, c, -1,
					      PERF_FLAG_FD_CLOEXEC);

			if (fd < 0) {
				perror("null-recorder: perf_event_open");
				return 1;
			}
			if (rings[c] >= 0) {
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rings[c])) {
					perror("null-recorder: PERF_EVENT_IOC_SET_OUTPUT");
					return 1;
				}
				continue;
			}
			rings[c] = fd;
			base[c] = mmap(NULL, ring_bytes + page, PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, 0);
			if (base[c] == MAP_FAILED) {
				perror("null-recorder: mmap");
				return 1;
			}
		}
	}
	closedir(dir);
	for (c = 0; c < ncpus; c++)
		pfds[c] = (struct pollfd){.fd = rings[c], .events = POLLIN};
	pfds[ncpus] = (struct pollfd){.fd = pidfd, .events = POLLIN};
	while (!done) {
		poll(pfds, (nfds_t)ncpus + 1, 1000);
		wakeups++;
		done = pfds[ncpus].revents != 0;
		for (c = 0; c < ncpus; c++) {
			struct perf_event_mmap_page *m = (void *)base[c];
			uint64_t head, tail;

			if (rings[c] < 0)
				continue;
			head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
			tail = m->data_tail;
			while (tail < head) {
				const struct perf_event_header *h =
				    (const void *)(base[c] + page + tail % ring_bytes);

				if (!h->size)
					break; /* cannot be: do not spin on it */
				samples += h->type == PERF_RECORD_SAMPLE;
				bytes += h->size;
				tail += h->size;
			}
			__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
		}
	}
	fprintf(stderr, "null-recorder %s: %llu samples, %.1f bytes per sample, %llu wake-ups\n",
		argv[1], samples, samples ? (double)bytes / (double)samples : 0.0, wakeups);
	return 0;
}
