#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# p4dstat on the kernel without the series: tests/guest/p4dstat.t, which finds the
# series' events missing and holds the fallbacks (fentry/fexit, kprobes) to the same
# ground truth, with n/a where only the series' events can count.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
if [ -d /sys/kernel/tracing/events/pgtable ]; then
	echo "ok 1 p4dstat on the vanilla kernel # SKIP this kernel has the series' events"
	echo "1..1"
	exit 4
fi
exec ../guest/p4dstat.t
