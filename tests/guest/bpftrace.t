#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bpftrace scripts of bpf/bt and the one-liners docs/bpftrace.md shows (bt/oneliners.txt),
# each run under workloads with known effects. Their output must hold what the
# workloads did (the addresses they printed, the P4D tables their layout implies) and,
# for counts no workload can predict (TLB flushes, the loader's own mmaps), exactly what
# tracefs recorded of the same events for the same command at the same time. On 4-level
# and no5lvl boots the scripts run the same way and must report no P4D activity at all;
# of the one-liners only the P4D ones run there (the rest read the same events as the
# scripts, and every bpftrace start costs seconds under TCG).
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
scripts=$top/bpf/bt
helpers=$PWD/bt
# The frame that moves exec's new stack down from the top of the address space:
# shift_arg_pages() in fs/exec.c until 6.7, relocate_vma_down() in mm/ since.
case $(uname -r) in
6.1.*) exec_frame=shift_arg_pages ;;
*) exec_frame=relocate_vma_down ;;
esac
# On 5-level that move installs the new mm's entry 0 and frees the table the stack was
# built in (moved=1). With the exec RFC ($exec_rfc) the stack is built in entry 0, whose
# table copy_strings() installs before the exec renames the task, and the move crosses
# no table (moved=0).
moved=$((1 - exec_rfc))
hugepages=$(cat /proc/sys/vm/nr_hugepages)	# restored at the end
runs=()			# the timeout(1) processes of the bpftrace runs in the background
kprobes=$tfs/kprobe_events
gt_group=p4dscope_bt	# tracefs kprobe events of this test: the kernel-flush ground truth

cleanup() {
	local pid inst
	for pid in "${runs[@]}"; do
		kill -KILL "$pid" 2>/dev/null
	done
	for inst in "$tfs"/instances/bt-*; do
		[ ! -d "$inst" ] || rmdir "$inst"
	done
	echo "$hugepages" >/proc/sys/vm/nr_hugepages
	echo "-:$gt_group/flush_range" >>"$kprobes" 2>/dev/null
	echo "-:$gt_group/flush_all" >>"$kprobes" 2>/dev/null
	# P4DSCOPE_BT_KEEP=DIR keeps every output of the run for a look afterwards.
	[ -z "${P4DSCOPE_BT_KEEP:-}" ] || cp -r "$tmp" "$P4DSCOPE_BT_KEEP"
}
at_exit cleanup

if ! command -v bpftrace >/dev/null; then
	not_ok "bpftrace scripts and one-liners" "no bpftrace in this root: run 'make deps' (scripts/deps installs it)"
	tap_done
fi

# 64-bit values compare as bash integers; these two sit far below the sign bit.
window47=$((1 << 47))			# the default mmap window (include/p4d_layout.h)
task_size_max5=$(((1 << 56) - 4096))	# hints at or above cannot be honoured

## Helpers

# gt_start NAME COMM EVENT...: instance bt-NAME records EVENTs (system/event) raised
# while the current task's comm is COMM (tracefs's comm filter reads current->comm,
# as bpftrace's comm does), or by everyone when COMM is empty.
gt_start() {
	local inst=$tfs/instances/bt-$1 comm=$2 ev
	shift 2
	[ ! -d "$inst" ] || rmdir "$inst"
	mkdir "$inst" && echo 2048 >"$inst/buffer_size_kb" || return 1
	for ev in "$@"; do
		if [ -n "$comm" ]; then
			echo "comm == \"$comm\"" >"$inst/events/$ev/filter" || return 1
		fi
		echo 1 >"$inst/events/$ev/enable" || return 1
	done
	echo 1 >"$inst/tracing_on"
}

# gt_stop NAME FILE: records "PID EVENT FIELDS..." (tracefs.sh's trace_stop).
gt_stop() { trace_stop "bt-$1" "$2"; }

# gt_stop_comms NAME FILE: records "COMM EVENT", for instances without a comm filter
# (the comm tracefs remembers for the pid: stable for the kworkers these are about).
gt_stop_comms() {
	local inst=$tfs/instances/bt-$1
	echo 0 >"$inst/tracing_on"
	sed -n -E 's/^ *(.+)-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9.]+: ([a-z0-9_]+): .*$/\1 \2/p' \
		"$inst/trace" >"$2"
	rmdir "$inst"
}

# tally: "LINE N" for each distinct input line, sorted.
tally() { awk '{ n[$0]++ } END { for (k in n) print k, n[k] }' | sort; }

# The classes of mmaphint.bt, for awk reading hex fields of tracefs records (mawk has
# no 64-bit numbers: hex strings compare by length, then as strings).
awk_classes='
function norm(h) { sub(/^0x/, "", h); sub(/^0+/, "", h); return "x" h }
function lt(a, b) { return length(a) < length(b) || (length(a) == length(b) && a < b) }
function region(h) {
	h = norm(h)
	if (h == "x") return "none"
	if (!lt(h, "xfffffffffff000")) return "invalid"
	return lt(h, "x800000000000") ? "<47 bits" : "47-56 bits"
}
function landed(h, o, r) {
	if (o == "enomem" || o == "einval") return "failed"
	if (o == "fixed") return "fixed"
	if (o == "hint") return "at hint"
	h = norm(h); r = norm(r)
	if (h == "x") return "searched"
	return lt(r, "x800000000000") == lt(h, "x800000000000") ? "same window" : "fell back"
}
function fields(   i, kv) {
	delete v
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
}'

# gt_tables FILE...: what tracefs recorded in the comm-filtered files gt-COMM, as
# "TABLE COMM|KEY... N" lines: hints (mmaphint.bt's classes), decisions (window.bt's),
# p4d (p4dalloc.bt's), tlb (tlbflush.bt's reasons: flushes, pages != 0, but task
# switches, which gt_switches charges).
gt_tables() {
	awk "$awk_classes"'
	{ comm = FILENAME; sub(/^(.*\/)?gt-/, "", comm) }
	$2 == "x86_get_unmapped_area" {
		fields()
		print "hints", comm "|" region(v["hint"]) "|" landed(v["hint"], v["outcome"], v["result"])
		print "decisions", comm "|" v["path"] "|" v["window"] "|" v["outcome"]
	}
	$2 == "p4d_alloc" { fields(); print "p4d", comm "|" (v["init_mm"] ? "kernel" : "user") "|" v["outcome"] }
	$2 == "p4d_free" { print "p4d", comm "|free" }
	$2 == "tlb_flush" && $3 != "pages:0" && !/ \(0\)$/ {
		# tolower: tlbflush.bt keeps 6.x names; 7.x prints "local MM shootdown"
		r = $0; sub(/.*reason:/, "", r); sub(/ \([0-9]+\)$/, "", r); print "tlb", comm "|" tolower(r) }
	' "$@" | tally
}

# gt_switches FILE: task-switch flushes (pages != 0) in a raw trace of sched_switch and
# tlb_flush, as "tlb COMM|flush on task switch N" lines, COMM the task switched to: the
# last sched_switch's next_comm on the flush's CPU, or the task running before any.
gt_switches() {
	sed -n -E 's/^ *(.+)-[0-9]+ +\[([0-9]+)\] [^ ]+ +[0-9.]+: ([a-z0-9_]+): (.*)$/\2 \3 \1|\4/p' "$1" |
	awk '{ cpu = $1; ev = $2; rest = $0; sub(/^[^ ]+ [^ ]+ /, "", rest)
		comm = rest; sub(/\|.*/, "", comm); sub(/^[^|]*\|/, "", rest) }
	ev == "sched_switch" { n = rest; sub(/.* next_comm=/, "", n); sub(/ next_pid=.*/, "", n)
		incoming[cpu] = n }
	ev == "tlb_flush" && rest ~ / \(0\)$/ && rest !~ /^pages:0 / {
		print "tlb", ((cpu in incoming) ? incoming[cpu] : comm) "|flush on task switch" }' |
	tally
}

# gt_stop_raw NAME FILE: stop instance bt-NAME, its trace as tracefs prints it to FILE.
gt_stop_raw() {
	local inst=$tfs/instances/bt-$1
	echo 0 >"$inst/tracing_on"
	cp "$inst/trace" "$2"
	rmdir "$inst"
}

# bt_map FILE MAP: each key of @MAP as "K1|K2|... N", summed over every print of it.
bt_map() {
	awk -v m="@$2[" 'index($0, m) == 1 && /\]: -?[0-9]+$/ {
		k = substr($0, length(m) + 1); n = $NF; sub(/\]: -?[0-9]+$/, "", k)
		gsub(/, /, "|", k); s[k] += n }
	END { for (k in s) print k, s[k] }' "$1" | sort
}

# bt_stacks FILE MAP: the stack-keyed @MAP as "KEYS|frame;frame;... N" lines.
bt_stacks() {
	awk -v m="@$2[" 'index($0, m) == 1 && !/\]: [0-9]+$/ {
		k = substr($0, length(m) + 1); sub(/, *$/, "", k); gsub(/, /, "|", k); f = ""; on = 1; next }
	on && /^\]: [0-9]+$/ { print k "|" f, $2; on = 0; next }
	on { sub(/^ +/, ""); sub(/\+[0-9]+$/, ""); if ($0 != "") f = f $0 ";" }' "$1"
}

# stack_sums STACKS FRAME...: for each FRAME, the counts of the stacks holding it.
stack_sums() {
	local stacks=$1
	shift
	awk -v frames="$*" 'BEGIN { n = split(frames, f, " ") }
		{ for (i = 1; i <= n; i++) if (index(";" $0, ";" f[i] ";")) s[i] += $NF; all += $NF }
		END { printf "%d", all; for (i = 1; i <= n; i++) printf " %d", s[i]; print "" }' <<<"$stacks"
}

# pick PREFIX TEXT: sets picked to TEXT's lines that start with "PREFIX|", without it.
pick() {
	local line
	picked=
	while IFS= read -r line; do
		[[ $line != "$1|"* ]] || picked+=${line#"$1|"}$'\n'
	done <<<"$2"
	picked=${picked%$'\n'}
}

# same NAME GOT WANT: like `is`, for multi-line text, showing both in full when they differ.
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		not_ok "$1" "got:" "${2:-(nothing)}" "want:" "${3:-(nothing)}"; fi
}

# wait_attached FILE...: until each bpftrace output holds its banner (or an error),
# 300 s at most for all of them: a run that never attaches fails its checks later.
wait_attached() {
	local f deadline=$((SECONDS + 300))
	for f in "$@"; do
		until grep -q -e 'Hit Ctrl-C to end' -e '^ERROR' "$f"; do
			[ $SECONDS -lt $deadline ] || return 0
			sleep 0.5
		done
	done
}

# Scripts run in the background until bt_release: their command (-c), started once
# they are attached, reads a FIFO that only this shell holds open for writing, and
# ends when the shell closes it. (Ctrl-C would end them too, but bpftrace 0.17 misses
# a SIGINT that lands outside its epoll_wait() until some event of its own arrives,
# which a quiet script may never get.)
release=$tmp/release
mkfifo "$release"
exec {release_fd}<>"$release"

# bt_bg OUT ARG...: bpftrace ARG... in the background until bt_release, output to
# OUT, bounded in time.
bt_bg() {
	local out=$1
	shift
	timeout -s INT -k 60 400 bpftrace -c "/bin/cat $release" "$@" >"$out" 2>&1 {release_fd}>&- &
	runs+=($!)
}
bt_release() { exec {release_fd}>&-; }

# bt_stop: wait for every background run; their exit statuses go to $tmp/status.
bt_stop() {
	local pid
	for pid in "${runs[@]}"; do
		wait "$pid"
		echo "$pid $?" >>"$tmp/status"
	done
	runs=()
}

# ran_ok NAME OUT...: each run attached, reported no error, and exited 0 (the
# statuses in $tmp/status, which this empties).
ran_ok() {
	local name=$1 out bad=()
	shift
	for out in "$@"; do
		grep -q '^Attaching [0-9]* probe' "$out" || bad+=("$out: never attached")
		! grep -q 'ERROR' "$out" || bad+=("$out: $(grep -m1 ERROR "$out")")
	done
	awk '$2 != 0 { exit 1 }' "$tmp/status" || bad+=("exit statuses: $(tr '\n' ' ' <"$tmp/status")")
	: >"$tmp/status"
	if [ ${#bad[@]} -eq 0 ]; then ok "$name"; else not_ok "$name" "${bad[@]}"; fi
}

# run_logged OUT COMMAND...: COMMAND's output to OUT, after a line "pid=PID".
run_logged() {
	local out=$1 pid rc
	shift
	"$@" >"$out.tmp" &
	pid=$!
	wait $pid
	rc=$?
	{ echo "pid=$pid"; cat "$out.tmp"; } >"$out"
	rm -f "$out.tmp"
	return $rc
}

# symbols EVENT: "NAME NUMBER" for the symbolic fields of EVENT, as its format file
# maps them (__print_symbolic).
symbols() {
	grep -o '{ [0-9]*, "[a-z_ ]*" }' "$tfs/events/$1/format" |
		sed -E 's/\{ ([0-9]+), "(.*)" \}/\2 \1/'
}

# Two physical addresses for this test's memory probes (part 1, one-liner 10). With
# 4-level paging a top-level entry maps 512 GiB of the direct map, whose base KASLR
# moves (1 GiB steps), and events-sync.t expects its probe at 512 GiB to need a new entry:
# ours stay in the entry of boot memory, or the one after events-sync.t's (below 1 TiB,
# the guest's physical limit). With 5-level paging one entry spans 256 TiB.
probe_addrs() {
	local base off span=$((1 << 39)) a
	base=$(awk '/Low Kernel Mapping/ { getline; split($1, r, "-"); print r[1]; exit }' \
		/sys/kernel/debug/page_tables/kernel)
	off=$((base & (span - 1)))
	if [ "$mode" = 5 ] || [ $off -eq 0 ]; then a=$((256 << 30)); else a=$((2 * span - off)); fi
	printf '%#x %#x\n' $a $((a + (256 << 20)))
}
read -r probe_addr probe_addr2 < <(probe_addrs)
echo "# memory probes at $probe_addr and $probe_addr2"

ooms=$(dmesg | grep -c 'Out of memory')
: >"$tmp/status"

## The kernel enum values the scripts define (to spare bpftrace a BTF lookup at start)
want=$(bpftool btf dump file /sys/kernel/btf/vmlinux |
	sed -n -E "s/^\t'((X86_GUA|PGTABLE_ALLOC|KERNEL_PGD_SYNC|TLB)_[A-Z0-9_]+)' val=([0-9]+)$/\1 \3/p" | sort -u)
got=$(sed -n -E 's/^#define[ \t]+((X86_GUA|PGTABLE_ALLOC|KERNEL_PGD_SYNC|TLB)_[A-Z0-9_]+)[ \t]+([0-9]+)$/\1 \3/p' \
	"$scripts"/*.bt | sort -u)
unknown=$(comm -23 <(echo "$got") <(echo "$want"))
# Series v4 (7.3) has no einval outcome (docs/events.md): the scripts keep v3's value,
# which such a kernel never reports.
[ "$(uname -r | cut -d. -f1)" -lt 7 ] || unknown=$(grep -vx 'X86_GUA_EINVAL 5' <<<"$unknown")
[ -n "$got" ] || unknown="no enum value defined in the scripts"
is "the scripts' kernel enum values ($(grep -c . <<<"$got")) = the kernel's BTF" "$unknown" ""

## Part 1: the six scripts at once, under every workload
p1=$tmp/p1
mkdir -p "$p1"
K=3 N=4			# highmap: N children, each touching K high 256 TiB regions
comms="highmap mmapcases mmaphint memprobe vfree-burst"

# An interval longer than the run: maps are printed once, at Ctrl-C, so no count can
# fall between an interval's print and clear (part 2 runs one with intervals).
long=86400
bt_bg "$p1/mmaphint" "$scripts/mmaphint.bt" $long
bt_bg "$p1/highmaps" "$scripts/highmaps.bt"
bt_bg "$p1/p4dalloc" "$scripts/p4dalloc.bt" $long stacks
bt_bg "$p1/window" "$scripts/window.bt" $long mmapcases
bt_bg "$p1/tlbflush" "$scripts/tlbflush.bt" $long
bt_bg "$p1/pgdsync" "$scripts/pgdsync.bt"
wait_attached "$p1"/{mmaphint,highmaps,p4dalloc,window,tlbflush,pgdsync}
echo "# six scripts attached after ${SECONDS}s, $(free -m | awk '/^Mem:/ { print $3 }') MiB in use"

# Ground truth: the same events per workload command; and every kernel-range flush and
# page-table sync while all scripts are attached (so each script saw at least these).
echo "p:$gt_group/flush_range flush_tlb_kernel_range" >>"$kprobes"
echo "p:$gt_group/flush_all flush_tlb_all" >>"$kprobes"
for c in $comms; do
	gt_start "$c" "$c" mmap/x86_get_unmapped_area pgtable/p4d_alloc pgtable/p4d_free tlb/tlb_flush
done
gt_start kflush "" "$gt_group/flush_range" "$gt_group/flush_all"
gt_start sync "" pgtable/kernel_pgd_sync
# Every CPU's switches and task-switch flushes: whose a flush is needs the next_comm.
gt_start switch "" sched/sched_switch tlb/tlb_flush &&
	echo 8192 >"$tfs/instances/bt-switch/buffer_size_kb"

run_logged "$p1/highmap" "$bin"/highmap $K $N
echo 8 >/proc/sys/vm/nr_hugepages
run_logged "$p1/cases-topdown" "$bin"/mmapcases topdown
# setarch -L: the legacy (bottom-up) layout from the start, so mmapcases keeps its name
# rather than re-executing itself as "exe".
run_logged "$p1/cases-bottomup" setarch -L "$bin"/mmapcases bottomup
echo "$hugepages" >/proc/sys/vm/nr_hugepages
i=0
for hint in 0x4000000000000 0x100000000000000 0 0x100000000000; do
	run_logged "$p1/mmaphint-$((i += 1))" "$bin"/mmaphint $hint
done
run_logged "$p1/memprobe" "$helpers"/memprobe $probe_addr
# Ends once the kernel has flushed the range of the map it freed (bt/vfree-burst).
run_logged "$p1/vfree-burst" "$helpers"/vfree-burst
vfree_rc=$?

gt_stop_comms kflush "$p1/gt-kflush"
gt_stop sync "$p1/gt-sync"
gt_stop_raw switch "$p1/gt-switch"
for c in $comms; do
	gt_stop "$c" "$p1/gt-$c"
done
bt_release
bt_stop
echo "# part 1 ran after ${SECONDS}s"
ran_ok "six scripts ran at once and exited 0 when released" \
	"$p1"/{mmaphint,highmaps,p4dalloc,window,tlbflush,pgdsync}
is "each script's banner came first" \
	"$(for f in "$p1"/{mmaphint,highmaps,p4dalloc,window,tlbflush,pgdsync}; do
		awk 'prev ~ /^Attaching / { print ($0 ~ /^Tracing .*\.\.\. Hit Ctrl-C to end\.$/); exit }
			{ prev = $0 }' "$f"; done | tr -d '\n')" 111111
is "highmap $K $N ran" "$(grep -c 'status=0' "$p1/highmap")" $N
# shellcheck disable=SC2046 # one file name per command
gt=$( (cd "$p1" && gt_tables $(printf 'gt-%s ' $comms)); gt_switches "$p1/gt-switch")
gt=$(sort <<<"$gt")

### mmaphint.bt
got=$(bt_map "$p1/mmaphint" hints)
for c in $comms; do
	pick "$c" "$got" && g=$picked
	pick "hints $c" "$gt"
	same "mmaphint.bt: $c's hints by region and landing = tracefs" "$g" "$picked"
done
# Known effects: where the high hints of highmap and mmaphint landed, from their output
# (highmap's children hint each page at its own address on 5-level).
want=$(
	for a in $(grep -o 'addr=0x[0-9a-f]*' "$p1/highmap"); do
		a=${a#addr=}
		[ $((a)) -ge $window47 ] && echo "highmap|47-56 bits|at hint" || echo "highmap|47-56 bits|fell back"
	done
	for f in "$p1"/mmaphint-*; do
		read -r h a < <(sed -n 's/^hint=\([^ ]*\) .* addr=\([^ ]*\) .*/\1 \2/p' "$f")
		[ $((h)) -ge $window47 ] || [ $((h)) -lt 0 ] || continue
		r="47-56 bits"
		[ $((h)) -lt $task_size_max5 ] && [ $((h)) -ge 0 ] || r=invalid
		if [ $((h)) -eq $((a)) ]; then l="at hint"
		elif [ $((a)) -ge $window47 ]; then l="same window"
		else l="fell back"; fi
		echo "mmaphint|$r|$l"
	done)
same "mmaphint.bt: high and invalid hints of highmap and mmaphint landed where they say" \
	"$(grep -E '^(highmap|mmaphint)\|(47-56 bits|invalid)\|' <<<"$got")" "$(tally <<<"$want")"

### highmaps.bt: one line per mapping that landed above 47 bits
# "PID COMM ADDRESS LENGTH HINT", from what the workloads printed.
want=$(
	while read -r child _ addrs; do
		pid=${child#child=} i=0
		for a in $addrs; do
			i=$((i + 1)) a=${a#addr=}
			[ $((a)) -lt $window47 ] || printf '%s highmap %#x 4096 %#x\n' "$pid" $((a)) $((i << 48))
		done
	done < <(grep '^child=' "$p1/highmap")
	for f in "$p1"/cases-* "$p1"/mmaphint-*; do
		comm=mmapcases
		[[ $f != */mmaphint-* ]] || comm=mmaphint
		pid=
		while read -r line; do
			[[ $line =~ ^pid=([0-9]+)$ ]] && pid=${BASH_REMATCH[1]}
			[[ $line =~ hint=([^ ]*)\ len=([^ ]*)\ (result|addr)=(0x[0-9a-f]*) ]] || continue
			h=${BASH_REMATCH[1]} l=${BASH_REMATCH[2]} a=${BASH_REMATCH[4]}
			[ $((a)) -lt $window47 ] || printf '%s %s %#x %d %#x\n' "$pid" $comm $((a)) $((l)) $((h))
		done <"$f"
	done | sort)
got=$(awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / && $3 ~ /^(highmap|mmapcases|mmaphint)$/ {
	print $2, $3, $4, $5, $6 }' "$p1/highmaps" | sort)
same "highmaps.bt: lists exactly the mappings the workloads got above 47 bits" "$got" "$want"
placed=$(awk 'NF { n[$2]++; b[$2] += $4 } END { for (c in n) print c, n[c], b[c] }' <<<"$want" | sort)
got=$(join <(bt_map "$p1/highmaps" placed) <(bt_map "$p1/highmaps" bytes) |
	grep -E '^(highmap|mmapcases|mmaphint) ')
same "highmaps.bt: mappings and bytes per command at Ctrl-C" "$got" "$placed"
if [ "$mode" != 5 ]; then
	is "highmaps.bt, paging $mode: nothing listed above 47 bits" \
		"$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' "$p1/highmaps")" 0
fi

### p4dalloc.bt (with stacks)
got=$( (bt_map "$p1/p4dalloc" alloc; bt_map "$p1/p4dalloc" free | sed 's/^\([^ ]*\) /\1|free /') | sort)
if [ "$mode" = 5 ]; then
	# highmap's exec installs one table for PGD entry 0 (and frees the one exec's
	# temporary stack used at the top of the 56-bit space: $moved each); each fork copies
	# entry 0; each child faults in K high regions; every table is freed at exit. On 7.x
	# the exec also frees bpftrace's child's entry 0 under highmap's name ($old_mm_renamed).
	pick highmap "$got"
	same "p4dalloc.bt: highmap installed $moved + N + N*K tables, freed N*(K+1) + 1 + $moved + $old_mm_renamed (K=$K N=$N)" \
		"$picked" "free $((N * (K + 1) + 1 + moved + old_mm_renamed))
user|installed $((moved + N + N * K))"
	for c in $comms; do
		pick "$c" "$got" && g=$picked
		pick "p4d $c" "$gt"
		same "p4dalloc.bt: $c's allocations and frees = tracefs" "$g" "$picked"
	done
	stacks=$(bt_stacks "$p1/p4dalloc" alloc_stacks | grep '^highmap|installed|')
	is "p4dalloc.bt stacks: highmap's allocations: all; by exec, fork, page fault" \
		"$(stack_sums "$stacks" $exec_frame copy_page_range handle_mm_fault)" \
		"$((moved + N + N * K)) $moved $N $((N * K))"
	stacks=$(bt_stacks "$p1/p4dalloc" free_stacks | grep '^highmap|')
	is "p4dalloc.bt stacks: highmap's frees: all; by exec, exit" \
		"$(stack_sums "$stacks" $exec_frame exit_mmap)" \
		"$((N * (K + 1) + 1 + moved + old_mm_renamed)) $moved $((N * (K + 1) + 1 + old_mm_renamed))"
else
	same "p4dalloc.bt, paging $mode: no P4D allocation, free or stack reported" \
		"$(grep -E '^@(alloc|free|live|alloc_stacks|free_stacks)' "$p1/p4dalloc")" ""
	# The control: the same instances recorded the window events of highmap's mmaps.
	is "p4dalloc.bt, paging $mode: tracefs agrees: no P4D event for any workload (control: highmap's mmaps recorded)" \
		"$(grep -c '^p4d ' <<<"$gt") $(grep -q '^hints highmap|' <<<"$gt" && echo recorded)" "0 recorded"
fi

### window.bt mmapcases: the decisions table
got=$(bt_map "$p1/window" decisions)
pick "decisions mmapcases" "$gt"
same "window.bt mmapcases: decisions table = tracefs" "$got" "$picked"
full=$(grep -c '|full|' <<<"$got")
if [ "$mode" = 5 ]; then
	check "window.bt: full-window decisions on 5-level ($full kinds)" test "$full" -gt 0
else
	is "window.bt, paging $mode: no full-window decision" "$full" 0
fi

### tlbflush.bt
got=$(bt_map "$p1/tlbflush" by_comm)
for c in $comms; do
	pick "$c" "$got" && g=$picked
	pick "tlb $c" "$gt"
	same "tlbflush.bt: $c's TLB flushes by reason, task switches the incoming task's = tracefs" \
		"$g" "$picked"
done
# The kernel-flush ground truth ran inside the script's lifetime: per command, the script
# counted at least as many calls (more when flushes happened while it alone was attached).
range=$(bt_map "$p1/tlbflush" kernel_range)
all=$(bt_map "$p1/tlbflush" kernel_all)
short=()
while read -r comm ev n; do
	map=$range
	[ "$ev" = flush_range ] || map=$all
	got=$(awk -v c="$comm" '$1 == c { print $2 }' <<<"$map")
	[ "${got:-0}" -ge "$n" ] || short+=("$comm: $ev $n in tracefs, ${got:-0} counted")
done < <(tally <"$p1/gt-kflush")
ranges=$(grep -c ' flush_range$' "$p1/gt-kflush")
# vfree-burst returned once the kernel had flushed its map's area, while every script
# and tracefs's kflush instance were on.
sed -n 's/^vfreed_kib=/# vfree-burst: vfreed_kib=/p' "$p1/vfree-burst"
is "vfree-burst: the kernel flushed the freed map's range" "$vfree_rc" 0
if [ "$ranges" -gt 0 ] && [ ${#short[@]} -eq 0 ]; then
	ok "tlbflush.bt: counted every kernel flush tracefs saw ($ranges ranges after vfree-burst)"
else
	not_ok "tlbflush.bt: counted every kernel flush tracefs saw ($ranges ranges after vfree-burst)" \
		"${short[@]}"
fi

### pgdsync.bt: the syncs of the memory probe, with their stack
level=$([ "$mode" = 5 ] && echo pgd || echo p4d)
want=$(while read -r _ _ s e l c v; do
		printf '%#018x %#018x %s %s %s\n' $((${s#*=})) $((${e#*=})) "${l#*=}" "${c#*=}" "${v#*=}"
	done <"$p1/gt-sync")
got=$(awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { print $4, $5, $6, $7, $8 }' "$p1/pgdsync")
check "pgdsync.bt: the probe of $probe_addr synced at level $level" grep -q " $level " <<<"$got"
same "pgdsync.bt: each sync's range, level, copied and visited = tracefs" "$got" "$want"
is "pgdsync.bt: every sync is memprobe's, with its write to the probe file (probe_store)" \
	"$(awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { n++; if ($2 != "memprobe") bad++ }
		/probe_store/ { p++ } END { print n - p + bad }' "$p1/pgdsync")" 0
is "pgdsync.bt: syncs per level at Ctrl-C" "$(bt_map "$p1/pgdsync" syncs)" "$level $(grep -c . <<<"$want")"
echo "# part 1 checked after ${SECONDS}s"

## Part 2: p4dalloc.bt alone, printing every second, for the live balance
# Alone: nothing but highmap (and bpftrace's child becoming it) creates or ends a process.
# Its children hold their pages for 2 s, so at least one interval passes meanwhile.
p2=$tmp/p2
mkdir -p "$p2"
K=2 N=3
timeout -s INT -k 60 300 bpftrace -c "$bin/highmap $K $N 2000" "$scripts/p4dalloc.bt" 1 >"$p2/p4dalloc" 2>&1
echo "p4dalloc $?" >>"$tmp/status"
ran_ok "p4dalloc.bt alone ran, exit 0 when its command ended" "$p2/p4dalloc"
if [ "$mode" = 5 ]; then
	check "p4dalloc.bt: printed by interval as well as at the end" \
		test "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$p2/p4dalloc")" -ge 2
	# bpftrace forks the command before it attaches: in the trace, the child's exec frees
	# that copy of entry 0, allocated before the trace (@old; under the name highmap where
	# exec releases the old mm after the rename), and every table the trace saw installed
	# is freed by the end: live 0.
	is "p4dalloc.bt: live at the end: tables installed while tracing, still live" \
		"$(sed -n 's/^@live: //p' "$p2/p4dalloc" | tail -n1)" 0
	old_name=bpftrace
	[ "$old_mm_renamed" = 0 ] || old_name=highmap
	is "p4dalloc.bt: the frees of older tables: highmap's exec of bpftrace's child" \
		"$(sed -n 's/^@old\[\(.*\)\]: /\1 /p' "$p2/p4dalloc" | sort | tr '\n' ' ')" "$old_name 1 "
	is "p4dalloc.bt: no kernel stacks without 'stacks'" "$(grep -c '^@alloc_stacks' "$p2/p4dalloc")" 0
else
	same "p4dalloc.bt, paging $mode: no P4D allocation, free or balance reported" \
		"$(grep -E '^@(alloc|free|live)' "$p2/p4dalloc")" ""
fi
echo "# part 2 done after ${SECONDS}s"

## Part 3: the one-liners, each under its own command name
# ELF workloads run through symlinks (exec names a process after the path it was given),
# the helper scripts through env (bpftrace -c takes only ELF files), so one-liners that
# run together never count each other's workloads. A command's output lands in its
# one-liner's output file.
p3=$tmp/p3
mkdir -p "$p3"
mapfile -t progs < <(sed -n "s/^bpftrace -e '\(.*\)'\$/\1/p" bt/oneliners.txt)
is "oneliners.txt: 10 one-liners, each under a comment" \
	"${#progs[@]} $(grep -c '^#' bt/oneliners.txt)" "10 10"
for n in 1 4; do ln -s "$bin/mmapcases" "$p3/ol$n-mmapcases"; done
for n in 2 5 6 7 8; do ln -s "$bin/highmap" "$p3/ol$n-highmap"; done
ln -s "$bin/mmaphint" "$p3/ol3-mmaphint"

# one_liner N COMMAND...: one-liner N (1-based) with -c COMMAND, in the background,
# output to $p3/olN.
one_liner() {
	local n=$1
	shift
	timeout -s INT -k 60 300 bpftrace -c "$*" -e "${progs[n - 1]}" >"$p3/ol$n" 2>&1 &
	runs+=($!)
}

if [ "$mode" != 5 ]; then
	one_liner 5 "$p3/ol5-highmap" 3 2
	one_liner 6 "$p3/ol6-highmap" 3 2
	one_liner 7 "$p3/ol7-highmap" 2 2
	bt_stop
	ran_ok "P4D one-liners 5-7 ran, each exited 0 with its command" "$p3"/ol{5,6,7}
	same "P4D one-liners 5-7, paging $mode: no P4D allocation or free" \
		"$(grep -hE '^@' "$p3/ol5" "$p3/ol6" "$p3/ol7")" ""
	is "no process was killed for lack of memory meanwhile" "$(dmesg | grep -c 'Out of memory')" "$ooms"
	echo "# done after ${SECONDS}s"
	tap_done
fi

# A one-liner's tracefs twin: the same events of its command, from before it starts to
# after it ends (its command runs only while bpftrace is attached, so the counts match).
gt_start ol1 ol1-mmapcases mmap/x86_get_unmapped_area
gt_start ol3 ol3-mmaphint mmap/x86_get_unmapped_area
gt_start ol8 ol8-highmap tlb/tlb_flush
gt_start ol9 "" "$gt_group/flush_range"
gt_start ol10 memprobe pgtable/kernel_pgd_sync

# Three rounds: every command in a round has its own name.
echo 8 >/proc/sys/vm/nr_hugepages
one_liner 1 "$p3/ol1-mmapcases" topdown
one_liner 2 "$p3/ol2-highmap" 2 3
one_liner 3 "$p3/ol3-mmaphint" 0x4000000000000
one_liner 4 /usr/bin/setarch -L "$p3/ol4-mmapcases" bottomup
bt_stop
echo "$hugepages" >/proc/sys/vm/nr_hugepages
one_liner 5 "$p3/ol5-highmap" 3 2
one_liner 6 "$p3/ol6-highmap" 3 2
one_liner 7 "$p3/ol7-highmap" 2 2
one_liner 8 "$p3/ol8-highmap" 1 2
one_liner 10 /usr/bin/env "$helpers/memprobe" $probe_addr2
bt_stop
# 9 alone: another bpftrace loading its programs purges lazily freed vmalloc areas
# itself (set_memory_*() calls vm_unmap_aliases()), and could make the flush of
# vfree-burst's map in place of the kworker.
one_liner 9 /usr/bin/env "$helpers/vfree-burst"
bt_stop
for n in 1 3 8 10; do
	gt_stop "ol$n" "$p3/gt-ol$n"
done
gt_stop_comms ol9 "$p3/gt-ol9"
echo "-:$gt_group/flush_range" >>"$kprobes"
echo "-:$gt_group/flush_all" >>"$kprobes"
echo "# part 3 ran after ${SECONDS}s"
ran_ok "10 one-liners ran, each exited 0 with its command" "$p3"/ol{1,2,3,4,5,6,7,8,9,10}

# 1: hints by region.
pick ol1-mmapcases "$(bt_map "$p3/ol1" "")" && got=$picked
pick "hints ol1" "$(cd "$p3" && gt_tables gt-ol1)"
same "one-liner 1: hints of ol1-mmapcases by region = tracefs" "$got" \
	"$(awk '{ n = $NF; sub(/\|.*/, ""); sub(/ bits$/, ""); s[$0] += n }
		END { for (r in s) print r, s[r] }' <<<"$picked" | sort)"
high=$(for h in $(sed -n 's/^case=.* hint=\(0x[0-9a-f]*\) .*/\1/p' "$p3/ol1"); do
		[ $((h)) -lt $window47 ] || echo
	done | wc -l)
is "one-liner 1: its 47-56 count = the high hints mmapcases made" \
	"$(awk '$1 == "47-56" { print $2 }' <<<"$got")" "$high"

# 2: mappings above 47 bits.
want=$(grep '^child=' "$p3/ol2" | while read -r child _ addrs; do
	i=0
	for a in $addrs; do
		i=$((i + 1)) a=${a#addr=}
		[ $((a)) -lt $window47 ] ||
			printf '%s ol2-highmap %#x len=4096 hint=%#x\n' "${child#child=}" $((a)) $((i << 48))
	done
done | sort)
same "one-liner 2: one line per page highmap's children mapped above 47 bits" \
	"$(grep ' ol2-highmap ' "$p3/ol2" | sort)" "$want"

# 3: window and outcome per command, numbered as the kernel's format file numbers them.
pick "decisions ol3" "$(cd "$p3" && gt_tables gt-ol3)"
want=$(awk 'NR == FNR { num[$1] = $2; next }
	{ split($0, k, "|"); sub(/ [0-9]+$/, "", k[3]); s[num[k[2]] "|" num[k[3]]] += $NF }
	END { for (w in s) print w, s[w] }' <(symbols mmap/x86_get_unmapped_area) - <<<"$picked" | sort)
pick ol3-mmaphint "$(bt_map "$p3/ol3" "")" && got=$picked
same "one-liner 3: ol3-mmaphint's window and outcome counts = tracefs" "$got" "$want"
hint=$(symbols mmap/x86_get_unmapped_area | awk '$1 == "hint" { print $2 }')
full=$(symbols mmap/x86_get_unmapped_area | awk '$1 == "full" { print $2 }')
is "one-liner 3: the 1<<50 hint was honoured in the full window" "$(grep -c "^$full|$hint 1\$" <<<"$got")" 1

# 4: high hints that landed below 47 bits: from mmapcases's own output.
want=$(sed -n 's/^case=[^ ]* hint=\([^ ]*\) len=[^ ]* result=\(0x[0-9a-f]*\)$/\1 \2/p' "$p3/ol4" |
	while read -r h r; do
		[ $((h)) -lt $window47 ] || [ $((r)) -ge $window47 ] || printf 'hint=%#x result=%#x\n' $((h)) $((r))
	done | sort)
same "one-liner 4: the high hints of mmapcases bottomup that landed low" \
	"$(grep ' ol4-mmapcases ' "$p3/ol4" | cut -d' ' -f3- | sort)" "$want"

# 5-7: P4D tables of highmap K N (as started above).
pick ol5-highmap "$( (bt_map "$p3/ol5" alloc | sed 's/ / alloc /'
	bt_map "$p3/ol5" free | sed 's/ / free /') | tr ' ' '|')"
same "one-liner 5: ol5-highmap (K=3 N=2) installed $moved+N+N*K, freed N*(K+1)+1+$moved+$old_mm_renamed" \
	"$picked" "alloc|$((moved + 2 + 2 * 3))
free|$((2 * 4 + 1 + moved + old_mm_renamed))"
pick ol6-highmap "$(bt_map "$p3/ol6" "")"
same "one-liner 6: ol6-highmap (K=3 N=2): N+$moved tables in region 0, N in each of 1..K" "$picked" \
	"0 $((2 + moved))
1 2
2 2
3 2"
is "one-liner 7: ol7-highmap (K=2 N=2): stacks of its allocations: all; exec, fork, fault" \
	"$(stack_sums "$(bt_stacks "$p3/ol7" "" | grep '^ol7-highmap|')" \
		$exec_frame copy_page_range handle_mm_fault)" "$((moved + 6)) $moved 2 4"

# 8: TLB flushes per reason number (tlb_flush prints "reason:NAME (NUMBER)"), pages != 0,
# no task switch.
pick ol8-highmap "$(bt_map "$p3/ol8" "")" && got=$picked
same "one-liner 8: ol8-highmap's TLB flushes by reason, pages != 0, no task switch = tracefs" \
	"$got" "$(awk '$2 == "tlb_flush" && $3 != "pages:0" { r = $NF; gsub(/[()]/, "", r)
		if (r != 0) print r }' "$p3/gt-ol8" | tally)"

# 9: the flush of vfree-burst's map, which vfree-burst waited for: made by a kworker
# (the purge is deferred work) and counted under its name; and never more per command
# than tracefs, which ran longer, saw.
got=$(bt_map "$p3/ol9" range)
flusher=$(sed -n 's/^vfreed_kib=.* flushed_by=//p' "$p3/ol9")
counted=$(awk -v c="$flusher" '$1 == c { print $2 }' <<<"$got")
if [[ $flusher == kworker/* ]] && [ "${counted:-0}" -ge 1 ]; then
	echo "# one-liner 9: vfree-burst's flush by $flusher, counted $counted under that name"
	ok "one-liner 9: vfree-burst's flush, by a kworker, counted under its name"
else
	not_ok "one-liner 9: vfree-burst's flush, by a kworker, counted under its name" \
		"flushed by: ${flusher:-nothing}" "counted: $(tr '\n' ' ' <<<"$got")" \
		"$(grep -v '^@' "$p3/ol9" | head -n 5)"
fi
over=$(while read -r comm n; do
	[ -n "$comm" ] || continue
	gtn=$(grep -cxF "$comm flush_range" "$p3/gt-ol9")
	[ "$n" -le "$gtn" ] || echo "$comm: $n counted, $gtn in tracefs"
done <<<"$got")
is "one-liner 9: no command counted more flushes than tracefs saw" "$over" ""

# 10: kernel PGD/P4D syncs of the probe, level numbered as the kernel's format file does.
levels=$(symbols pgtable/kernel_pgd_sync)
want=$(while read -r _ _ s e l c v; do
		l=${l#level=}
		printf 'memprobe %#x-%#x level=%s %s %s\n' $((${s#*=})) $((${e#*=})) \
			"$(awk -v l="$l" '$1 == l { print $2 }' <<<"$levels")" "$c" "$v"
	done <"$p3/gt-ol10")
same "one-liner 10: the syncs of memprobe's probe = tracefs" "$(grep '^memprobe ' "$p3/ol10")" "$want"
check "one-liner 10: the probe synced at least once" test -n "$want"

is "no process was killed for lack of memory meanwhile" "$(dmesg | grep -c 'Out of memory')" "$ooms"
echo "# done after ${SECONDS}s"
tap_done
