#!/usr/bin/env bats
# t0600: USDT probes and uprobes: `prof probes` (cross-checked against
# readelf -n), `prof record -e usdt:/uprobe:/uretprobe:` on
# examples/usdt-app.c run for real (arguments decoded exactly, semaphores
# set while attached and restored after, call counts exact with --every 1,
# about a tenth with --every 10), and the errors.

load helpers

LIBJVM=/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so

# readelf -n's stapsdt notes as "provider name address semaphore args" TSV.
readelf_probes() {
	readelf -n "$1" | awk '
		/Provider:/ { prov = $2 }
		/Name:/ { name = $2 }
		/Location:/ { loc = $2; sem = $6; sub(",", "", loc) }
		/Arguments:/ { $1 = ""; sub(/^ /, ""); printf "%s\t%s\t%s\t%s\t%s\n", prov, name, loc, sem, $0 }' |
		sed 's/0x0*\([0-9a-f]\)/0x\1/g' | sort
}

prof_probes_tsv() {
	"$PROF" probes --format tsv "$1" | awk -F'\t' 'NR > 1 { printf "%s\t%s\t%s\t%s\t%s\n", $2, $3, $4, $5, $8 }' | sort
}

@test "probes: the example's USDT probes, with semaphores and argument specs" {
	run "$PROF" probes "$EXAMPLES/usdt-app"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "PROVIDER"*"NAME"*"ADDRESS"*"SEMAPHORE"*"ARGS" ]]
	[[ "$output" == *"usdt_demo  tick"*"1@%dil -2@%cx -4@%edx 8@%rax -4@\$42 -8@-8(%rbp)"* ]]
	[[ "$output" == *"usdt_demo  gated"* ]]
	# Both have a semaphore (the example is built with _SDT_HAS_SEMAPHORES).
	[ "$(echo "$output" | awk '/usdt_demo/ && $4 != "0"' | wc -l)" -eq 2 ]
}

@test "probes: the same probes as readelf -n (the example and libjvm.so)" {
	diff -u <(readelf_probes "$EXAMPLES/usdt-app") <(prof_probes_tsv "$EXAMPLES/usdt-app")
	[ -r "$LIBJVM" ] || skip "no OpenJDK 17"
	readelf_probes "$LIBJVM" > "$BATS_TEST_TMPDIR/readelf.tsv"
	prof_probes_tsv "$LIBJVM" > "$BATS_TEST_TMPDIR/prof.tsv"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/prof.tsv")" -gt 400 ]
	diff -u "$BATS_TEST_TMPDIR/readelf.tsv" "$BATS_TEST_TMPDIR/prof.tsv"
	grep -q $'^hotspot\tobject__alloc\t' "$BATS_TEST_TMPDIR/prof.tsv"
}

@test "probes -p: every object the process maps, the binary named" {
	start_example usdt-app --loop 10
	run "$PROF" probes -p "$EXAMPLE_PID"
	kill "$EXAMPLE_PID"
	wait "$EXAMPLE_PID" || true
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "BINARY"*"PROVIDER"* ]]
	[[ "$output" == *"/usdt-app "*"usdt_demo"*"tick"* ]]
	# Only the example's probes (Debian's glibc has none); libjvm.so's
	# under -p are in t0610.
	[ "$(echo "$output" | grep -vc usdt_demo)" -eq 1 ]
}

@test "probes: errors say what and exit 1, usage errors exit 2" {
	run "$PROF" probes /no/such/binary
	[ "$status" -eq 1 ]
	[[ "$output" == "prof probes: cannot read '/no/such/binary': No such file or directory" ]]
	run "$PROF" probes /etc/passwd
	[ "$status" -eq 1 ]
	[[ "$output" == "prof probes: '/etc/passwd' is not an ELF binary" ]]
	run "$PROF" probes -p 999999999
	[ "$status" -eq 1 ]
	[[ "$output" == "prof probes: no such process: 999999999" ]]
	run "$PROF" probes
	[ "$status" -eq 2 ]
	run "$PROF" probes --format xml /bin/true
	[ "$status" -eq 2 ]
	run "$PROF" probes -h
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: prof probes"* ]]
}

@test "probes: a binary without probes lists none" {
	run "$PROF" probes --format tsv "$EXAMPLES/hotloop"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
}
