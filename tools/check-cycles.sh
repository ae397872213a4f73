#!/bin/sh
# check-cycles.sh: no two source files of prof call each other in a loop.
# Builds the "calls a function (or uses data) defined in" graph between the
# object files of a build (from nm), finds its strongly connected components
# (Tarjan) and fails, naming the files, when a component holds more than one
# file: a loop between files means neither can be read, tested or replaced
# without the other (docs/STYLE.md, "Files").
# Usage: tools/check-cycles.sh [BUILD-DIR]   (default build/)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
objs=$(ls "$build"/prof.o "$build"/lib/*.o "$build"/symbolize/*.o "$build"/jvm/*.o \
	"$build"/record/*.o "$build"/report/*.o "$build"/svg/*.o 2>/dev/null || true)
if [ -z "$objs" ]; then
	echo "check-cycles: no object files under $build/: build first (make)" >&2
	exit 2
fi
for o in $objs; do
	name=${o#"$build"/}
	# an object left behind by a source file since renamed or removed
	[ -e "${name%.o}.c" ] || continue
	nm "$o" | sed "s|^|${name%.o} |"
done | awk '
# input: FILE [ADDR] TYPE SYMBOL
NF == 4 && $3 ~ /^[TDBR]$/ { def[$4] = $1; files[$1] = 1; next }
NF == 3 && $2 == "U" { use[++nu] = $1 SUBSEP $3; files[$1] = 1; next }
NF >= 1 { files[$1] = 1 }
function visit(v,    w, i, comp, n) {
	idx[v] = low[v] = ++counter
	stack[++sp] = v; onstack[v] = 1
	for (i = 1; i <= nout[v]; i++) {
		w = out[v, i]
		if (!(w in idx)) {
			visit(w)
			if (low[w] < low[v]) low[v] = low[w]
		} else if (onstack[w] && idx[w] < low[v])
			low[v] = idx[w]
	}
	if (low[v] == idx[v]) {
		comp = ""; n = 0
		do {
			w = stack[sp--]; onstack[w] = 0
			comp = comp " " w; n++
		} while (w != v)
		if (n > 1) { print "call cycle between" comp; bad = 1 }
	}
}
END {
	for (k = 1; k <= nu; k++) {
		split(use[k], p, SUBSEP)
		if (!(p[2] in def) || def[p[2]] == p[1]) continue
		if ((p[1], def[p[2]]) in edge) continue
		edge[p[1], def[p[2]]] = 1
		out[p[1], ++nout[p[1]]] = def[p[2]]
	}
	for (f in files) if (!(f in idx)) visit(f)
	exit bad
}'
