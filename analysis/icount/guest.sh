#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One --icount boot of the benchmark matrix (analysis/run starts it with run-guest):
# software paths with the trace events off; the page-table pages and cleared pages of
# each operation (untimed); each consumer of the events attached for every other sample
# (patched kernel only); page-table memory for 1 to 1000 processes.
#
#   icount.sh [--quick] [PART...]
#
# PART: swpath (events off), tables (page-table and cleared pages per operation),
# consumers (events consumed), ptmem (memory); all by default.
#
# Prints CSV records, the record type first (analysis/report/stats.py reads them):
#   meta,KEY,VALUE
#   calib,LOOP_INSTRUCTIONS,LOOP_NS
#   swpath,CONSUMER,KIND,<swpath row>      KIND single (one op per sample) or long;
#                                          CONSUMER off, a consumer (its row's "on" says
#                                          whether it was attached), off:p4dstat, or
#                                          tables (counters only: its timings mean nothing)
#   consumer,CONSUMER,NOTE
#   ptmem,<ptmem row>
# Everything timed runs from copies in the guest's /tmp (tmpfs), never over 9p, with its
# output buffered in /tmp and printed between runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$top/build/analysis
quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
parts=" ${*:-swpath tables consumers ptmem} "
part() { [[ $parts == *" $1 "* ]]; }

tfs=/sys/kernel/tracing
pins=/sys/fs/bpf/p4dbench
counters=$pins/counts
work=/tmp/p4dbench
mkdir -p $work
cp "$bin/swpath" "$bin/ptmem" $work/
cp "$bin/noop" /tmp/p4dbench-noop

# Repetitions: full, quick.
r() { [ $quick = 1 ] && echo "$2" || echo "$1"; }

echo "meta,uname,$(uname -r)"
echo "meta,paging,${P4DSCOPE_PAGING:-?}"
echo "meta,thp,$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "meta,bpf_jit,$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null || echo n/a)"
echo "meta,events,$([ -d $tfs/events/pgtable ] && echo yes || echo no)"
# What the kernel chose against the CPU's vulnerabilities (the entry and exit paths of
# every fault and system call depend on it).
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	[ -f "$f" ] && echo "meta,vulnerability_${f##*/},$(tr ',' ';' <"$f")"
done
# lat-pagefault's faults map this much around each fault (mm/memory.c, default 64 KiB).
echo "meta,fault_around_bytes,$(cat /sys/kernel/debug/fault_around_bytes 2>/dev/null || echo n/a)"

# One guest ns per instruction? A loop of exactly 2N instructions says how close. The
# first seconds after boot still run deferred boot work: settle first.
sleep 2
# (No pipe from the probe: the reader's start-up would run during the loop.)
n=5000000
cp "$top/build/bin/icount-probe" $work/
for _ in 1 2 3; do
	$work/icount-probe $n >$work/out
	echo "calib,$((2 * n)),$(sed 's/^loop_ns=//' $work/out)"
done

# swpath CONSUMER KIND OP BATCH REPS [SWPATH OPTION...]
# ASLR off (setarch -R): every run gets the same layout, so runs compare; single-op
# samples sleep 10 ms before each one, so that deferred work (kworkers, RCU callbacks)
# runs in the pause rather than inside the next sample.
swpath() {
	local consumer=$1 kind=$2 op=$3 batch=$4 reps=$5
	shift 5
	[ "$kind" != single ] || set -- -s 10 "$@"
	setarch -R $work/swpath -b "$batch" -r "$reps" "$@" "$op" >$work/out
	sed "s/^/swpath,$consumer,$kind,/" $work/out
}

# Events off: every operation, one per sample (fault4k: 512 faults, a PTE table's worth;
# fault-file: 512 read faults on a page-cache file; lat-pagefault: the 16384 pages of a
# 64 MiB page-cache file, and lat-pagefault-unmap with lmbench 3's remap around them; syscall: 1000 calls; clear4k: 512 pages cleared), then long
# batches, whose average includes the deferred work (RCU
# callbacks, ticks) of the operations. "OP BATCH REPS-full REPS-quick".
# Each boot starts from its own state (allocators, layout): many boots, fewer samples.
specs=("syscall 1000 20 5" "fault4k 512 20 5" "fault-file 512 20 5" "lat-pagefault 16384 20 3"
	"lat-pagefault-unmap 16384 20 3"
	"faultthp 1 20 5"
	"mmap 1 200 40" "mmap-high 1 200 40" "mmap-newpud 1 200 40" "fork 1 150 20"
	"exec 1 150 20" "munmap-sparse-low 1 20 5" "munmap-sparse-high 1 20 5"
	"clear4k 512 20 5")
part swpath &&
for spec in "${specs[@]}"; do
	set -- $spec
	swpath off single "$1" "$2" "$(r "$3" "$4")"
done
part swpath &&
for spec in "mmap 1000 200" "mmap-high 1000 200" "fork 100 20" "exec 100 20"; do
	set -- $spec
	swpath off long "$1" "$(r "$2" "$3")" "$(r 5 2)"
done

# Page-table pages allocated and freed per level and pages cleared, per operation: the
# same operations and batches with tpcount's "tables" programs attached (fentry and a
# tracepoint: they cost instructions, so this pass is never timed). Three samples each:
# the counts are the same every time.
if part tables; then
	"$bin/tpcount" attach tables >/dev/null
	for spec in "${specs[@]}"; do
		set -- $spec
		swpath tables single "$1" "$2" 3 -c "$counters"
	done
	"$bin/tpcount" detach
fi

if ! part consumers; then
	:
elif [ ! -d $tfs/events/pgtable ]; then
	echo "consumer,none,kernel without the pgtable events: no consumer runs"
else
	# The operations that fire the events, and getppid() as a control that fires none.
	consumer_specs=("syscall 1000 20 4" "mmap 1 200 40" "mmap-high 1 200 40" "fork 1 100 20"
		"exec 1 100 20")

	# Each consumer is attached for every other sample and detached for the rest (swpath
	# -t), so that samples with and without it interleave and a slow drift of the
	# machine's state falls on both alike. The counting programs also count the events
	# of each sample (-c). Consumers: the events written into a tracefs instance's ring
	# buffer; BPF programs that count them, attached as tp_btf, raw_tp and tp.
	inst=$tfs/instances/p4dbench
	for consumer in tracefs tp_btf raw_tp tp; do
		if [ $consumer = tracefs ]; then
			mkdir $inst
			echo 4096 >$inst/buffer_size_kb
			opts=(-t "tracefs:$inst")
		else
			"$bin/tpcount" load $consumer >/dev/null
			opts=(-t "$consumer:$pins" -c "$counters")
		fi
		for spec in "${consumer_specs[@]}"; do
			set -- $spec
			swpath $consumer single "$1" "$2" "$(r "$3" "$4")" "${opts[@]}"
		done
		if [ $consumer = tracefs ]; then
			echo "consumer,tracefs,$(grep -c -v '^#' $inst/trace) records in the buffer," \
				"$(awk '/^overrun/ {print $2}' $inst/per_cpu/cpu0/stats) overwritten"
			rmdir $inst
		else
			echo "consumer,$consumer,$("$bin/tpcount" show)"
			"$bin/tpcount" detach
		fi
	done

	# p4dstat, the project's tool, as a user runs it (it also counts TLB flushes and mmap
	# exits, so its cost per operation is more than the events'). It cannot be toggled
	# sample by sample: blocks with it alternate with blocks without (off:p4dstat).
	if [ $quick = 1 ]; then
		echo "consumer,p4dstat,left out of the quick run"
	elif [ -x "$top/build/tools-$P4D_KVER/p4dstat" ]; then
		for _ in 1 2 3; do
			for spec in "${consumer_specs[@]}"; do
				set -- $spec
				swpath off:p4dstat single "$1" "$2" $(($3 / 4))
			done
			"$top/build/tools-$P4D_KVER/p4dstat" -j 3600 >$work/p4dstat.out 2>$work/p4dstat.err &
			pid=$!
			for _ in $(seq 300); do
				grep -q Tracing $work/p4dstat.err 2>/dev/null && break
				kill -0 $pid 2>/dev/null || break
				sleep 0.2
			done
			if ! grep -q Tracing $work/p4dstat.err; then
				kill $pid 2>/dev/null || true
				echo "consumer,p4dstat,did not start: $(tr '\n' ' ' <$work/p4dstat.err)"
				break
			fi
			for spec in "${consumer_specs[@]}"; do
				set -- $spec
				swpath p4dstat single "$1" "$2" $(($3 / 4))
			done
			kill -INT $pid
			wait $pid || true
			echo "consumer,p4dstat,$(tail -n 1 $work/p4dstat.out)"
		done
	else
		echo "consumer,p4dstat,not built (build/tools-$P4D_KVER/p4dstat missing)"
	fi
fi

# Page-table memory. The counters give the P4D tables, which /proc does not count.
part ptmem || exit 0
c=
if [ -d $tfs/events/pgtable ]; then
	"$bin/tpcount" attach tp_btf >/dev/null
	c="-c $counters"
fi
for procs in $(r "1 10 100 1000" "1 100"); do
	for regions in $(r "0 1 4" "0 1"); do
		$work/ptmem $c -k $regions $procs >$work/out
		sed 's/^/ptmem,/' $work/out
	done
done
[ -z "$c" ] || "$bin/tpcount" detach
