#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's departures from the documentation that tests/validate/mmapfuzz.c predicts
# (its quirk_names) are exactly the ones docs/validation.md documents ("- `NAME`: ..."),
# so the fuzzer cannot excuse a behaviour nobody wrote down. Whether the kernel still
# shows each is tests/guest/fuzz.t's (the fixed seed). No kernel involved.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

predicted=$(sed -n '/^static const char \*const quirk_names\[NQUIRKS\] = {/,/^};/p' \
	tests/validate/mmapfuzz.c | grep -o '"[A-Za-z0-9_-]*"' | tr -d '"' | sort)
# "- `NAME`: ..." or, limited to some trees, "- `NAME` (TREE, ...): ...".
documented=$(sed -n "s/^- \`\([A-Za-z0-9_-]*\)\`\( ([0-9., ]*)\)\{0,1\}: .*/\1/p" docs/validation.md | sort)
check "mmapfuzz.c names its predicted deviations" test -n "$predicted"
is "the deviations mmapfuzz predicts are the ones docs/validation.md documents" \
	"$predicted" "$documented"
tap_done
