#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/lib/pool.sh, the job pool of tests/run-all, on planted jobs (sleeps and echoes;
# nothing is booted): at most two jobs at once; output handed back whole and in the order
# the jobs were added, whatever order they end in, with each job's own status; the
# longest start first; a quiet job runs alone, and so does one that takes both slots; jobs
# with one lock never overlap; an interrupted pool leaves nothing of its jobs running; a
# pool that loses track of its jobs stops them and fails.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tag=p4dpool-$$
# The planted jobs are no phases of the run that started this test.
unset P4D_PHASE_LOG

# A planted job: JOB NAME SECONDS [STATUS]: logs its start and end in $tmp/events (one
# line each, under a lock) and prints a line on stdout and one on stderr.
cat >"$tmp/job" <<'JOB'
#!/usr/bin/env bash
log() { flock "$EVENTS" -c "echo '$1 $2' >>'$EVENTS'"; }
log start "$1"
echo "out of $1"
echo "err of $1" >&2
sleep "$2"
log end "$1"
exit "${3:-0}"
JOB
chmod +x "$tmp/job"
export EVENTS=$tmp/events

# run_pool SETUP: a pool in a subshell with the jobs SETUP adds; what DONE saw is printed,
# the pool's own start and end lines go to $tmp/stamps.
run_pool() {
	(
		. tests/lib/pool.sh
		done_fn() { echo "done $1 $2 status=$4 output=$(tr '\n' '|' <"$3")"; }
		eval "$1"
		pool_run done_fn 2>"$tmp/stamps"
	)
}
# most_at_once: the largest number of jobs running together, from $EVENTS.
most_at_once() {
	awk '$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m + 0 }' "$EVENTS"
}

: >"$EVENTS"
got=$(run_pool "
	pool_add a 1 - $tmp/job a 0.6
	pool_add b 3 - $tmp/job b 0.2 3
	pool_add c 2 - $tmp/job c 0.1
	pool_add d 1 - $tmp/job d 0.1")
is "jobs are handed back in the order they were added, each with its output and status" "$got" \
"done 0 a status=0 output=out of a|err of a|
done 1 b status=3 output=out of b|err of b|
done 2 c status=0 output=out of c|err of c|
done 3 d status=0 output=out of d|err of d|"
is "at most two jobs run at once" "$(most_at_once)" 2
# The order the pool started them in, from its own lines: a job's line in $EVENTS can come
# late (b ends after 0.2 s; under load, before c's process has written its line).
is "the longest expected start first" \
	"$(awk '$2 == "start" { printf "%s ", $3 }' "$tmp/stamps" | cut -d' ' -f1-2)" "b c"

: >"$EVENTS"
run_pool "
	pool_add a 1 - $tmp/job a 0.3
	pool_add q 1 quiet $tmp/job q 0.3
	pool_add b 1 - $tmp/job b 0.3" >/dev/null
is "a quiet job runs first and alone" "$(head -n 2 "$EVENTS" | tr '\n' ' ')" "start q end q "

: >"$EVENTS"
run_pool "
	pool_add a 5 lock=x $tmp/job a 0.3
	pool_add b 4 lock=x $tmp/job b 0.3
	pool_add c 1 - $tmp/job c 0.1" >/dev/null
is "two jobs with one lock never overlap" \
	"$(awk '$2 != "c"' "$EVENTS" | tr '\n' ' ')" "start a end a start b end b "

# A job that takes both slots runs alone; the others still fill both slots beside each other.
: >"$EVENTS"
run_pool "
	pool_add a 3 - $tmp/job a 0.3
	pool_add w 2 slots=2 $tmp/job w 0.3
	pool_add b 1 - $tmp/job b 0.3" >/dev/null
is "a job of two slots runs with nothing beside it" \
	"$(awk '{ n += $1 == "start" ? 1 : -1; if ($2 == "w") print n }' "$EVENTS" | tr '\n' ' ')" "1 0 "

# A line on the pool's FIFO that names no started job (a job that wrote there itself):
# the pool stops its jobs and fails, rather than handing back a job that did not end.
mkdir "$tmp/pooltmp"
got=$(TMPDIR=$tmp/pooltmp timeout 30 bash -c '
	. tests/lib/pool.sh
	handed_back() { echo "handed back $2"; }
	pool_add liar 1 - bash -c "echo bogus 0 >$0/p4dscope-pool.*/ended; sleep 5"
	pool_add slow 1 - sleep 5
	pool_run handed_back 2>&1 | grep -v "^  [0-9:]* \(start\|done\|stop\) "
	echo "pool_run ${PIPESTATUS[0]}"' "$tmp/pooltmp")
is "an unreadable line on the FIFO stops the pool, which fails and hands back nothing" \
	"$got" "pool: unreadable end of a job ('bogus'): stopping every job
pool_run 1"

# Interrupted: the pool's trap stops every job's session, the grandchildren in process
# groups of their own included (run-guest's timeout(1) makes one).
cat >"$tmp/long" <<LONG
#!/usr/bin/env bash
timeout 300 bash -c 'exec -a $tag-grouped sleep 300' &
exec -a $tag-direct sleep 300
LONG
chmod +x "$tmp/long"
(
	. tests/lib/pool.sh
	trap 'pool_stop; exit 130' TERM
	pool_add one 1 - "$tmp/long"
	pool_add two 1 - "$tmp/long"
	pool_run true 2>/dev/null
) &
pool=$!
for _ in $(seq 100); do
	[ "$(pgrep -fc "^$tag-")" -ge 4 ] && break
	sleep 0.1
done
seen=$(pgrep -fc "^$tag-")
kill -TERM $pool
wait $pool
rc=$?
pgrep -f "^$tag-" >/dev/null
left=$?
is "an interrupted pool exits as its trap says and leaves none of its 4 processes (saw $seen)" \
	"$rc $seen $left" "130 4 1"

tap_done
