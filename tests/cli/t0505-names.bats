#!/usr/bin/env bats
# t0505-names.bats: names as perf and users spell them. Frames in the vdso
# named from the vdso image (against the target's own [vdso] read through
# /proc/PID/mem by dd and listed by readelf, and against perf on the same
# process at the same time); libc aliases as perf names them, less two
# deliberate differences (a public name over a local one, a plain name
# over an old version's alias); -p PID lists with commas, spaces and tabs.

load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR pid
	export REC="$d/libcalls.data" PERF="$d/libcalls.perf"
	start_example libcalls 60
	pid=$EXAMPLE_PID
	echo "$pid" > "$d/pid"
	# The example's own vdso, as the kernel mapped it: the oracle's image.
	read -r start end < <(awk '$6 == "[vdso]" { split($1, a, "-"); print a[1], a[2] }' \
		"/proc/$pid/maps")
	dd if="/proc/$pid/mem" of="$d/vdso.so" bs=4096 iflag=skip_bytes,count_bytes \
		skip=$((16#$start)) count=$((16#$end - 16#$start)) 2>/dev/null
	perf record -q -F 999 -p "$pid" -o "$PERF" 2>"$d/perf.err" &
	echo $! > "$d/perf.pid"
	REC_PID=
	"$PROF" record -F 999 -p "$pid" -o "$REC" 2>"$d/prof.err" &
	REC_PID=$!
	EXAMPLE_PID=$pid
	wait_readable "$REC" 400
	kill -INT "$REC_PID" "$(cat "$d/perf.pid")"
	wait "$REC_PID" || true
	wait "$(cat "$d/perf.pid")" || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	"$PROF" report -i "$REC" --top 40 > "$d/top"
	"$PROF" report -i "$REC" > "$d/folded"
	perf report -i "$PERF" --no-children --sort dso,sym --stdio -q 2>/dev/null |
		awk 'NF >= 4 && $1 ~ /%$/ { sub(/%/, "", $1); print $1, $2, $4 }' > "$d/perf-top"
}

# prof's self share (percent) of function $1.
prof_self() {
	awk -v f="$1" '$5 == f { sub(/%/, "", $1); print $1; found = 1 } END { if (!found) print 0 }' \
		"$BATS_FILE_TMPDIR/top"
}

@test "vdso frames carry the vdso's own symbol names, as perf names them" {
	local d=$BATS_FILE_TMPDIR name share
	# No frame is left as [vdso+0x...].
	[ "$(grep -c '\[vdso+' "$d/folded")" -eq 0 ]
	# The oracle: the target's vdso image, its dynamic symbols by readelf.
	readelf -W --dyn-syms "$d/vdso.so" | awk '$4 == "FUNC" { print $8 }' |
		sed 's/@.*//' | sort -u > "$d/vdso-syms"
	grep -qx '__vdso_gettimeofday' "$d/vdso-syms"
	grep -qx '__vdso_clock_gettime' "$d/vdso-syms"
	# perf, on the same process at the same time: each vdso function with
	# at least 5% of its samples has that name in prof, with a share within
	# 25% of perf's and at least 5%.
	awk '$2 == "[vdso]" && $1 >= 5 { print $3 }' "$d/perf-top" > "$d/perf-vdso"
	[ "$(wc -l < "$d/perf-vdso")" -ge 2 ] # gettimeofday and clock_gettime
	while read -r name; do
		grep -qx "$name" "$d/vdso-syms"
		share=$(prof_self "$name")
		echo "$name: prof $share%, perf $(awk -v n="$name" '$3 == n { print $1 }' "$d/perf-top")%"
		assert_between "$name self %" "$share" \
			"$(awk -v n="$name" '$3 == n { print $1 * 0.75 }' "$d/perf-top")" \
			"$(awk -v n="$name" '$3 == n { print $1 * 1.25 + 1 }' "$d/perf-top")"
	done < "$d/perf-vdso"
	# Under the caller the example names.
	grep -q ';libcalls_round;__vdso_gettimeofday ' "$d/folded"
}

@test "libc frames: perf's names, except free over cfree@GLIBC_2.2.5" {
	local d=$BATS_FILE_TMPDIR name want n=0
	# Every libc function with at least 2% of perf's samples, under perf's
	# name less its version (prof drops "@GLIBC_..." everywhere), and free
	# where perf says cfree@GLIBC_2.2.5.
	awk '$2 == "libc.so.6" && $1 >= 2 { print $3 }' "$d/perf-top" > "$d/perf-libc"
	while read -r name; do
		want=${name%%@*}
		[ "$name" = "cfree@GLIBC_2.2.5" ] && want=free
		echo "perf $name -> prof $want: $(prof_self "$want")%"
		awk -v f="$want" '$5 == f { found = 1 } END { exit !found }' "$d/top"
		n=$((n + 1))
	done < "$d/perf-libc"
	[ "$n" -ge 2 ] # memcpy's and strlen's versions at least
	# Nor these aliases of free and malloc (their frames, when sampled,
	# are "free" and "malloc").
	[ "$(grep -c '__libc_free\|__libc_malloc\|cfree' "$d/folded")" -eq 0 ]
}

@test "read and write: the public names, where perf says __GI___libc_write" {
	local d=$BATS_TEST_TMPDIR
	"$PROF" record -F 999 -o "$d/dd.data" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null
	"$PROF" report -i "$d/dd.data" > "$d/dd.folded"
	# (dd has no frame pointers: its stacks start wherever they start.)
	grep -Eq '(^|;)read(;| )' "$d/dd.folded"
	grep -Eq '(^|;)write(;| )' "$d/dd.folded"
	# (the frames of read and write themselves: an inlined frame inside
	# another libc function may carry glibc's own name, "__GI___mmap64_[i]")
	[ "$(grep -Ec '(^|;)(__GI___libc_|__libc_)(read|write)(;| )' "$d/dd.folded")" -eq 0 ]
}

# Two more libcalls to record by PID lists.
start_two() {
	start_example libcalls 60
	A=$EXAMPLE_PID
	start_example libcalls 60
	B=$EXAMPLE_PID
}

stop_two() {
	kill "$A" "$B" 2>/dev/null || true
	wait "$A" "$B" 2>/dev/null || true
}

# The processes a recording holds samples of (--tids roots: libcalls/TID).
recorded_pids() {
	"$PROF" report -i "$1" --tids | sed -n 's|^libcalls/\([0-9]*\);.*|\1|p' | sort -u | tr '\n' ' '
}

@test "-p takes PIDs separated by spaces (pidof), commas, tabs, mixed; duplicates once" {
	local d=$BATS_TEST_TMPDIR list want
	start_two
	want="$(printf '%s\n' "$A" "$B" | sort -n | tr '\n' ' ')"
	for list in "$A $B" "$A,$B" "$(printf '%s\t%s' "$A" "$B")" " $A , $B " "$A $B,$A"; do
		# 999 Hz for 1 s: samples of both busy processes even on a loaded machine
		run "$PROF" record -F 999 -p "$list" -d 1 -o "$d/p.data"
		[ "$status" -eq 0 ] || { echo "-p '$list': $output"; stop_two; return 1; }
		[ "$(recorded_pids "$d/p.data")" = "$want" ] ||
			{ echo "-p '$list': $(recorded_pids "$d/p.data")"; stop_two; return 1; }
	done
	stop_two
}

# refused LIST MESSAGE: `prof record -p LIST` exits 2 saying MESSAGE, and
# writes nothing.
refused() {
	run "$PROF" record -p "$1" -d 0.1 -o "$BATS_TEST_TMPDIR/x.data"
	[ "$status" -eq 2 ] || { echo "-p '$1': status $status: $output"; return 1; }
	[[ "$output" == *"prof record: $2"* ]] || { echo "-p '$1': $output"; return 1; }
	[ ! -e "$BATS_TEST_TMPDIR/x.data" ]
}

@test "-p: empty lists and entries, bad PIDs: exit 2, the entry named" {
	refused '' "empty PID list"
	refused ' 	' "empty PID list"
	refused "$$,,1" "empty entry in PID list '$$,,1'"
	refused "$$, ,1" "empty entry in PID list '$$, ,1'"
	refused "$$," "empty entry in PID list '$$,'"
	refused ",$$" "empty entry in PID list ',$$'"
	refused "$$ abc" "invalid PID 'abc' in list '$$ abc'"
	refused "0" "invalid PID '0' in list '0'"
	refused "$$ -1" "invalid PID '-1' in list '$$ -1'"
}
