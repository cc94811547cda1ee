# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A pool of jobs for tests/run-all: at most POOL_SLOTS (default 2: one per core, and a
# TCG guest keeps about one busy) run at once, each in a session of its own with its
# output (stdout and stderr together) in a file, and every job is handed back in the
# order it was added, whatever order the jobs finish in. Source it.
#   pool_add NAME SECONDS FLAGS CMD [ARG...]
#       a job; SECONDS is what it is expected to take (the longest start first, so that
#       the last ones to finish are short); FLAGS, comma-separated or "-":
#         quiet    runs with no other job beside it (before the others)
#         slots=N  takes N of the slots (a job that runs N guests at once itself)
#         lock=K   never runs beside another job with lock K (two trees' runs of one
#                  host test share files under build/)
#   pool_run DONE       runs every job; calls DONE INDEX NAME OUTPUT STATUS SECONDS per job,
#                       in the order they were added, as soon as it and all before it ended;
#                       returns 1, every job stopped, if a job's end cannot be read
#   pool_stop           kills every running job (its whole session) and waits for it: the
#                       trap of a caller that is interrupted
# A timestamped line on stderr says when each job starts and ends; with $P4D_PHASE_LOG
# set, each job is also recorded there as a phase (scripts/phase --table).
POOL_SLOTS=${POOL_SLOTS:-2}
pool_names=() pool_secs=() pool_flags=() pool_cmds=()
pool_dir=
declare -A pool_pid_job=()	# running: session leader's pid -> job index

pool_add() {
	local n=${#pool_names[@]}
	pool_names[n]=$1 pool_secs[n]=$2 pool_flags[n]=$3
	shift 3
	pool_cmds[n]=$(printf '%q ' "$@")
}

pool_stamp() {
	printf '  %(%H:%M:%S)T %-6s %s%s\n' -1 "$1" "$2" "${3:+ ($3)}" >&2
}

# pool_has JOB FLAG: JOB's flags include FLAG.
pool_has() { [[ ,${pool_flags[$1]}, == *",$2,"* ]]; }
pool_lock() {
	local f
	for f in ${pool_flags[$1]//,/ }; do [[ $f != lock=* ]] || echo "${f#lock=}"; done
}
# pool_width JOB: the slots JOB takes (never more than there are).
pool_width() {
	local f w=1
	for f in ${pool_flags[$1]//,/ }; do [[ $f != slots=* ]] || w=${f#slots=}; done
	echo $((w < POOL_SLOTS ? w : POOL_SLOTS))
}

pool_stop() {
	local pid waited=0
	[ ${#pool_pid_job[@]} -gt 0 ] || return 0
	for pid in "${!pool_pid_job[@]}"; do
		pool_stamp stop "${pool_names[${pool_pid_job[$pid]}]}" "interrupted"
		pkill -TERM -s "$pid" 2>/dev/null
	done
	# run-guest needs a moment to stop QEMU and remove its files; then no mercy.
	while pgrep -s "$(IFS=,; echo "${!pool_pid_job[*]}")" >/dev/null && [ $waited -lt 20 ]; do
		sleep 0.5
		waited=$((waited + 1))
	done
	for pid in "${!pool_pid_job[@]}"; do pkill -KILL -s "$pid" 2>/dev/null; done
	wait 2>/dev/null
	pool_pid_job=()
	[ -z "$pool_dir" ] || rm -rf "$pool_dir"
}

pool_run() {
	local done_fn=$1 n=${#pool_names[@]} order=() i j k pid rc next=0 busy_quiet=0 ended_fd used=0
	local -a started ended status
	local -A held=()	# lock -> running job
	pool_dir=$(mktemp -d "${TMPDIR:-/tmp}/p4dscope-pool.XXXXXX")
	# Each job says "INDEX STATUS" here when it ends: a read-write FIFO, so neither side
	# ever blocks in open(). (Bash's wait -n loses jobs that ended while it ran another
	# command.)
	mkfifo "$pool_dir/ended"
	exec {ended_fd}<>"$pool_dir/ended"
	# Quiet jobs first, then the longest first; ties in the order added.
	mapfile -t order < <(for ((i = 0; i < n; i++)); do
		printf '%d %d %d\n' "$(pool_has $i quiet && echo 0 || echo 1)" "$((-pool_secs[i]))" $i
	done | sort -n -k1,1 -k2,2 -k3,3 | cut -d' ' -f3)

	startable() {	# JOB: may start beside the running jobs
		local k
		[ $busy_quiet = 0 ] || return 1
		if pool_has "$1" quiet; then [ ${#pool_pid_job[@]} -eq 0 ] || return 1; fi
		[ $((used + $(pool_width "$1"))) -le "$POOL_SLOTS" ] || return 1
		for k in $(pool_lock "$1"); do [ -z "${held[$k]:-}" ] || return 1; done
	}
	while [ $next -lt $n ]; do
		for j in "${!order[@]}"; do
			[ $used -lt "$POOL_SLOTS" ] || break
			i=${order[j]}
			startable "$i" || continue
			unset "order[j]"
			started[i]=$(date +%s)
			pool_stamp start "${pool_names[i]}"
			# Not a process-group leader (no job control here), so setsid needs no fork:
			# the pid is the session's id, and pkill -s reaches everything the job starts.
			(exec setsid bash -c "${pool_cmds[i]}"' </dev/null >"$1" 2>&1; echo "$2 $?" >&'"$ended_fd" \
				_ "$pool_dir/$i.out" "$i") &
			pool_pid_job[$!]=$i
			used=$((used + $(pool_width "$i")))
			for k in $(pool_lock "$i"); do held[$k]=$i; done
			! pool_has "$i" quiet || busy_quiet=1
		done
		# A line that names no started job would leave the loop waiting for ever.
		if ! read -r -u "$ended_fd" i rc || [[ ! $i =~ ^[0-9]+$ ]] || [ -z "${started[i]:-}" ]; then
			echo "pool: unreadable end of a job ('${i:-}'): stopping every job" >&2
			pool_stop
			return 1
		fi
		for pid in "${!pool_pid_job[@]}"; do
			[ "${pool_pid_job[$pid]}" != "$i" ] || { wait "$pid"; unset "pool_pid_job[$pid]"; }
		done
		used=$((used - $(pool_width "$i")))
		for k in $(pool_lock "$i"); do unset "held[$k]"; done
		! pool_has "$i" quiet || busy_quiet=0
		ended[i]=$(date +%s) status[i]=$rc
		pool_stamp "done" "${pool_names[i]}" "$((ended[i] - started[i])) s$([ "$rc" = 0 ] || echo ", exit $rc")"
		[ -z "${P4D_PHASE_LOG:-}" ] ||
			echo "${started[i]} ${ended[i]} $rc ${pool_names[i]}" >>"$P4D_PHASE_LOG"
		while [ $next -lt $n ] && [ -n "${status[next]:-}" ]; do
			"$done_fn" $next "${pool_names[next]}" "$pool_dir/$next.out" "${status[next]}" \
				$((ended[next] - started[next]))
			next=$((next + 1))
		done
	done
	exec {ended_fd}>&-
	rm -rf "$pool_dir"
	pool_dir=
}
