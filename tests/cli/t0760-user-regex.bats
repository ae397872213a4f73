#!/usr/bin/env bats
# t0760: every regex the user types (report/svg/diff's --include, --exclude,
# --grep, --thread, report's --class, sched's --thread, annotate -r, check's
# rules) goes through report/user-regex.c, which refuses the patterns
# glibc's regcomp needs exponential memory for (a repetition repeated with
# + or {}: a++, (a*)+): one error line and its hint, exit 2, nothing
# compiled. The patterns next to them still work. On a real recording of
# examples/threads.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export REC="$BATS_FILE_TMPDIR/threads.data"
	"$PROF" record -F 499 -o "$REC" -- "$EXAMPLES/threads" 1 40,20,10 2>/dev/null
}

REASON="it repeats a repetition with + or {} (such as a++ or (a*)+), and the regex engine's memory grows exponentially with those: write it with one quantifier"

@test "report --include 'burn_alpha++': one clear error line, exit 2, no output" {
	run --separate-stderr "$PROF" report -i "$REC" --include 'burn_alpha++'
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "prof report: invalid regular expression 'burn_alpha++' for --include: $REASON" ]
	[ "${stderr_lines[1]}" = "hint: see 'prof report -h'" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "refused before compiling: 19 nested +'s fail at once, in little memory" {
	# Compiled, the pattern takes about 350 MB (glibc's regcomp: 4 times
	# more per +; 40 of them would take more than the machine has); refused,
	# prof stays near its usual size (8 MB, 17 MB under ASan). Bound: 100 MB
	# of maximum resident memory. (Not ulimit -v: ASan reserves terabytes
	# of address space.)
	pattern="burn$(printf '+%.0s' $(seq 19))"
	run --separate-stderr /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/rss" \
		"$PROF" report -i "$REC" --include "$pattern"
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == *"for --include: $REASON" ]]
	assert_between "maximum RSS (KB)" "$(tail -1 "$BATS_TEST_TMPDIR/rss")" 1 102400
}

@test "every regex option of every command refuses them the same way" {
	# COMMAND|OPTION|PATTERN|the other arguments
	while IFS='|' read -r cmd opt re more; do
		run --separate-stderr "$PROF" "$cmd" "$opt" "$re" $more
		echo "$cmd $opt $re: $status: ${stderr_lines[0]}"
		[ "$status" -eq 2 ]
		[[ "${stderr_lines[0]}" == "prof $cmd: invalid regular expression '$re'"*": $REASON" ]]
	done <<-LIST
		report|--include|(a*)+|-i $REC
		report|--exclude|a{2}+|-i $REC
		report|--grep|(a+){2}|-i $REC
		report|--thread|alpha++|-i $REC
		report|--class|x++|-i $REC --alloc
		svg|--include|a++|-i $REC
		diff|--include|a++|$REC $REC
		sched|--thread|a++|-i $REC
		annotate|-r|a++|-i $REC
	LIST
	run --separate-stderr "$PROF" check -i "$REC" "'burn_alpha++' <= 50%"
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "prof check: rule 1, column 1: refused regex: $REASON" ]
}

@test "the patterns next to them still match: a group repeated once, * and ? after +" {
	"$PROF" report -i "$REC" --include 'burn_alpha|burn_beta' > "$BATS_TEST_TMPDIR/plain"
	[ -s "$BATS_TEST_TMPDIR/plain" ]
	for re in '(burn_alpha|burn_beta)+' 'burn_(alpha|beta)+$' 'burn_(a+lpha|be+ta)*$' \
		'burn_[a-z]+?(alpha|beta)'; do
		"$PROF" report -i "$REC" --include "$re" > "$BATS_TEST_TMPDIR/re"
		diff -u "$BATS_TEST_TMPDIR/plain" "$BATS_TEST_TMPDIR/re"
	done
}
