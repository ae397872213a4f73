#!/bin/sh
# check-includes.sh: keeps module dependencies pointing one way (docs/STYLE.md,
# "Modules and the one-way rule"):
#   lib <- symbolize <- jvm <- record, report <- svg, top <- commands
# (record/ asks jvm/ for JIT maps and thread names at the end of a recording)
# and each external library inside the one module that owns it.
set -eu
cd "$(dirname "$0")/.."
status=0

# allowed "MODULE: modules it may include"
rules="lib:lib
symbolize:lib symbolize
record:lib record symbolize jvm
jvm:lib symbolize jvm
report:lib symbolize jvm report
svg:lib report svg
dump:lib symbolize jvm report dump
top:lib symbolize jvm record report top"

echo "$rules" | while IFS=: read -r mod allowed; do
	[ -d "$mod" ] || continue
	for f in "$mod"/*.c "$mod"/*.h; do
		[ -e "$f" ] || continue
		grep -o '#include "[a-z]*/' "$f" | sed 's/#include "//; s/\///' | sort -u |
		while read -r dep; do
			case " $allowed " in
			*" $dep "*) ;;
			*) echo "$f: includes $dep/ (allowed: $allowed)"; exit 1 ;;
			esac
		done || exit 1
	done
done || status=1

check_lib() {
	header=$1
	owner=$2
	# tests/ and bench/ are programs of their own (bench/null-recorder.c
	# opens perf events to measure the kernel's side of sampling).
	bad=$(grep -l "#include <$header" ./*/*.c ./*/*.h 2>/dev/null | grep -v "^./$owner/" |
		grep -v -e '^./tests/' -e '^./bench/' || true)
	if [ -n "$bad" ]; then
		echo "<$header> used outside $owner/: $bad"
		status=1
	fi
}
check_lib 'gelf.h' symbolize
check_lib 'libelf.h' symbolize
check_lib 'elfutils/' symbolize
check_lib 'capstone' symbolize
check_lib 'lzma.h' symbolize
check_lib 'libdeflate.h' symbolize
check_lib 'libxml' svg
check_lib 'linux/perf_event.h' record
check_lib 'traceevent/' record
check_lib 'curses.h' top
check_lib 'ncurses' top
[ $status -eq 0 ] && echo "check-includes: ok"
exit $status
