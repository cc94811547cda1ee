# shellcheck shell=bash disable=SC2034 # the variables are for the tests that source this
# The start every in-guest test shares. Source it from a test that has cd'ed to its own
# directory (tests/guest or tests/vanilla): the TAP and tracefs helpers, $top (the
# checkout), $bin (the workloads and tools), $mode (the paging mode the guest was booted
# in) and $tmp, a scratch directory removed at exit. at_exit CMD runs CMD at exit, the
# last registered first, before $tmp goes.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/tracefs.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$top/build/bin
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}
tmp=$(mktemp -d)

exit_cmds=()
at_exit() { exit_cmds+=("$1"); }
run_exit_cmds() {
	local i
	for ((i = ${#exit_cmds[@]} - 1; i >= 0; i--)); do
		eval "${exit_cmds[i]}"
	done
	rm -rf "$tmp"
}
trap run_exit_cmds EXIT
