#!/usr/bin/env bats
# t0430: prof sched's switch-outs per thread against the threads' own
# counts, /proc/PID/task/TID/status voluntary + nonvoluntary_ctxt_switches.
# examples/spinners switches only between a SIGUSR1 and its "done" line, so
# a recorder attached before the signal and stopped after "done" sees every
# switch the kernel counted between the two /proc readings, and no other:
# the counts must agree within 2% both ways. The spinners are preempted (R),
# sleep (S: the SWITCH record alone, the tracepoint's filter holds it back)
# and yield (R), at a low rate and at a high one.

load helpers

# switches PID: "COMM TOTAL" per spin-* thread of PID, from /proc.
switches() {
	local t comm v n
	for t in /proc/"$1"/task/*; do
		read -r comm <"$t/comm" || continue
		case $comm in spin-*) ;; *) continue ;; esac
		n=0
		while read -r k v; do
			case $k in voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:) n=$((n + v)) ;; esac
		done <"$t/status"
		echo "$comm $n"
	done | sort
}

# burst OUT CHUNK_US PROF-ARGS...: spinners (3 threads, 2 s bursts of
# CHUNK_US chunks) recorded with prof record --sched PROF-ARGS around one
# burst; leaves OUT.want ("COMM SWITCHES" from /proc) and OUT.got (prof
# sched's switches column).
burst() {
	local out=$1 chunk=$2 log
	shift 2
	log="$BATS_TEST_TMPDIR/spinners.log"
	"$EXAMPLES/spinners" 3 2 "$chunk" 2>"$log" &
	EXAMPLE_PID=$!
	wait_ready "$log" "$EXAMPLE_PID"
	"$PROF" record --sched -p "$EXAMPLE_PID" -o "$out" "$@" 2>"$out.err" &
	REC_PID=$!
	# The output takes its name once every event is open (session.c).
	wait_until 60 test -e "$out" || { kill "$REC_PID" "$EXAMPLE_PID"; return 1; }
	switches "$EXAMPLE_PID" >"$out.before"
	kill -USR1 "$EXAMPLE_PID"
	wait_until 120 grep -q '^done 1$' "$log" || { kill "$REC_PID" "$EXAMPLE_PID"; return 1; }
	switches "$EXAMPLE_PID" >"$out.after"
	kill -INT "$REC_PID"
	wait "$REC_PID"
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	join "$out.before" "$out.after" | awk '{ print $1, $3 - $2 }' >"$out.want"
	"$PROF" sched -i "$out" --format csv |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
			$3 ~ /^spin-/ { print $3, $(h["switches"]) }' | sort >"$out.got"
}

# agree OUT: every spinner's switch-outs in prof within 2% of its own count
# (and at least 50 of them, so that a switch missed shows).
agree() {
	cat "$1.want" "$1.got" "$1.err" >&2
	[ "$(wc -l <"$1.want")" -eq 3 ]
	join "$1.want" "$1.got" | awk '
		{ n++; if ($2 < 50 || $3 < $2 * 0.98 || $3 > $2 * 1.02) { print "off:", $0; bad = 1 } }
		END { exit bad || n != 3 }' >&2
}

@test "CPU-wide: switch-outs per thread agree with the threads' own counts" {
	burst "$BATS_TEST_TMPDIR/a.data" 250
	agree "$BATS_TEST_TMPDIR/a.data"
}

@test "CPU-wide, a switch every 20 µs of spinning: the counts still agree" {
	burst "$BATS_TEST_TMPDIR/b.data" 20
	agree "$BATS_TEST_TMPDIR/b.data"
}

@test "per thread: switch-outs per thread agree with the threads' own counts" {
	burst "$BATS_TEST_TMPDIR/c.data" 20 --sched-per-thread
	agree "$BATS_TEST_TMPDIR/c.data"
}
