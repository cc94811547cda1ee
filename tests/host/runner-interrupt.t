#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/run-guest interrupted (issue 33). On SIGINT, SIGTERM or SIGHUP it stops QEMU
# and its output copiers, removes its run directory (build/run/XXXXXX) and its RAM file
# (/dev/shm/p4dscope-ram.*, a --plugin run's), then dies of the signal: 130, 143, 129.
# Killed with SIGKILL it cannot clean up, but QEMU still goes (each child of run-guest has
# a parent-death signal); what stays behind is the run directory and the RAM file, which
# the next run removes (its lock file is free).
# One boot per case: SIGKILL, SIGINT and SIGTERM while the guest runs the command (a
# --plugin run, which has a RAM file), SIGHUP while the guest still boots (no plugin).
# The command says it started by writing a file into build/out, then sleeps: the test
# waits on that file, never for a fixed time. Each run's QEMU is found by a unique tag on
# its kernel command line (P4DSCOPE_APPEND=p4d.test=TAG); the [q] keeps pgrep from
# matching its own command line, and only pgrep's status 1 is "no such process".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh

tmp=$(mktemp -d)
runner='' reader=''
# shellcheck disable=SC2317 # run at exit
at_exit() {
	# Only what this test started, by pid: a runner still going, a pipe reader.
	[ -z "$runner" ] || kill -KILL "$runner" 2>/dev/null
	[ -z "$reader" ] || kill -KILL "$reader" 2>/dev/null
	rm -rf "$tmp"
	rm -f "$P4D_BUILD/out/runner-interrupt.$$."*
}
trap at_exit EXIT

so=build/walkmodel/walkmodel.so
if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ] || [ ! -f "$P4D_BUILD/initramfs.cpio" ]; then
	skip "run-guest interrupted" "no patched kernel or initramfs: run 'make kernel image'"
	tap_done
fi
if [ ! -f "$so" ]; then
	skip "run-guest interrupted" "no $so: run 'make tools'"
	tap_done
fi
# The RAM file gets its share of /dev/shm.
readonly PLUGIN=(--mem 512M --plugin "$so,preset=nopsc,out=$tmp/res")
# A cap on each wait for the guest, only so that a lost run cannot hang the test: runs
# take a fraction of it even on a loaded machine.
readonly CAP=1500

# start NAME RUN-GUEST-OPTION...: run-guest in the background (SIGINT not ignored, as a
# background job's is), its stdout and stderr through a pipe that a reader drains, on a
# command that writes $marker and sleeps.
start() {
	local name=$1
	shift
	tag=p4d.test=interrupt-$$-$name
	marker=$P4D_BUILD/out/runner-interrupt.$$.$name
	pipe=$tmp/$name.pipe
	mkfifo "$pipe"
	cat "$pipe" >"$tmp/$name.out" &
	reader=$!
	# shellcheck disable=SC2016 # expanded in the guest
	P4DSCOPE_APPEND=$tag env --default-signal=INT,TERM,HUP scripts/run-guest --timeout $CAP \
		"$@" -- sh -c 'echo started >"$1"; exec sleep 3600' sh "$marker" >"$pipe" 2>&1 &
	runner=$!
}

# until_true CMD...: poll CMD until it succeeds (0) or the runner is gone or the cap is
# reached (1).
until_true() {
	local end=$((SECONDS + CAP))
	until "$@"; do
		kill -0 "$runner" 2>/dev/null && [ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# qemu_procs: this run's QEMU and its timeout(1) (both carry QEMU's command line), as
# "PID COMMAND LINE"; pgrep's status. qemu_started: QEMU itself runs.
qemu_procs() {
	pgrep -a -f "[q]emu-system-x86_64 .*$tag "
}
# shellcheck disable=SC2317 # run by until_true
qemu_started() {
	pgrep -f "^[q]emu-system-x86_64 .*$tag " >/dev/null
}

# Once the run is going: its run directory and RAM file, from QEMU's command line.
find_run_files() {
	local line
	line=$(qemu_procs | head -n 1)
	rundir=$(sed -n 's/.* p4d\.run=\([^ ]*\) .*/\1/p' <<<"$line")
	ramfile=$(sed -n 's/.*,mem-path=\([^,]*\),.*/\1/p' <<<"$line")
}

# holders FILE: the processes (other than the reader) that have FILE open.
holders() {
	find /proc/[0-9]*/fd -lname "$1" 2>/dev/null | cut -d/ -f3 | sort -u | grep -vx "$reader"
}

# interrupted NAME SIGNAL STATUS WHAT: the checks once run-guest got SIGNAL: its status,
# no QEMU, nothing holding its output, no run directory, no RAM file (when it had one).
interrupted() {
	local name=$1 sig=$2 want=$3 what=$4 rc qemu_rc left
	kill -s "$sig" "$runner"
	wait "$runner" 2>/dev/null
	rc=$?
	runner=''
	qemu_procs >"$tmp/left"
	qemu_rc=$?
	left=$(holders "$pipe")
	is "SIG$sig $what: exit $want" "$rc" "$want"
	is "SIG$sig $what: no QEMU of the run is left when run-guest ends (pgrep status 1)" \
		"$qemu_rc $(cat "$tmp/left")" "1 "
	is "SIG$sig $what: no copier or QEMU holds the run's output" "$left" ""
	if [ -n "$rundir" ] && [ ! -e "$rundir" ]; then
		ok "SIG$sig $what: the run directory is removed"
	else
		not_ok "SIG$sig $what: the run directory is removed" "'$rundir': $(ls -A "$rundir" 2>&1)"
	fi
	if [ "$name" != boot ]; then
		if [ -n "$ramfile" ] && [ ! -e "$ramfile" ]; then
			ok "SIG$sig $what: the RAM file is removed"
		else
			not_ok "SIG$sig $what: the RAM file is removed" "'$ramfile'"
		fi
	fi
	end_reader "$left"
}

# end_reader HOLDERS: the reader ends at the end of the output, when nothing else holds
# the pipe; otherwise it is killed.
end_reader() {
	[ -z "$1" ] || kill -KILL "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
	reader=''
}

# running NAME: wait until the guest runs the command; ok when it does, and the run has
# its directory and (a --plugin run) its RAM file.
running() {
	until_true test -e "$marker"
	find_run_files
	if [ -e "$marker" ] && [ -d "$rundir" ] && [ -f "$ramfile" ]; then
		ok "$1: the guest runs the command; run directory and RAM file are there"
	else
		not_ok "$1: the guest runs the command; run directory and RAM file are there" \
			"marker: $(ls "$marker" 2>&1)" "run directory '$rundir', RAM file '$ramfile'" \
			"output: $(cat "$tmp/$1.out" 2>&1)"
	fi
}

# 1. SIGKILL: nothing in run-guest runs. QEMU dies of its parent-death signal when its
# timeout(1) dies of its own, within moments; the wait is capped generously.
start kill "${PLUGIN[@]}"
running kill
kill -KILL "$runner"
wait "$runner" 2>/dev/null
rc=$?
runner=''
qemu_pids=$(qemu_procs | cut -d' ' -f1)
is "SIGKILL: run-guest killed (137)" "$rc" 137
until_gone() {
	local end=$((SECONDS + 60))
	while qemu_procs >/dev/null || [ -n "$(holders "$pipe")" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}
if until_gone; then
	ok "SIGKILL: QEMU and the copiers die with run-guest (parent-death signal)"
else
	not_ok "SIGKILL: QEMU and the copiers die with run-guest (parent-death signal)" \
		"still there: $(qemu_procs)" "holding the output: $(holders "$pipe")"
	# shellcheck disable=SC2086 # one pid a word
	[ -z "$qemu_pids" ] || kill -KILL $qemu_pids 2>/dev/null
fi
end_reader "$(holders "$pipe")"
# What a killed run leaves: its directory, with a lock file nobody holds, and its RAM file.
stale_dir=$rundir stale_ram=$ramfile
if [ -f "$stale_dir/lock" ] && [ -f "$stale_ram" ] && flock -n "$stale_dir/lock" true; then
	ok "SIGKILL: left behind: the run directory (its lock free) and the RAM file"
else
	not_ok "SIGKILL: left behind: the run directory (its lock free) and the RAM file" \
		"'$stale_dir': $(ls -A "$stale_dir" 2>&1)" "'$stale_ram': $(ls "$stale_ram" 2>&1)"
fi

# 2. SIGINT (Ctrl-C) while the command runs. The run first removed what run 1 left.
start int "${PLUGIN[@]}"
running int
if [ -n "$stale_dir" ] && [ ! -e "$stale_dir" ] && [ -n "$stale_ram" ] && [ ! -e "$stale_ram" ]; then
	ok "the next run removed the killed run's directory and RAM file"
else
	not_ok "the next run removed the killed run's directory and RAM file" \
		"'$stale_dir': $(ls -A "$stale_dir" 2>&1)" "'$stale_ram': $(ls "$stale_ram" 2>&1)"
fi
interrupted int INT 130 "while the command runs"

# 3. SIGTERM (CI's cancel) while the command runs.
start term "${PLUGIN[@]}"
running term
interrupted term TERM 143 "while the command runs"

# 4. SIGHUP while QEMU boots the guest, as soon as QEMU itself runs.
start boot
until_true qemu_started
find_run_files
if [ -d "$rundir" ]; then
	ok "boot: QEMU runs, the run directory is there"
else
	not_ok "boot: QEMU runs, the run directory is there" "'$rundir'" "$(cat "$tmp/boot.out")"
fi
interrupted boot HUP 129 "while the guest boots"
echo "# boot: the command had $([ -e "$marker" ] || echo "not ")started when SIGHUP came"

tap_done
