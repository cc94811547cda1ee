#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One walk-model boot (analysis/walkmodel/run starts it with run-guest --plugin): set the
# transparent-hugepage mode, copy the workload into the guest's tmpfs (so nothing it runs
# pages in over 9p) and run it; walkmodel.so counts its marked part.
#
#   guest.sh never|always|madvise WORKLOAD [ARG...]
#
# Prints "meta,KEY,VALUE" lines, then the workload's own result line.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: guest.sh never|always|madvise WORKLOAD [ARG...]" >&2; exit 2; }
thp=$1 bin=$2
shift 2
echo "$thp" >/sys/kernel/mm/transparent_hugepage/enabled
work=/tmp/walkmodel
mkdir -p $work
cp "$bin" $work/
# forkexec's child program lives beside the workloads.
[ ! -x "$(dirname "$bin")/wl-noop" ] || cp "$(dirname "$bin")/wl-noop" $work/
echo "meta,paging,$(grep -o 'p4d.paging=[^ ]*' /proc/cmdline | cut -d= -f2)"
echo "meta,thp,$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "meta,mem_kib,$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
cd $work
exec "./$(basename "$bin")" "$@"
