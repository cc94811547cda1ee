#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# p4dstat (bpf/) in the guest, held against ground truth: workloads whose P4D tables and
# TLB shootdowns follow from their layout (tests/workloads/p4dfamily.c, tlbshoot.c),
# tracefs and the function tracer over the same window for kernel syncs, kernel-range
# flushes, task-switch flushes (whose they are) and shootdown IPIs; a MAP_FIXED above 47
# bits that mmap() refuses on 4 levels; JSON against text; the fentry and kprobe
# fallbacks; the -C table and its drop counter; the 4-level notice; the error cases. Runs in the 5, 4 and no5lvl boots, and
# through tests/vanilla/p4dstat.t on the kernel without the series, where the
# expectations switch to the fallbacks.
#
# Counting windows: a workload waits on a FIFO until every p4dstat run says "Tracing",
# and all of them stop only after it has finished. Inside a window that counts the whole
# system the test's shell creates no process (nap and waits use bash builtins), and only
# one p4dstat counts the whole system: another one's exit would free P4D tables in it.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
. ../lib/guest.sh
p4dstat=$tools/p4dstat

if [ -d $tfs/events/pgtable ]; then kernel=series; else kernel=vanilla; fi
# P4D tables exist only with 5-level paging, and only there do hints above 47 bits get
# addresses above 47 bits.
five=0
[ "$mode" = 5 ] && five=1
# exec's temporary stack: a table of its own at the top of the 56-bit space on 5-level.
# With the exec RFC ($exec_rfc) it is built below 47 bits, in the new mm's first table,
# which copy_strings() then installs before the exec renames the task.
exec_stack=$((five * (1 - exec_rfc))) exec_first=$((five * exec_rfc))
# series_or VALUE: VALUE where the series' events count it, n/a (JSON null) without.
series_or() { if [ $kernel = series ]; then echo "$1"; else echo n/a; fi; }

declare -A p4d_pid

# start_p4dstat NAME ARG...: p4dstat ARG... in the background, output in $tmp/NAME.out
# and $tmp/NAME.err. started NAME...: each one says it is tracing.
start_p4dstat() {
	local name=$1
	shift
	: >"$tmp/$name.err"
	"$p4dstat" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	p4d_pid[$name]=$!
	bg+=($!)
}
started() {
	local name
	for name in "$@"; do
		# Starting loads a BPF object per counter group: seconds under TCG, minutes for
		# four at once on a loaded host.
		wait_for "$tmp/$name.err" Tracing "${p4d_pid[$name]}" 300 || {
			not_ok "p4dstat $name starts" "$(cat "$tmp/$name.err")"
			return 1
		}
	done
}
# stop_p4dstat NAME...: SIGINT to all at once (it prints the totals); ok when each exits 0.
stop_p4dstat() {
	local name
	for name in "$@"; do kill -INT "${p4d_pid[$name]}" 2>/dev/null; done
	for name in "$@"; do
		wait "${p4d_pid[$name]}"
		is "p4dstat $name exits 0 on SIGINT" "$?" 0
	done
}

# raw_new NAME FUNCS EVENT[=FILTER]...: a tracefs instance NAME, off, that records EVENTs
# (system/event; FILTER a tracefs filter, no "=" of its own needed: "prev_pid == 7") and,
# when FUNCS is not empty, runs the function tracer on FUNCS. raw_on NAME starts it (a
# builtin echo: it forks nothing); raw_stop NAME FILE keeps its trace as tracefs prints
# it (CPU numbers included) and removes it. mark NAME TEXT: a line in its trace.
raw_new() {
	local inst=$tfs/instances/$1 funcs=$2 ev
	shift 2
	[ ! -d "$inst" ] || rmdir "$inst"
	mkdir "$inst" && echo 0 >"$inst/tracing_on" && echo 4096 >"$inst/buffer_size_kb" ||
		return 1
	for ev in "$@"; do
		[[ $ev != *=* ]] || echo "${ev#*=}" >"$inst/events/${ev%%=*}/filter" || return 1
		echo 1 >"$inst/events/${ev%%=*}/enable" || return 1
	done
	if [ -n "$funcs" ]; then
		echo "$funcs" >"$inst/set_ftrace_filter" && echo function >"$inst/current_tracer" ||
			return 1
	fi
}
raw_on() { echo 1 >"$tfs/instances/$1/tracing_on"; }
mark() { echo "$2" >"$tfs/instances/$1/trace_marker"; }
raw_stop() {
	local inst=$tfs/instances/$1
	echo 0 >"$inst/tracing_on"
	cp "$inst/trace" "$2"
	echo nop >"$inst/current_tracer"
	rmdir "$inst"
}

# Everything read from p4dstat's output and from tracefs is gathered by one python3 run
# after the windows (python3 starts slowly in the guest) into facts[NAME:KEY].
cat >"$tmp/check.py" <<'PY'
import json, re, sys

LEVELS = {"p4d_live"}       # a level since start, not a count per interval

def load_json(path):
    """Every line one JSON object: intervals, then one summary."""
    objs = [json.loads(line) for line in open(path)]
    if not objs or objs[-1]["type"] != "summary":
        raise ValueError("no summary object last")
    if any(o["type"] != "interval" for o in objs[:-1]):
        raise ValueError("an object before the summary is no interval")
    return objs[:-1], objs[-1]

def counters(obj):
    keys = list(obj)
    return keys[keys.index("p4d_alloc_user"):keys.index("mmap_above47_bytes") + 1]

def summary(name, path):
    """The JSON parses, its intervals add up to its summary; print the summary."""
    try:
        intervals, s = load_json(path)
        for k in counters(s) + ["missed", "comms_dropped", "mmap_untracked", "follow_dropped"]:
            if k not in s or s[k] is None:
                continue
            if k in LEVELS:
                got = intervals[-1][k] if intervals else s[k]
                if any(o[k] < 0 for o in intervals) or got != s[k]:
                    raise ValueError(f"{k}: negative, or the last interval's is not the summary's")
                continue
            total = sum(o[k] for o in intervals)
            if total != s[k]:
                raise ValueError(f"intervals add up to {k}={total}, the summary says {s[k]}")
        if "lifetimes" in s and s["lifetimes"] is not None:
            n = sum(b["count"] for b in s["lifetimes"])
            paired = s["p4d_freed"] - s["p4d_freed_old"]
            if n != paired:
                raise ValueError(f"lifetimes hold {n} tables, {paired} were paired")
    except (ValueError, KeyError, OSError) as e:
        print(f"{name}:json_error {e}")
        return
    print(f"{name}:json_error ")
    for k, v in s.items():
        if k not in ("comms", "lifetimes"):
            print(f"{name}:{k}", "n/a" if v is None else v)
    print(f"{name}:comms_listed", len(s.get("comms", [])))
    for c in s.get("comms", []):
        for k, v in c.items():
            if k != "comm":
                print(f"{name}:comm:{c['comm']}:{k}", v)
    if "comms" in s:
        # -C: every table lands in a command's row, or in the drop counter.
        print(f"{name}:comm_alloc_sum", sum(c["p4d_alloc"] for c in s["comms"]))
        print(f"{name}:comm_freed_sum", sum(c["p4d_freed"] for c in s["comms"]))
        rows = sum(c["p4d_alloc"] + c["p4d_freed"] + c["tlb_flushes"] + c["tlb_kernel_calls"] +
                   c["mmap_above47"] for c in s["comms"])
        print(f"{name}:comm_accounted", rows + s["comms_dropped"])
        print(f"{name}:comm_events", sum(s[k] or 0 for k in [
            "p4d_alloc_user", "p4d_alloc_kernel", "p4d_freed", "tlb_flushes",
            "tlb_kernel_range_calls", "tlb_all_calls", "mmap_above47"]))

def parse_text(path):
    """(rows, cause lines, totals {label: value}, lines) of a -T -w run."""
    lines = open(path).read().split("\n")
    rows, causes, totals, part = [], [], {}, "rows"
    for line in lines[2:]:
        if line.startswith("Totals over"):
            part = "totals"
        elif line.startswith("P4D table lifetimes"):
            part = "lifetimes"
        elif line.startswith("    causes:"):
            causes.append(line.split()[1:])
        elif line.startswith("    ") or not line.strip():
            pass
        elif part == "rows":
            rows.append(line.split())
        elif part == "totals":
            label, value = line.strip().rsplit(None, 1)
            totals[label] = value
    return rows, causes, totals, lines

COLUMNS = ["p4d_alloc_user", "p4d_raced", "p4d_freed", "p4d_freed_old", "p4d_live",
           "sync_calls", "FLUSH", "tlb_shootdown_requests", "tlb_shootdown_ipis",
           "tlb_shootdown_received", "KTLB", "mmap_above47", "KB47"]

def agree(name, text_path, json_path):
    """A text (-T -w) and a JSON run over the same window: rows, causes, totals agree."""
    _, s = load_json(json_path)
    rows, causes, totals, lines = parse_text(text_path)
    bad = [f"line of {len(l)} columns: {l!r}" for l in lines if len(l) >= 80]
    bad += [f"row without a time: {r}" for r in rows if not re.fullmatch(r"\d\d:\d\d:\d\d", r[0])]
    rows = [r[1:] for r in rows]
    want = dict(s)
    na = lambda *ks: any(s[k] is None for k in ks)
    want["FLUSH"] = None if na("tlb_flushes") else s["tlb_flushes"] - s["tlb_shootdown_received"]
    want["KTLB"] = None if na("tlb_kernel_range_calls", "tlb_all_calls") else \
        s["tlb_kernel_range_calls"] + s["tlb_all_calls"]
    want["KB47"] = None if na("mmap_above47_bytes") else s["mmap_above47_bytes"] // 1024
    for i, key in enumerate(COLUMNS):
        col = [r[i] for r in rows]
        if want[key] is None:
            got = "n/a" if col and all(c == "n/a" for c in col) else col
        elif key in LEVELS:
            got = int(col[-1]) if col else None
        else:
            got = sum(int(c) for c in col)
        if got != ("n/a" if want[key] is None else want[key]):
            bad.append(f"rows give {key}={got}, JSON {want[key]}")
    if len(causes) != len(rows):
        bad.append(f"{len(rows)} rows, {len(causes)} cause lines")
    for k in ("first", "exec_stack", "high", "ldt", "kernel"):
        v = s["cause_" + k]
        got = [c[c.index(k) + 1] for c in causes]
        if v is None and any(g != "n/a" for g in got) or \
           v is not None and sum(int(g) for g in got) != v:
            bad.append(f"cause lines give {k}={got}, JSON {v}")
    labels = [l for l in totals if l != "events missed (BPF recursion)"]
    keys = counters(s)
    if len(labels) != len(keys):
        bad.append(f"{len(labels)} total lines, {len(keys)} JSON counters")
    for label, key in zip(labels, keys):
        if totals[label] != ("n/a" if s[key] is None else str(s[key])):
            bad.append(f"'{label}' {totals[label]}, JSON {key}={s[key]}")
    if not rows:
        bad.append("no rows in the text")
    print(f"{name}:mismatch", "; ".join(bad))

def tracefs(name, path, pid):
    """Counts of one process's records (tests/lib/tracefs.sh trace_stop format)."""
    counts = {}
    for line in open(path):
        words = line.split()
        if len(words) < 2 or words[0] != pid:
            continue
        ev, kv = words[1], dict(w.split("=", 1) for w in words[2:] if "=" in w)
        keys = [ev]
        if ev == "p4d_alloc":
            keys.append(f"p4d_alloc_init_mm={kv['init_mm']}")
        elif ev == "tlb_flush":
            # "pages:N reason:NAME (R)": a flush when pages != 0, by reason number R
            pages = next(w for w in words if w.startswith("pages:"))
            keys.append("tlb_noop" if pages == "pages:0" else "tlb_" + words[-1].strip("()"))
        elif ev == "kernel_pgd_sync":
            counts["sync_copied"] = counts.get("sync_copied", 0) + int(kv["copied"])
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
    for k, v in counts.items():
        print(f"{name}:{k}", v)

def ftrace(name, path, pid):
    """Function-tracer lines of one process: calls per function."""
    counts = {}
    for line in open(path):
        m = re.match(r"\s*.*-(\d+)\s+\[\d+\]\s+\S+\s+[\d.]+: (\w+) <-", line)
        if m and m.group(1) == pid:
            counts[m.group(2)] = counts.get(m.group(2), 0) + 1
    for k, v in counts.items():
        print(f"{name}:{k}", v)

RAW = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+[\d.]+: (\w+):? (.*)$")

def tlbraw(name, path, pids):
    """A raw trace (sched_switch, tlb_flush, the call-function IPI events, the function
    tracer on flush_tlb_func, markers) read as p4dstat counts for PIDS: flushes by reason
    (pages != 0) of a current PID; task-switch flushes charged to the task that ran after
    them when it leaves the CPU; IPIs that ran flush_tlb_func while a PID was current.
    "out": the whole trace; "in": flushes and charges between the markers p4dstat-in and
    p4dstat-out (a window inside p4dstat's). The switches may be only those into and out
    of PIDS: a charge at a switch out of one then counts the flushes since its switch in,
    which are the same ones."""
    pids = {int(p) for p in pids.split(",")}
    counts = {"in": {}, "out": {}}
    inside = False
    pending, ipi = {}, {}
    def add(windows, key, n=1):
        for w in windows:
            counts[w][key] = counts[w].get(key, 0) + n
    for line in open(path):
        m = RAW.match(line)
        if not m:
            continue
        pid, cpu, ev, rest = int(m[2]), int(m[3]), m[4], m[5]
        here = ["in", "out"] if inside else ["out"]
        if ev == "tracing_mark_write":
            inside = rest.strip() == "p4dstat-in"
        elif ev == "sched_switch":
            prev = int(re.search(r"prev_pid=(\d+)", rest)[1])
            got = pending.get(cpu, {"in": 0, "out": 0})
            if prev in pids:
                add(["out"], "switch", got["out"])
                if inside:
                    add(["in"], "switch", got["in"])
            pending[cpu] = {"in": 0, "out": 0}
        elif ev == "tlb_flush":
            f = re.match(r"pages:(-?\d+) reason:.* \((\d+)\)$", rest)
            if int(f[1]) == 0:
                continue
            if int(f[2]) == 0:
                p = pending.setdefault(cpu, {"in": 0, "out": 0})
                for w in here:
                    p[w] += 1
            elif pid in pids:
                add(here, "tlb_" + f[2])
        elif ev in ("call_function_entry", "call_function_single_entry"):
            ipi[cpu] = 1
        elif ev in ("call_function_exit", "call_function_single_exit"):
            ipi[cpu] = 0
        elif ev == "flush_tlb_func" and ipi.get(cpu) == 1:
            ipi[cpu] = 2
            if pid in pids:
                add(here, "ipi")
    for w, c in counts.items():
        for k in ("switch", "ipi", "tlb_1", "tlb_2", "tlb_3", "tlb_4"):
            print(f"{name}:{w}:{k}", c.get(k, 0))

for job in sys.argv[1:]:
    kind, *args = job.split("|")
    globals()[kind](*args)
PY

# gather JOB...: run check.py's jobs (kind|arg|...), load what they print into facts[].
declare -A facts
gather() {
	local key value
	python3 "$tmp/check.py" "$@" >"$tmp/facts" 2>"$tmp/facts.err" ||
		not_ok "reading p4dstat's output with python3" "$(cat "$tmp/facts.err")"
	while read -r key value; do
		facts[$key]=$value
	done <"$tmp/facts"
}
# val NAME:KEY: a gathered fact into $v ("missing" when absent; counts of tracefs, 0).
val() {
	local default=missing
	[[ $1 != trace*:* && $1 != ftrace:* ]] || default=0
	v=${facts[$1]-$default}
}
# expect NAME KEY WANT [WHY]: a total of the JSON run NAME
expect() {
	val "$1:$2"
	is "$1: $2 = $3${4:+ ($4)}" "$v" "$3"
}
sources_say() {	# sources_say NAME GROUP TEXT: -v names TEXT as the source of GROUP
	local line
	while IFS= read -r line; do
		[[ $line != "  $2 "*"$3"* ]] || { ok "$1 -v: $2 from $3"; return; }
	done <"$tmp/$1.err"
	not_ok "$1 -v: $2 from $3" "$(cat "$tmp/$1.err")"
}
# notices NAME PATTERN: how many stderr lines of run NAME match PATTERN (builtins only).
notices() {
	local line n=0
	while IFS= read -r line; do [[ $line != *"$2"* ]] || n=$((n + 1)); done <"$tmp/$1.err"
	echo $n
}

######## The counting windows ##########################################################

## 1. A fresh exec with K high regions and N children: whole system, and -p of it
# A gated subshell execs p4dfamily K N (tests/workloads/p4dfamily.c says what it makes).
# Counted system-wide by one run, and by four -p runs of the subshell's PID (the process
# that execs): tracepoints as JSON and as text, fexit/fentry, kprobes.
K=3 N=4
gate family
( read -r -u "${gate_fd[family]}" _; exec "$bin"/p4dfamily $K $N >"$tmp/family" ) &
family=$!
# The -p runs start first and wide last, and wide stops first: the start and the exit of
# a p4dstat would allocate and free P4D tables in wide's window.
start_p4dstat parent -j -C -L -p $family 3600
start_p4dstat ptext -T -w -C -L -p $family 3600
start_p4dstat pfentry -j -v --probes=fentry -p $family 3600
start_p4dstat pkprobe -j -v --probes=kprobe -p $family 3600
started parent ptext pfentry pkprobe
# The subshell's switches and task-switch flushes, from when wide counts (the subshell
# is parked on the gate) until after the runs stop: whose each flush is, the ground truth
# of tlb_task_switch. Only the switches into and out of it: a flush charged to it at a
# switch out waits since the switch in, which is recorded too.
raw_new p4dstat-family "" \
	"sched/sched_switch=prev_pid == $family || next_pid == $family" "tlb/tlb_flush=reason == 0"
start_p4dstat wide -j -C -L 3600
started wide
raw_on p4dstat-family
open_gate family
wait $family
family_rc=$?
stop_p4dstat wide
stop_p4dstat parent ptext pfentry pkprobe
raw_stop p4dstat-family "$tmp/raw-family"

## 2. TLB shootdowns of one process (-p): tlbshoot M, one thread spinning on each CPU
# tracefs records the same flushes, the switches, and the call-function IPIs with the
# function tracer on flush_tlb_func inside them; markers bound a window inside p4dstat's.
M=20
start_gated tlb "$bin"/tlbshoot $M
tlb=$! tlb_fd=${out_fd[tlb]}
bg+=("$tlb")
read -r -t 60 -u "$tlb_fd" tlb_ready
# Only what concerns tlbshoot's threads (an IPI counts for the task it interrupts), and
# every task-switch flush, whose owner the switches into and out of them decide.
ours="common_pid == $tlb || common_pid == $((tlb + 1))"
raw_new p4dstat-tlb flush_tlb_func "tlb/tlb_flush=reason == 0 || $ours" \
	"sched/sched_switch=prev_pid == $tlb || prev_pid == $((tlb + 1)) || next_pid == $tlb || next_pid == $((tlb + 1))" \
	"irq_vectors/call_function_entry=$ours" "irq_vectors/call_function_exit=$ours" \
	"irq_vectors/call_function_single_entry=$ours" "irq_vectors/call_function_single_exit=$ours"
raw_on p4dstat-tlb
start_p4dstat tlb -j -p $tlb 3600
started tlb
mark p4dstat-tlb p4dstat-in
open_gate tlb
# A blocking read: no wakeup of this shell while the munmaps run.
read -r -t 60 -u "$tlb_fd" tlb_done
mark p4dstat-tlb p4dstat-out
stop_p4dstat tlb
raw_stop p4dstat-tlb "$tmp/raw-tlb"
open_gate tlb
wait $tlb
tlb_rc=$?

## 3. Kernel top-level syncs and kernel-range flushes of one process (-p)
# A gated subshell adds a memory block through the sysfs probe (which syncs the kernel's
# top-level entries), switches the function tracer of a scratch trace instance on and
# off, then execs a second p4dstat. Switching it off frees ftrace's trampoline for that
# instance in the subshell itself (ftrace_shutdown(): a dynamic ftrace_ops' trampoline,
# 6.1 and 6.12): module memory (VM_FLUSH_RESET_PERMS), whose vfree() flushes the area
# and its pages' direct map, purging lazily freed areas or not (mm/vmalloc.c:
# _vm_unmap_aliases() with flush set, from vm_remove_mappings() in 6.1, vm_reset_perms()
# in 6.12): at least one flush_tlb_kernel_range() of the subshell's, every time. Making
# pages read-only (the trampoline's, and the BPF trampolines of the second p4dstat's
# fentry programs) may flush more: vm_unmap_aliases() when lazily freed areas wait,
# flush_tlb_all() after splitting a large page. tracefs and the function tracer count
# the same process over the same window.
block=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
for ((addr = 0x8000000000; ; addr += block)); do
	[ -e /sys/devices/system/memory/memory$((addr / block)) ] || break
done
printf -v hexaddr '%#x' $addr
# On a function nothing calls here: switching the tracer patches one call site.
scratch=$tfs/instances/p4dstat-tramp
[ ! -d "$scratch" ] || rmdir "$scratch"
mkdir "$scratch" && echo kernel_restart >"$scratch/set_ftrace_filter"
at_exit "rmdir $scratch 2>/dev/null"
gate kernel
( read -r -u "${gate_fd[kernel]}" _
  echo "$hexaddr" >/sys/devices/system/memory/probe || exit 3
  echo function >"$scratch/current_tracer" && echo nop >"$scratch/current_tracer" || exit 4
  exec "$p4dstat" 1 1 >/dev/null 2>&1 ) &
ksub=$!
ftrace=$tfs/instances/p4dstat-ftrace
funcs="flush_tlb_kernel_range flush_tlb_all"
[ $kernel = series ] || funcs+=" sync_global_pgds"
mkdir "$ftrace" && echo "$funcs" >"$ftrace/set_ftrace_filter" &&
	echo function >"$ftrace/current_tracer"
[ $kernel = vanilla ] || trace_start p4dstat pgtable/kernel_pgd_sync pgtable/p4d_alloc
start_p4dstat kernel -j -p $ksub
started kernel
open_gate kernel
wait $ksub
ksub_rc=$?
echo 0 >"$ftrace/tracing_on"
cp "$ftrace/trace" "$tmp/ftrace"
echo nop >"$ftrace/current_tracer"
rmdir "$ftrace" "$scratch"
if [ $kernel = series ]; then
	trace_stop p4dstat "$tmp/events-kernel"
	[ -z "${P4DSTAT_T_DEBUG:-}" ] || { echo "# ksub=$ksub"; sed 's/^/# /' "$tmp/events-kernel"; }
else
	: >"$tmp/events-kernel"
fi
stop_p4dstat kernel

## 4. -C with too few slots (series kernel only): four commands p4dc-a..d each map a
## page above 47 bits, the table has two slots.
if [ $kernel = series ]; then
	for c in a b c d; do ln -s "$bin"/mmaphint "$tmp/p4dc-$c"; done
	start_p4dstat drops -j -C --comms=2 1
	if started drops; then
		for c in a b c d; do "$tmp/p4dc-$c" $((1 << 50)) >/dev/null; done
	fi
	stop_p4dstat drops
fi

## 5. A MAP_FIXED at 1<<48, which mmap() refuses on 4-level paging (-p)
# get_unmapped_area places it there on every boot (outcome fixed), then the generic
# get_unmapped_area() fails it against TASK_SIZE where 47 bits is the limit: a decision
# above 47 bits, a placement only on 5-level.
gate fixed
( read -r -u "${gate_fd[fixed]}" _
  exec "$bin"/mmaphint 0x1000000000000 4096 fixed >"$tmp/fixed" ) &
fixed=$!
start_p4dstat fixed -j -p $fixed 3600
started fixed
open_gate fixed
wait $fixed
fixed_rc=$?
stop_p4dstat fixed

## 6. -- CMD: one command and its descendants, not another process doing the same
# CMD is a bash that lets an outside p4dfamily 2 3 (a subshell of this test) run to its
# end inside the window, waits until the test has seen it end, then execs p4dfamily K N:
# two execs (p4dstat's parked copy into bash, bash into p4dfamily) and N children.
# bash by its full path: execvp() trying PATH's earlier folders would count one exec
# stack table per failed execve() (alloc_bprm() builds the new mm and copy_strings()
# fills its stack before bprm_execve() opens the file: 6.1 fs/exec.c:1943-1992).
mkfifo "$tmp/cmd-go" "$tmp/cmd-done"
( read -r _ <"$tmp/cmd-go"; exec "$bin"/p4dfamily 2 3 >"$tmp/outside" ) &
outside=$!
start_p4dstat cmd -j 3600 -- \
	"$BASH" -c 'echo go >"$1"; read -r _ <"$2"; exec "$3" "$4" "$5" >"$6"' \
	_ "$tmp/cmd-go" "$tmp/cmd-done" "$bin/p4dfamily" $K $N "$tmp/inside"
if started cmd; then
	wait $outside
	outside_rc=$?
	echo over >"$tmp/cmd-done"
	wait "${p4d_pid[cmd]}"
	is "p4dstat -- CMD exits with CMD's status when it ends" "$?" 0
else
	kill $outside "${p4d_pid[cmd]}"
	outside_rc=killed
fi

######## What they counted #############################################################
jobs=()
for r in "${!p4d_pid[@]}"; do
	[ "$r" = ptext ] || jobs+=("summary|$r|$tmp/$r.out")
done
jobs+=("agree|ptext|$tmp/ptext.out|$tmp/parent.out"
	"tracefs|tracek|$tmp/events-kernel|$ksub" "ftrace|ftrace|$tmp/ftrace|$ksub")
# tlbshoot's threads are tasks of their own in tracefs: the spinner is the main PID + 1.
jobs+=("tlbraw|rawt|$tmp/raw-tlb|$tlb,$((tlb + 1))" "tlbraw|rawf|$tmp/raw-family|$family")
gather "${jobs[@]}"
for r in "${!p4d_pid[@]}"; do
	[ "$r" = ptext ] || expect "$r" json_error "" "every line parses as JSON, intervals add up"
done

## 1. the family
is "p4dfamily $K $N exits 0" "$family_rc" 0
is "p4dfamily: $K mappings above 47 bits on 5-level, none on 4-level" \
	"$(cat "$tmp/family")" "high=$((five * K))"
# What the layout makes on 5-level (p4dfamily.c): exec's stack table 1, PGD slot 0 of
# the new mm and of each child 1 + N, the regions K x (1 + N); the exec also frees the
# subshell's slot-0 table, allocated before the trace (OLD).
first=$((five * (1 + N))) stack=$exec_stack high=$((five * K * (1 + N)))
expect wide cause_exec_stack "$(series_or $stack)" "execve's temporary stack"
expect wide cause_first "$(series_or $first)" "PGD slot 0: exec + $N children"
expect wide cause_high "$(series_or $high)" "$K regions x (1 + $N) processes"
expect wide cause_ldt "$(series_or 0)" "no PTI in the guest: tests/host/p4dstat-cause.t"
expect wide cause_kernel "$(series_or 0)"
expect wide p4d_alloc_user $((first + stack + high))
expect wide p4d_alloc_kernel 0
expect wide p4d_freed $((first + stack + high + five)) "all of them + the subshell's"
expect wide p4d_freed_old "$(series_or $five)" "the subshell's slot 0"
expect wide p4d_live "$(series_or 0)" "every process has exited"
expect wide p4d_raced "$(series_or 0)"
expect wide p4d_nomem 0
# -C charges a table to the command running when it is installed: exec's stack table
# (with the exec RFC, the new mm's slot 0) to the name before the exec, everything after
# it to p4dfamily.
# Its free goes where its allocation went; without the series a free cannot be paired
# and goes to the command running it: exec's stack table is freed after the rename. The
# subshell's slot 0 (OLD) goes to the command freeing it: p4dfamily on 7.x, where exec
# releases the old mm after the rename.
old=$((five * old_mm_renamed))
expect wide comm:p4dfamily:p4d_alloc $((first + high - exec_first)) "-C: from the new name on"
if [ $kernel = series ]; then
	expect wide comm:p4dfamily:p4d_freed $((first + high + old - exec_first)) \
		"-C: balances, + OLD on 7.x"
else
	expect wide comm:p4dfamily:p4d_freed $((first + high + stack + old)) "-C: by the freeing command"
fi
val wide:p4d_alloc_user
expect wide comm_alloc_sum "$v" "-C rows add up to the allocations"
val wide:p4d_freed
expect wide comm_freed_sum "$v" "-C rows add up to the frees"
# Every event in a row or dropped. Not "nothing dropped" although 256 slots are free: a
# new command's first event in an interrupt, while a program on the same CPU inserts
# into the table, is refused (the hash map's nested insert gets EBUSY) and dropped; seen
# once in a vanilla-kernel boot.
val wide:comm_events
expect wide comm_accounted "$v" "-C rows + dropped = every event counted"
expect wide missed 0 "no event skipped by BPF recursion"
# -p of the process that execs: its own address spaces, not its children's.
expect parent p4d_alloc_user $((exec_stack + five * (1 + K))) "stack, slot 0, $K regions"
expect parent p4d_freed $((exec_stack + five * (2 + K))) "the same + the old mm's slot 0"
expect parent p4d_freed_old "$(series_or $five)"
expect parent p4d_live "$(series_or 0)" "balanced at exit"
expect parent cause_exec_stack "$(series_or $exec_stack)"
expect parent cause_first "$(series_or $five)"
expect parent cause_high "$(series_or $((five * K)))"
expect parent gua_above47 $((five * K))
expect parent mmap_above47 $((five * K)) "mmap() succeeded above 47 bits"
expect parent mmap_above47_bytes $((five * K * 4096))
# Task-switch flushes are the task's that runs after them: tracefs's switches and flushes
# over the same window, charged by that rule, give the subshell's exactly.
val rawf:out:switch
expect parent tlb_task_switch "$v" "tracefs: flushes into it, charged when it leaves a CPU"
for r in pfentry pkprobe; do
	expect $r p4d_alloc_user $((exec_stack + five * (1 + K))) "--probes=${r#p}"
	expect $r p4d_freed $((exec_stack + five * (2 + K))) "--probes=${r#p}"
	for k in p4d_raced p4d_live p4d_freed_old cause_first cause_high; do
		expect $r $k n/a "a fallback cannot pair frees or tell a race"
	done
done
if [ $kernel = series ]; then
	expect pfentry gua_above47 $((five * K)) "fexit get_unmapped_area"
	expect pfentry mmap_above47 $((five * K)) "fexit ksys_mmap_pgoff"
	sources_say pfentry "mmap() placements" "fexit ksys_mmap_pgoff"
	sources_say pfentry "P4D allocations" "fexit __p4d_alloc"
	sources_say pfentry "P4D frees" "fentry ___p4d_free_tlb"
	check "--probes=fentry: says once which counters are n/a" \
		test "$(notices pfentry "n/a: p4d_raced")" = 1
	is "--probes=fentry: no counter named n/a twice" \
		"$(sed -n 's/^p4dstat: n\/a: \(.*\) (.*)$/\1/p' "$tmp/pfentry.err" | tr -d ' ' |
			tr ',' '\n' | sort | uniq -d)" ""
fi
sources_say pkprobe "P4D allocations" "kprobe+kretprobe __p4d_alloc"
sources_say pkprobe "P4D frees" "kprobe ___p4d_free_tlb"
for k in p4d_raced gua_above47 gua_window_full tlb_flushes mmap_above47; do
	expect pkprobe $k n/a "no kprobe source"
done
val ptext:mismatch
is "text (-T -w -C -L) agrees with JSON over the same window, rows under 80 columns" "$v" ""

# What p4dstat says on stderr: the banner; on 4 levels one notice; without the series
# one line per counter group it cannot feed fully.
if [ $five = 1 ]; then
	is "5-level: no folded-level notice" "$(notices wide "P4D level is folded")" 0
else
	# Every P4D count of wide is 0 here: the expectations above, with five=0.
	is "$mode: the folded-level notice, once" "$(notices wide "P4D level is folded")" 1
fi
if [ $kernel = series ]; then
	is "series kernel: no n/a notice by default" "$(notices wide "n/a:")" 0
else
	check "without the series: says why RACE, OLD, LIVE and the causes are n/a" \
		test "$(notices wide "n/a: p4d_raced, p4d_live, cause_first")" = 1
	# The kernel's BTF has no btf_trace_p4d_alloc: the series' event is absent, and only
	# that makes the cause "kernel without the series".
	check "without the series: the cause is the series' absent event" \
		test "$(notices wide "(no pgtable:p4d_alloc: kernel without p4dscope's series)")" = 1
fi

## 2. TLB
is "tlbshoot: ready, then $M munmaps, exit 0" "${tlb_ready%% *} $tlb_done $tlb_rc" \
	"ready done unmapped=$M 0"
# Each munmap() of a touched page: one shootdown sent (native_flush_tlb_multi), one
# flush of the range on the unmapping CPU. CPU 1, where the other thread spins in the
# mm, flushes on receiving it unless the kernel skips it, as arch/x86/mm/tlb.c
# documents: a lazy CPU or one that switched to another mm (should_flush_tlb(),
# flush_tlb_func()), or one already up to date (a flush of 0 pages, not a flush). How
# often CPU 1 was elsewhere the layout cannot say (3 to 20 of 20 received, seen here),
# so RECV is held to the bound and to tlb:tlb_flush with pages != 0 in tracefs.
expect tlb tlb_shootdown_requests $M "one per munmap, IPI or not"
expect tlb tlb_local_mm_shootdown $M "the unmapping CPU's own"
val tlb:tlb_shootdown_received
received=$v
check "tlb: shootdowns received ($received) <= requests ($M)" test "$received" -le $M
val rawt:out:tlb_1
expect tlb tlb_shootdown_received "$v" "tracefs: remote shootdown, pages != 0"
# Task switches and IPIs also happen while tlbshoot is parked, before and after the
# munmaps: p4dstat's count lies between tracefs's inside the markers and over the trace.
# within NAME KEY: "in" <= p4dstat's KEY <= "out" for the model's NAME.
within() {
	local lo hi got
	val "rawt:in:$1" && lo=$v
	val "rawt:out:$1" && hi=$v
	val "tlb:$2" && got=$v
	check "tlb: $2 ($got) within tracefs's $lo..$hi ($3)" \
		test "$lo" -le "$got" -a "$got" -le "$hi"
}
within switch tlb_task_switch "flushes into tlbshoot's threads, charged when they leave a CPU"
within ipi tlb_shootdown_ipis "call-function IPIs that ran flush_tlb_func in tlbshoot"
val tlb:tlb_shootdown_ipis
check "tlb: tracefs saw shootdown IPIs in the munmaps ($v)" test "$v" -gt 0
val tlb:tlb_task_switch
switches=$v
val tlb:tlb_batched_local
expect tlb tlb_flushes "$((switches + v + received + M))" "flushes done, not requests"

## 3. kernel syncs and kernel-range flushes
is "memory probe at $hexaddr, the scratch tracer on and off, and the second p4dstat succeed" \
	"$ksub_rc" 0
if [ $kernel = series ]; then
	val tracek:kernel_pgd_sync
	expect kernel sync_calls "$v" "tracefs kernel_pgd_sync"
	val tracek:sync_copied
	expect kernel sync_copied "$v" "tracefs, summed"
	val tracek:p4d_alloc_init_mm=1
	expect kernel p4d_alloc_kernel "$v" "tracefs p4d_alloc init_mm=1"
else
	val ftrace:sync_global_pgds
	expect kernel sync_calls "$v" "function tracer"
	expect kernel sync_copied n/a "needs the series"
fi
val kernel:sync_calls
check "the hotplug synced kernel top-level entries ($v)" test "$v" -gt 0
val ftrace:flush_tlb_kernel_range
ranges=$v
val ftrace:flush_tlb_all
alls=$v
check "the window had kernel-range flushes ($ranges), at least the trampoline free's" \
	test "$ranges" -gt 0
expect kernel tlb_kernel_range_calls "$ranges" "function tracer"
expect kernel tlb_all_calls "$alls" "function tracer"

## 4. -C drops
if [ $kernel = series ]; then
	val drops:comms_listed
	check "-C --comms=2: at most 2 commands listed ($v)" test "$v" -le 2
	val drops:comms_dropped
	check "-C --comms=2: dropped events are counted ($v)" test "$v" -gt 0
	val drops:comm_events
	expect drops comm_accounted "$v" "-C rows + dropped = every event counted"
	expect drops mmap_above47 $((five * 4)) "one per p4dc-*"
fi

## 5. the refused MAP_FIXED
if [ $five = 1 ]; then
	is "MAP_FIXED at 1<<48 succeeds on 5-level" "$fixed_rc $(cat "$tmp/fixed")" \
		"0 hint=0x1000000000000 len=4096 addr=0x1000000000000 above47=yes"
else
	is "MAP_FIXED at 1<<48 is refused on $mode" "$fixed_rc $(cat "$tmp/fixed")" \
		"1 hint=0x1000000000000 len=4096 error=ENOMEM"
fi
# The series' event sees the decision on every boot; fexit get_unmapped_area sees the
# generic function's result, which is the error on 4 levels.
if [ $kernel = series ]; then want=1; else want=$five; fi
expect fixed gua_above47 $want "the decision"
expect fixed mmap_above47 $five "a placement only if mmap() succeeded"
expect fixed mmap_above47_bytes $((five * 4096))

## 6. -- CMD
is "the outside p4dfamily 2 3 ran in the window" "$outside_rc $(cat "$tmp/outside")" \
	"0 high=$((five * 2))"
is "CMD's p4dfamily $K $N ran" "$(cat "$tmp/inside")" "high=$((five * K))"
# Each exec: its stack table and the new mm's slot 0 (one table with the exec RFC);
# then slot 0 of N children and K regions in 1 + N processes. Frees: all of them and
# the parked copy's slot 0, which p4dstat forked before it started counting (OLD).
per_exec=$((exec_stack + five)) high=$((five * K * (1 + N)))
expect cmd p4d_alloc_user $((2 * per_exec + five * N + high)) "2 execs, $N children, regions"
expect cmd cause_exec_stack "$(series_or $((2 * exec_stack)))" "one per exec"
expect cmd cause_first "$(series_or $((five * (2 + N))))" "slot 0: 2 execs + $N children"
expect cmd cause_high "$(series_or $high)" "$K regions x (1 + $N) processes"
expect cmd p4d_freed $((2 * per_exec + five * N + high + five)) "all + the parked copy's"
expect cmd p4d_freed_old "$(series_or $five)" "the parked copy's slot 0"
expect cmd p4d_live "$(series_or 0)" "every process has exited"
expect cmd mmap_above47 $((five * K)) "CMD's mmaps only, not the outside's"
expect cmd mmap_above47_bytes $((five * K * 4096))
expect cmd follow_dropped 0
expect cmd mmap_untracked 0

######## Errors: one line each, exit 1 (runtime) or 2 (usage) ##########################
error_case() {	# error_case NAME WANT-STATUS WANT-LINE CMD...
	local name=$1 want_rc=$2 want=$3 rc
	shift 3
	"$@" >"$tmp/err.out" 2>"$tmp/err.err"
	rc=$?
	if [ $rc = "$want_rc" ] && [ "$(cat "$tmp/err.err")" = "$want" ] && [ ! -s "$tmp/err.out" ]
	then
		ok "error: $name -> exit $want_rc, '$want'"
	else
		not_ok "error: $name -> exit $want_rc, '$want'" "exit $rc" \
			"stderr: $(cat "$tmp/err.err")" "stdout: $(head -c 200 "$tmp/err.out")"
	fi
}
if [ $kernel = series ]; then
	error_case "not root" 1 \
		"p4dstat: needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$p4dstat" 1 1
	mount --bind /dev/null /sys/kernel/btf/vmlinux
	error_case "no BTF" 1 \
		"p4dstat: no kernel BTF in /sys/kernel/btf/vmlinux (needs CONFIG_DEBUG_INFO_BTF)" \
		"$p4dstat" 1 1
	umount /sys/kernel/btf/vmlinux
	error_case "unknown option" 2 "p4dstat: unknown option '--bogus' (see p4dstat --help)" \
		"$p4dstat" --bogus
	error_case "bad interval" 2 \
		"p4dstat: bad interval '0': want a whole number, 1 or more (see p4dstat --help)" \
		"$p4dstat" 0
	true &
	gone=$!
	wait $gone
	error_case "PID that does not exist" 1 "p4dstat: no process with PID $gone" \
		"$p4dstat" -p $gone 1 1
	# mmap() placements do not need the syscall tracepoint (which would put every
	# syscall on the slow path): libbpf (1.1) attaches syscalls:sys_exit_mmap by the id
	# file under /sys/kernel/debug/tracing, and an empty tmpfs there hides it.
	mount -t tmpfs none /sys/kernel/debug/tracing
	"$p4dstat" -v 1 1 >"$tmp/hidden.out" 2>"$tmp/hidden.err"
	rc=$?
	umount /sys/kernel/debug/tracing
	if [ $rc = 0 ] && ! grep -q '^p4dstat: n/a: ' "$tmp/hidden.err" &&
		grep -q '^  mmap() placements *fexit ksys_mmap_pgoff$' "$tmp/hidden.err"; then
		ok "mmap() placements from fexit ksys_mmap_pgoff, sys_exit_mmap not needed"
	else
		not_ok "mmap() placements from fexit ksys_mmap_pgoff, sys_exit_mmap not needed" \
			"exit $rc" "stderr: $(grep -v '^libbpf\|^[0-9]*: \|^;' "$tmp/hidden.err")"
	fi
	# -- CMD: p4dstat's status is CMD's; a signal's death is 128 + its number.
	"$p4dstat" -- bash -c 'exit 7' >/dev/null 2>&1
	is "p4dstat -- CMD: CMD's exit status" "$?" 7
	"$p4dstat" -- bash -c 'kill -TERM $$' >/dev/null 2>&1
	is "p4dstat -- CMD: CMD killed by SIGTERM -> 143" "$?" 143
	# -c is libbpf-tools' cgroup filter: this kernel has no cgroups (no CONFIG_CGROUPS).
	if [ ! -e /proc/self/cgroup ]; then
		error_case "-c on a kernel without cgroups" 1 \
			"p4dstat: -c: this kernel has no cgroups (CONFIG_CGROUPS is off)" \
			"$p4dstat" -c /sys/fs/cgroup 1 1
	else
		error_case "-c on a directory that is no cgroup" 1 \
			"p4dstat: '/' is not a cgroup v2 directory: Bad file descriptor" \
			"$p4dstat" -c / 1 1
	fi
fi

######## p4dstat -l: the processes with mappings above 47 bits now, from /proc ##########
# highhold K maps two pages at a hint in each of K 256 TiB regions (i << 48, i = 1..K)
# and holds them until its gate opens (tests/workloads/highhold.c). On 5 levels the
# hints are honoured and its line is worked out from them: K mappings, 8 KiB each, the
# highest ending 8 KiB past K << 48, one PUD table and one P4D table per region. On 4
# levels (and no5lvl) the hints land below 47 bits (5level-paging.rst) and no process
# has anything above: the list is the header alone.
K=3
start_gated hold "$bin"/highhold $K
hold=$! hold_fd=${out_fd[hold]}
bg+=("$hold")
hold_addrs=() hold_ready=0
while read -r -t 60 -u "$hold_fd" line; do
	[ "$line" != ready ] || { hold_ready=1; break; }
	hold_addrs+=("$line")
done
if [ $hold_ready = 1 ]; then
	"$p4dstat" -l >"$tmp/highmaps.out" 2>"$tmp/highmaps.err"
	highmaps_rc=$?
	"$p4dstat" -l -p $hold >"$tmp/highmaps-p.out" 2>"$tmp/highmaps-p.err"
	highmaps_p_rc=$?
fi
open_gate hold
wait $hold
hold_rc=$?
if [ $hold_ready = 0 ] || [ $hold_rc != 0 ]; then
	not_ok "p4dstat -l: highhold $K ran" "exit $hold_rc" "output: ${hold_addrs[*]}"
else
	header=$(printf '%7s %-16s %5s %14s %-17s %5s %4s' PID COMM MAPS KB HIGHEST PUD P4D)
	is "p4dstat -l exits 0 with nothing on stderr" "$highmaps_rc:$(cat "$tmp/highmaps.err")" 0:
	is "p4dstat -l: the header first" "$(head -n 1 "$tmp/highmaps.out")" "$header"
	if [ $five = 1 ]; then
		want_addrs=()
		for ((i = 1; i <= K; i++)); do
			want_addrs+=("$(printf 'addr=%#x len=8192' $((i << 48)))")
		done
		is "highhold's pages landed at its hints above 47 bits" "${hold_addrs[*]}" \
			"${want_addrs[*]}"
		want="$hold highhold $K $((K * 8)) $(printf '%#x' $(((K << 48) + 8192))) $K $K"
		is "p4dstat -l: highhold's line (PID COMM MAPS KB HIGHEST PUD P4D)" \
			"$(awk -v pid=$hold '$1 == pid { print $1, $2, $3, $4, $5, $6, $7 }' \
				"$tmp/highmaps.out")" "$want"
		is "p4dstat -l -p PID: highhold's line alone" \
			"$highmaps_p_rc $(tail -n +2 "$tmp/highmaps-p.out" |
				awk '{ print $1, $2, $3, $4, $5, $6, $7 }')" "0 $want"
	else
		below=1
		for a in "${hold_addrs[@]}"; do
			a=${a#addr=}
			[ $((${a%% *})) -lt $((1 << 47)) ] || below=0
		done
		is "highhold's $K mappings are below 47 bits in this boot (--paging $mode)" \
			"${#hold_addrs[@]} $below" "$K 1"
		is "p4dstat -l: no process has mappings above 47 bits in this boot (--paging $mode)" \
			"$(tail -n +2 "$tmp/highmaps.out")" ""
		is "p4dstat -l -p PID: only the header" \
			"$highmaps_p_rc $(cat "$tmp/highmaps-p.out")" "0 $header"
	fi
fi

tap_done
