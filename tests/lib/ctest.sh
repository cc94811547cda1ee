# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Host tests written in C that print TAP (tests/host/p4dstat-*.c): build one with the
# warnings p4dstat's own sources build with, then merge its results. Source
# tests/lib/tap.sh first; runs from the top of the checkout, builds into $tmp.
#   ctest_run NAME SOURCE... [-lLIB...]
# builds SOURCE... into $tmp/p4dstat-NAME; a failed build is one failing result carrying
# the compiler's messages (returns 1), else the program's results follow as "NAME: ...".
# shellcheck disable=SC2154 # $tmp is the sourcing test's scratch directory
ctest_run() {
	local name=$1
	shift
	if ! gcc -O2 -Wall -Wextra -Werror -Ibpf -Iinclude -Itests/validate \
		-o "$tmp/p4dstat-$name" "$@" 2>"$tmp/cc.err"; then
		not_ok "p4dstat-$name.c builds" "$(cat "$tmp/cc.err")"
		return 1
	fi
	tap_merge "$name" "$tmp/p4dstat-$name"
}
