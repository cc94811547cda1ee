#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In a guest (scripts/run-guest -- analysis/results/7.3-syscall-tp-recursion/repro.sh
# [ROUNDS]): count highmap's mmap() returns twice at once, from the syscall exit
# tracepoint and from a kretprobe on the syscall's entry function, while six highmaps at
# a time and two CPU hogs share the guest's two CPUs; then print what each program ran
# and missed (kernel.bpf_stats_enabled). Both see the same calls: @tp and @kret must be
# equal, and any difference is what the tracepoint program lost.
set -euo pipefail
cd "$(dirname "$0")/../../.."
rounds=${1:-10}
out=$(mktemp)
sysctl -q kernel.bpf_stats_enabled=1
bpftrace -e '
tracepoint:syscalls:sys_exit_mmap /comm == "highmap"/ { @tp = count(); }
kretprobe:__x64_sys_mmap /comm == "highmap"/ { @kret = count(); }
BEGIN { printf("tracing\n"); }' >"$out" 2>&1 &
bt=$!
for _ in $(seq 60); do grep -q tracing "$out" && break; sleep 1; done
# Counting before both probes are attached would show a loss that is not one.
grep -q tracing "$out" || { cat "$out" >&2; echo "repro.sh: bpftrace not attached after 60 s" >&2; exit 1; }
(while :; do :; done) & hog1=$!
(while :; do :; done) & hog2=$!
for _ in $(seq "$rounds"); do
	pids=()
	for _ in 1 2 3 4 5 6; do build/bin/highmap 3 4 >/dev/null & pids+=($!); done
	wait "${pids[@]}"
done
kill "$hog1" "$hog2"
bpftool -j prog show | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("type") in ("tracepoint", "kprobe"):
        print(p["type"], p.get("name"), "run_cnt", p.get("run_cnt"),
              "recursion_misses", p.get("recursion_misses", 0))'
kill -INT "$bt"
wait "$bt" || true
grep '^@' "$out"
rm -f "$out"
