# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # the variables are for the tests that source this
# The start every in-guest test shares. Source it from a test that has cd'ed to its own
# directory (tests/guest or tests/vanilla): the TAP and tracefs helpers, $top (the
# checkout), $bin (the workloads and tools), $tools (what was built against this tree's
# BTF: p4dstat, racehold; run-guest passes the tree as P4D_KVER), $mode (the paging mode the guest was booted
# in) and $tmp, a scratch directory removed at exit. at_exit CMD runs CMD at exit, the
# last registered first, before $tmp goes; the PIDs a test adds to bg are killed then.
# Waiting without a fork (so a window that counts the whole system sees no process of
# the test's own): nap, wait_for, gate and open_gate below.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# shellcheck source=tests/lib/tracefs.sh
. "$(dirname "${BASH_SOURCE[0]}")/tracefs.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$top/build/bin
tools=$top/build/tools-${P4D_KVER:?run me inside the guest (scripts/run-guest)}
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}
tmp=$(mktemp -d)
# 1 where exec releases the mm it replaced after the new name is set (7.x: setup_new_exec()
# puts bprm->old_mm), so the old mm's P4D frees carry the new command's name; 0 where
# exec_mmap() releases it before the rename (6.x).
old_mm_renamed=$([ "${P4D_KVER%%.*}" -ge 7 ] && echo 1 || echo 0)
# 1 on a kernel with the exec RFC (patches/KVER/exec-rfc; build-kernel's exec-rfc flavours
# end uname -r in -exec-rfc): exec builds the new stack in the slot it ends in, below 47
# bits, so on 5-level no P4D table is installed at the top of the 56-bit space for it and
# the new mm's first table comes before the move, not with it. 0 everywhere else.
exec_rfc=$([[ $(uname -r) == *-exec-rfc* ]] && echo 1 || echo 0)

exit_cmds=()
at_exit() { exit_cmds+=("$1"); }
run_exit_cmds() {
	local i
	for ((i = ${#exit_cmds[@]} - 1; i >= 0; i--)); do
		eval "${exit_cmds[i]}"
	done
	rm -rf "$tmp"
}
trap run_exit_cmds EXIT
bg=()
# shellcheck disable=SC2016 # expanded at exit
at_exit 'kill "${bg[@]}" 2>/dev/null'

# nap SECONDS: sleep as a read that times out on a FIFO nobody writes.
mkfifo "$tmp/nap"
exec {nap_fd}<>"$tmp/nap"
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

# wait_for FILE PREFIX PID [SECONDS]: until a line of FILE starts with PREFIX, at most
# SECONDS (60); fails once PID has exited.
wait_for() {
	local line end=$((SECONDS + ${4:-60}))
	while [ $SECONDS -lt "$end" ]; do
		while IFS= read -r line; do
			[[ $line != "$2"* ]] || return 0
		done <"$1"
		kill -0 "$3" 2>/dev/null || return 1
		nap 0.05
	done
	return 1
}

# gate NAME: the FIFO $tmp/gate-NAME, held open read-write on fd ${gate_fd[NAME]}; a
# workload reading it blocks until open_gate NAME.
declare -A gate_fd
gate() {
	local fd
	mkfifo "$tmp/gate-$1"
	exec {fd}<>"$tmp/gate-$1"
	gate_fd[$1]=$fd
}
open_gate() { echo go >&"${gate_fd[$1]}"; }
# start_gated NAME CMD...: CMD in the background, its stdin gate NAME and its stdout the
# FIFO $tmp/NAME.fifo, which the caller reads on fd ${out_fd[NAME]}; its PID in $!.
declare -A out_fd
start_gated() {
	local name=$1 fd
	shift
	gate "$name"
	mkfifo "$tmp/$name.fifo"
	exec {fd}<>"$tmp/$name.fifo"
	out_fd[$name]=$fd
	"$@" <&"${gate_fd[$name]}" >&"$fd" &
}

# kernel_layout PTDUMP: the kernel layout this boot got (KASLR moves the direct map and
# vmemmap bases) into direct and vmemmap (the first address of ptdump's section, whose
# first line must be mapped: physical 0 has a direct mapping and struct pages),
# page_struct (sizeof(struct page), from the kernel's BTF), phys_bits (/proc/cpuinfo) and
# block (the memory block size). Missing any, it returns 1 and says which in layout_error.
kernel_layout() {
	local dump=$1
	section_base() {
		awk -v name="---[ $1 ]---" '$0 == name { getline
			if ($0 ~ / (RW|ro) /) { split($1, r, "-"); print r[1] }; exit }' "$dump"
	}
	direct=$(section_base "Low Kernel Mapping")
	vmemmap=$(section_base "Vmemmap")
	page_struct=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
		sed -n "s/^\[[0-9]*\] STRUCT 'page' size=\([0-9]*\) .*/\1/p" | head -n 1)
	phys_bits=$(sed -n 's/^address sizes.* \([0-9]*\) bits physical.*/\1/p' /proc/cpuinfo |
		head -n 1)
	block=$((16#$(cat /sys/devices/system/memory/block_size_bytes)))
	layout_error="direct map base '$direct', vmemmap base '$vmemmap' (ptdump: $dump),"
	layout_error+=" sizeof(struct page) '$page_struct' (bpftool, kernel BTF: run 'make deps'"
	layout_error+=" if it is missing), physical address bits '$phys_bits' (/proc/cpuinfo)"
	[ -n "$direct" ] && [ -n "$vmemmap" ] && [ -n "$page_struct" ] && [ -n "$phys_bits" ]
}

# free_block first|last FROM TO: the lowest (first) or highest (last) block of [FROM, TO)
# that a memory probe can add: at least 4 GiB, no memory block there yet and no top-level
# resource of /proc/iomem over it (RAM, a block an earlier probe added, a range the
# machine reserves). $block comes from kernel_layout. Returns 1 when there is none.
free_block() {
	local way=$1 from=$2 to=$3 a first last busy i
	local -a res_first=() res_last=()
	while read -r first last; do
		res_first+=($((16#$first))) res_last+=($((16#$last)))
	done < <(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : .*/\1 \2/p' /proc/iomem)
	[ "$from" -ge $((1 << 32)) ] || from=$((1 << 32))
	if [ "$way" = first ]; then
		a=$(((from + block - 1) / block * block))
	else
		a=$((to / block * block - block))
	fi
	while [ $a -ge "$from" ] && [ $((a + block)) -le "$to" ]; do
		busy=''
		for i in "${!res_first[@]}"; do
			[ "${res_first[i]}" -ge $((a + block)) ] || [ "${res_last[i]}" -lt $a ] ||
				{ busy=$i; break; }
		done
		if [ -z "$busy" ] && [ ! -e "/sys/devices/system/memory/memory$((a / block))" ]; then
			echo $a
			return 0
		fi
		# Past the resource in the way, or the next block.
		if [ "$way" = first ]; then
			if [ -n "$busy" ]; then
				a=$(((res_last[busy] + block) / block * block))
			else
				a=$((a + block))
			fi
		elif [ -n "$busy" ]; then
			a=$((res_first[busy] / block * block - block))
		else
			a=$((a - block))
		fi
	done
	return 1
}
