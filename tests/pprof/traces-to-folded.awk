# traces-to-folded.awk: turns `pprof -traces` output into folded stacks,
# "THREAD;root;...;leaf VALUE" (thread from the sample's "thread" label),
# so that the tests can compare what pprof read with `prof report
# --threads`. pprof prints each sample as label lines, then its value and
# leaf frame, then the callers, one per line; inlined functions end in
# " (inline)", which prof writes "_[i]".
function flush(   s, i) {
	if (n) {
		s = thread
		for (i = n; i >= 1; i--)
			s = s (s == "" ? "" : ";") frame[i]
		print s, value
	}
	n = 0; thread = ""; in_stack = 0
}
function name(s) {
	sub(/^ +/, "", s)
	sub(/ \(inline\)$/, "_[i]", s)
	return s
}
/^-----------\+/ { flush(); started = 1; next }
!started { next }
!in_stack && /^ *[a-z_]+:  / {
	if ($1 == "thread:") { thread = $0; sub(/^ *thread:  /, "", thread) }
	next
}
!in_stack && /^ +[0-9]/ {
	in_stack = 1
	value = $1
	s = $0
	sub(/^ +[^ ]+ +/, "", s)
	frame[++n] = name(s)
	next
}
in_stack { frame[++n] = name($0) }
END { flush() }
