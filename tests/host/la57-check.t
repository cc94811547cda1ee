#!/usr/bin/env bash
# scripts/la57-check against programs with known answers (tests/workloads/la57-*.c), each
# in a real 5-level guest, and its bad-input handling on the host.
#   la57-tagged  keeps a tag in bits 48-62 of its heap pointers: crashed, on a high
#                pointer cut to 48 bits; with --check it refuses such pointers: misbehaved
#   la57-clean   treats pointers as opaque: survived, every hint-less mapping above 47
#                bits (its own record of where its memory was says so)
#   la57-crash   faults on its own: fails anyway, the same signal in both runs
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh

check=scripts/la57-check
bin=$PWD/build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
readonly WINDOW=$((1 << 47))

# bad_input NAME WANT-STATUS ARG...: one line on stderr, nothing on stdout.
bad_input() {
	local name=$1 want=$2 rc
	shift 2
	$check "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
		ok "$name: exit $want, one line"
	else
		not_ok "$name: exit $want, one line" "exit $rc" "stderr: $(cat "$tmp/err")" \
			"stdout: $(head -c 300 "$tmp/out")"
	fi
}

# Usage errors: exit 2 with the usage line, before any boot.
for args in "" "--bogus -- true" "--timeout 0 -- true" "--timeout" "--paging 7 -- true"; do
	# shellcheck disable=SC2086 # the arguments are words on purpose
	$check $args >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^usage: la57-check' "$tmp/err"; then
		ok "usage error '$args' exits 2"
	else
		not_ok "usage error '$args' exits 2" "exit $rc" "$(cat "$tmp/err")"
	fi
done
touch "$tmp/not-executable"
bad_input "a program that is not there" 2 -- "$tmp/no-such-program"
bad_input "a program not in PATH" 2 -- no-such-program-la57
bad_input "a file that is not executable" 2 -- "$tmp/not-executable"
bad_input "a directory" 2 -- "$tmp"
bad_input "a 4-level guest asked for" 2 --paging 4 -- /bin/true

if [ ! -x "$bin/la57-place" ] || [ ! -x "$bin/la57-tagged" ]; then
	skip "la57-check in the guest" "no $bin/la57-place or workloads: run 'make tools'"
	tap_done
fi
if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ] || [ ! -f build/initramfs.cpio ]; then
	skip "la57-check in the guest" "no patched kernel or initramfs: run 'make kernel image'"
	tap_done
fi

# run_check NAME ARG...: la57-check's output in $tmp/NAME.out, its status in $tmp/NAME.rc.
run_check() {
	local name=$1
	shift
	$check "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
verdict() { sed -n 's/^verdict: //p' "$tmp/$1.out"; }
show() { printf '%s\n' "exit $(cat "$tmp/$1.rc")" "$(cat "$tmp/$1.out" "$tmp/$1.err")"; }

# The tagged list: the fault address is the low 48 bits of a high heap pointer.
run_check tagged -- "$bin/la57-tagged"
v=$(verdict tagged)
if [ "$(cat "$tmp/tagged.rc")" = 1 ] && { [ "$v" = crashed ] || [ "$v" = misbehaved ]; }; then
	ok "tagged pointers: exit 1, $v"
else
	not_ok "tagged pointers: exit 1, crashed or misbehaved" "$(show tagged)"
fi
line=$(grep -m1 '^    address: high pointer' "$tmp/tagged.out")
addr=$(sed -n 's/^  fault (high run): SIGSEGV SEGV_MAPERR, address \(0x[0-9a-f]*\)$/\1/p' "$tmp/tagged.out")
origin=$(sed -n 's/^    address: high pointer \(0x[0-9a-f]*\) .*cut to its low 48 bits$/\1/p' <<<"$line")
if [ -n "$addr" ] && [ -n "$origin" ] && [ $((origin)) -ge $WINDOW ] &&
	[ $((addr)) -eq $((origin & ((1 << 48) - 1))) ] && [ $((addr)) -ne $((origin)) ]; then
	ok "tagged pointers: fault at $addr, high pointer $origin cut to 48 bits"
else
	not_ok "tagged pointers: fault address is a high pointer cut to 48 bits" "$(show tagged)"
fi
grep -q '^  normal: exited 0' "$tmp/tagged.out"
is "tagged pointers: the normal run exits 0" "$?" 0

# The same list, checking its pointers: it refuses to run, which the output shows.
run_check tagged-check -- "$bin/la57-tagged" --check
is "checked tagged pointers: exit 1, misbehaved" \
	"$(cat "$tmp/tagged-check.rc") $(verdict tagged-check)" "1 misbehaved"
if grep -q '^    > la57-tagged: a heap pointer does not fit in 48 bits$' "$tmp/tagged-check.out" &&
	grep -q '^  high: *exited 1;' "$tmp/tagged-check.out"; then
	ok "checked tagged pointers: the high run exits 1, its stderr line is shown"
else
	not_ok "checked tagged pointers: the high run exits 1, its stderr line is shown" \
		"$(show tagged-check)"
fi

# The clean program: its record says where each kind of memory was in each run.
record=$(mktemp "$P4D_BUILD/out/la57-clean-record.XXXXXX")
run_check clean -- "$bin/la57-clean" --record "$record"
cp "$record" "$tmp/clean.record"
rm -f "$record"
is "clean program: exit 0, survived" "$(cat "$tmp/clean.rc") $(verdict clean)" "0 survived"
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
if [ "$(wc -l <"$tmp/clean.record")" -eq 2 ] &&
	all_addresses "$(sed -n 1p "$tmp/clean.record")" below &&
	all_addresses "$(sed -n 2p "$tmp/clean.record")" above; then
	ok "clean program: all six kinds of memory below 47 bits normally, above in the high run"
else
	not_ok "clean program: six kinds of memory below, then above 47 bits" \
		"$(cat "$tmp/clean.record")" "$(show clean)"
fi
counts=$(sed -n 's/^  high: *exited 0; \([0-9]*\) of \([0-9]*\) hint-less mmaps above 47 bits.*/\1 \2/p' \
	"$tmp/clean.out")
read -r high all <<<"${counts:-0 -1}"
if [ "$high" = "$all" ] && [ "$high" -gt 0 ] && grep -q 'mremap moved [1-9]' "$tmp/clean.out"; then
	ok "clean program: la57-check counts $high of $all hint-less mmaps high, the realloc moved"
else
	not_ok "clean program: every hint-less mmap counted high, the realloc moved" "$(show clean)"
fi

# p4d_tables NAME RUN: the P4D tables la57-check counted for RUN (normal or high).
p4d_tables() {
	grep -A1 "^  $2:" "$tmp/$1.out" | sed -n 's/.*; P4D tables \([0-9]*\)$/\1/p'
}
normal=$(p4d_tables clean normal) high=$(p4d_tables clean high)
if [ -n "$normal" ] && [ -n "$high" ] && [ "$high" -gt "$normal" ]; then
	ok "clean program: the high run installed more P4D tables ($normal -> $high)"
else
	not_ok "clean program: the high run installed more P4D tables" "$(show clean)"
fi

# --keep-low-stack: the thread stack stays low, everything else still goes high.
record=$(mktemp "$P4D_BUILD/out/la57-clean-record.XXXXXX")
run_check low-stack --keep-low-stack -- "$bin/la57-clean" --record "$record"
high_line=$(sed -n 2p "$record")
rm -f "$record"
stack=$(sed -n 's/.*thread_stack=\(0x[0-9a-f]*\).*/\1/p' <<<"$high_line")
if [ "$(cat "$tmp/low-stack.rc") $(verdict low-stack)" = "0 survived" ] && [ -n "$stack" ] &&
	[ $((stack)) -lt $WINDOW ] &&
	all_addresses "${high_line/thread_stack=$stack /}" above 5 &&
	grep -q 'stacks kept low [1-9]' "$tmp/low-stack.out"; then
	ok "--keep-low-stack: thread stack $stack below 47 bits, the rest above"
else
	not_ok "--keep-low-stack: thread stack below 47 bits, the rest above" "$high_line" \
		"$(show low-stack)"
fi

# A program that crashes on its own: the same signal in both runs.
run_check crash -- "$bin/la57-crash"
is "crashing program: exit 3, fails anyway" "$(cat "$tmp/crash.rc") $(verdict crash)" "3 fails anyway"
is "crashing program: both runs killed by SIGSEGV" \
	"$(grep -c '^  \(normal\|high\): *killed by SIGSEGV' "$tmp/crash.out")" 2

# A guest that outlives --timeout: the runner's 124, one line, no QEMU left.
tag=p4d.test=la57check-timeout-$$
P4DSCOPE_APPEND=$tag bad_input "a guest that times out" 124 --timeout 12 -- /bin/sleep 600
# The [q] keeps pgrep from matching this very command line.
check "no QEMU of the timed-out run is left" bash -c "! pgrep -f '[q]emu-system-x86_64 .*$tag'"

tap_done
