#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/lib/tap.sh's tap_merge against planted TAP streams: a test that dies early, never
# prints its plan, is killed by its time limit or fails without saying so must count as a
# failure that names it; a well-formed stream must not. Pure shell: nothing is booted.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

# emit STREAM STATUS: the planted producer.
# shellcheck disable=SC2317 # called by tap_merge
emit() {
	printf '%b' "$1"
	return "$2"
}

# merged STREAM STATUS: the totals and failure lines of merging a producer that prints
# STREAM (\n escapes) and exits STATUS, in a fresh TAP stream of its own.
merged() {
	(
		. tests/lib/tap.sh
		tap_merge planted emit "$1" "$2" >"$tmp/out"
		echo "n=$tap_n failed=$tap_failed skipped=$tap_skipped rc=$tap_rc"
		grep '^not ok' "$tmp/out"
	)
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

is "a complete stream merges as it is" \
	"$(merged 'ok 1 a\nok 2 b\n1..2\n' 0)" "n=2 failed=0 skipped=0 rc=0"
is "a plan first is accepted too" \
	"$(merged '1..2\nok 1 a\nok 2 b\n' 0)" "n=2 failed=0 skipped=0 rc=0"
is "a test that died after 1 of 3 planned results fails, named" \
	"$(merged '1..3\nok 1 a\n' 0)" "n=2 failed=1 skipped=0 rc=0
not ok 2 planted: planned 3 results, reported 1 (exit 0)"
is "a test with no plan fails, named" \
	"$(merged 'ok 1 a\n' 0)" "n=2 failed=1 skipped=0 rc=0
not ok 2 planted: no plan (1..N): it died or never finished (exit 0, 1 results)"
is "an empty stream fails, named" \
	"$(merged '' 0)" "n=1 failed=1 skipped=0 rc=0
not ok 1 planted: no plan (1..N): it died or never finished (exit 0, 0 results)"
is "a failure it reported is counted once" \
	"$(merged 'ok 1 a\nnot ok 2 b\n1..2\n' 1)" "n=2 failed=1 skipped=0 rc=1
not ok 2 planted: b"
is "a failure status with no failing result is a failure" \
	"$(merged 'ok 1 a\n1..1\n' 3)" "n=2 failed=1 skipped=0 rc=3
not ok 2 planted: exited with status 3"
is "names keep a leading dash; TAP's \" - \" separator goes" \
	"$(merged 'ok 1 --flag works\nok 2 - dashed\nok 3\n1..3\n' 0; cat "$tmp/out")" "n=3 failed=0 skipped=0 rc=0
ok 1 planted: --flag works
ok 2 planted: dashed
ok 3 planted: "
is "all skipped (exit 4) is no failure" \
	"$(merged 'ok 1 a # SKIP why\n1..1\n' 4)" "n=1 failed=0 skipped=1 rc=4"
is "killed by timeout(1) (exit 124) fails, named, even after a failure" \
	"$(merged 'not ok 1 a\n' 124)" "n=2 failed=2 skipped=0 rc=124
not ok 1 planted: a
not ok 2 planted: killed by its time limit (exit 124) after 1 results"

# What a merged stream looks like: results renumbered and named, diagnostics kept, the
# inner plan dropped (the outer stream prints its own).
(
	. tests/lib/tap.sh
	ok first
	tap_merge inner emit 'ok 1 x\n#   why\n1..1\n' 0
	tap_done
) >"$tmp/nested"
is "a merged stream is renumbered, keeps diagnostics, has one plan" "$(cat "$tmp/nested")" \
	"ok 1 first
ok 2 inner: x
#   why
1..2"

# Skips are kept by name, from a merged stream and from skip() alike.
(
	. tests/lib/tap.sh
	tap_merge inner emit 'ok 1 x # SKIP no y\nok 2 z\n1..2\n' 0 >/dev/null
	skip own "no w" >/dev/null
	printf '%s\n' "${tap_skips[@]}"
) >"$tmp/skips"
is "skipped checks are listed by name with their reason" "$(cat "$tmp/skips")" \
	"inner: x # SKIP no y
own # SKIP no w"

# The real thing: tap_done's plan matches what the helpers counted.
(
	. tests/lib/tap.sh
	ok a
	skip b reason
	not_ok c
	tap_done
) >"$tmp/own"
is "tap_done's plan counts ok, skip and not_ok" "$(tail -n 1 "$tmp/own")" "1..3"

tap_done
