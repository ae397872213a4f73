# tap-filter.awk: reads `prove -v --timer` output and prints what a person
# (or a CI log's tail) needs: one line per test file with its result, and
# every failed test with its diagnostics (the comment and indented YAML
# lines after a `not ok`). Passing tests' TAP lines are left out, so the
# console looks like plain `prove`, but failures are never hidden.
# With -v summary=1 it prints only the failures, each under its file's name
# (tools/run-tests.sh prints that again at the very end of the suite).

function flush() {
	if (pending) {
		if (!summary)
			print hdr
		pending = 0
	}
}

# prove's closing report: as it is on the console, left out of the summary
/^Test Summary Report/ { flush(); report = 1 }
report {
	if (!summary)
		print
	next
}
/^\[[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\] [^ ]/ {
	flush()
	hdr = $0
	sub(/ +$/, "", hdr)
	file = $2
	pending = 1
	fail = 0
	next
}
/^1\.\.[0-9]+/ { next }
# a file that crashed, stopped early or gave up: named in the summary too
summary && /^(Dubious|Bail out!|Bailout called|No subtests run)/ {
	if (file != shown)
		print "--- " file
	shown = file
	print
	next
}
/^ok [0-9]+/ { fail = 0; next }
/^not ok [0-9]+/ {
	fail = 1
	if (summary) {
		if (file != shown)
			print "--- " file
		shown = file
	}
	flush()
	print
	next
}
/^#/ || /^[ \t]/ {
	if (fail)
		print
	next
}
/^(ok|Failed|Dubious|skipped|No subtests)/ && pending {
	if (!summary)
		print hdr " " $0
	pending = 0
	fail = 0
	next
}
{
	flush()
	fail = 0
	if (!summary)
		print
}
