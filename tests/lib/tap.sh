# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# TAP helpers for p4dscope's shell tests (kselftest style). Source it.
#   check NAME CMD...      ok when CMD succeeds
#   is NAME GOT WANT       ok when GOT equals WANT, else shows both
#   skip NAME REASON
#   tap_done               prints the plan, exits 0 (all passed), 1 (a failure) or 4 (all skipped)
tap_n=0 tap_failed=0 tap_skipped=0
tap_skips=()	# "NAME # SKIP REASON" of every skipped result, for a closing list

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1"; }

not_ok() {
	tap_n=$((tap_n + 1)) tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $1"
	shift
	[ $# -eq 0 ] || printf '#   %s\n' "$@"
}

skip() {
	tap_n=$((tap_n + 1)) tap_skipped=$((tap_skipped + 1))
	tap_skips+=("$1 # SKIP $2")
	echo "ok $tap_n $1 # SKIP $2"
}

check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "command failed: $*" "$out"; fi
}

is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got:  '$2'" "want: '$3'"; fi
}

tap_done() {
	echo "1..$tap_n"
	[ $tap_failed -eq 0 ] || exit 1
	[ $tap_n -eq 0 ] || [ $tap_skipped -ne $tap_n ] || exit 4
	exit 0
}

# tap_merge NAME CMD...: run a TAP producer and re-emit its results numbered in this
# stream, each name prefixed with "NAME: "; its diagnostics pass through. The producer's
# plan ("1..N", first or last) must match the results it reported: one that died early or
# never printed a plan is a failure of its own, as is one that exits with a failure status
# but reported no failing test (a crash, a lost guest). Exit status 4 (everything skipped)
# is not a failure; 124 (timeout(1) killed it) always is. The status is left in tap_rc.
tap_merge() {
	local name=$1 line rcfile before=$tap_failed plan='' results=0
	shift
	rcfile=$(mktemp)
	while IFS= read -r line; do
		if [[ $line =~ ^(not )?ok\ [0-9]+(\ -\ |\ |$)(.*)$ ]]; then
			tap_n=$((tap_n + 1)) results=$((results + 1))
			[ -z "${BASH_REMATCH[1]}" ] || tap_failed=$((tap_failed + 1))
			if [[ $line == *"# SKIP"* ]]; then
				tap_skipped=$((tap_skipped + 1))
				tap_skips+=("$name: ${BASH_REMATCH[3]}")
			fi
			echo "${BASH_REMATCH[1]}ok $tap_n $name: ${BASH_REMATCH[3]}"
		elif [[ $line =~ ^1\.\.([0-9]+)$ ]] && [ -z "$plan" ]; then
			plan=${BASH_REMATCH[1]}
		else
			echo "$line"
		fi
	done < <("$@" 2>&1; echo $? >"$rcfile")
	tap_rc=$(cat "$rcfile")
	rm -f "$rcfile"
	if [ "$tap_rc" = 124 ]; then
		not_ok "$name: killed by its time limit (exit 124) after $results results"
	elif [ -z "$plan" ]; then
		not_ok "$name: no plan (1..N): it died or never finished (exit $tap_rc, $results results)"
	elif [ "$plan" != "$results" ]; then
		not_ok "$name: planned $plan results, reported $results (exit $tap_rc)"
	elif [ "$tap_rc" != 0 ] && [ "$tap_rc" != 4 ] && [ $tap_failed -eq $before ]; then
		not_ok "$name: exited with status $tap_rc"
	fi
}
