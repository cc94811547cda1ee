#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An interrupted test run leaves no QEMU and no temporary file, on real boots of the
# in-guest suite: tests/run-all stopped with SIGINT (Ctrl-C) and with SIGTERM while its
# guest runs tests, and `make test-guest` stopped by a SIGTERM to make alone (CI's cancel
# may reach only the top process: the runner then dies with make). Checked each time:
# the exit status, no QEMU carrying the run's tag, no job directory of the pool, no run
# directory of run-guest. (run-guest on its own: tests/host/runner-interrupt.t.)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ]; then
	skip "interrupted test runs" "no patched kernel: run 'make kernel'"
	tap_done
fi
touch "$tmp/start"

# interrupt NAME SIGNAL WANT CMD...: start CMD (its pool's files in a scratch TMPDIR, its
# guest tagged), wait until the guest has printed a test result, send SIGNAL to CMD's
# process alone, and check that it exits WANT and leaves nothing.
interrupt() {
	local name=$1 sig=$2 want=$3 tag=p4d.test=interrupt-$$-$1 pid rc left pools i
	shift 3
	mkdir -p "$tmp/$name"
	TMPDIR=$tmp/$name P4D_PHASE_LOG='' P4DSCOPE_APPEND=$tag "$@" >"$tmp/$name.out" 2>&1 &
	pid=$!
	# The suite's results reach the pool's buffer as the guest prints them.
	for ((i = 0; i < 600; i++)); do
		grep -qs '^ok ' "$tmp/$name"/p4dscope-pool.*/*.out && break
		kill -0 $pid 2>/dev/null || break
		sleep 1
	done
	if ! grep -qs '^ok ' "$tmp/$name"/p4dscope-pool.*/*.out; then
		not_ok "$name: the guest ran tests before the $sig" "$(tail -n 5 "$tmp/$name.out")"
		kill -TERM $pid 2>/dev/null
		wait $pid
		return
	fi
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	# QEMU goes within a few seconds of the runner (run-guest waits for it).
	for ((i = 0; i < 60; i++)); do
		pgrep -f "[q]emu-system-x86_64 .*$tag" >/dev/null || break
		sleep 1
	done
	pgrep -f "[q]emu-system-x86_64 .*$tag" >/dev/null
	left=$?
	pools=$(find "$tmp/$name" -mindepth 1 | wc -l)
	is "$name: stopped with SIG$sig: status, no QEMU left (pgrep 1), no pool files" \
		"$rc $left $pools" "$want 1 0"
}
# A command started in the background of a script ignores SIGINT (bash does that without
# job control, and a shell cannot undo it): the runner starts with SIGINT restored.
interrupt run-all-int INT 130 env --default-signal=INT tests/run-all "$P4D_KVER:5:fast"
interrupt run-all-term TERM 143 tests/run-all "$P4D_KVER:4:fast"
# make test-guest: the TERM reaches make alone; make dies of it.
interrupt make-term TERM 143 make -s --no-print-directory test-guest MODES=5
grep -q 'run-all: terminated' "$tmp/make-term.out"
is "make-term: the runner heard of it (pdeathsig) and stopped its guest" "$?" 0

# run-guest removes its run directory when it is stopped: none is new since the start
# but those of other jobs of a make test beside this one (they hold their lock).
new=()
while IFS= read -r d; do
	[ -e "$d/lock" ] && ! flock -n "$d/lock" true 2>/dev/null && continue
	new+=("$d")
done < <(find "$P4D_BUILD/run" -mindepth 1 -maxdepth 1 -newer "$tmp/start" 2>/dev/null)
is "no run directory of the stopped guests is left" "${new[*]}" ""
tap_done
