#!/usr/bin/env bash
# Host tests of scripts/run-guest: exit status, streams, timeout, paging modes, guest
# failures and usage errors. Each boot is a real QEMU guest.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

run=scripts/run-guest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Usage errors are caught before any boot.
for args in "--paging 3 -- true" "--smp x -- true" "--bogus -- true" "--timeout 0 -- true" \
	"--paging 5" "--icount --smp 2 -- true"; do
	$run $args >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^usage: run-guest' "$tmp/err"; then
		ok "usage error for '$args' exits 2"
	else
		not_ok "usage error for '$args' exits 2" "exit $rc" "$(cat "$tmp/err")"
	fi
done

$run -- true
is "exit status 0 propagates" "$?" 0

# The command prints a fake status line on every stream and exits 7.
$run -- sh -c 'echo "P4DSCOPE-STATUS exit 0"; echo "P4DSCOPE-STATUS exit 0" >&2;
	echo "P4DSCOPE-STATUS exit 0" >/dev/console; exit 7' >"$tmp/out" 2>"$tmp/err"
is "exit status 7 propagates, printed status lines do not fake it" "$?" 7

$run -- sh -c 'echo to-stdout; echo to-stderr >&2' >"$tmp/out" 2>"$tmp/err"
is "stdout arrives on stdout" "$(cat "$tmp/out")" "to-stdout"
is "stderr arrives on stderr" "$(cat "$tmp/err")" "to-stderr"

# The caller keeps writing to the same file after the guest: nothing is overwritten.
{ echo before; $run -- echo inside; echo after; } >"$tmp/out"
is "output interleaves with the caller's writes" "$(tr '\n' ' ' <"$tmp/out")" "before inside after "

$run -- sh -c 'f=$(mktemp "$P4DSCOPE_OUT/runner-t.XXXXXX") && echo written >"$f" &&
	basename "$f"' >"$tmp/out"
f=$(cat "$tmp/out")
if [ -n "$f" ] && [ "$(cat "build/out/$f" 2>/dev/null)" = written ]; then
	ok "guest writes reach build/out on the host"
else
	not_ok "guest writes reach build/out on the host" "file '$f'"
fi
[ -z "$f" ] || rm -f "build/out/$f"

$run -- sh -c 'touch /usr/p4dscope-must-fail' 2>/dev/null
is "the host root is read-only in the guest" "$?" 1

tag=p4d.test=timeout-$$
P4DSCOPE_APPEND=$tag $run --timeout 8 -- sleep 600 2>"$tmp/err"
is "a guest that outlives --timeout exits 124" "$?" 124
# The [q] keeps pgrep from matching this very command line. Status 1 is "no match": a
# missing pgrep (127) or a bad pattern (2) must not pass for it.
pgrep -f "[q]emu-system-x86_64 .*$tag" >/dev/null
is "no QEMU of the timed-out run is left (pgrep finds none: status 1)" "$?" 1

for mode in 5 4 no5lvl; do
	got=$($run --paging "$mode" -- sh -c 'grep -c "^flags.* la57" /proc/cpuinfo;
		grep -m1 "^address sizes" /proc/cpuinfo | grep -o "[0-9]* bits virtual";
		tr " " "\n" </proc/cmdline | grep -x no5lvl' | tr '\n' ' ')
	case $mode in
	5) want="2 57 bits virtual " ;;
	4) want="0 48 bits virtual " ;;
	no5lvl) want="0 57 bits virtual no5lvl " ;;
	esac
	is "--paging $mode boots that mode (la57 CPUs, virtual bits, no5lvl)" "$got" "$want"
done

# --la57-cpu: the compiled-out kernel (CONFIG_X86_5LEVEL=n) runs 4-level paging on an LA57
# CPU and hides la57, CPUID still says 57 bits; a compiled-in kernel would run 5-level there.
. scripts/lib.sh
no5level=$P4D_KERNELS/no5level/arch/x86/boot/bzImage
if [ -f "$no5level" ]; then
	got=$($run --paging 4 --la57-cpu --kernel "$no5level" -- sh -c \
		'grep -c "^flags.* la57" /proc/cpuinfo;
		grep -m1 "^address sizes" /proc/cpuinfo | grep -o "[0-9]* bits virtual"' | tr '\n' ' ')
	is "--paging 4 --la57-cpu boots the no5level kernel on 4-level paging" "$got" "0 57 bits virtual "
else
	skip "--paging 4 --la57-cpu boots the no5level kernel on 4-level paging" \
		"no no5level kernel: run 'make kernel-no5level'"
fi
$run --paging 4 --la57-cpu -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'paging-mismatch' "$tmp/err"; then
	ok "a 5-level kernel asked for --paging 4 --la57-cpu fails with 125"
else
	not_ok "a 5-level kernel asked for --paging 4 --la57-cpu fails with 125" "exit $rc" \
		"$(cat "$tmp/err")"
fi

P4DSCOPE_QEMU_CPU=qemu64 $run --paging 5 -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'paging-mismatch' "$tmp/err"; then
	ok "a guest without LA57 asked for --paging 5 fails with 125"
else
	not_ok "a guest without LA57 asked for --paging 5 fails with 125" "exit $rc" "$(cat "$tmp/err")"
fi

$run -- sh -c 'echo c >/proc/sysrq-trigger' 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'kernel panicked' "$tmp/err" &&
	grep -q '^run-guest: the guest kernel said: Kernel panic - not syncing: sysrq triggered crash' "$tmp/err"; then
	ok "a kernel panic exits 125, names the panic and shows the console"
else
	not_ok "a kernel panic exits 125, names the panic and shows the console" "exit $rc" "$(cat "$tmp/err")"
fi

# A CPU busy in the kernel past the soft-lockup threshold (1 s here: 2 x watchdog_thresh)
# panics the guest (guest-image/kernel.config): racehold holds one thread inside
# __p4d_alloc() for 20 s with nobody to release it.
$run --paging 5 -- sh -c "echo 1 >/proc/sys/kernel/watchdog_thresh && exec $P4D_TOOLS/racehold --hold 20" \
	>/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q '^run-guest: the guest kernel said: .*BUG: soft lockup' "$tmp/err"; then
	ok "a soft lockup panics the guest: exit 125, named"
else
	not_ok "a soft lockup panics the guest: exit 125, named" "exit $rc" "$(cat "$tmp/err")"
fi

P4DSCOPE_APPEND=p4d.out=/nonexistent $run -- true 2>"$tmp/err"
rc=$?
if [ $rc -eq 125 ] && grep -q 'failed before the command ran' "$tmp/err"; then
	ok "a guest that never reaches the command exits 125"
else
	not_ok "a guest that never reaches the command exits 125" "exit $rc" "$(cat "$tmp/err")"
fi

# Two runs at once, each with its own answer.
$run -- sh -c 'sleep 2; echo first' >"$tmp/a" &
$run -- sh -c 'echo second; exit 5' >"$tmp/b"
rc_b=$?
wait $!
rc_a=$?
is "two runs at once keep their output and status" "$(cat "$tmp/a") $rc_a $(cat "$tmp/b") $rc_b" "first 0 second 5"

# Under --icount guest time counts instructions (shift=0: 1 ns each). A loop of 2e8
# single-cycle iterations (dec + jnz: 4e8 instructions) takes 0.4 s of guest time.
got=$($run --icount -- build/bin/icount-probe 200000000)
case "$got" in
loop_ns=*) ns=${got#loop_ns=}
	if [ "$ns" -ge 400000000 ] && [ "$ns" -le 420000000 ]; then
		ok "--icount: guest time counts guest instructions"
	else
		not_ok "--icount: guest time counts guest instructions" "4e8 instructions took $ns ns"
	fi ;;
*) not_ok "--icount: guest time counts guest instructions" "output '$got'" ;;
esac

tap_done
