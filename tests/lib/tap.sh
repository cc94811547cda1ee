# TAP helpers for p4dscope's shell tests (kselftest style). Source it.
#   check NAME CMD...      ok when CMD succeeds
#   is NAME GOT WANT       ok when GOT equals WANT, else shows both
#   skip NAME REASON
#   tap_done               prints the plan, exits 0 (all passed), 1 (a failure) or 4 (all skipped)
tap_n=0 tap_failed=0 tap_skipped=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1"; }

not_ok() {
	tap_n=$((tap_n + 1)) tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $1"
	shift
	[ $# -eq 0 ] || printf '#   %s\n' "$@"
}

skip() { tap_n=$((tap_n + 1)) tap_skipped=$((tap_skipped + 1)); echo "ok $tap_n $1 # SKIP $2"; }

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
# stream, each name prefixed with "NAME: "; its diagnostics pass through. A producer that
# exits with a failure status but reported no failing test (a crash, a lost guest) counts as
# one failure of its own. Exit status 4 (everything skipped) is not a failure.
tap_merge() {
	local name=$1 line rcfile rc before=$tap_failed
	shift
	rcfile=$(mktemp)
	while IFS= read -r line; do
		if [[ $line =~ ^(not )?ok\ [0-9]+( -)?\ ?(.*)$ ]]; then
			tap_n=$((tap_n + 1))
			[ -z "${BASH_REMATCH[1]}" ] || tap_failed=$((tap_failed + 1))
			[[ $line != *"# SKIP"* ]] || tap_skipped=$((tap_skipped + 1))
			echo "${BASH_REMATCH[1]}ok $tap_n $name: ${BASH_REMATCH[3]}"
		elif [[ ! $line =~ ^1\.\.[0-9]+$ ]]; then
			echo "$line"
		fi
	done < <("$@" 2>&1; echo $? >"$rcfile")
	rc=$(cat "$rcfile")
	rm -f "$rcfile"
	if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ $tap_failed -eq $before ]; then
		not_ok "$name: exited with status $rc"
	fi
}
