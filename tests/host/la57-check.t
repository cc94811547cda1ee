#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/la57-check against programs with known answers (tests/workloads/la57-*.c), in
# real 5-level guests, and its bad input on the host. Three boots: most programs run
# with --native inside one 5-level guest (this script again, with --in-guest), one check
# goes through the guest runner, as la57-check runs on a 4-level host, and one outlives
# its --timeout.
#   la57-tagged       keeps a tag in bits 48-62 of its heap pointers: crashed, on a high
#                     pointer cut to 48 bits; with --check it refuses such pointers:
#                     misbehaved
#   la57-clean        treats pointers as opaque: survived, every hint-less mapping above
#                     47 bits (its own record of where its memory was says so)
#   la57-crash        faults on its own: fails anyway, at the same place in both runs
#   la57-fail-where   fails in both runs, differently: misbehaved, not fails anyway
#   la57-brk          needs brk to grow: needs brk; with --keep-brk, survived
#   la57-thread-exec  a thread execs while the leader is inside a rewritten mmap:
#                     survived (the new image gets no stale registers), the tracer
#                     having dropped the rewrite it held. One run, the race forced:
#                     tests/validate/exechold holds the leader inside that mmap until
#                     execve() kills it, and the execing thread until then
#   la57-daemon       leaves a child running: followed for --follow seconds after it
#                     exits, then named and ended; with --tagged-child the child cuts a
#                     high pointer to 48 bits after its parent exited: crashed
#   la57-uring        submits an io_uring NOP: survived, its ring mmaps left to io_uring
#   la57-address      prints addresses (ASLR): survived, stdout compared with its
#                     numbers masked, and said so
#   la57-hang         waits forever above 47 bits: hung, the usual run's end kept
#   /bin/sleep        outlives the usual run's time: no verdict (4)
#   la57-nommap       makes no mmap: not exercised, never survived
#   maps32            a 32-bit program: not exercised (skipped without IA32_EMULATION)
#   la57-asan         built with ASan: detect_leaks=0 said and given; the usual run
#                     survives it, the high run fails in ASan's allocator check
#   /bin/sh           through the runner: this environment and stdin reach it, --keep
#                     keeps the runs' files
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. scripts/lib.sh

check=scripts/la57-check
bin=$PWD/build/bin

# In the guest: every --native check, each one's output, error and status in DIR/NAME.*.
if [ "${1:-}" = --in-guest ]; then
	out=$2
	native() {
		local name=$1
		shift
		$check --native --timeout 300 "$@" </dev/null >"$out/$name.out" 2>"$out/$name.err"
		echo $? >"$out/$name.rc"
	}
	native tagged -- "$bin/la57-tagged"
	native tagged-check -- "$bin/la57-tagged" --check
	native clean --keep "$out/clean.kept" -- "$bin/la57-clean" --record "$out/clean.record"
	native low-stack --keep-low-stack -- "$bin/la57-clean" --record "$out/low-stack.record"
	native crash -- "$bin/la57-crash"
	native fail-where -- "$bin/la57-fail-where"
	native fail-where-crash -- "$bin/la57-fail-where" --crash
	native brk -- "$bin/la57-brk"
	native keep-brk --keep-brk -- "$bin/la57-brk"
	# execve must kill the leader while it is inside the rewritten mmap: exechold's BPF
	# side holds it there until then, and holds the execing thread until it is; its
	# report says how each hold ended (la57-thread-exec.c, tests/validate/exechold.c).
	"$P4D_TOOLS/exechold" --report "$out/thread-exec.holds" -- \
		$check --native --timeout 300 --keep "$out/thread-exec.kept" -- \
		"$bin/la57-thread-exec" "$bin/la57-exec-target" \
		</dev/null >"$out/thread-exec.out" 2>"$out/thread-exec.err"
	echo $? >"$out/thread-exec.rc"
	native daemon --follow 3 -- "$bin/la57-daemon" "$out/daemon.pids"
	native daemon-tagged -- "$bin/la57-daemon" "$out/daemon-tagged.pids" --tagged-child
	native uring -- "$bin/la57-uring"
	native address -- "$bin/la57-address"
	native hang --timeout 100 -- "$bin/la57-hang"
	native sleeper --timeout 10 -- /bin/sleep 600
	native nommap -- "$bin/la57-nommap"
	native asan -- "$bin/la57-asan"
	native no-seccomp --no-seccomp --keep "$out/no-seccomp.kept" -- \
		"$bin/la57-clean" --record "$out/no-seccomp.record"
	# 32-bit programs run only where the kernel has IA32_EMULATION.
	if "$bin/maps32" >/dev/null 2>&1; then
		native compat -- "$bin/maps32"
	fi
	# Ended: gone, or a zombie nobody reaps (the guest's init waits for its command only).
	while read -r pid; do
		state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)
		[ -z "$state" ] || [ "$state" = Z ] || echo "$pid" >>"$out/daemon.alive"
	done <"$out/daemon.pids"
	exit 0
fi

. tests/lib/tap.sh
tmp=$(mktemp -d)
guest_out=''
trap 'rm -rf "$tmp" ${guest_out:+"$guest_out"}' EXIT
readonly WINDOW=$((1 << 47))

# bad_input NAME WANT-STATUS ARG...: one line on stderr, nothing on stdout, no run
# directory left in build/out.
bad_input() {
	local name=$1 want=$2 rc before after
	shift 2
	before=$(find "$P4D_BUILD/out" -maxdepth 1 -name 'la57check.*' 2>/dev/null | wc -l)
	$check "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	after=$(find "$P4D_BUILD/out" -maxdepth 1 -name 'la57check.*' 2>/dev/null | wc -l)
	if [ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		[ "$before" = "$after" ]; then
		ok "$name: exit $want, one line"
	else
		not_ok "$name: exit $want, one line, nothing left" "exit $rc" \
			"stderr: $(cat "$tmp/err")" "stdout: $(head -c 300 "$tmp/out")" \
			"run directories before $before, after $after"
	fi
}

# Usage errors: exit 2, one line that gives the usage, before any boot.
for args in "" "--bogus -- true" "--timeout 0 -- true" "--timeout" "--paging 7 -- true" \
	"--keep" "--follow soon -- true"; do
	# shellcheck disable=SC2086 # the arguments are words on purpose
	$check $args </dev/null >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q '; usage: la57-check \[' "$tmp/err"; then
		ok "usage error '$args': exit 2, one line with the usage"
	else
		not_ok "usage error '$args': exit 2, one line with the usage" "exit $rc" "$(cat "$tmp/err")"
	fi
done
$check --help >"$tmp/out" 2>&1
is "--help: exit 0, the usage on stdout" "$? $(head -c 17 "$tmp/out")" "0 usage: la57-check"
$check --version >"$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qxE 'la57-check [0-9]+\.[0-9]+ \(p4dscope\)' "$tmp/out"; then
	ok "--version: exit 0, one line with the version"
else
	not_ok "--version: exit 0, one line with the version" "exit $rc" "$(cat "$tmp/out")"
fi
touch "$tmp/not-executable"
mkdir "$tmp/full" && touch "$tmp/full/something"
bad_input "a program that is not there" 2 -- "$tmp/no-such-program"
bad_input "a program not in PATH" 2 -- no-such-program-la57
bad_input "a file that is not executable" 2 -- "$tmp/not-executable"
bad_input "a directory" 2 -- "$tmp"
bad_input "a 4-level guest asked for" 2 --paging 4 -- /bin/true
bad_input "--keep into a directory that is not empty" 2 --keep "$tmp/full" -- /bin/true
bad_input "--keep where it cannot be made" 2 --keep "$tmp/no/such/parent" -- /bin/true
if [ -e "$tmp/no" ]; then
	not_ok "--keep where it cannot be made: nothing created" "$(find "$tmp/no")"
else
	ok "--keep where it cannot be made: nothing created"
fi
# --native decides from the CPU flags alone on a machine that runs 4-level paging.
if grep -q '^flags.* la57' /proc/cpuinfo; then
	skip "--native on a 4-level host" "this host runs 5-level paging"
else
	bad_input "--native on a 4-level host" 2 --native -- /bin/true
	grep -q -- '--native: this machine runs 4-level paging' "$tmp/err"
	is "--native on a 4-level host: says it runs 4-level paging" "$?" 0
fi

if [ ! -x "$bin/la57-place" ] || [ ! -x "$bin/la57-tagged" ] || [ ! -x "$bin/la57-daemon" ] ||
	[ ! -x "$P4D_TOOLS/exechold" ]; then
	skip "la57-check in the guest" "no $bin/la57-place, workloads or exechold: run 'make tools'"
	tap_done
fi
if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ] || [ ! -f build/initramfs.cpio ]; then
	skip "la57-check in the guest" "no patched kernel or initramfs: run 'make kernel image'"
	tap_done
fi

# The guest runner's own errors come through with its status and its reason: here it
# cannot run (122), having no kernel for the tree asked for. Nothing boots.
P4D_KVER=0.0 bad_input "the guest runner cannot run (no kernel for KVER 0.0)" 122 -- /bin/true
grep -q "^la57-check: the guest runner cannot run: run-guest: no kernel at .*run 'make kernel KVER=0.0'" \
	"$tmp/err"
is "the guest runner cannot run: its reason is named" "$?" 0

# Boot 1, through the runner: the environment and stdin reach PROGRAM, --keep keeps
# the runs' files (and not the environment).
keep=$tmp/kept
# shellcheck disable=SC2016 # expanded by the program under test
LA57_CHECK_TEST="two words" $check --keep "$keep" -- /bin/sh -c \
	'printf "%s\n" "$LA57_CHECK_TEST"; cat' <<<"from stdin" >"$tmp/shell.out" 2>"$tmp/shell.err"
rc=$?
is "through the runner: exit 0, survived" "$rc $(sed -n 's/^verdict: //p' "$tmp/shell.out")" \
	"0 survived"
for run in normal high; do
	is "through the runner: the $run run got the environment and stdin" \
		"$(cat "$keep/$run.out" 2>&1)" "two words
from stdin"
done
if [ -f "$keep/normal.report" ] && [ -f "$keep/high.err" ] && [ ! -e "$keep/env" ] &&
	cmp -s "$keep/la57-check.txt" "$tmp/shell.out"; then
	ok "--keep: reports, outputs and the printed verdict kept; the environment not"
else
	not_ok "--keep: reports, outputs and the printed verdict kept; the environment not" \
		"$(ls "$keep" 2>&1)"
fi

# Boot 2: the rest with --native in one 5-level guest.
mkdir -p "$P4D_BUILD/out"
guest_out=$(mktemp -d "$P4D_BUILD/out/la57-check-t.XXXXXX")
# A cap, not an estimate: a few minutes on an idle machine, half an hour under heavy load.
scripts/run-guest --paging 5 --timeout 3600 -- tests/host/la57-check.t --in-guest "$guest_out" \
	>"$tmp/guest.log" 2>&1
is "the --native checks ran in a 5-level guest" "$?" 0

# The output of NAME's run is $guest_out/NAME.out, its status NAME.rc.
verdict() { sed -n 's/^verdict: //p' "$guest_out/$1.out"; }
status_verdict() { echo "$(cat "$guest_out/$1.rc" 2>/dev/null) $(verdict "$1")"; }
show() { printf '%s\n' "exit $(cat "$guest_out/$1.rc" 2>/dev/null)" "$(cat "$guest_out/$1".{out,err} 2>&1)"; }
# shows NAME RUN PATTERN...: ok when RUN's output has a line matching each PATTERN.
shows() {
	local name=$1 run=$2 pattern
	shift 2
	for pattern in "$@"; do
		if ! grep -q -- "$pattern" "$guest_out/$run.out"; then
			not_ok "$name" "no line matching: $pattern" "$(show "$run")"
			return
		fi
	done
	ok "$name"
}

# The tagged list: the fault address is the low 48 bits of a high heap pointer.
v=$(verdict tagged)
rc=$(cat "$guest_out/tagged.rc")
if { [ "$rc $v" = "6 crashed" ] || [ "$rc $v" = "7 misbehaved" ]; }; then
	ok "tagged pointers: exit $rc, $v"
else
	not_ok "tagged pointers: exit 6, crashed, or 7, misbehaved" "$(show tagged)"
fi
line=$(grep -m1 '^    address: high pointer' "$guest_out/tagged.out")
addr=$(sed -n 's/^  fault (high run): SIGSEGV SEGV_MAPERR, address \(0x[0-9a-f]*\)$/\1/p' "$guest_out/tagged.out")
origin=$(sed -n 's/^    address: high pointer \(0x[0-9a-f]*\) .*cut to its low 48 bits$/\1/p' <<<"$line")
if [ -n "$addr" ] && [ -n "$origin" ] && [ $((origin)) -ge $WINDOW ] &&
	[ $((addr)) -eq $((origin & ((1 << 48) - 1))) ] && [ $((addr)) -ne $((origin)) ]; then
	ok "tagged pointers: fault at $addr, high pointer $origin cut to 48 bits"
else
	not_ok "tagged pointers: fault address is a high pointer cut to 48 bits" "$(show tagged)"
fi
grep -q '^  normal: exited 0' "$guest_out/tagged.out"
is "tagged pointers: the normal run exits 0" "$?" 0

# The same list, checking its pointers: it refuses to run, which the output shows.
is "checked tagged pointers: exit 7, misbehaved" "$(status_verdict tagged-check)" "7 misbehaved"
shows "checked tagged pointers: the high run exits 1, its stderr line is shown" tagged-check \
	'^    > la57-tagged: a heap pointer does not fit in 48 bits$' '^  high: *exited 1;'

# The clean program: its record says where each kind of memory was in each run.
is "clean program: exit 0, survived" "$(status_verdict clean)" "0 survived"
# all_addresses LINE below|above [N]: all N (6) addresses of a record line are below
# (above) 2^47.
all_addresses() {
	local kv addr n=0
	for kv in $1; do
		n=$((n + 1))
		addr=$((${kv#*=}))
		if [ "$2" = below ]; then
			[ "$addr" -lt $WINDOW ] || return 1
		else
			[ "$addr" -ge $WINDOW ] || return 1
		fi
	done
	[ $n -eq "${3:-6}" ]
}
record=$guest_out/clean.record
if [ "$(wc -l <"$record")" -eq 2 ] && all_addresses "$(sed -n 1p "$record")" below &&
	all_addresses "$(sed -n 2p "$record")" above; then
	ok "clean program: all six kinds of memory below 47 bits normally, above in the high run"
else
	not_ok "clean program: six kinds of memory below, then above 47 bits" \
		"$(cat "$record")" "$(show clean)"
fi
counts=$(sed -n 's/^  high: *exited 0; \([0-9]*\) of \([0-9]*\) hint-less mmaps above 47 bits.*/\1 \2/p' \
	"$guest_out/clean.out")
read -r high all <<<"${counts:-0 -1}"
if [ "$high" = "$all" ] && [ "$high" -gt 0 ] && grep -q 'mremap moved [1-9]' "$guest_out/clean.out"; then
	ok "clean program: la57-check counts $high of $all hint-less mmaps high, the realloc moved"
else
	not_ok "clean program: every hint-less mmap counted high, the realloc moved" "$(show clean)"
fi

# p4d_tables NAME RUN: the P4D tables la57-check counted for RUN (normal or high).
p4d_tables() {
	grep -A1 "^  $2:" "$guest_out/$1.out" | sed -n 's/.*; P4D tables \([0-9]*\)$/\1/p'
}
normal=$(p4d_tables clean normal) high=$(p4d_tables clean high)
if [ -n "$normal" ] && [ -n "$high" ] && [ "$high" -gt "$normal" ]; then
	ok "clean program: the high run installed more P4D tables ($normal -> $high)"
else
	not_ok "clean program: the high run installed more P4D tables" "$(show clean)"
fi

# --keep-low-stack: the thread stack stays low, everything else still goes high.
high_line=$(sed -n 2p "$guest_out/low-stack.record")
stack=$(sed -n 's/.*thread_stack=\(0x[0-9a-f]*\).*/\1/p' <<<"$high_line")
if [ "$(status_verdict low-stack)" = "0 survived" ] && [ -n "$stack" ] &&
	[ $((stack)) -lt $WINDOW ] &&
	all_addresses "${high_line/thread_stack=$stack /}" above 5 &&
	grep -q 'stacks kept low [1-9]' "$guest_out/low-stack.out"; then
	ok "--keep-low-stack: thread stack $stack below 47 bits, the rest above"
else
	not_ok "--keep-low-stack: thread stack below 47 bits, the rest above" "$high_line" \
		"$(show low-stack)"
fi

# A program that crashes on its own: the same signal at the same place in both runs.
is "crashing program: exit 3, fails anyway" "$(status_verdict crash)" "3 fails anyway"
is "crashing program: both runs killed by SIGSEGV" \
	"$(grep -c '^  \(normal\|high\): *killed by SIGSEGV' "$guest_out/crash.out")" 2

# Failing in both runs, differently: not the same failure, so not "fails anyway".
is "failing differently: exit 7, misbehaved" "$(status_verdict fail-where)" "7 misbehaved"
shows "failing differently: both failures shown" fail-where \
	'^    < la57-fail-where: failing with the block below 47 bits$' \
	'^    > la57-fail-where: failing with the block above 47 bits$'
is "crashing at different places: exit 7, misbehaved" "$(status_verdict fail-where-crash)" \
	"7 misbehaved"
# The two places are two functions of la57-fail-where: their offsets in the file differ.
places=$(sed -n 's/^  fault differs: normal SEGV_MAPERR in \([^,]*\), high SEGV_MAPERR in \(.*\)$/\1 \2/p' \
	"$guest_out/fail-where-crash.out")
read -r low_at high_at <<<"${places:-x x}"
if [[ $low_at == */la57-fail-where+0x* ]] && [[ $high_at == */la57-fail-where+0x* ]] &&
	[ "$low_at" != "$high_at" ]; then
	ok "crashing at different places: both places shown ($low_at, $high_at)"
else
	not_ok "crashing at different places: both places shown" "$(show fail-where-crash)"
fi

# Needing brk is not a placement failure.
is "sbrk user: exit 5, needs brk" "$(status_verdict brk)" \
	"5 needs brk (run again with --keep-brk to check placement alone)"
shows "sbrk user: the brk-only run fails as the high run did, and shows it" brk \
	'^  brk: *exited 1; .*brk refused 1, nothing moved' '^    > la57-brk: sbrk(1048576) failed$'
is "sbrk user with --keep-brk: exit 0, survived, brk kept" "$(status_verdict keep-brk)" \
	"0 survived (brk kept: the main heap stayed below 47 bits)"
shows "sbrk user with --keep-brk: brk was not refused" keep-brk \
	'^  high: .*hint-less mmaps above 47 bits; brk kept'
grep -q '^  brk:' "$guest_out/keep-brk.out" "$guest_out/clean.out"
is "no brk-only run when the runs agree" "$?" 1

# A thread execs while the leader is inside a rewritten mmap, in one run: the race was
# forced in both of la57-check's runs (exechold: the leader held inside its mmap until
# a fatal signal came, the execing thread until the leader was held; neither reached
# the deadline), the tracer dropped the rewrite whose exit never came, and the new image
# ran as it should.
is "exec from a second thread: exit 0, survived" "$(status_verdict thread-exec)" "0 survived"
holds=$guest_out/thread-exec.holds
deadline=$(sed -n 's/^deadline_s=//p' "$holds" 2>/dev/null)
# Per run: the leader's and the execing thread's holds, and whether the held leader
# was the process's main thread.
got=$(awk '/^pid=/ { print $2, $5, ($3 == "leader_tid=" substr($1, 5) ? "main" : $3) }' \
	"$holds" 2>/dev/null)
if [ "$got" = "leader=released execer=released main
leader=released execer=released main" ]; then
	ok "exec from a second thread: in both runs the leader was held inside mmap until execve killed it"
else
	late=$(grep -c 'timed_out' "$holds" 2>/dev/null)
	not_ok "exec from a second thread: in both runs the leader was held inside mmap until execve killed it" \
		"holds reaching exechold's ${deadline:-?} s deadline (EXECHOLD_DEADLINE_S): ${late:-?}" \
		"$(cat "$holds" 2>&1)" "$(show thread-exec)"
fi
is "exec from a second thread: the tracer dropped the rewrite the leader was held in (cut_by_exec)" \
	"$(sed -n 's/^cut_by_exec=//p' "$guest_out/thread-exec.kept/normal.report" \
		"$guest_out/thread-exec.kept/high.report" 2>&1 | tr '\n' ' ')" "0 1 "

# A daemon's child: named and ended when la57-daemon exits, in both runs.
is "leftover child: exit 0, survived" "$(status_verdict daemon)" "0 survived"
is "leftover child: named in both runs" \
	"$(grep -c '^          left running when it ended: 1 (la57-daemon\[[0-9]*\]), killed$' \
		"$guest_out/daemon.out")" 2
if [ "$(wc -l <"$guest_out/daemon.pids" 2>/dev/null)" = 2 ] && [ ! -e "$guest_out/daemon.alive" ]; then
	ok "leftover child: both children ended"
else
	not_ok "leftover child: both children ended" "pids: $(cat "$guest_out/daemon.pids" 2>&1)" \
		"alive: $(cat "$guest_out/daemon.alive" 2>&1)"
fi

# A daemon whose child does the work after the parent exited: the child is followed, and
# its fault above 47 bits is the program's crash.
is "child crashing after its parent exited: exit 6, crashed" "$(status_verdict daemon-tagged)" \
	"6 crashed"
shows "child crashing after its parent exited: each run's child end recorded" daemon-tagged \
	'^          other processes ended: la57-daemon: exit 0 x1$' \
	'^          other processes ended: la57-daemon: SIGSEGV x1$'

# io_uring places its rings itself and refuses any hint: left alone, and counted.
is "io_uring NOP: exit 0, survived" "$(status_verdict uring)" "0 survived"
shows "io_uring NOP: its ring mmaps left to io_uring in both runs" uring \
	'^          mmaps of fds left to their driver: 3 (anon_inode:\[io_uring\] x3)$'
is "io_uring NOP: the ring mmaps were left alone in both runs" \
	"$(grep -c '^          mmaps of fds left to their driver: 3 ' "$guest_out/uring.out")" 2

# Addresses printed: the usual runs differ in their numbers only, and that is said.
is "printing addresses: exit 0, survived" "$(status_verdict address)" "0 survived"
shows "printing addresses: stdout compared with its numbers masked, after a second usual run" \
	address '^  again: *exited 0;' \
	'^  stdout differs between two usual runs in its numbers: compared with numbers masked$'

# Hanging above 47 bits only: hung, and the usual run's end is kept.
is "hanging above 47 bits: exit 9, hung" "$(status_verdict hang)" "9 hung"
shows "hanging above 47 bits: the usual run's end and the high run's time shown" hang \
	'^  normal: *exited 0;' '^  high: *did not end within 20s, ended;' \
	'^  the usual run exited 0; the high run did not end within 20s$'

# Hanging in the usual run too: no verdict can be given, and the reason says so.
is "hanging in the usual run: exit 4, no verdict line" \
	"$(cat "$guest_out/sleeper.rc") $(grep -c . "$guest_out/sleeper.out")" "4 0"
grep -q '^la57-check: no verdict: the usual run did not end within 2s' "$guest_out/sleeper.err"
is "hanging in the usual run: the reason on stderr" "$?" 0

# Nothing to move: never "survived".
is "no mmap at all: exit 8, not exercised" "$(status_verdict nommap)" "8 not exercised"
shows "no mmap at all: the reason" nommap \
	'^  nothing went above 47 bits: it made no mmap that could be moved$'
if [ -f "$guest_out/compat.rc" ]; then
	is "32-bit program: exit 8, not exercised" "$(status_verdict compat)" "8 not exercised"
	shows "32-bit program: the reason" compat '^  nothing went above 47 bits: a 32-bit program'
else
	skip "32-bit program: not exercised" "the guest kernel has no IA32_EMULATION"
fi

# ASan: the leak check goes (it cannot run under ptrace), said in the report; the
# usual run survives; above 47 bits ASan itself fails.
shows "ASan program: detect_leaks=0 given, and said" asan \
	'^  AddressSanitizer: run with ASAN_OPTIONS+=detect_leaks=0 ' '^  normal: *exited 0;'
is "ASan program: above 47 bits it fails: exit 7, misbehaved" "$(status_verdict asan)" \
	"7 misbehaved"
# ASan's allocator numbers its regions for a 47-bit space (google/sanitizers#1745).
shows "ASan program: the failure is ASan's own check, shown from stderr" asan \
	'^    > AddressSanitizer: CHECK failed: '
grep -q '^  AddressSanitizer: ' "$guest_out/clean.out" "$guest_out/uring.out"
is "no sanitizer note for programs built without one" "$?" 1

# The seccomp filter changes which syscalls stop, not what la57-check finds.
is "without the seccomp filter: exit 0, survived" "$(status_verdict no-seccomp)" "0 survived"
is "the filter was used by default and not with --no-seccomp" \
	"$(sed -n 's/^seccomp=//p' "$guest_out/clean.kept/high.report" \
		"$guest_out/no-seccomp.kept/high.report" 2>&1 | tr '\n' ' ')" "on off "

# Boot 3: a guest that outlives --timeout (one second: less than a boot takes): the
# runner's 124, one line, no QEMU left.
tag=p4d.test=la57check-timeout-$$
P4DSCOPE_APPEND=$tag bad_input "a guest that times out" 124 --timeout 1 -- /bin/sleep 600
# The [q] keeps pgrep from matching this very command line.
check "no QEMU of the timed-out run is left" bash -c "! pgrep -f '[q]emu-system-x86_64 .*$tag'"

tap_done
