/* resymbolize-stub.c: stands in for `prof symbolize -i RECORDING` until
 * symbolize/resymbolize.c (which (re)symbolizes a recording) is merged;
 * delete this file then. */
#include <stdio.h>

#include "lib/cli.h"
#include "symbolize/symbolize.h"

int symbolize_recording_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("symbolizing a recording again (-i RECORDING) is not built yet");
	cli_hint("use -e BINARY ADDR... to look up addresses");
	return EXIT_FAIL;
}
