/*
 * libjvm-mapper.c: a process that is not a JVM but looks like one from
 * /proc: it maps a copy of HotSpot's libjvm.so (with mmap, read and
 * execute, not dlopen: none of the library's code runs) and catches
 * SIGQUIT, counting it. prof must never send it SIGQUIT (docs/prof-jvm.md,
 * "Whom prof signals"): tests/cli/t0635-jvm-attach.bats checks the count.
 *
 *   usage: libjvm-mapper LIBJVM [SECONDS]     (default 60; fractions allowed)
 *
 * Threads and what a profile of it shows:
 *   libjvm-mapper  the main thread, 5% of one CPU in mapper_burn (0.5 ms of
 *                  every 10 ms), sleeping otherwise.
 *
 * Prints "ready PID" on stderr once the library is mapped and the handler
 * installed, and "sigquit N" on stdout when it ends (SECONDS after the
 * start, or on SIGTERM / SIGINT), N the SIGQUITs it received.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t quits, done;

static void on_quit(int sig)
{
	(void)sig;
	quits++;
}

static void on_end(int sig)
{
	(void)sig;
	done = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void mapper_burn(double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		sink++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {0};
	struct timespec nap = {0, 9500000};
	double seconds = argc > 2 ? atof(argv[2]) : 60, end;
	struct stat st;
	void *lib;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: libjvm-mapper LIBJVM [SECONDS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	lib = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (lib == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	sa.sa_handler = on_quit;
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = on_end;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fprintf(stderr, "ready %d\n", (int)getpid());
	end = now() + seconds;
	while (!done && now() < end) {
		mapper_burn(0.0005);
		nanosleep(&nap, NULL);
	}
	printf("sigquit %d\n", (int)quits);
	munmap(lib, (size_t)st.st_size);
	return 0;
}
