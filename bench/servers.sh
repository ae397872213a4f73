#!/bin/bash
# bench/servers.sh: prof against perf on Debian's own servers under their own
# benchmark clients: redis-server under redis-benchmark, nginx under wrk (ab
# when wrk is missing), and with --mariadb, mariadbd under row-lock and
# SELECT SLEEP contention. Each server is a temporary instance (own directory,
# loopback port or socket, owned by root), never the system service.
#
#   bench/servers.sh [--mariadb] [--no-install]     PROF=path (default build/prof)
#
# Installs what is missing from Debian first (apt-get; --no-install: only
# checks). Then per server, prof and perf attached to the same processes at
# the same time (perf's window opened through its control fifo once prof has
# samples), at FREQ Hz, while the client sends a bounded load:
#   truth     prof PROF_OPTS (its default stack mode) beside `perf record -g`,
#             then prof --call-graph dwarf beside perf --call-graph
#             dwarf,32768: (a) the share of CPU stacks whose outermost frame
#             is a thread's root (_start, __libc_start_main, clone3,
#             start_thread); (b) the inclusive shares of the server's main
#             functions; (c) samples lost (prof's summary; perf's "Total Lost
#             Samples").
#   overhead  (d) the client's throughput with no recorder, prof PROF_OPTS,
#             prof --call-graph dwarf, perf -g, perf --call-graph dwarf, at
#             each of OVERHEAD_FREQS; ROUNDS rounds, the order rotated each
#             round; medians, and each as a ratio of the bare throughput.
#   mariadb   (--mariadb) prof --sched PROF_OPTS and perf -e sched:sched_switch
#             --call-graph dwarf while 10 sessions wait on a row lock (SELECT
#             ... FOR UPDATE in open transactions) and 4 sleep (SELECT SLEEP):
#             how much of the futex waits' off-CPU time (prof) / switch-outs
#             (perf) reach the SQL layer's dispatch_command below the wrapper.
#
# PROF_OPTS is empty by default: prof's default mode, whatever it is; rerun
# with PROF_OPTS='--call-graph auto' or anything else. perf gets `-e
# cpu-clock` (what prof samples on machines without a PMU).
#
# Env: SERVERS ("redis nginx"), PROF_OPTS (""), FREQ (999), OVERHEAD_FREQS
# ("99 999"), ROUNDS (3), REDIS_REQUESTS (25000 per test, 4 tests),
# NGINX_SECONDS (5), MARIADB_SECONDS (8), PERF (perf). Prints markdown on
# stdout.
set -eu
BENCH_NAME=servers
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

MARIADB=0
INSTALL=1
for a in "$@"; do
	case $a in
	--mariadb) MARIADB=1 ;;
	--no-install) INSTALL=0 ;;
	*) echo "usage: bench/servers.sh [--mariadb] [--no-install]" >&2; exit 2 ;;
	esac
done
SERVERS=${SERVERS:-redis nginx}
[ "$MARIADB" = 0 ] || SERVERS="$SERVERS mariadb"
FREQ=${FREQ:-999}
OVERHEAD_FREQS=${OVERHEAD_FREQS:-99 999}
ROUNDS=${ROUNDS:-3}
REDIS_REQUESTS=${REDIS_REQUESTS:-25000}
NGINX_SECONDS=${NGINX_SECONDS:-5}
MARIADB_SECONDS=${MARIADB_SECONDS:-8}
ROOT_RE='^(_start|__libc_start_main(_impl)?|clone3?|__clone3?|start_thread)$'

# install: the Debian packages the servers and their clients come in.
install() {
	local pkgs="redis-server redis-tools nginx-light apache2-utils wrk" p missing=""
	[ "$MARIADB" = 0 ] || pkgs="$pkgs mariadb-server mariadb-client"
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	[ "$INSTALL" = 1 ] || die "missing:$missing (run without --no-install, as root)"
	say "installing:$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2 ||
		die "apt-get install$missing failed"
}

# free_port: a loopback TCP port nothing listens on now.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	die "no free port"
}

# until_ok SECONDS CMD...: runs CMD every 0.1 s until it succeeds; fails
# after SECONDS x 10 tries.
until_ok() {
	local n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# --- the servers: SERVER_start (sets SPID, the recorded pids), SERVER_load
# (prints the client's throughput, requests/s), SERVER_stop, SERVER_funcs.

redis_start() {
	SDIR=$TMP/redis
	mkdir -p "$SDIR"
	PORT=$(free_port)
	redis-server --port "$PORT" --bind 127.0.0.1 --dir "$SDIR" --save '' --appendonly no \
		--daemonize no --logfile "$SDIR/log" >/dev/null 2>&1 &
	SERVER_PID=$!
	until_ok 30 eval '[ "$(redis-cli -p "$PORT" ping 2>/dev/null)" = PONG ]' ||
		die "redis-server did not answer PING: $(tail -3 "$SDIR/log")"
	SPID=$SERVER_PID
}
redis_load() {
	# The tests' throughputs, as one: all requests over the time they took.
	redis-benchmark -p "$PORT" -c 20 -n "${1:-$REDIS_REQUESTS}" -t set,get,incr,lpush --csv 2>/dev/null |
		awk -F'"' -v n="${1:-$REDIS_REQUESTS}" 'NR > 1 && $4 > 0 {t += n / $4; k++}
			END {if (k) printf "%.0f\n", k * n / t; else print "?"}'
}
redis_warm() { redis_load 500 >/dev/null; }
redis_stop() { kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; }
redis_funcs() { echo aeMain processCommand call readQueryFromClient beforeSleep; }

nginx_start() {
	SDIR=$TMP/nginx
	mkdir -p "$SDIR/www" "$SDIR/tmp"
	PORT=$(free_port)
	head -c 4096 /dev/zero | tr '\0' x >"$SDIR/www/index.html"
	cat >"$SDIR/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 2;
pid $SDIR/nginx.pid;
error_log $SDIR/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $SDIR/tmp/body;
	proxy_temp_path $SDIR/tmp/proxy;
	fastcgi_temp_path $SDIR/tmp/fastcgi;
	uwsgi_temp_path $SDIR/tmp/uwsgi;
	scgi_temp_path $SDIR/tmp/scgi;
	server { listen 127.0.0.1:$PORT; root $SDIR/www; }
}
EOF
	nginx -p "$SDIR" -e "$SDIR/error.log" -c "$SDIR/nginx.conf" >/dev/null 2>&1 &
	SERVER_PID=$!
	until_ok 30 eval '[ "$(pgrep -c -P "$SERVER_PID")" -ge 2 ] &&
		curl_ok "http://127.0.0.1:$PORT/index.html"' ||
		die "nginx did not serve: $(tail -3 "$SDIR/error.log")"
	SPID=$(echo "$SERVER_PID" $(pgrep -P "$SERVER_PID") | tr ' ' ,)
}
curl_ok() { ab -q -n 1 "$1" 2>/dev/null | grep -q '^Complete requests: *1$'; }
nginx_load() {
	local u="http://127.0.0.1:$PORT/index.html"
	if command -v wrk >/dev/null; then
		wrk -t1 -c16 -d"${1:-$NGINX_SECONDS}s" "$u" 2>/dev/null | awk '/^Requests\/sec:/ {printf "%.0f\n", $2}'
	else
		ab -q -k -c 16 -t "${1:-$NGINX_SECONDS}" -n 10000000 "$u" 2>/dev/null |
			awk '/^Requests per second:/ {printf "%.0f\n", $4}'
	fi
}
nginx_warm() { nginx_load 1 >/dev/null; }
nginx_stop() { kill -QUIT "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; }
nginx_funcs() { echo ngx_process_events_and_timers ngx_http_process_request ngx_http_core_run_phases ngx_http_finalize_request ngx_output_chain; }

# --- mariadb: lock waits, off CPU.

SQL() { mariadb --no-defaults -S "$SDIR/sock" -uroot -N -B "$@"; }

mariadb_start() {
	SDIR=$TMP/mariadb
	mkdir -p "$SDIR"
	mariadb-install-db --no-defaults --datadir="$SDIR/data" --user=root \
		--auth-root-authentication-method=normal --skip-test-db >"$SDIR/install.log" 2>&1 ||
		die "mariadb-install-db failed: $(tail -3 "$SDIR/install.log")"
	mariadbd --no-defaults --datadir="$SDIR/data" --socket="$SDIR/sock" --skip-networking \
		--user=root --pid-file="$SDIR/pid" --log-error="$SDIR/err" \
		--innodb-buffer-pool-size=64M --max-connections=64 >/dev/null 2>&1 &
	SERVER_PID=$!
	until_ok 60 eval 'SQL -e "select 1" >/dev/null 2>&1' ||
		die "mariadbd did not answer: $(tail -3 "$SDIR/err")"
	SQL -e "create database b; create table b.t (id int primary key, v int) engine=innodb;
		insert into b.t values (1, 0)"
	SPID=$SERVER_PID
}
mariadb_warm() { SQL -e "select benchmark(200000, md5('x'))" >/dev/null; }
mariadb_stop() { kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; }

# contention: one session holds row 1 (SELECT ... FOR UPDATE) for
# MARIADB_SECONDS, 10 wait for it, 4 run SELECT SLEEP; returns once the 10
# waiters are blocked (information_schema.innodb_trx) and sets CPIDS.
contention() {
	local i s=$MARIADB_SECONDS
	CPIDS=""
	SQL -e "begin; select * from b.t where id = 1 for update; select sleep($s); commit" >/dev/null &
	CPIDS="$CPIDS $!"
	until_ok 30 eval '[ "$(SQL -e "select count(*) from information_schema.innodb_trx")" -ge 1 ]' ||
		die "the lock holder did not start"
	for i in $(seq 10); do
		SQL -e "set innodb_lock_wait_timeout = $((s + 30)); begin;
			select * from b.t where id = 1 for update; commit" >/dev/null &
		CPIDS="$CPIDS $!"
	done
	for i in $(seq 4); do
		SQL -e "select sleep($s)" >/dev/null &
		CPIDS="$CPIDS $!"
	done
	until_ok 30 eval '[ "$(SQL -e "select count(*) from information_schema.innodb_trx
		where trx_state = '"'LOCK WAIT'"'")" -ge 10 ]' || die "the 10 waiters did not block"
}

# mariadb: prof --sched beside perf -e sched:sched_switch --call-graph
# dwarf, during the contention (MARIADB_ORDER=after: the recorders attach
# first; before: the waiters are blocked before they attach, and so never
# switch out while recorded). Appends "RECORDER total futex futex% root%
# connection%" lines to $TMP/mariadb.rows.
mariadb_case() {
	local order=${MARIADB_ORDER:-after} p t
	mariadb_start
	[ "$order" = after ] || contention
	rec_start "--sched ${PROF_OPTS:-} -F 99" "-e sched:sched_switch --call-graph dwarf,32768" mariadb_warm
	[ "$order" = before ] || contention
	# shellcheck disable=SC2086
	wait $CPIDS || true
	rec_stop
	"$PROF" report --off-cpu -i "$TMP/r.prof" >"$TMP/r.off.folded" 2>/dev/null
	"$PROF" sched -i "$TMP/r.prof" --format csv -o "$TMP/r.sched" 2>/dev/null || true
	"$PERF" script -i "$TMP/r.data" -F comm,tid,event,ip,sym 2>/dev/null |
		perf_fold sched:sched_switch >"$TMP/r.perf.folded"
	for t in prof perf; do
		[ "$t" = prof ] && p=$TMP/r.off.folded || p=$TMP/r.perf.folded
		# The waits in glibc's futex wrapper, and how many of them (prof:
		# microseconds off CPU; perf: switch-outs) are unwound below the
		# wrapper to the thread's root, and to the connection code
		# (handle_one_connection).
		T="$t" RE="$ROOT_RE" awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); a += n
			if (s ~ /futex/) { f += n; split(s, fr, ";"); if (fr[1] ~ ENVIRON["RE"]) r += n
				if (s ~ /handle_one_connection/) d += n } }
			END { printf "%s %d %d %.1f %.1f %.1f\n", ENVIRON["T"], a, f, a ? 100 * f / a : 0,
				f ? 100 * r / f : 0, f ? 100 * d / f : 0 }' "$p" >>"$TMP/mariadb.rows"
	done
	[ "${KEEP:-0}" = 1 ] && cp "$TMP/r.off.folded" "$TMP/r.perf.folded" "$TMP/r.sched" "$SDIR/"
	rm -f "$TMP/r.data" "$TMP/r.prof"
	mariadb_stop
}

# --- recording: rec_start PROF-ARGS -- PERF-ARGS... / rec_stop.

# rec_start "PROF ARGS" "PERF ARGS" WARM: starts prof (unless its args are
# "-") and perf (unless "-") on $SPID, waits until prof has samples of the
# WARM command's load and then opens perf's window.
rec_start() {
	local pa=$1 fa=$2 warm=$3
	PROF_PID="" PERF_PID=""
	rm -f "$TMP/ctl" "$TMP/ack" "$TMP/r.data" "$TMP/r.prof" "$TMP/r.perf.err" "$TMP/r.prof.err"
	if [ "$fa" != - ]; then
		mkfifo "$TMP/ctl" "$TMP/ack"
		exec 7<>"$TMP/ctl" 8<>"$TMP/ack"
		# shellcheck disable=SC2086
		"$PERF" record -D -1 --control "fifo:$TMP/ctl,$TMP/ack" $fa -p "$SPID" \
			-o "$TMP/r.data" >/dev/null 2>"$TMP/r.perf.err" 7>&- 8>&- &
		PERF_PID=$!
		until_ok 60 grep -qs 'Events disabled' "$TMP/r.perf.err" ||
			die "perf did not start: $(tail -3 "$TMP/r.perf.err")"
	fi
	if [ "$pa" != - ]; then
		# shellcheck disable=SC2086
		"$PROF" record $pa -p "$SPID" -o "$TMP/r.prof" >/dev/null 2>"$TMP/r.prof.err" 7>&- 8>&- &
		PROF_PID=$!
		until_ok 120 eval '$warm; [ -s "$TMP/r.prof" ] && [ "$("$PROF" report -i "$TMP/r.prof" 2>/dev/null | head -1)" != "" ]' ||
			die "prof record has no samples: $(tail -3 "$TMP/r.prof.err")"
	fi
	if [ -n "$PERF_PID" ]; then
		echo enable >&7
		read -r -t 60 _ <&8 || die "perf did not enable its events"
	fi
}

rec_stop() {
	[ -z "$PROF_PID" ] || kill -INT "$PROF_PID"
	[ -z "$PERF_PID" ] || kill -INT "$PERF_PID"
	[ -z "$PROF_PID" ] || wait "$PROF_PID" || die "prof record failed: $(tail -3 "$TMP/r.prof.err")"
	[ -z "$PERF_PID" ] || { wait "$PERF_PID" || true; exec 7>&- 8>&-; }
}

# perf_fold [EVENT]: perf script's text (stdin) as folded stacks of function
# names, outermost first (folded here, not by prof's perf-script reader);
# with EVENT, only the samples of that event.
perf_fold() {
	EV="${1:-}" awk 'function out() { if (n && keep) { s = st[n]; for (i = n - 1; i >= 1; i--) s = s ";" st[i]; c[s]++ } n = 0 }
		/^[^ \t]/ { out(); keep = ENVIRON["EV"] == "" || index($0, " " ENVIRON["EV"] ":") > 0; next }
		NF >= 2 { st[++n] = $2 }
		END { out(); for (s in c) print s, c[s] }'
}

# shares FOLDED FUNC...: "samples root% func1% func2% ..." of folded stacks:
# the share whose outermost frame is a root, and of those with each FUNC.
shares() {
	local f=$1
	shift
	RE="$ROOT_RE" FN="$*" awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); t += n
		k = split(s, fr, ";"); if (fr[1] ~ ENVIRON["RE"]) r += n
		m = split(ENVIRON["FN"], fn, " ")
		for (j = 1; j <= m; j++) for (i = 1; i <= k; i++) if (fr[i] == fn[j]) { a[j] += n; break } }
		END { printf "%d %.1f", t, t ? 100 * r / t : 0
			for (j = 1; j <= m; j++) printf " %.1f", t ? 100 * a[j] / t : 0; printf "\n" }' "$f"
}

lost_pct() {
	awk -v s="$1" -v l="$2" 'BEGIN { if (s !~ /^[0-9]+$/ || l !~ /^[0-9]+$/ || s + l == 0) print "?"
		else printf "%.1f\n", 100 * l / (s + l) }'
}

# truth SERVER LABEL "PROF ARGS" "PERF ARGS": one paired recording; appends
# "SERVER LABEL prof|perf samples lost% root% func%..." to $TMP/truth.
truth() {
	local s=$1 label=$2 pa=$3 fa=$4 ps pl
	say "$s: $label: prof $pa / perf $fa, $FREQ Hz"
	rec_start "$pa -F $FREQ" "$fa -e cpu-clock -F $FREQ" "${s}_warm"
	"${s}_load" >/dev/null
	rec_stop
	"$PROF" report -i "$TMP/r.prof" >"$TMP/r.prof.folded" 2>/dev/null
	"$PERF" script -i "$TMP/r.data" -F comm,tid,ip,sym 2>/dev/null | perf_fold >"$TMP/r.perf.folded"
	# shellcheck disable=SC2046 # the function names, one word each
	read -r ps rest < <(shares "$TMP/r.prof.folded" $("${s}_funcs"))
	pl=$(summary_field "$TMP/r.prof.err" lost)
	echo "$s $label prof $ps $(lost_pct "$ps" "$pl") $rest" >>"$TMP/truth"
	# shellcheck disable=SC2046
	read -r ps rest < <(shares "$TMP/r.perf.folded" $("${s}_funcs"))
	pl=$(perf_lost "$TMP/r.data")
	echo "$s $label perf $ps $(lost_pct "$ps" "$pl") $rest" >>"$TMP/truth"
	[ "${KEEP:-0}" = 1 ] && cp "$TMP/r.prof.folded" "$TMP/$s-$label-prof.folded" &&
		cp "$TMP/r.perf.folded" "$TMP/$s-$label-perf.folded"
	rm -f "$TMP/r.data" "$TMP/r.prof"
}

CONFIGS=(bare prof prof-dwarf perf-g perf-dwarf)

# overhead SERVER: appends "SERVER F CONFIG rps" to $TMP/overhead.
overhead() {
	local s=$1 f r c i rps
	for f in $OVERHEAD_FREQS; do
		for r in $(seq "$ROUNDS"); do
			# Round r starts at the r-th configuration: none always runs first.
			for i in "${!CONFIGS[@]}"; do
				c=${CONFIGS[(i + r) % ${#CONFIGS[@]}]}
				say "$s: overhead, $f Hz, round $r of $ROUNDS: $c"
				case $c in
				bare) rec_start - - "${s}_warm" ;;
				prof) rec_start "${PROF_OPTS:-} -F $f" - "${s}_warm" ;;
				prof-dwarf) rec_start "--call-graph dwarf -F $f" - "${s}_warm" ;;
				perf-g) rec_start - "-g -e cpu-clock -F $f" "${s}_warm" ;;
				perf-dwarf) rec_start - "--call-graph dwarf,32768 -e cpu-clock -F $f" "${s}_warm" ;;
				esac
				rps=$("${s}_load")
				rec_stop
				echo "$s $f $c $rps" >>"$TMP/overhead"
				rm -f "$TMP/r.data" "$TMP/r.prof"
			done
		done
	done
}

median() {
	sort -n | awk '{x[n++] = $1} END {if (!n) print "?"; else printf "%.0f\n", (n % 2 ? x[(n - 1) / 2] : (x[n / 2 - 1] + x[n / 2]) / 2)}'
}

need_tools
install
ENV_LINE=$(env_line)
: >"$TMP/truth"
: >"$TMP/overhead"
for s in $SERVERS; do
	[ "$s" != mariadb ] || continue
	"${s}_start"
	say "$s: recording pids $SPID"
	"${s}_load" >/dev/null	# warm-up
	truth "$s" default "${PROF_OPTS:-}" "-g"
	truth "$s" dwarf "--call-graph dwarf" "--call-graph dwarf,32768"
	overhead "$s"
	"${s}_stop"
done
if [ "$MARIADB" = 1 ]; then
	say "mariadb: contention, ${MARIADB_ORDER:-after}"
	: >"$TMP/mariadb.rows"
	mariadb_case
fi

echo "### Debian's servers under their benchmark clients"
echo
echo "$ENV_LINE"
echo
RV=$(redis-server --version | grep -oE 'v=[0-9.]+' | cut -d= -f2)
echo "\`bench/servers.sh\` (PROF_OPTS='${PROF_OPTS:-}'). redis-server $RV under \`redis-benchmark -c 20 -n $REDIS_REQUESTS -t set,get,incr,lpush\`;" \
	"nginx $(nginx -v 2>&1 | grep -oE '[0-9.]+$') (2 workers, a 4 KiB static file) under" \
	"\`wrk -t1 -c16 -d${NGINX_SECONDS}s\`. prof and perf attached to the same processes at the same" \
	"time at $FREQ Hz; perf \`-e cpu-clock\`. default: prof ${PROF_OPTS:-(its default)} beside" \
	"\`perf record -g\`; dwarf: prof \`--call-graph dwarf\` beside \`perf record --call-graph dwarf,32768\`."
echo "Root: the share of stacks whose outermost frame is _start, __libc_start_main, clone3 or" \
	"start_thread. Lost: lost / (samples + lost)."
echo
echo "| server | mode | recorder | samples | lost | root |"
echo "|---|---|---|---:|---:|---:|"
awk '{printf "| %s | %s | %s | %d | %s%% | %s%% |\n", $1, $2, $3, $4, $5, $6}' "$TMP/truth"
echo
echo "Inclusive shares of the servers' functions (% of the process's samples); Δ: prof dwarf" \
	"− perf dwarf, in points."
echo
echo "| server | function | prof default | perf -g | prof dwarf | perf dwarf | Δ dwarf |"
echo "|---|---|---:|---:|---:|---:|---:|"
for s in $SERVERS; do
	[ "$s" != mariadb ] || continue
	i=7
	for fn in $("${s}_funcs"); do
		awk -v s="$s" -v fn="$fn" -v i="$i" '$1 == s {v[$2 "-" $3] = $i}
			END {printf "| %s | %s | %s | %s | %s | %s | %+.1f |\n", s, fn, v["default-prof"],
				v["default-perf"], v["dwarf-prof"], v["dwarf-perf"], v["dwarf-prof"] - v["dwarf-perf"]}' "$TMP/truth"
		i=$((i + 1))
	done
done
echo
echo "Client throughput (requests/s, median of $ROUNDS rounds, configurations rotated each round)" \
	"and its ratio to the bare run. prof: ${PROF_OPTS:-its default}; prof dwarf: \`--call-graph dwarf\`;" \
	"perf dwarf: \`--call-graph dwarf,32768\`."
echo
echo "| server | Hz | bare | prof | prof dwarf | perf -g | perf dwarf |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for s in $SERVERS; do
	[ "$s" != mariadb ] || continue
	for f in $OVERHEAD_FREQS; do
		row="| $s | $f"
		bare=$(awk -v s="$s" -v f="$f" '$1 == s && $2 == f && $3 == "bare" {print $4}' "$TMP/overhead" | median)
		row="$row | $bare"
		for c in prof prof-dwarf perf-g perf-dwarf; do
			m=$(awk -v s="$s" -v f="$f" -v c="$c" '$1 == s && $2 == f && $3 == c {print $4}' "$TMP/overhead" | median)
			row="$row | $m ($(ratio "$m" "$bare" %.2f))"
		done
		echo "$row |"
	done
done
if [ "$MARIADB" = 1 ]; then
	echo
	echo "mariadbd $(mariadbd --version | grep -oE 'Ver [^ ]+' | cut -d' ' -f2): one session holds a row" \
		"(\`SELECT ... FOR UPDATE\`, then \`SELECT SLEEP($MARIADB_SECONDS)\`), 10 wait for it, 4 run" \
		"\`SELECT SLEEP($MARIADB_SECONDS)\`; the contention started ${MARIADB_ORDER:-after} the recorders attached." \
		"prof: \`record --sched ${PROF_OPTS:-}\` and \`report --off-cpu\` (µs); perf: \`record -e" \
		"sched:sched_switch --call-graph dwarf,32768\` (switch-outs). futex: the off-CPU stacks in" \
		"glibc's futex wait; of those, the share unwound to the thread's root, and to handle_one_connection."
	echo
	echo "| recorder | off-CPU total | in futex waits | futex share | futex: to the root | futex: to handle_one_connection |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk '{printf "| %s | %d | %d | %s%% | %s%% | %s%% |\n", $1, $2, $3, $4, $5, $6}' "$TMP/mariadb.rows"
fi
