#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# How p4dstat explains a probe that failed (bpf/probe.c), on the host and with no BPF
# loaded: libbpf's messages in, the note and the phrase out; see tests/host/p4dstat-why.c.
# Which failures the guest's kernels produce is tests/guest/p4dstat.t's part.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! gcc -O2 -Wall -Wextra -Werror -Ibpf -Iinclude -Itests/validate \
	-o "$tmp/p4dstat-why" tests/host/p4dstat-why.c bpf/probe.c -lbpf 2>"$tmp/cc.err"; then
	not_ok "p4dstat-why.c builds" "$(cat "$tmp/cc.err")"
	tap_done
fi
tap_merge why "$tmp/p4dstat-why"
tap_done
