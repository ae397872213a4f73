/*
 * app.c: a program built with frame pointers whose hot code is in a shared
 * library of its own tree (examples/lib/work.c), found next to it through
 * DT_RUNPATH $ORIGIN. Built twice (see the Makefile): lib-fp-app linked to
 * libwork-fp.so (frame pointers throughout), lib-nofp-app to libwork-nofp.so
 * (none in the library), for tests/cli/t0525-call-graph-auto.bats.
 *
 *   usage: lib-fp-app|lib-nofp-app [SECONDS]   (default 2 s)
 *
 * Prints "ready" on stderr, then every sample is in
 *   main;app_loop;work_run;work_outer;work_inner;work_leaf
 * and exits 0 after SECONDS of wall time.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

void work_run(double seconds);

NOINLINE static void app_loop(double seconds)
{
	work_run(seconds);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;

	fprintf(stderr, "ready\n");
	app_loop(seconds);
	return 0;
}
