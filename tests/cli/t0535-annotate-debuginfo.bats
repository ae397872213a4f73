#!/usr/bin/env bats
# t0535: prof annotate on a stripped binary whose DWARF is in a separate
# debug file, found the way the recording's symbolizer finds it (build-id
# under $PROF_DEBUGINFO_DIRS, .gnu_debuglink beside the binary or under a
# debug directory), and the one line table: every instruction's file:line
# in the listing is what `prof symbolize -e` and binutils' addr2line print
# for its address, and the samples under each line are the ones `prof
# report --lines` puts on that line's frame.

load helpers

setup_file() {
	export D="$BATS_FILE_TMPDIR"
	# A stripped copy of hotloop and its debug file, as distributions ship
	# them; the debug file by build-id in a private debug directory.
	cp "$EXAMPLES/hotloop" "$D/full"
	objcopy --only-keep-debug "$D/full" "$D/hot.debug"
	bid=$(readelf -n "$D/full" | awk '/Build ID/ { print $3 }')
	mkdir -p "$D/bid" "$D/dbg/.build-id/${bid:0:2}" "$D/empty-dbg"
	strip -o "$D/bid/hot" "$D/full"
	cp "$D/hot.debug" "$D/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
	export BID_DEBUG="$D/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
	# .gnu_debuglink, the debug file beside the binary...
	mkdir -p "$D/link"
	cp "$D/hot.debug" "$D/link/hot.debug"
	objcopy --add-gnu-debuglink="$D/link/hot.debug" "$D/bid/hot" "$D/link/hot"
	# ... and under a debug directory, at the binary's own path.
	mkdir -p "$D/glink" "$D/gdbg$D/glink"
	cp "$D/hot.debug" "$D/gdbg$D/glink/hot.debug"
	objcopy --add-gnu-debuglink="$D/hot.debug" "$D/bid/hot" "$D/glink/hot"
}

# Records BINARY for a second into OUT.
record_hot() {
	"$PROF" record -q -F 999 -o "$2" -- "$1" 1 >/dev/null
}

# A listing on stdin as "ADDR BASENAME:LINE COUNT" per instruction (hex
# address without 0x; the source line heading it; its samples, 0 if none).
listing_rows() {
	awk '$1 ~ /^[^ ]+:[0-9]+$/ && !/^ *[0-9a-f]+: / { src = $1; next }
		/^ *[0-9.]+% +[0-9]+ +[0-9a-f]+: / { a = $3; sub(":", "", a); print a, src, $2; next }
		/^ +[0-9a-f]+: / { a = $1; sub(":", "", a); print a, src, 0 }'
}

# Per source line of hot_function, "BASENAME:LINE SAMPLES", sorted: from
# the listing's rows on stdin.
listing_lines() {
	awk '$3 > 0 { s[$2] += $3 } END { for (k in s) print k, s[k] }' | sort
}

# The same from `prof report --lines`: stacks whose leaf is hot_function
# (the samples annotate counts), by the leaf frame's line.
report_lines() {
	"$PROF" report -i "$1" --lines |
		awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
			if (f[k] ~ /^hot_function \(/) { l = f[k]; sub(/^hot_function \(/, "", l)
				sub(/\)$/, "", l); s[l] += n } }
			END { for (k in s) print k, s[k] }' | sort
}

# addr2line's answers for the addresses on stdin, as "ADDR BASENAME:LINE".
a2l_rows() {
	local addrs
	addrs=$(cat)
	paste -d' ' <(echo "$addrs") <("$@" $addrs | sed 's/ (discriminator [0-9]*)$//')
}

# The checks of both tests: DATA recorded from a stripped binary whose debug
# file is DEBUG; annotate run with the environment of the caller.
check_agrees() {
	local data=$1 debug=$2
	run "$PROF" annotate -i "$data" hot_function
	[ "$status" -eq 0 ]
	echo "$output" | grep -Fxq "  source lines: DWARF of $debug"
	rows=$(echo "$output" | listing_rows)
	# Every instruction has a source line, and its samples are hot_function's.
	[ "$(echo "$rows" | wc -l)" -ge 8 ]
	[ -z "$(echo "$rows" | awk '$2 !~ /^hotloop\.c:[0-9]+$/')" ]
	# The loop's line is among them.
	hot=$(grep -n 'HOT \*/' "$ROOT/examples/hotloop.c" | cut -d: -f1)
	echo "$rows" | grep -q " hotloop\.c:$hot "
	# The hottest address: annotate's line is prof symbolize's and addr2line's.
	top=$(echo "$rows" | sort -k3,3nr | head -1)
	[ "$(echo "$top" | awk '{ print $3 }')" -gt 0 ]
	addr=${top%% *}
	want=$(echo "$top" | awk '{ print $1, $2 }')
	[ "$(echo "$addr" | a2l_rows "$PROF" symbolize -s -e "$D/full")" = "$want" ]
	[ "$(echo "$addr" | a2l_rows addr2line -s -e "$debug")" = "$want" ]
	# So is every other instruction's.
	ours=$(echo "$rows" | awk '{ print $1, $2 }')
	diff -u <(echo "$ours" | awk '{ print $1 }' | a2l_rows addr2line -s -e "$debug") \
		<(echo "$ours")
	diff -u <(echo "$ours" | awk '{ print $1 }' | a2l_rows "$PROF" symbolize -s -e "$D/full") \
		<(echo "$ours")
	# The samples under each line are those report --lines puts on it.
	lines=$(echo "$rows" | listing_lines)
	[ -n "$lines" ]
	diff -u <(report_lines "$data") <(echo "$lines")
}

@test "a stripped binary's debug file by build-id in PROF_DEBUGINFO_DIRS gives annotate its lines" {
	export PROF_DEBUGINFO_DIRS="$D/empty-dbg:$D/dbg"
	record_hot "$D/bid/hot" "$D/bid.data"
	check_agrees "$D/bid.data" "$BID_DEBUG"
	# A static function without samples is found in the debug file too.
	run "$PROF" annotate -i "$D/bid.data" frame_dummy
	[ "$status" -eq 1 ]
	[[ "$output" == *"'frame_dummy' has no samples in '$D/bid.data' (it is in '$D/bid/hot')"* ]]
	# Without the debug directory: no name for the static function at all.
	run env PROF_DEBUGINFO_DIRS="$D/empty-dbg" "$PROF" annotate -i "$D/bid.data" hot_function
	[ "$status" -eq 1 ]
	[[ "$output" == *"no function 'hot_function' at file offset"* ]]
}

@test "a stripped binary's debug file by .gnu_debuglink gives annotate its lines" {
	export PROF_DEBUGINFO_DIRS="$D/empty-dbg"
	record_hot "$D/link/hot" "$D/link.data"
	check_agrees "$D/link.data" "$D/link/hot.debug"
	# Under a debug directory, at the binary's path.
	export PROF_DEBUGINFO_DIRS="$D/empty-dbg:$D/gdbg"
	record_hot "$D/glink/hot" "$D/glink.data"
	check_agrees "$D/glink.data" "$D/gdbg$D/glink/hot.debug"
}
