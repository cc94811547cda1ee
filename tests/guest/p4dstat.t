#!/usr/bin/env bash
# p4dstat (bpf/) in the guest. Its counts are held against workloads whose effects are
# exactly known and against tracefs (or the function tracer) over the same window; JSON
# against text; the fentry and kprobe fallbacks; the -C table and its drop counter; the
# error cases. Runs in the 5, 4 and no5lvl boots, and through tests/vanilla/p4dstat.t on
# the kernel without the series, where the expectations switch to the fallbacks.
#
# Counting windows: a workload waits on a FIFO until every p4dstat run says "Tracing" and
# tracefs records, and all of them stop only after it has exited. Inside a window that
# counts the whole system the test's shell creates no process (nap and wait_for sleep
# with bash builtins): every process it would fork would allocate P4D tables.
set -uo pipefail
cd "$(dirname "$0")"
. ../lib/tap.sh
. ../lib/tracefs.sh
bin=$(cd ../../build/bin && pwd)
p4dstat=$bin/p4dstat
mode=${P4DSCOPE_PAGING:?run me inside the guest (scripts/run-guest)}
tmp=$(mktemp -d)
bg=()
trap 'kill "${bg[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

if [ -d $tfs/events/pgtable ]; then kernel=series; else kernel=vanilla; fi
# What the layout predicts: P4D tables exist only with 5-level paging, and only there do
# hints above 47 bits get addresses above 47 bits.
five=0
[ "$mode" = 5 ] && five=1
# The fexit fallback for placements: get_unmapped_area() is an inline wrapper of
# __get_unmapped_area() since 6.10.
case $(uname -r) in
6.1.*) gua_fexit="fexit get_unmapped_area" ;;
*) gua_fexit="fexit __get_unmapped_area" ;;
esac

# nap SECONDS: sleep without a fork (a read that times out on a FIFO nobody writes).
mkfifo "$tmp/nap"
exec {nap_fd}<>"$tmp/nap"
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

# wait_for FILE PREFIX PID: until a line of FILE starts with PREFIX; fails once PID exits.
wait_for() {
	local line i
	for ((i = 0; i < 1200; i++)); do
		while IFS= read -r line; do
			[[ $line != "$2"* ]] || return 0
		done <"$1"
		kill -0 "$3" 2>/dev/null || return 1
		nap 0.05
	done
	return 1
}

# gate NAME: a FIFO opened read-write on fd ${gate_fd[NAME]}; a workload reading it
# blocks until `open_gate NAME`.
declare -A gate_fd p4d_pid
gate() {
	local fd
	mkfifo "$tmp/gate-$1"
	exec {fd}<>"$tmp/gate-$1"
	gate_fd[$1]=$fd
}
open_gate() { echo go >&"${gate_fd[$1]}"; }

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
		wait_for "$tmp/$name.err" Tracing "${p4d_pid[$name]}" || {
			not_ok "p4dstat $name starts" "$(cat "$tmp/$name.err")"
			return 1
		}
	done
}
# stop_p4dstat NAME: SIGINT, which prints the totals; ok when it exits 0.
stop_p4dstat() {
	kill -INT "${p4d_pid[$1]}" 2>/dev/null
	wait "${p4d_pid[$1]}"
	is "p4dstat $1 exits 0 on SIGINT" "$?" 0
}

# Everything read from p4dstat's output and from tracefs is gathered by one python3 run
# after the windows (python3 starts slowly in the guest) into facts[NAME:KEY].
cat >"$tmp/check.py" <<'PY'
import json, re, sys

def load_json(path):
    """Every line one object: intervals, then one summary. Returns (intervals, summary)."""
    objs = [json.loads(line) for line in open(path)]
    if not objs or objs[-1]["type"] != "summary":
        raise ValueError("no summary object last")
    if any(o["type"] != "interval" for o in objs[:-1]):
        raise ValueError("an object before the summary is no interval")
    return objs[:-1], objs[-1]

def field_keys(obj):
    keys = list(obj)
    return keys[keys.index("p4d_alloc_user"):keys.index("mmap_above47_bytes") + 1]

def summary(name, path):
    """The JSON parses and its intervals add up to its summary; the summary's values."""
    try:
        intervals, s = load_json(path)
        for k in field_keys(s) + ["missed", "comms_dropped"]:
            if k not in s or k == "p4d_live" or s[k] is None:
                continue
            total = sum(o[k] for o in intervals)
            if total != s[k]:
                raise ValueError(f"intervals add up to {k}={total}, the summary says {s[k]}")
        if intervals and intervals[-1]["p4d_live"] != s["p4d_live"]:
            raise ValueError("the last interval's p4d_live is not the summary's")
    except (ValueError, KeyError, OSError) as e:
        print(f"{name}:json_error {e}")
        return
    print(f"{name}:json_error ")
    for k, v in s.items():
        if k != "comms":
            print(f"{name}:{k}", "n/a" if v is None else v)
    print(f"{name}:comms_listed", len(s.get("comms", [])))
    for c in s.get("comms", []):
        for k, v in c.items():
            if k != "comm":
                print(f"{name}:comm:{c['comm']}:{k}", v)
    # -C: every event the table looks at lands in a command's row or in the drop counter.
    if "comms" in s:
        rows = sum(c["p4d_alloc"] + c["p4d_freed"] + c["tlb_total"] + c["tlb_kernel"] +
                   c["above47"] for c in s["comms"])
        print(f"{name}:comm_accounted", rows + s["comms_dropped"])
        print(f"{name}:comm_events", sum(s[k] or 0 for k in [
            "p4d_alloc_user", "p4d_alloc_kernel", "p4d_freed", "tlb_total",
            "tlb_kernel_range", "tlb_all", "gua_above47"]))

def parse_text(path):
    """(rows, totals {label: value}, comm table of the totals {comm: [values]}, lines)."""
    lines = open(path).read().split("\n")
    rows, totals, comms, part = [], {}, {}, "rows"
    for line in lines[2:]:
        if line.startswith("Totals over"):
            part = "totals"
        elif line.startswith("    ") or not line.strip():
            words = line.split()
            if part == "totals" and words and words[0] not in ("COMM", "dropped:"):
                comms[words[0]] = words[1:]
        elif part == "rows":
            rows.append(line.split())
        else:
            label, value = line.strip().rsplit(None, 1)
            totals[label] = value
    return rows, totals, comms, lines

ROW_KEYS = ["p4d_alloc_user", "p4d_alloc_kernel", "p4d_raced", "p4d_nomem", "p4d_freed",
            "p4d_live", "sync_calls", "sync_copied", "tlb_total", "KTLB", "gua_above47",
            "KB47"]

def agree(name, text_path, json_path):
    """A text (-T) and a JSON run over the same window: rows, totals and -C agree."""
    _, s = load_json(json_path)
    rows, totals, comms, lines = parse_text(text_path)
    bad = [f"line of {len(l)} columns: {l!r}" for l in lines if len(l) >= 80]
    bad += [f"row without a time: {r}" for r in rows if not re.fullmatch(r"\d\d:\d\d:\d\d", r[0])]
    rows = [r[1:] for r in rows]
    want = dict(s)
    want["KTLB"] = (None if s["tlb_kernel_range"] is None or s["tlb_all"] is None
                    else s["tlb_kernel_range"] + s["tlb_all"])
    want["KB47"] = None if s["gua_above47_bytes"] is None else s["gua_above47_bytes"] // 1024
    for i, key in enumerate(ROW_KEYS):
        col = [r[i] for r in rows]
        if want[key] is None:
            got = "n/a" if col and all(c == "n/a" for c in col) else col
        elif key == "p4d_live":
            got = int(col[-1]) if col else None
        else:
            got = sum(int(c) for c in col)
        if got != ("n/a" if want[key] is None else want[key]):
            bad.append(f"rows give {key}={got}, JSON {want[key]}")
    keys = field_keys(s)
    labels = [l for l in totals if l != "events missed (BPF recursion)"]
    if len(labels) != len(keys):
        bad.append(f"{len(labels)} total lines, {len(keys)} JSON fields")
    for label, key in zip(labels, keys):
        if totals[label] != ("n/a" if s[key] is None else str(s[key])):
            bad.append(f"'{label}' {totals[label]}, JSON {key}={s[key]}")
    for c in s.get("comms", []):
        if c["comm"] in comms:
            want_row = [str(v) for v in (c["p4d_alloc"], c["p4d_freed"], c["tlb_total"],
                        c["tlb_kernel"], c["above47"], c["above47_bytes"] // 1024)]
            got_row = comms[c["comm"]]
            if [g for g, w in zip(got_row, want_row) if g != "n/a"] != \
               [w for g, w in zip(got_row, want_row) if g != "n/a"]:
                bad.append(f"-C {c['comm']}: text {got_row}, JSON {want_row}")
    if not rows or not comms:
        bad.append("no rows or no -C table in the text")
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
        if ev == "tlb_flush":
            keys.append("tlb_" + words[-1].strip("()"))
        elif ev == "p4d_alloc":
            keys += [f"p4d_alloc_{kv['outcome']}", f"p4d_alloc_kernel={kv['kernel']}"]
        elif ev == "x86_get_unmapped_area":
            keys += [f"window_{kv['window']}", f"outcome_{kv['outcome']}"]
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

######## The counting windows ##########################################################

## 1. One process with exactly known effects, under four p4dstat runs at once (-p)
# p4dstat-churn maps, touches and unmaps N regions hinted above 47 bits: on 5-level each
# allocates and frees a P4D table, and its exit frees the table of PGD entry 0.
N=20 LEN=12288
gate churn
: >"$tmp/churn"
"$bin"/p4dstat-churn $N $LEN <&"${gate_fd[churn]}" >"$tmp/churn" &
churn=$!
bg+=($churn)
wait_for "$tmp/churn" ready $churn
if [ $kernel = series ]; then
	trace_start p4dstat tlb/tlb_flush pgtable/p4d_alloc pgtable/p4d_free \
		mmap/x86_get_unmapped_area
	start_p4dstat fentry -j -v --probes=fentry -p $churn
else
	trace_start p4dstat tlb/tlb_flush
fi
start_p4dstat text -T -C -p $churn
start_p4dstat json -j -C -v -p $churn
start_p4dstat kprobe -j -v --probes=kprobe -p $churn
runs=${!p4d_pid[*]}
started $runs
open_gate churn
wait $churn
churn_rc=$?
trace_stop p4dstat "$tmp/events-churn"
for r in $runs; do stop_p4dstat $r; done
{ read -r _; read -r _ above bytes; } <"$tmp/churn"
above=${above#above47=} bytes=${bytes#bytes=}

## 2. N fresh processes with K high regions each, counted system-wide
# highmap K N, exec'd by a gated subshell. Every exec on 5-level allocates two P4D
# tables: one for the argument stack, set up at the top of the 56-bit space (PGD entry
# 255) and freed when setup_arg_pages() moves the stack below 47 bits, and one for PGD
# entry 0; the exec also frees the subshell's old mm (entry 0). Each child gets entry 0 at
# fork and one table per region; every exit frees its tables. Nothing else in the guest
# creates a process meanwhile (this shell waits with builtins only).
K=3 NP=4
gate highmap
( read -r -u "${gate_fd[highmap]}" _; exec "$bin"/highmap $K $NP >"$tmp/highmap" ) &
sub=$!
start_p4dstat wide -j -C 1
started wide
open_gate highmap
wait $sub
highmap_rc=$?
stop_p4dstat wide

## 3. Kernel top-level syncs and kernel-range flushes of one process (-p)
# A gated subshell adds a memory block through the sysfs probe (which syncs the kernel's
# top-level entries), then execs a second p4dstat: attaching its fentry programs builds
# BPF trampolines, whose pages are made read-only and executable, which flushes kernel
# ranges (flush_tlb_kernel_range, flush_tlb_all). tracefs and the function tracer count
# the same process over the same window.
block=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
for ((addr = 0x8000000000; ; addr += block)); do
	[ -e /sys/devices/system/memory/memory$((addr / block)) ] || break
done
printf -v hexaddr '%#x' $addr
gate kernel
( read -r -u "${gate_fd[kernel]}" _
  echo "$hexaddr" >/sys/devices/system/memory/probe || exit 3
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
rmdir "$ftrace"
if [ $kernel = series ]; then
	trace_stop p4dstat "$tmp/events-kernel"
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

######## What they counted #############################################################
jobs=()
for r in "${!p4d_pid[@]}"; do
	[ $r = text ] || jobs+=("summary|$r|$tmp/$r.out")
done
jobs+=("agree|text|$tmp/text.out|$tmp/json.out" "tracefs|trace|$tmp/events-churn|$churn"
	"tracefs|tracek|$tmp/events-kernel|$ksub" "ftrace|ftrace|$tmp/ftrace|$ksub")
gather "${jobs[@]}"
for r in "${!p4d_pid[@]}"; do
	[ $r = text ] || expect $r json_error "" "the JSON parses and its intervals add up"
done

## 1. -p on p4dstat-churn
is "p4dstat-churn exits 0" "$churn_rc" 0
is "p4dstat-churn: $N mappings above 47 bits on 5-level, none on 4-level" "$above" $((five * N))
allocs=$((five * N)) frees=$((five * (N + 1))) live=$((-five))
for r in json kprobe ${p4d_pid[fentry]:+fentry}; do
	expect $r p4d_alloc_user $allocs "one P4D table per mapping"
	expect $r p4d_freed $frees "each unmap, and PGD entry 0 at exit"
	expect $r p4d_live $live
	expect $r p4d_alloc_kernel 0
	expect $r p4d_nomem 0
done
expect json gua_above47 "$above" "the workload's count"
expect json gua_above47_bytes "$bytes" "the workload's bytes"
expect json mmap_above47 "$above" "sys_exit_mmap cross-check"
expect json mmap_above47_bytes "$bytes" "sys_exit_mmap cross-check"
expect json comm:p4dstat-churn:p4d_alloc $allocs "-C row of the workload"
expect json comm:p4dstat-churn:above47 "$above" "-C row of the workload"
expect json comms_dropped 0
expect json missed 0 "no event skipped by BPF recursion"

# TLB flushes by reason against tlb:tlb_flush of the same process over the same window.
got= want=
reason=0
for name in task_switch remote_shootdown local_shootdown local_mm_shootdown remote_send_ipi; do
	val json:tlb_$name
	got+=" $name=$v"
	val trace:tlb_$reason
	want+=" $name=$v"
	reason=$((reason + 1))
done
is "TLB flushes by reason = tlb:tlb_flush in tracefs" "$got" "$want"
val json:tlb_total
check "the window had TLB flushes ($v)" test "$v" -gt 0

if [ $kernel = series ]; then
	expect json p4d_raced 0
	val trace:p4d_alloc_installed
	expect json p4d_alloc_user "$v" "tracefs p4d_alloc"
	val trace:p4d_free
	expect json p4d_freed "$v" "tracefs p4d_free"
	got= want=
	for w in default full; do
		val json:gua_window_$w
		got+=" $w=$v"
		val trace:window_$w
		want+=" $w=$v"
	done
	for o in fixed hint search fallback enomem einval; do
		val json:gua_$o
		got+=" $o=$v"
		val trace:outcome_$o
		want+=" $o=$v"
	done
	is "get_unmapped_area windows and outcomes = tracefs" "$got" "$want"
	# The hints lie above 47 bits: on 5-level they are honoured in the full window; on
	# 4-level there is no full window, and each placement is a search below 47 bits.
	if [ $five = 1 ]; then
		expect json gua_window_full $N
		expect json gua_hint $N
	else
		expect json gua_window_full 0
		expect json gua_search $N
	fi
	sources_say json "P4D allocations" "tp_btf pgtable:p4d_alloc"
	sources_say json "get_unmapped_area" "tp_btf mmap:x86_get_unmapped_area"

	# --probes=fentry: the same counts from fexit __p4d_alloc, fentry ___p4d_free_tlb
	# and fexit get_unmapped_area; no tracepoint allowed, so n/a for what needs one.
	expect fentry gua_above47 "$above" "$gua_fexit"
	expect fentry gua_above47_bytes "$bytes" "$gua_fexit"
	for k in p4d_raced sync_copied gua_window_full gua_hint tlb_total mmap_above47; do
		expect fentry $k n/a "no fentry source"
	done
	expect fentry sync_calls 0
	sources_say fentry "P4D allocations" "fexit __p4d_alloc"
	sources_say fentry "P4D frees" "fentry ___p4d_free_tlb"
else
	# Without the series: the fallbacks, and n/a for what only the series' events give.
	for k in p4d_raced sync_copied sync_visited gua_window_default gua_window_full \
		gua_fixed gua_hint gua_search; do
		expect json $k n/a "needs the series"
	done
	expect json sync_calls 0
	sources_say json "P4D allocations" "fexit __p4d_alloc"
	sources_say json "P4D frees" "fentry ___p4d_free_tlb"
	sources_say json "get_unmapped_area" "$gua_fexit"
fi
# --probes=kprobe: P4D counts from kprobes; placements and TLB reasons need better probes.
for k in p4d_raced gua_above47 gua_window_full tlb_total mmap_above47; do
	expect kprobe $k n/a "no kprobe source"
done
sources_say kprobe "P4D allocations" "kprobe+kretprobe __p4d_alloc"
sources_say kprobe "P4D frees" "kprobe ___p4d_free_tlb"

val text:mismatch
is "text (-T -C) agrees with JSON over the same window, rows under 80 columns" "$v" ""
check "text run: stderr is the banner only" test "$(wc -l <"$tmp/text.err")" = 1

## 2. system-wide over highmap
is "highmap: all $NP children mapped $K regions" "$highmap_rc" 0
high=0
while read -r _ _ addrs; do
	for a in $addrs; do
		[ $((${a#addr=} >> 47)) -eq 0 ] || high=$((high + 1))
	done
done <"$tmp/highmap"
is "highmap: its mappings above 47 bits" $high $((five * NP * K))
expect wide p4d_alloc_user $((five * (2 + NP + NP * K))) "exec 2 + $NP children x (1 + $K)"
expect wide p4d_freed $((five * (3 + NP + NP * K))) "the same + the subshell's mm"
expect wide gua_above47 $high "highmap's report"
expect wide gua_above47_bytes $((high * 4096)) "highmap's report"
expect wide mmap_above47 $high "highmap's report"
# -C: the table attributes by command name; the exec's stack table and the old mm go
# to the subshell (still named after this shell until the exec completes).
expect wide comm:highmap:p4d_alloc $((five * (1 + NP + NP * K))) "-C: entry 0, forks, regions"
expect wide comm:highmap:p4d_freed $((five * (1 + NP * (K + 1) + 1))) "-C: stack, every exit"
expect wide comm:highmap:above47 $high "-C"

## 3. kernel syncs and kernel-range flushes
is "memory probe at $hexaddr and the second p4dstat succeed" "$ksub_rc" 0
if [ $kernel = series ]; then
	val tracek:kernel_pgd_sync
	expect kernel sync_calls "$v" "tracefs kernel_pgd_sync"
	val tracek:sync_copied
	expect kernel sync_copied "$v" "tracefs, summed"
	val tracek:p4d_alloc_kernel=1
	expect kernel p4d_alloc_kernel "$v" "tracefs p4d_alloc kernel=1"
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
if [ $((ranges + alls)) -gt 0 ]; then
	expect kernel tlb_kernel_range $ranges "function tracer"
	expect kernel tlb_all $alls "function tracer"
else
	skip "kernel-range flushes = function tracer" "the window had no kernel-range flush"
fi

## 4. -C drops
if [ $kernel = series ]; then
	val drops:comms_listed
	check "-C --comms=2: at most 2 commands listed ($v)" test "$v" -le 2
	val drops:comms_dropped
	check "-C --comms=2: dropped events are counted ($v)" test "$v" -gt 0
	val drops:comm_events
	expect drops comm_accounted "$v" "-C rows + dropped = every event counted"
	expect drops gua_above47 $((five * 4)) "one per p4dc-*"
fi

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
fi

tap_done
