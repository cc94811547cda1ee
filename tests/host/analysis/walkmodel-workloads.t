#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The walk-model workloads (analysis/walkmodel/workloads) built and run natively on the
# host at tiny sizes: each does the work it was asked for and verifies it, the marks are
# in each binary once each, usage errors give one line and exit 2. Each result line is
# "workload=NAME key=value ...". Nothing here loads anything into the host's kernel.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
. tests/lib/tap.sh
bin=$PWD/build/walkmodel
workloads=(gups chase pagefault bsearch forkexec)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! make -s -C analysis/walkmodel/workloads >"$tmp/build" 2>&1; then
	not_ok "the workloads build" "$(cat "$tmp/build")"
	tap_done
fi
ok "the workloads build"

# run NAME ARG...: wl-NAME's stdout in $out, stderr in $err, exit status in $rc.
run() {
	local name=$1
	shift
	"$bin/wl-$name" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(cat "$tmp/out") err=$(cat "$tmp/err")
}
# field KEY: the value of KEY in the result line $out (empty when missing).
field() {
	local kv
	for kv in $out; do
		[ "${kv%%=*}" != "$1" ] || { echo "${kv#*=}"; return; }
	done
}
# result NAME WANT: ok when the last run exited 0 and printed one line for workload NAME
# whose fields hold every KEY=VALUE of WANT (space-separated).
result() {
	local name=$1 kv bad=()
	for kv in workload=$name $2; do
		[ "$(field "${kv%%=*}")" = "${kv#*=}" ] || bad+=("$kv")
	done
	if [ $rc = 0 ] && [ "$(wc -l <"$tmp/out")" = 1 ] && [ ${#bad[@]} = 0 ]; then
		ok "wl-$name: $2"
	else
		not_ok "wl-$name: $2" "exit $rc, wrong: ${bad[*]}" "stdout: $out" "stderr: $err"
	fi
}

run gups --size 1M --updates 100000 --seed 7 --thp off
result gups "size=1048576 words=131072 updates=100000 warmup=12500 seed=7 thp=off errors=0"
run gups --size 1M --updates 1000 --warmup 0
result gups "updates=1000 warmup=0 errors=0"

# The warm-up (one cycle by default) comes before the timed steps: the chase ends where
# warm-up + steps end, which end_ok checks.
run chase --pages 1000 --steps 12345
result chase "pages=1000 steps=12345 warmup=1000 regions=0 mappings=1 cycle_ok=1 end_ok=1"
is "wl-chase: the plain mapping is below 47 bits" "$(field low_regions)" 1
run chase --pages 1000 --steps 12345 --warmup 777
result chase "steps=12345 warmup=777 cycle_ok=1 end_ok=1"

# Three regions hinted at 1<<48, 2<<48, 3<<48. A 4-level kernel ignores the hints (all
# three below 47 bits); a 5-level one maps each at its hint, the ranges being free in a
# new process. Without la57 on the CPU the kernel cannot be 5-level.
run chase --pages 999 --regions 3 --steps 5000
result chase "pages=999 steps=5000 regions=3 spacing=281474976710656 mappings=3 elsewhere_regions=0 cycle_ok=1 end_ok=1"
high=$(field at_hint_regions) low=$(field low_regions)
is "wl-chase --regions 3: at_hint_regions + low_regions = 3" "$((high + low))" 3
if grep -qw la57 /proc/cpuinfo; then
	check "wl-chase --regions 3: all at their hints or all below 47 bits (high=$high)" \
		test "$high" = 0 -o "$high" = 3
else
	is "wl-chase --regions 3: no la57 on this CPU, so no region above 47 bits" "$high" 0
fi

# 512 GiB apart, below 47 bits: any kernel maps them at their hints (free in a new process).
run chase --pages 999 --regions 3 --spacing 512G --steps 5000
result chase "regions=3 spacing=549755813888 at_hint_regions=3 low_regions=0 elsewhere_regions=0 cycle_ok=1 end_ok=1"

# One minor fault per data page per round: the sparse layout defeats fault-around (see
# pagefault.c). Once in the default directory, once on tmpfs as in the guest.
for dir in "" /dev/shm; do
	[ -z "$dir" ] || [ -d "$dir" ] || { skip "wl-pagefault --dir $dir" "no $dir"; continue; }
	run pagefault --size 1M --rounds 4 ${dir:+--dir "$dir"}
	result pagefault "pages=256 stride=16 rounds=4 warmup=1 faults_per_round=256 data_ok=1 dir=${dir:-/tmp}"
	is "wl-pagefault --dir ${dir:-/tmp}: minflt = pages x rounds" "$(field minflt)" 1024
done
# The control: a dense file (--stride 1, lat_pagefault's own layout) faults less than once
# per page wherever the kernel maps up to 16 neighbours per read fault (the default).
run pagefault --size 1M --rounds 4 --stride 1
if [ $rc = 0 ] && [ "$(field minflt)" -lt 1024 ]; then
	ok "wl-pagefault --stride 1: fault-around shows ($(field minflt) faults for 1024 page reads)"
elif [ $rc = 0 ]; then
	skip "wl-pagefault --stride 1: fault-around shows" \
		"minflt=$(field minflt): fault-around is off"
else
	not_ok "wl-pagefault --stride 1 runs" "exit $rc" "stderr: $err"
fi

run bsearch --size 1M --lookups 100000
result bsearch "size=1048576 entries=131072 lookups=100000 warmup=12500 checked=1563 errors=0"

run forkexec --count 20
result forkexec "count=20 warmup=10 exec=$bin/wl-noop failed=0 warmup_failed=0"
run forkexec --count 3 --exec /bin/false
if [ $rc = 1 ] && [ "$(field failed)" = 3 ]; then
	ok "wl-forkexec counts children that fail (/bin/false: failed=3, exit 1)"
else
	not_ok "wl-forkexec counts children that fail (/bin/false: failed=3, exit 1)" \
		"exit $rc" "stdout: $out" "stderr: $err"
fi

for w in "${workloads[@]}"; do
	run "$w" --bogus
	if [ $rc = 2 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		[[ $err == "wl-$w: unknown option '--bogus'; usage: wl-$w "* ]]; then
		ok "wl-$w --bogus: one usage line on stderr, exit 2"
	else
		not_ok "wl-$w --bogus: one usage line on stderr, exit 2" "exit $rc" \
			"stdout: $out" "stderr: $err"
	fi
	run "$w" --help
	if [ $rc = 0 ] && [[ $out == "usage: wl-$w "* ]] && [ -z "$err" ]; then
		ok "wl-$w --help: usage on stdout, exit 0"
	else
		not_ok "wl-$w --help: usage on stdout, exit 0" "exit $rc" "stdout: $out" "stderr: $err"
	fi
done
run chase --pages 2 --regions 3
is "wl-chase --pages 2 --regions 3: a usage error" "$rc $(wc -l <"$tmp/err")" "2 1"
run chase --spacing 3G
is "wl-chase --spacing 3G (not a power of two): a usage error" "$rc $(wc -l <"$tmp/err")" "2 1"

# Under analysis/hw/run: WL_PERF_CTL names perf stat's control descriptors; wl_start()
# enables the counters and wl_stop() disables them, each waiting for perf's "ack".
printf 'ack\nack\n' >"$tmp/acks"
WL_PERF_CTL=3,4 "$bin/wl-chase" --pages 100 --steps 1000 3>"$tmp/ctl" 4<"$tmp/acks" >/dev/null 2>&1
is "WL_PERF_CTL: enable before the measured part, disable after, acknowledged" \
	"$? $(tr '\n' ' ' <"$tmp/ctl")" "0 enable disable "
WL_PERF_CTL=3,4 "$bin/wl-chase" --pages 100 --steps 1000 3>"$tmp/ctl" 4</dev/null >/dev/null 2>"$tmp/err"
is "WL_PERF_CTL without perf's answer: exit 1, one line" "$? $(wc -l <"$tmp/err")" "1 1"
WL_PERF_CTL=x "$bin/wl-chase" --pages 100 --steps 1000 >/dev/null 2>"$tmp/err"
is "WL_PERF_CTL=x: exit 1, one line" "$? $(wc -l <"$tmp/err")" "1 1"
run gups --size 12
is "wl-gups --size 12: a usage error" "$rc $(wc -l <"$tmp/err")" "2 1"
run bsearch --thp maybe
is "wl-bsearch --thp maybe: a usage error" "$rc $(wc -l <"$tmp/err")" "2 1"

# The marks (../walkmark.h): START, 0f 1f 80 00 57 4d 50, STOP, 0f 1f 80 01 57 4d 50, and
# WARMUP, 0f 1f 80 02 57 4d 50, each exactly once in every workload: a second copy would
# start or stop the count twice.
count_bytes() { LC_ALL=C grep -obaP "$1" "$2" | wc -l; }
for w in "${workloads[@]}"; do
	is "wl-$w holds START, STOP and WARMUP once each" \
		"$(count_bytes '\x0f\x1f\x80\x00\x57\x4d\x50' "$bin/wl-$w") $(count_bytes \
			'\x0f\x1f\x80\x01\x57\x4d\x50' "$bin/wl-$w") $(count_bytes \
			'\x0f\x1f\x80\x02\x57\x4d\x50' "$bin/wl-$w")" "1 1 1"
done
tap_done
