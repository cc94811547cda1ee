# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The start of a host test of the built p4dstat, sourced after tap.sh from the top of the
# checkout: $p4dstat, a scratch $tmp removed at exit, unprivileged CMD... (as nobody, so
# no run can load BPF into the host's kernel), and a skip when no p4dstat was built.
#   . tests/lib/p4dstat-host.sh "WHAT THE TEST CHECKS"
. scripts/lib.sh
p4dstat=$P4D_TOOLS/p4dstat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$p4dstat" ]; then
	skip "$1" "no $p4dstat: run 'make tools'"
	tap_done
fi
unprivileged() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
