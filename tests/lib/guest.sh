# shellcheck shell=bash disable=SC2034 # the variables are for the tests that source this
# The start every in-guest test shares. Source it from a test that has cd'ed to its own
# directory (tests/guest or tests/vanilla): the TAP and tracefs helpers, $bin (the
# workloads), $mode (the paging mode the guest was booted in) and $tmp, a scratch
# directory removed at exit.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/tracefs.sh"
bin=../../build/bin
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
