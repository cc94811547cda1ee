# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What tests/run-plants counts as caught, in one place so that tests/host/plants-harness.t
# can try it on planted lists: the failed checks of a suite log, the checks that read
# each field (tests/plants/field-checks) and the match between the two. Source it.
field_checks=${field_checks:-$(dirname "${BASH_SOURCE[0]}")/field-checks}

# names_check NAME PATTERN: NAME (a check as the suite prints it, "TEST: CHECK") is
# PATTERN, or begins with it and PATTERN ends at a word boundary. Words are made of
# letters, digits, '-', '_' and '.': "level" names "level pgd" and "level: x", not
# "levels", "level-2" nor "4-level".
names_check() {
	local name=$1 pattern=$2 next
	[ -n "$pattern" ] && [[ $name == "$pattern"* ]] || return 1
	next=${name:${#pattern}:1}
	[[ -z $next || $next != [[:alnum:]_.-] || ${pattern: -1} != [[:alnum:]_.-] ]]
}

# fields: every EVENT:FIELD of the table, in its order.
fields() {
	awk '/^[^#\t ]/ { print $1 }' "$field_checks"
}

# checks_of EVENT:FIELD: the checks that read it, one per line.
checks_of() {
	awk -v f="$1" '/^[^#\t ]/ { on = ($1 == f); next } on && /^\t/ { sub(/^\t+/, ""); print }' \
		"$field_checks"
}

# failed_checks LOG: the name of every check that failed in LOG, "TEST: CHECK".
failed_checks() {
	sed -n 's/^not ok [0-9][0-9]* //p' "$1"
}

# reading EVENT:FIELD: of the check names on stdin, those that read EVENT:FIELD.
reading() {
	local name pattern patterns
	mapfile -t patterns < <(checks_of "$1")
	while IFS= read -r name; do
		for pattern in ${patterns[@]+"${patterns[@]}"}; do
			if names_check "$name" "$pattern"; then
				printf '%s\n' "$name"
				break
			fi
		done
	done
}
