#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Tiers (tests/tier, tests/run-all): make test runs a tree in full while no passing full
# run of its current inputs is recorded in tests/full-runs, and only the host tests but
# HOST_FULL_ONLY and the FAST boots on 5-level and 4-level once one is; a change to any
# input (a test, a script, the tree's series) makes it full again, a change to the docs or
# to another tree's series does not; every job a tier leaves out is named. Runs on a
# scratch repository holding a copy of the project's tracked files; nothing boots.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

scratch() {
	git ls-files -z | cpio -0pdm --quiet "$tmp/r" && cd "$tmp/r" && git init -q &&
		git add -A && git -c user.name=t -c user.email=t@t commit -qm scratch
}
if ! scratch >"$tmp/err" 2>&1; then
	not_ok "a scratch repository of the tracked files: $(tail -1 "$tmp/err")"
	tap_done
fi
grep -v '^6\.1 ' tests/full-runs >full-runs.new && mv full-runs.new tests/full-runs

verdict() { tests/tier 6.1 "$1" | cut -d' ' -f1; }
plan() { P4D_KVER=6.1 tests/run-all --plan >"$tmp/plan" 2>&1; }
has() { grep -qxF "$1" "$tmp/plan"; }
lacks() { ! has "$1"; }

is "no record: the suite is due in full" "$(verdict suite)" full
is "no record: the host tests are due in full" "$(verdict host)" full
plan
check "make test's plan says why ('# tier: 6.1 suite: full no passing full run...')" \
	grep -q '^# tier: 6.1 suite: full no passing full run' "$tmp/plan"
for job in host/la57-check host/lint guest-6.1-5 guest-6.1-4 guest-6.1-no5lvl vanilla-6.1-5; do
	check "full: $job runs" has "job $job"
done

tests/tier --record 6.1 suite passed && tests/tier --record 6.1 host passed
is "recorded: the suite is fast" "$(verdict suite)" fast
is "recorded: the host tests are fast" "$(verdict host)" fast
check "the record names the scratch commit and its uncommitted change" \
	grep -qE "^6\.1 suite [0-9a-f]{16} $(git rev-parse --short=12 HEAD)\+changes [0-9-]{10} passed$" \
	tests/full-runs
plan
check "fast: only the 5-level and 4-level boots" \
	test "$(grep -E '^job (guest|vanilla)-' "$tmp/plan" | tr '\n' ' ')" = \
	"job guest-6.1-5 job guest-6.1-4 "
check "fast: a quick host test (lint) runs" has "job host/lint"
check "fast: a full-only host test (la57-check) does not" lacks "job host/la57-check"
check "fast: the host tests left out are named with the reason" \
	grep -qE '^# left out: host-6\.1:.* la57-check .*\(tests/tier: not due' "$tmp/plan"
check "fast: the guest tests left out are named (bpftrace.t on 5-level)" \
	grep -qE '^# left out: guest-6\.1-5: bpftrace\.t .*\(tests/tier: not due' "$tmp/plan"

echo note >>docs/validation.md
is "a change to the docs leaves it fast" "$(verdict suite)" fast
echo "note" >>patches/6.12/0000-cover-letter.patch
is "a change to another tree's series leaves it fast" "$(verdict suite)" fast
is "... and makes that tree's suite full" "$(tests/tier 6.12 suite | cut -d' ' -f1-3)" \
	"full inputs changed"
# Left out of the inputs, the host tests of analysis/ must run in every make test.
both=$(for t in tests/host/analysis/*.t; do
	sed -n '/^HOST_FULL_ONLY="/,/"$/p' tests/run-all | grep -qw "$(basename "${t%.t}")\.t" && echo "$t"; done)
is "the host tests of analysis/ are none of them full-only" "$both" ""
echo "# note" >>tests/host/analysis/walkmodel.t
is "a change to a host test of analysis/ leaves it fast" "$(verdict host)" fast
echo "# note" >>tests/guest/events.t
is "a change to a test makes the suite full" "$(verdict suite)" full
is "... and the host tests" "$(verdict host)" full
check "... and says so" grep -q "inputs changed since its full run" <(tests/tier 6.1)

# A tree with an RFC (patches/7.3/exec-rfc): its boots are a part of their own.
P4D_KVER=7.3 tests/run-all --plan 7.3:exec-rfc >"$tmp/plan" 2>&1
is "7.3:exec-rfc: the RFC kernel boots on 5-level, 4-level and no5lvl" \
	"$(grep -E '^job ' "$tmp/plan" | tr '\n' ' ')" \
	"job guest-7.3-exec-rfc-5 job guest-7.3-exec-rfc-4 job guest-7.3-exec-rfc-no5lvl "
check "7.3:exec-rfc: no5lvl leaves the tool tests to the 4-level boot, and says so" \
	grep -qE '^# left out: guest-7\.3-exec-rfc-no5lvl: bpftrace\.t p4dstat\.t \(the tool tests' "$tmp/plan"

tests/tier --record 6.1 suite passed
is "a new record replaces the tree's line" "$(grep -c '^6\.1 suite ' tests/full-runs)" 1
is "recorded again: fast" "$(verdict suite)" fast
tests/tier 6.1 nonsense 2>/dev/null
is "an unknown kind is a usage error" $? 2
tap_done
