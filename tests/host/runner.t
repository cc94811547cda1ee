#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of scripts/run-guest: --help, usage errors (123) and setup errors (122)
# without a boot; then exit status, streams, build/out, the read-only root, paging modes,
# timeout and guest failures in real QEMU guests, several checks sharing one boot where
# each still fails on its own (10 boots; 9 without the no5level kernel).
# tests/host/runner-interrupt.t interrupts it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. scripts/lib.sh

run=scripts/run-guest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# forget_kept STDERR: a failed run keeps its directory for the user and names it; these
# failures are on purpose.
forget_kept() {
	local dir
	dir=$(sed -n 's|^run-guest: console log kept in \(.*/run/[A-Za-z0-9]*\)/console.log$|\1|p' "$1")
	[ -z "$dir" ] || rm -rf -- "$dir"
}

$run --help >"$tmp/out" 2>"$tmp/err"
rc=$?
missing=()
for word in --paging --la57-cpu --smp --mem --timeout --icount --kernel --plugin --help \
	122 123 124 125 130 143 129; do
	grep -q -- "$word" "$tmp/out" || missing+=("$word")
done
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && head -n 1 "$tmp/out" | grep -q '^usage: run-guest \[' &&
	[ ${#missing[@]} -eq 0 ]; then
	ok "--help: exit 0, the usage, every option and exit status on stdout"
else
	not_ok "--help: exit 0, the usage, every option and exit status on stdout" "exit $rc" \
		"missing: ${missing[*]}" "stderr: $(cat "$tmp/err")"
fi
$run -h >"$tmp/out-h" 2>&1
is "-h: exit 0, the same text" "$? $(cmp -s "$tmp/out" "$tmp/out-h" && echo same)" "0 same"

# usage_error WANT ARG...: exit 123, nothing on stdout, on stderr the usage line and one
# line matching WANT, before anything else is looked at (no boot: P4D_BUILD is empty).
mkdir "$tmp/empty"
touch "$tmp/fake.so"
usage_error() {
	local want=$1 rc name
	shift
	name=${*//$tmp/TMP}
	P4D_BUILD=$tmp/empty $run "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 123 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] &&
		head -n 1 "$tmp/err" | grep -q '^usage: run-guest \[' &&
		sed -n 2p "$tmp/err" | grep -q -- "^run-guest: .*$want"; then
		ok "usage error '$name': exit 123, the usage and one line naming it"
	else
		not_ok "usage error '$name': exit 123, the usage and one line naming it" "exit $rc" \
			"stderr: $(cat "$tmp/err")" "stdout: $(cat "$tmp/out")"
	fi
}
usage_error "--paging must be 5, 4 or no5lvl, not '3'" --paging 3 -- true
usage_error "--paging needs a value" --paging
usage_error "--smp .* not 'x'" --smp x -- true
usage_error "--smp .* 1 to 8, not '9'" --smp 9 -- true
usage_error "--smp .* not '0'" --smp 0 -- true
usage_error "--mem .* not '0G'" --mem 0G -- true
usage_error "--mem must be from 256M .* not '64M'" --mem 64M -- true
usage_error "--mem .* to 16G, not '17G'" --mem 17G -- true
usage_error "--mem must look like 512M or 2G, not '2GB'" --mem 2GB -- true
usage_error "--timeout .* not '0'" --timeout 0 -- true
usage_error "--timeout .* not '86401'" --timeout 86401 -- true
usage_error "--timeout needs a value" --timeout
usage_error "--kernel '/nonexistent' is not a file" --kernel /nonexistent -- true
usage_error "--kernel '$tmp' is not a file" --kernel "$tmp" -- true
usage_error "--plugin: no $tmp/none.so" --plugin "$tmp/none.so" -- true
usage_error "--icount needs one CPU" --icount --smp 2 -- true
usage_error "--plugin needs one CPU" --smp 2 --plugin "$tmp/fake.so" -- true
usage_error "unknown option '--bogus'" --bogus -- true
usage_error "'true' is not an option: put -- before the command" --paging 5 true
usage_error "no command given after --" --paging 5
usage_error "no command given after --" --paging 5 --
# The last of a repeated option counts: here the bad one.
usage_error "--mem .* not '64M'" --mem 2G --mem 64M -- true

# setup_error NAME WANT [ENV=VALUE...] -- ARG...: exit 122, nothing on stdout, one line on
# stderr matching WANT (what is missing and what to run).
setup_error() {
	local name=$1 want=$2 rc env=()
	shift 2
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	env "${env[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 122 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q -- "^run-guest: .*$want" "$tmp/err"; then
		ok "$name: exit 122, one line saying what to do"
	else
		not_ok "$name: exit 122, one line saying what to do" "exit $rc" \
			"stderr: $(cat "$tmp/err")" "stdout: $(cat "$tmp/out")"
	fi
}
setup_error "no kernel (P4D_BUILD empty)" "no kernel at $tmp/empty/.*run 'make kernel" \
	P4D_BUILD="$tmp/empty" -- $run -- true
setup_error "no initramfs (P4D_BUILD empty, --kernel given)" "no initramfs .*run 'make image'" \
	P4D_BUILD="$tmp/empty" -- $run --kernel "$tmp/fake.so" -- true
# Everything of /usr/bin but QEMU.
mkdir "$tmp/bin" "$tmp/build"
ln -s /usr/bin/* "$tmp/bin/"
rm -f "$tmp/bin/qemu-system-x86_64"
touch "$tmp/build/initramfs.cpio"
setup_error "no qemu-system-x86_64" "qemu-system-x86_64 missing: run 'make deps'" \
	P4D_BUILD="$tmp/build" PATH="$tmp/bin" -- $run --kernel "$tmp/fake.so" -- true
mkdir -p "$tmp/a b/scripts"
cp scripts/run-guest scripts/lib.sh "$tmp/a b/scripts/"
setup_error "a project path with a space" "has a space: move it" \
	P4D_BUILD="$tmp/a b/build" -- "$tmp/a b/scripts/run-guest" -- true
# An unreadable kernel: root reads every file unless it drops the capabilities to.
touch "$tmp/unreadable"
chmod 000 "$tmp/unreadable"
as_user=()
[ "$(id -u)" != 0 ] || as_user=(setpriv --bounding-set "-dac_override,-dac_read_search" --)
setup_error "an unreadable --kernel" "cannot read the kernel $tmp/unreadable" \
	P4D_BUILD="$tmp/build" -- "${as_user[@]}" $run --kernel "$tmp/unreadable" -- true
if [ -e "$tmp/empty/run" ] || [ -e "$tmp/build/run" ]; then
	not_ok "usage and setup errors create nothing" "$(find "$tmp/empty" "$tmp/build" -name run)"
else
	ok "usage and setup errors create nothing"
fi

if [ ! -f "$P4D_KERNELS/patched/arch/x86/boot/bzImage" ] || [ ! -f "$P4D_BUILD/initramfs.cpio" ]; then
	not_ok "boots: no patched kernel or initramfs" "run 'make kernel image'"
	tap_done
fi

# The paging mode a guest runs: CPUs with la57, the virtual address width, no5lvl given.
# shellcheck disable=SC2016 # expanded in the guest
mode_facts='echo mode: $(grep -c "^flags.* la57" /proc/cpuinfo) \
	$(grep -m1 "^address sizes" /proc/cpuinfo | grep -o "[0-9]* bits virtual") \
	$(tr " " "\n" </proc/cmdline | grep -x no5lvl)'

# Boot 1 (in the background, beside boot 2), no5lvl: exit status 0, the caller's own
# writes around the runner's output, the mode.
{
	echo before
	$run --paging no5lvl -- sh -c "sleep 2; echo inside; $mode_facts >&2"
	echo "status $?" >"$tmp/b.rc"
	echo after
} >"$tmp/b.out" 2>"$tmp/b.err" &
b_pid=$!

# Boot 2, 5-level: fake status lines on every stream, one line on each stream, a file
# written to build/out, a write to the read-only root, the mode; exit 7.
written=runner-t.$$.$RANDOM
# shellcheck disable=SC2016 # expanded in the guest
$run --paging 5 -- sh -c 'echo "P4DSCOPE-STATUS exit 0"; echo "P4DSCOPE-STATUS exit 0" >&2
	echo "P4DSCOPE-STATUS exit 0" >/dev/console
	echo to-stdout; echo to-stderr >&2
	echo written >"$P4DSCOPE_OUT/$1"
	touch /usr/p4dscope-must-fail 2>/dev/null; echo "touch status $?"
	'"$mode_facts"'
	exit 7' sh "$written" >"$tmp/a.out" 2>"$tmp/a.err"
a_rc=$?
wait $b_pid

is "exit status 7 propagates, printed status lines do not fake it" "$a_rc" 7
is "stdout arrives on stdout (and not on stderr)" \
	"$(grep -cx to-stdout "$tmp/a.out") $(grep -c to-stdout "$tmp/a.err")" "1 0"
is "stderr arrives on stderr, nothing else there" "$(cat "$tmp/a.err")" "P4DSCOPE-STATUS exit 0
to-stderr"
is "guest writes reach build/out on the host" "$(cat "build/out/$written" 2>&1)" written
rm -f "build/out/$written"
is "the host root is read-only in the guest (touch fails, nothing made)" \
	"$(grep '^touch status' "$tmp/a.out") $([ -e /usr/p4dscope-must-fail ] && echo made)" \
	"touch status 1 "
is "--paging 5 boots that mode (la57 CPUs, virtual bits, no5lvl)" \
	"$(grep '^mode:' "$tmp/a.out")" "mode: 2 57 bits virtual"
is "exit status 0 propagates" "$(cat "$tmp/b.rc")" "status 0"
is "output interleaves with the caller's writes" "$(tr '\n' ' ' <"$tmp/b.out")" "before inside after "
is "--paging no5lvl boots that mode (la57 CPUs, virtual bits, no5lvl)" \
	"$(cat "$tmp/b.err")" "mode: 0 57 bits virtual no5lvl"
is "two runs at once keep their own output and status" \
	"$(grep -c inside "$tmp/a.out") $(grep -c to-stdout "$tmp/b.out") $a_rc $(cat "$tmp/b.rc")" \
	"0 0 7 status 0"

# Boot 3.
is "--paging 4 boots that mode (la57 CPUs, virtual bits, no5lvl)" \
	"$($run --paging 4 -- sh -c "$mode_facts")" "mode: 0 48 bits virtual"

# Boot 4.
tag=p4d.test=timeout-$$
P4DSCOPE_APPEND=$tag $run --timeout 8 -- sleep 600 2>"$tmp/err"
is "a guest that outlives --timeout exits 124" "$?" 124
forget_kept "$tmp/err"
# The [q] keeps pgrep from matching this very command line. Status 1 is "no match": a
# missing pgrep (127) or a bad pattern (2) must not pass for it.
pgrep -f "[q]emu-system-x86_64 .*$tag" >/dev/null
is "no QEMU of the timed-out run is left (pgrep finds none: status 1)" "$?" 1

# Boot 5 (when built): --la57-cpu: the compiled-out kernel (CONFIG_X86_5LEVEL=n) runs
# 4-level paging on an LA57 CPU and hides la57, CPUID still says 57 bits; a compiled-in
# kernel would run 5-level there.
no5level=$P4D_KERNELS/no5level/arch/x86/boot/bzImage
if [ -f "$no5level" ]; then
	got=$($run --paging 4 --la57-cpu --kernel "$no5level" -- sh -c "$mode_facts")
	is "--paging 4 --la57-cpu boots the no5level kernel on 4-level paging" "$got" \
		"mode: 0 57 bits virtual"
else
	skip "--paging 4 --la57-cpu boots the no5level kernel on 4-level paging" \
		"no no5level kernel: run 'make kernel-no5level'"
fi

# Boot 6.
$run --paging 4 --la57-cpu -- true 2>"$tmp/err"
rc=$?
forget_kept "$tmp/err"
if [ $rc -eq 125 ] && grep -q 'paging-mismatch' "$tmp/err"; then
	ok "a 5-level kernel asked for --paging 4 --la57-cpu fails with 125"
else
	not_ok "a 5-level kernel asked for --paging 4 --la57-cpu fails with 125" "exit $rc" \
		"$(cat "$tmp/err")"
fi

# Boot 7.
P4DSCOPE_QEMU_CPU=qemu64 $run --paging 5 -- true 2>"$tmp/err"
rc=$?
forget_kept "$tmp/err"
if [ $rc -eq 125 ] && grep -q 'paging-mismatch' "$tmp/err"; then
	ok "a guest without LA57 asked for --paging 5 fails with 125"
else
	not_ok "a guest without LA57 asked for --paging 5 fails with 125" "exit $rc" "$(cat "$tmp/err")"
fi

# Boot 8: a CPU busy in the kernel past the soft-lockup threshold (2 s here: 2 x
# watchdog_thresh) panics the guest (guest-image/kernel.config): racehold holds one
# thread inside __p4d_alloc() for 20 s with nobody to release it. The panic and the
# lockup are each named, and the console shown. (run-guest's first line may follow the
# command's last output on the same line.)
$run --paging 5 -- sh -c "echo 1 >/proc/sys/kernel/watchdog_thresh && exec $P4D_TOOLS/racehold --hold 20" \
	>/dev/null 2>"$tmp/err"
rc=$?
forget_kept "$tmp/err"
if [ $rc -eq 125 ] && grep -q 'run-guest: guest kernel panicked$' "$tmp/err" &&
	grep -q '^run-guest: the guest kernel said: Kernel panic - not syncing' "$tmp/err" &&
	grep -q '^--- last lines of the guest console ---' "$tmp/err"; then
	ok "a kernel panic exits 125, names the panic and shows the console"
else
	not_ok "a kernel panic exits 125, names the panic and shows the console" "exit $rc" \
		"$(tail -n 40 "$tmp/err")"
fi
if [ $rc -eq 125 ] && grep -q '^run-guest: the guest kernel said: .*BUG: soft lockup' "$tmp/err"; then
	ok "a soft lockup panics the guest: exit 125, named"
else
	not_ok "a soft lockup panics the guest: exit 125, named" "exit $rc" "$(tail -n 40 "$tmp/err")"
fi

# Boot 9.
P4DSCOPE_APPEND=p4d.out=/nonexistent $run -- true 2>"$tmp/err"
rc=$?
forget_kept "$tmp/err"
if [ $rc -eq 125 ] && grep -q 'failed before the command ran' "$tmp/err"; then
	ok "a guest that never reaches the command exits 125"
else
	not_ok "a guest that never reaches the command exits 125" "exit $rc" "$(cat "$tmp/err")"
fi

# Boot 10: under --icount guest time counts instructions (shift=0: 1 ns each). A loop of
# 2e8 single-cycle iterations (dec + jnz: 4e8 instructions) takes 0.4 s of guest time.
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
