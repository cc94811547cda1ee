#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# How p4dstat explains a probe that failed (bpf/probe.c), on the host and with no BPF
# loaded: libbpf's messages in, the note and the phrase out; see tests/host/p4dstat-why.c.
# Which failures the guest's kernels produce is tests/guest/p4dstat.t's part.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/ctest.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ctest_run why tests/host/p4dstat-why.c bpf/probe.c -lbpf
tap_done
