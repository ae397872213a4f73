#!/usr/bin/env bats
# t0700: prof top, the live view over a rolling window. Without a terminal
# it prints one block per interval: the blocks parse (text: a header line
# and prof report --top's columns; json: one object a line), the examples'
# hot functions and threads come out with the shares the workloads
# measured themselves (examples/threads' own CPU clocks), a workload that
# switches its hot function (examples/phases) shows the switch in the
# first window after it, by the program's own clock. The full-screen view
# is driven inside tmux.

load helpers

# Text blocks of prof top on stdin -> "FUNCTION SELF" of the last block.
last_block_rows() {
	awk '/^[0-9]{4}-[0-9]{2}-[0-9]{2}T.*window .* samples [0-9]+  lost [0-9]+$/ { delete s; n = 0; inrows = 0; next }
	     /^  self%   total%/ { inrows = 1; next }
	     inrows && NF == 5 { s[$5] = $3 }
	     NF == 0 { inrows = 0 }
	     END { for (f in s) print f, s[f] }'
}

@test "top -h: the synopsis" {
	run "$PROF" top -h
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: prof top [-p PID[,PID...] | -a | -- CMD] [-F HZ] [--window SECONDS]"* ]]
}

@test "top -h synopsis matches docs/prof-top.md" {
	# Every line of the synopsis, up to the first empty line, is in the page.
	"$PROF" top -h | sed '/^$/q' | sed '/^$/d' | while IFS= read -r line; do
		grep -qF -- "$line" "$ROOT/docs/prof-top.md" || { echo "not in the page: $line"; exit 1; }
	done
}

@test "top: a target is needed, and only one kind" {
	run "$PROF" top
	[ "$status" -eq 2 ]
	[[ "$output" == *"give one of -p PID, -a or -- COMMAND"* ]]
	run "$PROF" top -p 1 -- true
	[ "$status" -eq 2 ]
	run "$PROF" top --window 0 -- true
	[ "$status" -eq 2 ]
	run "$PROF" top --format xml -- true
	[ "$status" -eq 2 ]
	run "$PROF" top --window 61 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"1 to 60 intervals"* ]]
}

@test "top, not a terminal: text blocks, the header and report --top's columns, hot functions and threads" {
	"$PROF" top --threads -- "$EXAMPLES/threads" 4 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	# at least two blocks, each: header, columns, rows, blank line
	blocks=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z  window 10s \([0-9]+s so far\)  samples [0-9]+  lost [0-9]+$' "$BATS_TEST_TMPDIR/out")
	[ "$blocks" -ge 2 ]
	[ "$(grep -c '^  self%   total%        self       total  function$' "$BATS_TEST_TMPDIR/out")" -eq "$blocks" ]
	[ "$(grep -c '^   cpu%     samples       tid  thread$' "$BATS_TEST_TMPDIR/out")" -eq "$blocks" ]
	# every row parses: two percentages, two counts, a name
	run awk 'NF == 5 && $1 ~ /%$/ && $1 != "self%" && !($1 ~ /^[0-9]+\.[0-9][0-9]%$/ && $2 ~ /^[0-9]+\.[0-9][0-9]%$/ && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/) { print "bad row: " $0 }' "$BATS_TEST_TMPDIR/out"
	[ -z "$output" ]
	last_block_rows <"$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/rows"
	for f in burn_alpha burn_beta pool_burn; do
		grep -q "^$f [0-9]" "$BATS_TEST_TMPDIR/rows"
	done
	for t in alpha beta pool-1 pool-2; do
		grep -qE "^ +[0-9.]+%  +[0-9]+  +[0-9]+  $t$" "$BATS_TEST_TMPDIR/out"
	done
}

@test "top --format json: one object an interval; function and thread shares as the workload's own CPU clocks" {
	"$PROF" top --format json -- "$EXAMPLES/threads" 5 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	grep '^{' "$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/json"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/json")" -ge 3 ]
	# every line is one object with the fields
	jq -e 'has("time") and has("samples") and has("lost") and (.functions | type == "array") and (.threads | type == "array")' \
		"$BATS_TEST_TMPDIR/json" >/dev/null
	last=$(tail -n 1 "$BATS_TEST_TMPDIR/json")
	[ "$(jq '.samples' <<<"$last")" -gt 0 ]
	# the program's own CPU per thread (its stderr: "cpu NAME SECONDS")
	cpu() { awk -v n="$1" '$1 == "cpu" && $2 == n { print $3 }' "$BATS_TEST_TMPDIR/err"; }
	cpu_all=$(awk '$1 == "cpu" { s += $3 } END { print s }' "$BATS_TEST_TMPDIR/err")
	samples=$(jq '[.threads[] | select(.name | test("^(alpha|beta|pool-[12])$")) | .samples] | add' <<<"$last")
	for t in alpha beta pool-1 pool-2; do
		got=$(jq --arg n "$t" '[.threads[] | select(.name == $n) | .samples] | add // 0' <<<"$last")
		want=$(ratio "$(cpu "$t")" "$cpu_all")
		share=$(ratio "$got" "$samples")
		assert_between "$t's share of the window" "$share" \
			"$(awk -v w="$want" 'BEGIN { print w * 0.75 }')" "$(awk -v w="$want" 'BEGIN { print w * 1.25 }')"
	done
	# the hot functions: each burn function's share of the window as its thread's CPU share
	fn() { jq --arg n "$1" '[.functions[] | select(.name == $n) | .self] | add // 0' <<<"$last"; }
	want=$(ratio "$(cpu alpha)" "$cpu_all")
	assert_between "burn_alpha's share" "$(ratio "$(fn burn_alpha)" "$samples")" \
		"$(awk -v w="$want" 'BEGIN { print w * 0.75 }')" "$(awk -v w="$want" 'BEGIN { print w * 1.25 }')"
	want=$(ratio "$(awk '$1 == "cpu" && $2 ~ /^pool-/ { s += $3 } END { print s }' "$BATS_TEST_TMPDIR/err")" "$cpu_all")
	assert_between "pool_burn's share" "$(ratio "$(fn pool_burn)" "$samples")" \
		"$(awk -v w="$want" 'BEGIN { print w * 0.75 }')" "$(awk -v w="$want" 'BEGIN { print w * 1.25 }')"
}

@test "top: a workload switching its hot function shows the switch in the first window after it" {
	"$PROF" top --format json --interval 0.5 --window 0.5 -- "$EXAMPLES/phases" 1500 3000 \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	grep '^{' "$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/json"
	# the program's clock: phase LINE: "phase NAME TID START END CPU"
	read -r b_start b_end < <(awk '$1 == "phase" && $2 == "phase_b" { print $4, $5 }' "$BATS_TEST_TMPDIR/out")
	read -r a_start a_end < <(awk '$1 == "phase" && $2 == "phase_a" { print $4, $5; exit }' "$BATS_TEST_TMPDIR/out")
	[ -n "$b_start" ] && [ -n "$a_start" ]
	fn() { jq --arg n "$1" '[.functions[] | select(.name == $n) | .self] | add // 0'; }
	# windows wholly inside phase_a (main thread alone): burn_a, nothing of burn_b
	inside_a=0
	while read -r line; do
		inside_a=$((inside_a + 1))
		[ "$(fn burn_b <<<"$line")" -eq 0 ]
		[ "$(fn burn_a <<<"$line")" -gt 0 ]
	done < <(jq -c --argjson s "$a_start" --argjson e "$a_end" 'select(.start_ns >= $s and .end_ns <= $e)' "$BATS_TEST_TMPDIR/json")
	# the first window wholly after the switch, and every one inside phase_b: burn_b, no burn_a
	inside_b=0
	while read -r line; do
		inside_b=$((inside_b + 1))
		[ "$(fn burn_a <<<"$line")" -eq 0 ]
		[ "$(fn burn_b <<<"$line")" -gt 0 ]
	done < <(jq -c --argjson s "$b_start" --argjson e "$b_end" 'select(.start_ns >= $s and .end_ns <= $e)' "$BATS_TEST_TMPDIR/json")
	[ "$inside_a" -ge 1 ]
	[ "$inside_b" -ge 1 ]
	first_after=$(jq -c --argjson s "$b_start" 'select(.start_ns >= $s)' "$BATS_TEST_TMPDIR/json" | head -n 1)
	[ "$(jq -r '.functions[0].name' <<<"$first_after")" != burn_a ]
}

@test "top -p: attaches, follows the process, ends when it exits" {
	start_example threads 3
	run "$PROF" top -p "$EXAMPLE_PID" --format json
	[ "$status" -eq 0 ]
	[ "$(grep -c '^{' <<<"$output")" -ge 1 ]
	grep '^{' <<<"$output" | jq -e 'select(.samples > 0) | .functions[] | select(.name == "burn_alpha")' >/dev/null
}

# ---- the full-screen view, driven in tmux ----

tmux_setup() {
	export TSOCK="prof-t0700-$$-$BATS_TEST_NUMBER" TDIR="$BATS_TEST_TMPDIR"
	start_example threads 120
	task_cpu "$EXAMPLE_PID" >"$TDIR/cpu.before"
	# a shell that marks the screen, keeps the terminal's settings before
	# and after, and records prof top's exit status
	tmux -L "$TSOCK" new-session -d -x 130 -y 32 -c "$TDIR" \
		"echo BEFORE-TOP; stty -g >stty.before; '$PROF' top -p $EXAMPLE_PID 2>top.err; echo EXITED \$? >exit; stty -g >stty.after; sleep 600"
}

teardown() {
	[ -n "${TSOCK:-}" ] || return 0
	tmux -L "$TSOCK" kill-server 2>/dev/null || true
	kill "$EXAMPLE_PID" 2>/dev/null || true
}

pane() { tmux -L "$TSOCK" capture-pane -p; }
pane_has() { pane | grep -qE -- "$1"; }
keys() { tmux -L "$TSOCK" send-keys "$@"; }

# "NAME SAMPLES" of the thread view's rows on the pane.
pane_threads() {
	pane | awk '$1 ~ /^[0-9.]+%$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && NF >= 4 { print $4, $2 }'
}

@test "top on a terminal: hot functions and thread shares as schedstat; filter, thread pick, window, save; q restores the terminal" {
	tmux_setup
	wait_until 30 pane_has 'burn_alpha'
	pane_has '^prof top  pid [0-9]+  99 Hz  window 10s'
	pane_has '^  self%   total%        self       total  function$'
	# a few intervals in, the whole run in a 60 s window, frozen
	wait_until 30 pane_has 'window 10s \(([4-9]|10)s\)'
	keys 3 p t
	wait_until 10 pane_has '\[paused\]'
	wait_until 10 pane_has '^view: threads'
	task_cpu "$EXAMPLE_PID" >"$TDIR/cpu.after"
	pane_threads >"$TDIR/threads"
	total=$(awk '$1 ~ /^(alpha|beta|pool-[12])$/ { s += $2 } END { print s + 0 }' "$TDIR/threads")
	[ "$total" -gt 0 ]
	cpu_total=0
	for t in alpha beta pool-1 pool-2; do
		cpu_total=$(awk -v a="$cpu_total" -v b="$(cpu_during "$t" "$TDIR/cpu.before" "$TDIR/cpu.after")" 'BEGIN { print a + b }')
	done
	for t in alpha beta pool-1 pool-2; do
		want=$(ratio "$(cpu_during "$t" "$TDIR/cpu.before" "$TDIR/cpu.after")" "$cpu_total")
		got=$(ratio "$(awk -v n="$t" '$1 == n { print $2 }' "$TDIR/threads")" "$total")
		assert_between "$t's share on screen" "$got" \
			"$(awk -v w="$want" 'BEGIN { print w * 0.75 }')" "$(awk -v w="$want" 'BEGIN { print w * 1.25 }')"
	done
	# the functions view: burn_alpha's self count is (nearly all) alpha's samples
	keys f
	wait_until 10 pane_has '^view: functions'
	alpha=$(awk '$1 == "alpha" { print $2 }' "$TDIR/threads")
	burn=$(pane | awk '$5 == "burn_alpha" { print $3 }')
	assert_between "burn_alpha's samples / alpha's" "$(ratio "$burn" "$alpha")" 0.75 1.01
	# the filter: only stacks through pool_work
	keys / pool_work Enter
	wait_until 10 pane_has '^view: functions  filter: pool_work'
	pane_has ' pool_burn$'
	! pane_has ' burn_alpha$'
	# the thread pick: the busiest thread alone, in every view
	keys / BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace Enter
	wait_until 10 pane_has '^view: functions  filter: -'
	keys t
	wait_until 10 pane_has '^view: threads'
	first=$(pane_threads | head -n 1 | awk '{ print $1 }')
	keys Enter f
	wait_until 10 pane_has "^view: functions  filter: -  thread: $first/[0-9]+"
	case "$first" in
	alpha) mine=burn_alpha ;; beta) mine=burn_beta ;; *) mine=pool_burn ;;
	esac
	pane_has " $mine\$"
	for f in burn_alpha burn_beta pool_burn; do
		[ "$f" = "$mine" ] || ! pane_has " $f\$"
	done
	keys Escape
	wait_until 10 pane_has '^view: functions  filter: -  thread: all'
	# the window: 1 interval
	keys 1
	wait_until 10 pane_has 'window 1s \(1s\)'
	keys 3
	wait_until 10 pane_has 'window 60s'
	# save: the window shown as a recording prof report reads
	keys s
	wait_until 10 pane_has 'saved prof-top-[0-9-]+\.data \([0-9]+ samples\)'
	saved=$(pane | grep -oE 'prof-top-[0-9-]+\.data')
	n=$(pane | sed -n 's/.*saved prof-top-[0-9-]*\.data (\([0-9]*\) samples).*/\1/p')
	shown=$(pane | sed -n 's/.*  samples \([0-9]*\)  lost.*/\1/p')
	[ "$n" -eq "$shown" ]
	run "$PROF" report --top 3 -i "$TDIR/$saved"
	[ "$status" -eq 0 ]
	top_screen=$(pane | awk '$1 ~ /%$/ && NF == 5 && $1 != "self%" { print $5; exit }')
	[ "$(sed -n 2p <<<"$output" | awk '{ print $5 }')" = "$top_screen" ]
	"$PROF" report -i "$TDIR/$saved" | folded_total | grep -qx "$n"
	# q: prof top ends, the shell's screen and terminal settings are back
	keys q
	wait_until 10 test -s "$TDIR/exit"
	[ "$(cat "$TDIR/exit")" = "EXITED 0" ]
	wait_until 10 test -s "$TDIR/stty.after"
	cmp "$TDIR/stty.before" "$TDIR/stty.after"
	pane_has '^BEFORE-TOP$'
	! pane_has 'self%   total%'
	[ ! -s "$TDIR/top.err" ]
}
