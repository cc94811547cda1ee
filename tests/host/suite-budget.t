#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/guest/suite's time budget per test, on planted tests run on the host (they touch
# no kernel): a test that hangs, with a child in a process group of its own, is killed
# and named as one failure; the test after it still runs and reports; nothing it started
# is left running; --budget sums what a boot may take.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tag=p4dplant-$$
mkdir "$tmp/planted"
# a-hangs.t: one result, then a child that escapes its process group, then a hang.
cat >"$tmp/planted/a-hangs.t" <<PLANT
#!/usr/bin/env bash
echo "ok 1 started"
setsid --fork bash -c 'exec -a $tag-escaped sleep 300' </dev/null >/dev/null 2>&1
timeout 300 bash -c 'exec -a $tag-grouped sleep 300'
echo "1..1"
PLANT
printf '#!/bin/sh\necho "ok 1 ran"\necho "1..1"\n' >"$tmp/planted/b-after.t"
chmod +x "$tmp/planted"/*.t

P4DSCOPE_DEFAULT_BUDGET=3 tests/guest/suite "$tmp/planted" >"$tmp/out" 2>&1
rc=$?
is "the suite fails (exit 1)" "$rc" 1
is "the hung test is one failure that names it, the next test still runs" \
	"$(grep -E '^(not )?ok ' "$tmp/out")" "ok 1 a-hangs: started
not ok 2 a-hangs: killed by its time limit (exit 124) after 1 results
ok 3 b-after: ran"
check "the suite's plan counts all three" grep -qx '1\.\.3' "$tmp/out"
pgrep -f "$tag-grouped" >/dev/null
is "the hung test's own timeout(1) child is gone (pgrep: none, status 1)" "$?" 1
# The positive control of the pgrep above: it does find a planted child, the one that
# left the test's session (setsid --fork) and so the budget's reach. Killed here, by pid.
escaped=$(pgrep -f "$tag-escaped")
check "control: pgrep finds the child that left the session" test -n "$escaped"
[ -z "$escaped" ] || kill "$escaped"

is "--budget sums the planted tests' budgets" \
	"$(P4DSCOPE_DEFAULT_BUDGET=3 tests/guest/suite --budget "$tmp/planted")" 6
is "--budget sums only the tests named" \
	"$(P4DSCOPE_DEFAULT_BUDGET=3 tests/guest/suite --budget "$tmp/planted" b-after.t)" 3
P4DSCOPE_DEFAULT_BUDGET=3 tests/guest/suite "$tmp/planted" b-after.t >"$tmp/out" 2>&1
is "the suite runs only the tests named" "$(grep -E '^(not )?ok ' "$tmp/out")" "ok 1 b-after: ran"
is "--budget scales with P4DSCOPE_BUDGET_SCALE" \
	"$(P4DSCOPE_DEFAULT_BUDGET=3 P4DSCOPE_BUDGET_SCALE=4 tests/guest/suite --budget "$tmp/planted")" 24
tests/lib/budget x true 2>/dev/null
is "budget with a bad SECONDS is a usage error (exit 2)" "$?" 2
tests/lib/budget 30 sh -c 'exit 7'
is "budget passes a command's own status through" "$?" 7
tap_done
