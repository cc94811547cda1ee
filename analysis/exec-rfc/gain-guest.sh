#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One --icount boot of analysis/exec-rfc/gain: exec's instructions, and the P4D tables
# each exec allocates, on the kernel and paging mode the runner booted.
#
#   gain-guest.sh [--funcs FUNCMARK] BIN    BIN: the folder of swpath, noop, glibc-true
#
# --funcs: a funcs.so boot (analysis/funcs/): each variant's batches are one section of the
# plugin, closed by FUNCMARK next and named by a "section,INDEX,VARIANT" record; fewer
# samples, no events pass.
#
# Prints the records analysis/report/records.py reads (swpath,off,single,<swpath row>,
# the row's op being the variant below) and, untimed, one line per variant where the
# kernel has the series' events:
#   p4d,VARIANT,EXECS,ALLOCS,ABOVE47    P4D tables allocated by EXECS execs (p4d_alloc
#                                       events), ABOVE47 of them for addresses above 47 bits
set -euo pipefail
funcmark=''
if [ "${1:-}" = --funcs ]; then
	funcmark=${2:?--funcs needs the funcmark program}
	shift 2
fi
[ $# -eq 1 ] || { echo "usage: gain-guest.sh [--funcs FUNCMARK] BIN" >&2; exit 2; }
bin=$1
tfs=/sys/kernel/tracing
# Everything exec'd or timed runs from tmpfs, never over 9p: a root of its own, with
# /bin/true's loader and libc (over 9p, their lookups made fork + exec of /bin/true
# take from 1 to 350 million instructions).
work=/tmp/exec-rfc
mkdir -p $work/lib64 $work/lib/x86_64-linux-gnu
cp "$bin/swpath" "$bin/noop" "$bin/glibc-true" /bin/true $work/
cp -L /lib64/ld-linux-x86-64.so.2 $work/lib64/
cp -L /lib/x86_64-linux-gnu/libc.so.6 $work/lib/x86_64-linux-gnu/
[ -z "$funcmark" ] || cp "$funcmark" $work/funcmark
mkdir -p $work/proc
mount -t proc proc $work/proc		# swpath counts interrupts in /proc/stat

echo "meta,uname,$(uname -r)"
echo "meta,paging,${P4DSCOPE_PAGING:-?}"
echo "meta,randomize_va_space,$(cat /proc/sys/kernel/randomize_va_space)"
sleep 2		# the boot's deferred work, as in analysis/icount/guest.sh

# VARIANT OP PROGRAM RANDOMIZED: exec (vfork) of the noop binary, of a static glibc
# program (ASLR off, then on), and fork + exec of the dynamically linked /bin/true, as a
# shell runs a command. ASLR off is how make bench times exec (every exec the same
# layout); on, the stack's place and so the move's distance change with every exec.
variants=("exec exec noop 0" "exec-glibc exec glibc-true 0" "exec-glibc-aslr exec glibc-true 1"
	"forkexec-true forkexec true 0" "forkexec-true-aslr forkexec true 1")
run() {	# OP PROGRAM RANDOMIZED SWPATH-OPTION...
	local op=$1 prog=$2 rnd=$3
	shift 3
	if [ "$rnd" = 1 ]; then
		chroot $work /swpath -x "/$prog" "$@" "$op"
	else
		setarch -R chroot $work /swpath -x "/$prog" "$@" "$op"
	fi
}
# One exec per sample, 10 ms apart so deferred work runs between samples.
section=0
for v in "${variants[@]}"; do
	read -r name op prog rnd <<<"$v"
	run "$op" "$prog" "$rnd" -s 10 -b 1 -r "$([ -z "$funcmark" ] && echo 100 || echo 30)" \
		>$work/out
	if [ -n "$funcmark" ]; then
		# analysis/report/funcs.py's records: the section, then its batches.
		$work/funcmark next
		echo "section,$section,$name"
		section=$((section + 1))
		sed "s/^$op,/swpath,$name,/" $work/out
	else
		sed "s/^$op,/swpath,off,single,$name,/" $work/out
	fi
done
[ -z "$funcmark" ] || exit 0

# The P4D tables behind it, from the series' events, untimed: a run of 21 execs less a
# run of 1 (each run also starts 1 warm-up exec, and setarch and swpath's own execs).
p4d_allocs() {	# OP PROGRAM RANDOMIZED REPS: "ALL ABOVE47", P4D tables allocated in one run
	echo >$tfs/trace
	echo 1 >$tfs/events/pgtable/p4d_alloc/enable
	run "$1" "$2" "$3" -b 1 -r "$4" >/dev/null
	echo 0 >$tfs/events/pgtable/p4d_alloc/enable
	awk '/ p4d_alloc: / { n++; if ($0 !~ / address=0x0 /) high++ } END { print n + 0, high + 0 }' \
		$tfs/trace
}
if [ -d $tfs/events/pgtable/p4d_alloc ]; then
	for v in "${variants[@]}"; do
		read -r name op prog rnd <<<"$v"
		read -r all1 high1 < <(p4d_allocs "$op" "$prog" "$rnd" 1)
		read -r all21 high21 < <(p4d_allocs "$op" "$prog" "$rnd" 21)
		echo "p4d,$name,20,$((all21 - all1)),$((high21 - high1))"
	done
fi
