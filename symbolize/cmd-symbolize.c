/* cmd-symbolize.c: `prof symbolize`, the front end. TEMPORARY (engineer B's
 * branch): only the recording mode, `prof symbolize -i RECORDING`, which
 * resymbolize.c implements; engineer A's version of this file, with the
 * addr2line mode (`-e BINARY ADDR...`), replaces it at merge and sends
 * every invocation without -e/--exe to symbolize_recording_main(). */
#include "commands.h"
#include "symbolize/symbolize.h"

int cmd_symbolize(int argc, char **argv)
{
	return symbolize_recording_main(argc, argv);
}
