#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One funcs.so boot (analysis/funcs/run starts it with run-guest --icount --plugin): each
# operation of swpath with its printed batches marked (analysis/icount/swpath.c), closed
# by `funcmark next`, so that operation i is the plugin's section i.
#
#   guest.sh [--quick] OP...
#
# Prints CSV records, the record type first (analysis/report/funcs.py reads them):
#   meta,KEY,VALUE
#   section,INDEX,OP
#   swpath,<swpath row>        the batches of that section (ops per batch: column 3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
[ $# -gt 0 ] || { echo "usage: guest.sh [--quick] OP..." >&2; exit 2; }

work=/tmp/p4dfuncs
mkdir -p $work
cp "$top/build/analysis/swpath" "$top/build/funcs/funcmark" $work/
cp "$top/build/analysis/noop" /tmp/p4dbench-noop

echo "meta,uname,$(uname -r)"
echo "meta,paging,${P4DSCOPE_PAGING:-?}"
echo "meta,fault_around_bytes,$(cat /sys/kernel/debug/fault_around_bytes 2>/dev/null || echo n/a)"
sleep 2		# the deferred work of the boot, as in analysis/icount/guest.sh

# OP: "BATCH REPS-full REPS-quick". Fewer samples than the --icount part: the plugin
# sums every batch, and one boot per kernel and mode.
declare -A spec=(
	[syscall]="1000 10 2" [fault4k]="512 10 2" [fault-file]="512 10 2"
	[lat-pagefault]="16384 5 1" [lat-pagefault-unmap]="16384 5 1" [faultthp]="1 10 2"
	[mmap]="1 100 10"
	[mmap-high]="1 100 10" [mmap-newpud]="1 100 10" [fork]="1 60 5" [exec]="1 60 5"
	[munmap-sparse-low]="1 10 2" [munmap-sparse-high]="1 10 2"
)
section=0
for op in "$@"; do
	[ -n "${spec[$op]:-}" ] || { echo "guest.sh: no batch for operation '$op'" >&2; exit 2; }
	read -r batch full quick_reps <<<"${spec[$op]}"
	reps=$([ $quick = 1 ] && echo "$quick_reps" || echo "$full")
	# As in the --icount part: ASLR off, 10 ms before each batch for deferred work.
	setarch -R $work/swpath -s 10 -b "$batch" -r "$reps" "$op" >$work/out
	$work/funcmark next
	echo "section,$section,$op"
	sed 's/^/swpath,/' $work/out
	section=$((section + 1))
done
