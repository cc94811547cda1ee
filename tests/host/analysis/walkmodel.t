#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the walk model (analysis/walkmodel/model.c, presets.c): builds
# build/walkmodel/test-model and merges its TAP (synthetic page tables; TLBs, PSCs, caches,
# flushes, presets, cycle bands). Pure user space: nothing is loaded, nothing booted.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh

if out=$(make -s -C analysis/walkmodel test-model 2>&1); then
	ok "walkmodel: test-model builds (-Wall -Wextra -Werror)"
	tap_merge walkmodel build/walkmodel/test-model
else
	not_ok "walkmodel: test-model builds (-Wall -Wextra -Werror)" "$out"
fi
tap_done
