#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of funcs.so's counting (analysis/funcs/count.c): builds build/funcs/test-count
# and merges its TAP (a synthetic symbol table and instruction stream with hand-worked
# counts). Pure user space: nothing is loaded, nothing booted.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh

if out=$(make -s -C analysis/funcs test-count plugin guest 2>&1); then
	ok "funcs: test-count, funcs.so and the guest programs build (-Wall -Wextra -Werror)"
	tap_merge funcs build/funcs/test-count
else
	not_ok "funcs: test-count, funcs.so and the guest programs build (-Wall -Wextra -Werror)" "$out"
fi
tap_done
