#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stats.py LOGDIR OUTDIR: the guests' records -> CSV, summary tables, plot data, results.md.

LOGDIR holds what analysis/run collected: icount_KERNEL_PAGING_ROUND.log and
walk_KERNEL_PAGING_ROUND.log (the records of analysis/guest/*.sh, one per line, plus the
host's own host,* lines) and host.txt. Only the standard library: it runs on any python3.
"""
import csv
import math
import os
import re
import sys
from collections import defaultdict

MODES = ["4", "no5lvl", "5"]
KERNELS = ["patched", "vanilla", "no5level"]
OPS = [
    ("syscall", "getppid() (control)"),
    ("fault4k", "first-touch fault, 4K page"),
    ("fault-file", "read fault, page-cache file (lat_pagefault)"),
    ("faultthp", "first-touch fault, 2M THP"),
    ("mmap", "mmap + munmap, 1 page"),
    ("mmap-high", "mmap at 1<<48 + touch + munmap"),
    ("fork", "fork + exit + wait"),
    ("exec", "vfork + execve(static) + exit + wait"),
    ("munmap-sparse-low", "munmap, 64G sparse, low"),
    ("munmap-sparse-high", "munmap, 64G sparse, at 1<<48"),
]
OP_NAMES = [o for o, _ in OPS]
OP_TEXT = dict(OPS)
CONSUMERS = ["tracefs", "tp_btf", "raw_tp", "tp", "p4dstat"]
# Attached for every other sample by swpath -t; p4dstat runs in blocks instead.
TOGGLED = ["tracefs", "tp_btf", "raw_tp", "tp"]
EVENTS = ["ev_p4d_alloc", "ev_p4d_free", "ev_pgd_sync", "ev_gua"]
SWPATH_COLS = ["op", "rep", "ops", "op_ns", "empty_ns", "intr", "aux"] + EVENTS + ["on"]
PTMEM_COLS = ["procs", "regions", "pt_kb_before", "pt_kb_held", "pt_kb_after", "vmpte_kb_sum",
              "vmpte_kb_first", "pte", "pmd", "pud", "p4d", "p4d_alloc_held", "p4d_free_held",
              "p4d_alloc_all", "p4d_free_all"]
CHASE_COLS = ["pattern", "placement", "rep", "pages", "stride", "steps", "ns", "addr", "above47"]
WALKS = [
    ("random-dense", "random, 65536 pages (256 MiB) contiguous"),
    ("random-sparse", "random, 2048 pages 16 GiB apart (every step a soft-TLB miss)"),
    ("sequential", "sequential lines, 65536 pages (control)"),
]
WALK_CONFIGS = [("4", "low"), ("no5lvl", "low"), ("5", "low"), ("5", "high")]
# The operations whose samples are tight enough to price one event.
PER_EVENT_OPS = ["mmap", "mmap-high"]
# Published per-event costs of BPF programs (kernel selftests bench_trigger, hardware).
PUBLISHED_NS = {"raw_tp": 8, "tp": 41}


# ---- statistics -----------------------------------------------------------------------

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def median_ci(xs, level=0.95):
    """Distribution-free CI of the median from order statistics: (low, high, coverage).

    The interval [x(j), x(n-j+1)] covers the median with probability
    1 - 2 P(Binomial(n, 1/2) < j); take the largest j that keeps it >= level.
    None when n is too small for any such interval."""
    xs = sorted(xs)
    n = len(xs)
    best = None
    cdf = 0.0
    for j in range(1, n // 2 + 1):
        # P(B < j) = sum_{i < j} C(n, i) / 2^n
        cdf += math.comb(n, j - 1) / 2 ** n
        cover = 1 - 2 * cdf
        if cover >= level:
            best = (xs[j - 1], xs[n - j], cover)
        else:
            break
    return best


# Each of two independent medians gets a CI at this level, so that an interval built
# from both (a ratio, a difference) covers the true one with at least 95%.
PAIR_LEVEL = math.sqrt(0.95)


def ratio_ci(a, b):
    """median(a) / median(b) and a conservative 95% interval, or None."""
    ca, cb = median_ci(a, PAIR_LEVEL), median_ci(b, PAIR_LEVEL)
    if not ca or not cb or cb[0] <= 0:
        return None
    return median(a) / median(b), ca[0] / cb[1], ca[1] / cb[0]


def diff_ci(a, b):
    """median(a) - median(b) and a conservative 95% interval, or None."""
    ca, cb = median_ci(a, PAIR_LEVEL), median_ci(b, PAIR_LEVEL)
    if not ca or not cb:
        return None
    return median(a) - median(b), ca[0] - cb[1], ca[1] - cb[0]


# Two-sided 97.5% quantiles of Student's t, by degrees of freedom (more: 1.96).
T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def welch(a, b):
    """mean(a) - mean(b) and its 95% interval (Welch's t, df rounded down), or None."""
    if not a or not b:
        return None
    d = mean(a) - mean(b)
    if len(a) < 2 or len(b) < 2:
        return d, None, None
    va = sum((x - mean(a)) ** 2 for x in a) / (len(a) - 1) / len(a)
    vb = sum((x - mean(b)) ** 2 for x in b) / (len(b) - 1) / len(b)
    if va + vb == 0:
        return d, d, d
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    t = T975[int(df)] if int(df) < len(T975) else 1.96
    half = t * math.sqrt(va + vb)
    return d, d - half, d + half


def fmt_rel(w, base, digits=2):
    """A Welch difference as a percentage of base, with its interval."""
    if not w or not base:
        return "n/a"
    d, lo, hi = (None if v is None else v / base * 100 for v in w)
    if lo is None:
        return f"{d:+.{digits}f}%"
    return f"{d:+.{digits}f}% [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def fmt_pct_ci(r, digits=2):
    if not r:
        return "n/a"
    return (f"{(r[0] - 1) * 100:+.{digits}f}% "
            f"[{(r[1] - 1) * 100:+.{digits}f}, {(r[2] - 1) * 100:+.{digits}f}]")


def fmt(v, digits=0):
    if v is None:
        return "n/a"
    if isinstance(v, float) and math.isnan(v):
        return "n/a"
    return f"{v:,.{digits}f}"


def pct(ratio, digits=2):
    if ratio is None:
        return "n/a"
    return f"{(ratio - 1) * 100:+.{digits}f}%"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


# ---- reading the logs -------------------------------------------------------------------

# icount_KERNEL_PAGING_ROUND.log and walk_PAGING_ROUND_WALK_PLACEMENT.log (patched kernel).
ICOUNT_LOG = re.compile(r"^icount_([a-z0-9]+)_(4|5|no5lvl)_(\d+)\.log$")
WALK_LOG = re.compile(r"^walk_(4|5|no5lvl)_(\d+)_([a-z-]+)_(low|high)\.log$")


def read_logs(logdir):
    data = defaultdict(list)
    boots = []
    for name in sorted(os.listdir(logdir)):
        m, w = ICOUNT_LOG.match(name), WALK_LOG.match(name)
        if m:
            part, (kernel, mode, rnd) = "icount", m.groups()
        elif w:
            part, kernel, (mode, rnd) = "walk", "patched", w.groups()[:2]
        else:
            continue
        ctx = {"kernel": kernel, "paging": mode, "round": int(rnd)}
        boot = dict(ctx, part=part, status=None, seconds=None, loadavg=None, meta={})
        with open(os.path.join(logdir, name)) as f:
            for line in f:
                fields = line.rstrip("\n").split(",")
                kind = fields[0]
                if kind == "host" and len(fields) >= 3:
                    boot[{"status": "status", "seconds": "seconds",
                          "loadavg": "loadavg"}.get(fields[1], fields[1])] = fields[2]
                elif kind == "meta" and len(fields) >= 3:
                    boot["meta"][fields[1]] = ",".join(fields[2:])
                elif kind == "calib" and len(fields) == 3:
                    data["calib"].append(dict(ctx, instructions=int(fields[1]),
                                              ns=int(fields[2])))
                elif kind == "swpath" and len(fields) == 3 + len(SWPATH_COLS):
                    row = dict(ctx, consumer=fields[1], kind=fields[2])
                    for col, v in zip(SWPATH_COLS, fields[3:]):
                        row[col] = v if col == "op" else int(v)
                    # A consumer toggled sample by sample: its detached samples are the
                    # baseline it is compared with, "off:NAME".
                    if row["consumer"] in TOGGLED and not row["on"]:
                        row["consumer"] = "off:" + row["consumer"]
                    data["swpath"].append(row)
                elif kind == "consumer" and len(fields) >= 3:
                    data["consumer"].append(dict(ctx, consumer=fields[1],
                                                 note=",".join(fields[2:])))
                elif kind == "ptmem" and len(fields) == 1 + len(PTMEM_COLS):
                    row = dict(ctx)
                    row.update(zip(PTMEM_COLS, map(int, fields[1:])))
                    data["ptmem"].append(row)
                elif kind == "chase" and len(fields) == 2 + len(CHASE_COLS):
                    row = dict(ctx, walk=fields[1])
                    for col, v in zip(CHASE_COLS, fields[2:]):
                        row[col] = v if col in ("pattern", "placement", "addr") else int(v)
                    data["chase"].append(row)
        boots.append(boot)
    # What analysis/run noted about the host for each part: {"icount": {...}, "walk": {...}}
    host = {}
    for part in ("icount", "walk"):
        path = os.path.join(logdir, f"host-{part}.txt")
        if os.path.exists(path):
            host[part] = {}
            with open(path) as f:
                for line in f:
                    k, _, v = line.rstrip("\n").partition(" ")
                    host[part][k] = v
    return data, boots, host


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)


# ---- 1 and 2: software paths ------------------------------------------------------------

def per_op(row):
    return (row["op_ns"] - row["empty_ns"]) / row["ops"]


def swpath_groups(rows):
    """(kernel, paging, consumer, kind, op) -> {round: [rows]}"""
    g = defaultdict(lambda: defaultdict(list))
    for r in rows:
        g[(r["kernel"], r["paging"], r["consumer"], r["kind"], r["op"])][r["round"]].append(r)
    return g


def summarize(by_round):
    """Per-op instructions over all rounds of one cell: min, median, per-round minima."""
    vals = [per_op(r) for rows in by_round.values() for r in rows]
    clean = [per_op(r) for rows in by_round.values() for r in rows if r["intr"] == 0]
    round_min = {k: min(per_op(r) for r in rows) for k, rows in by_round.items()}
    round_med = {k: median([per_op(r) for r in rows]) for k, rows in by_round.items()}
    round_iqr = {}
    for k, rows in by_round.items():
        v = sorted(per_op(r) for r in rows)
        round_iqr[k] = (v[(3 * len(v)) // 4] - v[len(v) // 4]) / median(v) if median(v) else 0
    n_ops = sum(r["ops"] for rows in by_round.values() for r in rows)
    ev = {e: sum(r[e] for rows in by_round.values() for r in rows) / n_ops for e in EVENTS}
    aux = [r["aux"] for rows in by_round.values() for r in rows]
    return {
        "vals": vals,
        "n": len(vals), "clean": len(clean), "min": min(vals), "median": median(vals),
        "median_clean": median(clean) if clean else None,
        "round_min": round_min, "round_med": round_med, "round_iqr": round_iqr,
        "boots": list(round_med.values()), "boot_mean": mean(list(round_med.values())),
        "events": ev,
        "aux_min": min(aux), "aux_max": max(aux), "ops_per_rep": by_round[min(by_round)][0]["ops"],
    }


def repeatability(s):
    """Largest relative difference between the rounds' minima and medians."""
    def spread(d):
        v = list(d.values())
        if len(v) < 2:
            return None
        return (max(v) - min(v)) / min(v)
    return spread(s["round_min"]), spread(s["round_med"])


# ---- 3: page walks ------------------------------------------------------------------------

def walk_tables(rows):
    """(walk, paging, placement) -> {round: (median ns/step, min ns/step, above47)}"""
    per = defaultdict(lambda: defaultdict(list))
    for r in rows:
        per[(r["walk"], r["paging"], r["placement"])][r["round"]].append(r)
    out = {}
    for key, by_round in per.items():
        out[key] = {k: (median([r["ns"] / r["steps"] for r in rs]),
                        min(r["ns"] / r["steps"] for r in rs),
                        max(r["above47"] for r in rs)) for k, rs in by_round.items()}
    return out


# ---- the report ---------------------------------------------------------------------------

def md_table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)



def wall_time_walks(w, data, out, boots, first):
    """Section 3 from the wall-time chase (analysis/run --parts walk); returns the plot rows."""
    w("\n## 3. Page-walk cost, emulated (wall time)\n")
    w("**This is QEMU's software page walker, not hardware.** With LA57 every soft-TLB refill"
      " walks one more level: QEMU's `mmu_translate()` (target/i386/tcg/sysemu/excp_helper.c)"
      " reads the extra PML5 entry, which means one more lookup of the table page and one"
      " more 8-byte load, plus an atomic cmpxchg when its accessed bit is still clear. Nothing"
      " here says how many cycles a hardware walker spends, which entries its page-walk caches"
      " keep, or how often a real TLB misses.\n")
    w("Wall time of the guest's `clock_gettime()` without `--icount`, one vCPU. Each boot"
      " runs one chase (so that every chase starts from the same emulator state: QEMU resizes"
      " its soft TLB as a boot goes on) for many short repetitions; every round boots each"
      " configuration once, in an order rotated from round to round, one boot at a time."
      " Per boot two figures: the *fastest* repetition, the one least stretched by other"
      " work on the host (a repetition can only be slowed down by it), and the *median*"
      " repetition. Over the boots: the median and its 95% confidence interval (order"
      " statistics), and the ratio to paging 4 paired by round (the boots nearest in time),"
      " with its interval.\n")
    WT = walk_tables(data["chase"])
    plot_rows = []

    def ci_text(xs, fmt_v):
        c = median_ci(xs)
        return f"{fmt_v(c[0])} .. {fmt_v(c[1])}" if c else "n/a (< 6 boots)"

    for walk, text in WALKS:
        rows = []
        base = WT.get((walk, "4", "low"))
        for mode, place in WALK_CONFIGS:
            d = WT.get((walk, mode, place))
            if not d:
                continue
            above = {v[2] for v in d.values()}
            r = [f"paging {mode}, {place}" + (" (above 47 bits)" if above == {1} else ""), len(d)]
            for idx in (1, 0):      # fastest, then median
                vals = [v[idx] for v in d.values()]
                r += [f"{median(vals):.1f}", ci_text(vals, lambda x: f"{x:.1f}")]
                ratios = [d[k][idx] / base[k][idx] for k in d if base and k in base]
                if ratios and (mode, place) != ("4", "low"):
                    r += [pct(median(ratios), 1),
                          ci_text(ratios, lambda x: f"{(x - 1) * 100:+.1f}%")]
                else:
                    r += ["", ""]
            rows.append(r)
            fast = [v[1] for v in d.values()]
            c = median_ci(fast)
            plot_rows.append((walk, mode, place, median(fast),
                              c[0] if c else min(fast), c[1] if c else max(fast)))
        if rows:
            w(f"\n**{text}**: ns per step\n")
            w(md_table(["paging, placement", "boots", "fastest", "95% CI", "vs 4", "95% CI",
                        "median", "95% CI", "vs 4", "95% CI"], rows))
            w("")
    with open(os.path.join(out, "pagewalk.dat"), "w") as f:
        f.write("# walk config fastest-rep median over boots, ci_low ci_high\n")
        for walk, _ in WALKS:
            if not any(r[0] == walk for r in plot_rows):
                continue
            for (wk, mode, place, med, lo, hi) in plot_rows:
                if wk == walk:
                    f.write(f'"{walk}" "{mode}/{place}" {med:.3f} {lo:.3f} {hi:.3f}\n')
            f.write("\n\n")
    loads = [float(b["loadavg"]) for b in boots if b["part"] == "walk" and b["loadavg"]]
    if loads:
        w(f"Host load (1-minute average) when the wall-time boots started: {min(loads):.1f} to"
          f" {max(loads):.1f}, on {first.get('host', '?').split(',')[1].strip() if ',' in first.get('host', '') else '?'}."
          " Other work on the host stretches wall time; interleaving spreads that over all"
          " configurations alike but does not remove it, and a loaded host widens every"
          " interval above.\n")
    return plot_rows


def modelled_walks(w, out):
    """Section 3 from the walk model: its key table, read from walkmodel/walkmodel.md."""
    w("\n## 3. Page-walk cost, modelled\n")
    path = os.path.join(out, "walkmodel", "walkmodel.md")
    if not os.path.exists(path):
        w("No walk-model report in this run (analysis/run --parts model writes it).\n")
        return
    with open(path) as f:
        text = f.read()
    start = text.find("## Key table")
    end = text.find("\n## ", start + 1)
    w("From [walkmodel/walkmodel.md](walkmodel/walkmodel.md), where the method, the"
      " presets' sources and the model's limits are written out:\n")
    w(text[start:end].replace("## Key table", "### Key table", 1))

def main():
    if len(sys.argv) != 3:
        print("usage: stats.py LOGDIR OUTDIR", file=sys.stderr)
        return 2
    logdir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    data, boots, host = read_logs(logdir)
    ctx_cols = ["kernel", "paging", "round"]
    write_csv(os.path.join(out, "swpath.csv"), data["swpath"],
              ctx_cols + ["consumer", "kind"] + SWPATH_COLS)
    write_csv(os.path.join(out, "ptmem.csv"), data["ptmem"], ctx_cols + PTMEM_COLS)
    write_csv(os.path.join(out, "walk.csv"), data["chase"], ctx_cols + ["walk"] + CHASE_COLS)
    write_csv(os.path.join(out, "calib.csv"), data["calib"], ctx_cols + ["instructions", "ns"])
    write_csv(os.path.join(out, "consumers.csv"), data["consumer"],
              ctx_cols + ["consumer", "note"])
    write_csv(os.path.join(out, "boots.csv"), boots,
              ["part", "kernel", "paging", "round", "status", "seconds", "loadavg"])

    g = swpath_groups(data["swpath"])
    S = {k: summarize(v) for k, v in g.items()}
    kernels = [k for k in KERNELS if any(key[0] == k for key in S)]
    md = []
    w = md.append

    quick = any(h.get("mode") == "quick" for h in host.values())
    w("# What the fifth paging level costs: measurements\n")
    if quick:
        w("> **Quick run** (`make bench QUICK=1`): a reduced matrix with few repetitions, made"
          " to prove the programs work. Its numbers are not the results; `make bench` makes"
          " those.\n")
    w("Written by `analysis/run` (`make bench`) from the guests' records; every number below"
      " comes from the CSV files next to this report. Method: `analysis/run`, the programs in"
      " `analysis/`, and the Method section at the end.\n")
    first = next(iter(host.values()), {})

    def when(part):
        h = host.get(part)
        if not h:
            return "not in this run"
        d = int(h.get("duration_s", 0))
        return (f"{h.get('date', '?')}, {d // 60} min {d % 60} s, host load (1-min average)"
                f" {h.get('loadavg_start', '?')} at the start, {h.get('loadavg_end', '?')} at"
                " the end")
    w(md_table(["", ""], [
        ["host", first.get("host", "?")],
        ["emulator", first.get("qemu", "?") + " (TCG; KVM is not usable on this machine)"],
        ["guest kernels", ", ".join(kernels) + " (6.1.192; patched = with `patches/`;"
         " no5level = patched with `CONFIG_X86_5LEVEL=n`)"],
        ["repository", first.get("commit", "?") + ", series " + first.get("series", "?")],
        ["--icount part (1, 2, 4)", when("icount")],
        ["wall-time part (3)", when("walk")],
    ], ["l", "l"]))
    failed = [b for b in boots if b["status"] not in ("0", None)]
    if failed:
        w("\n**Failed boots** (their records are missing from the tables): " + ", ".join(
            f"{b['part']} {b['kernel']} paging {b['paging']} round {b['round']} "
            f"(status {b['status']})" for b in failed) + "\n")

    # ---- key table ----
    def summ(kernel, mode, op, consumer="off", kind="single"):
        return S.get((kernel, mode, consumer, kind, op))

    def cell(kernel, mode, op, consumer="off", kind="single", stat="boot_mean"):
        s = summ(kernel, mode, op, consumer, kind)
        return s[stat] if s else None

    def cmp(k1, m1, k2, m2, op, kind="single"):
        """Welch difference of the boots' medians, cell 1 - cell 2, and cell 2's mean."""
        a, b = summ(k1, m1, op, kind=kind), summ(k2, m2, op, kind=kind)
        return (welch(a["boots"], b["boots"]), b["boot_mean"]) if a and b else (None, None)

    def rel(k1, m1, k2, m2, op, kind="single"):
        return fmt_rel(*cmp(k1, m1, k2, m2, op, kind))

    def p4d_events(mode, op):
        s = summ("patched", mode, op, "tp_btf")
        if not s:
            return "n/a"
        e = s["events"]
        return f"{e['ev_p4d_alloc']:.0f}+{e['ev_p4d_free']:.0f}"

    nboots = {k: len(v["boots"]) for k, v in S.items() if k[2] == "off" and k[3] == "single"}
    nb = f"{min(nboots.values())}" if nboots else "0"
    if nboots and max(nboots.values()) != min(nboots.values()):
        nb += f" to {max(nboots.values())}"
    w("\n## Key table: instructions per operation, 5-level vs 4-level\n")
    w("Guest instructions per operation under `run-guest --icount` (one guest ns = one"
      " instruction), trace events off, patched kernel unless said otherwise: each boot's"
      f" median, averaged over the boots of each cell ({nb} per cell). *paging 4* is a CPU"
      " without LA57; *no5lvl* is the LA57 CPU of paging 5 and the same kernel booted with"
      " `no5lvl`, i.e. 4-level paging; *compiled out* is the patched kernel built with"
      " `CONFIG_X86_5LEVEL=n` (`make kernel-no5level`) on that same LA57 CPU, where it runs"
      " 4-level paging (`run-guest --paging 4 --la57-cpu`). *5 vs compiled out* is the"
      " comparison of AMD's published lat_pagefault figure: 5-level compiled in and running"
      " vs compiled out, on one CPU. Differences: the"
      " mean difference of the boots' medians with its 95% confidence interval (Welch), in"
      " per cent of the second; n/a needs two boots per cell. *P4D events*: P4D tables"
      " allocated + freed per operation on 5-level, counted by the tracepoints.\n")
    rows = []
    for op in OP_NAMES:
        v4, vn, v5 = (cell("patched", m, op) for m in MODES)
        vo = cell("no5level", "4", op)
        pv = cmp("patched", "5", "vanilla", "5", op)[0]
        rows.append([OP_TEXT[op], fmt(vo), fmt(v4), fmt(vn), fmt(v5),
                     rel("patched", "5", "no5level", "4", op),
                     rel("patched", "no5lvl", "no5level", "4", op),
                     rel("patched", "5", "patched", "4", op),
                     rel("patched", "no5lvl", "patched", "4", op),
                     rel("vanilla", "5", "vanilla", "4", op),
                     f"{pv[0]:+,.0f}" if pv else "n/a", p4d_events("5", op)])
    w(md_table(["operation", "compiled out", "paging 4", "no5lvl", "paging 5",
                "5 vs compiled out", "no5lvl vs compiled out", "5 vs 4", "no5lvl vs 4",
                "5 vs 4, vanilla", "patched - vanilla, paging 5", "P4D events"], rows))
    w("\nReproduce: `make bench` (`analysis/run`); this report is"
      " `analysis/results/results.md`, every sample is in `analysis/results/swpath.csv`.\n")

    # ---- item 1 ----
    w("\n## 1. Software paths in exact guest instructions\n")
    w("Each operation runs between two `clock_gettime()` calls, one operation per sample"
      " (fault4k: 512 faults, a PTE table's worth; fault-file: 512 read faults; getppid: 1000"
      " calls), after a 10 ms pause"
      " in which the work the previous sample left to kworkers and RCU callbacks runs. An"
      " empty loop of the same shape is timed right after and subtracted (for faults: the"
      " same stores again, now to present pages; for munmap: two clock reads with nothing"
      " between). Per cell: *min*, the fastest sample of all boots; *boots*, the mean of"
      " each boot's median; the 5/4 difference of the latter [95% CI]; *long*, the same for"
      " long batches (hundreds of operations back to back) whose average also holds the"
      " deferred work (RCU callbacks freeing maple-tree nodes, task structs and stacks, run"
      " at timer ticks); `n`: samples per boot x boots, paging 5.\n")
    for kernel in kernels:
        modes = [m for m in MODES if any(summ(kernel, m, op) for op in OP_NAMES)]
        if not modes:
            continue
        rows = []
        for op in OP_NAMES:
            r = [OP_TEXT[op]]
            r += [fmt(cell(kernel, m, op, stat="min")) for m in modes]
            r += [fmt(cell(kernel, m, op)) for m in modes]
            r.append(rel(kernel, "5", kernel, "4", op) if "4" in modes and "5" in modes else "n/a")
            long = [cell(kernel, m, op, kind="long") for m in modes]
            r.append(" / ".join(fmt(v) for v in long) if any(v is not None for v in long) else "")
            r.append(rel(kernel, "5", kernel, "4", op, "long")
                     if any(v is not None for v in long) and "4" in modes and "5" in modes else "")
            s = summ(kernel, modes[-1], op)
            r.append(f"{s['n'] // len(s['boots'])} x {len(s['boots'])}" if s else "")
            rows.append(r)
        w(f"\n### {kernel} kernel\n")
        w(md_table(["operation"] + [f"min {m}" for m in modes] + [f"boots {m}" for m in modes]
                   + ["5 vs 4", "long: " + " / ".join(modes), "5 vs 4, long", "n"], rows))
        w("")

    # What the operations do at the P4D level, from the events.
    w("\n### The P4D work behind each operation (tracepoints)\n")
    w("Events per operation counted by the `tp_btf` programs of `analysis/tpcount.bpf.c`,"
      " read around the timed part only (patched kernel): P4D tables allocated / freed /"
      " `x86_get_unmapped_area` decisions.\n")
    rows = []
    for op in ["syscall", "mmap", "mmap-high", "fork", "exec"]:
        r = [OP_TEXT[op]]
        for m in MODES:
            s = summ("patched", m, op, "tp_btf")
            r.append("n/a" if not s else
                     f"{s['events']['ev_p4d_alloc']:.2f} / {s['events']['ev_p4d_free']:.2f} / "
                     f"{s['events']['ev_gua']:.2f}")
        rows.append(r)
    w(md_table(["operation"] + [f"paging {m}" for m in MODES], rows))
    w("")
    thp = summ("patched", "5", "faultthp")
    ffile = [(k, m, summ(k, m, "fault-file")) for k in kernels for m in MODES
             if summ(k, m, "fault-file")]
    sparse = summ("patched", "5", "munmap-sparse-high")
    if thp:
        w(f"- faultthp: each sample mapped {thp['aux_min']} to {thp['aux_max']} THP"
          " (AnonHugePages of the process), so the THP path is what was measured.")
    if ffile:
        w("- fault-file: minor faults per sample (getrusage, timed part only) for"
          f" {ffile[0][2]['ops_per_rep']} pages touched: " + "; ".join(
              f"{k} paging {m} {f['aux_min']}" + ("" if f["aux_min"] == f["aux_max"]
                                                  else f" to {f['aux_max']}")
              for k, m, f in ffile) + " (one fault per page when they equal the pages).")
    if sparse:
        w(f"- munmap-sparse-high on paging 5: {sparse['aux_min']} to {sparse['aux_max']}"
          " mappings per sample landed above 47 bits (1 = all of them).")
    w("")

    # Repeatability.
    w("\n### Run-to-run repeatability\n")
    w("Within a boot the samples of most operations are identical or nearly so; between"
      " boots the same operation can differ by a few per cent, because each boot starts"
      " from its own allocator and memory-layout state (also with `nokaslr`: tried while"
      " developing this benchmark). Hence the comparisons above are between boots, with"
      " confidence intervals from the boot-to-boot spread. Per cell: the spread of the boots'"
      " medians (max - min, in per cent of their mean) / the median within-boot"
      " interquartile range (per cent):\n")
    rows = []
    for op in OP_NAMES:
        r = [OP_TEXT[op]]
        for kernel in kernels[:2]:
            for m in MODES:
                s = summ(kernel, m, op)
                if not s:
                    r.append("n/a")
                    continue
                b = s["boots"]
                spread = (max(b) - min(b)) / mean(b) * 100 if len(b) > 1 else None
                r.append(f"{fmt(spread, 2)}% / {median(list(s['round_iqr'].values())) * 100:.2f}%")
        rows.append(r)
    w(md_table(["operation"] + [f"{k} {m}" for k in kernels[:2] for m in MODES], rows))
    w("")
    cal = data["calib"]
    if cal:
        rel_c = [c["ns"] / c["instructions"] for c in cal]
        w(f"Clock check: a loop of exactly {cal[0]['instructions']:,} instructions read"
          f" {min(rel_c):.5f} to {max(rel_c):.5f} guest ns per instruction ({len(cal)}"
          " readings, three per boot; what exceeds 1 is the timer ticks inside the loop).\n")

    # ---- Zen 4 ----
    w("\n### Against the published AMD Zen 4 figure\n")
    w("The published figure: lmbench `lat_pagefault` +5.56% on AMD Zen 4 with"
      " `CONFIG_X86_5LEVEL` compiled in versus compiled out. A Zen 4 has LA57, so the kernel"
      " with the option runs 5-level paging and the one without runs 4-level paging on the"
      " same CPU: the figure is 5-level compiled in and running vs compiled out. Here that is"
      " *paging 5* vs *compiled out* (the no5level kernel on the same LA57 CPU). The"
      " lat_pagefault-shaped row (`fault-file`) follows lmbench's method (a file whose pages"
      " are in the page cache, mapped read-only and shared, one read fault per page, nothing"
      " zeroed), except that its data pages lie 16 file pages apart so that fault-around maps"
      " nothing besides the faulting page: each touch is one fault (with the default"
      " `fault_around_bytes` lmbench's dense file takes one fault per 16 pages); the"
      " anonymous first-touch fault, which clears a page, is beside it.\n")
    rows = []
    for op in ["fault-file", "fault4k"]:
        rows.append([OP_TEXT[op]] + [fmt(cell("no5level", "4", op))]
                    + [fmt(cell("patched", m, op)) for m in MODES]
                    + [rel("patched", "5", "no5level", "4", op),
                       rel("patched", "no5lvl", "no5level", "4", op),
                       rel("patched", "5", "patched", "4", op)])
    w(md_table(["instructions per fault", "compiled out", "paging 4", "no5lvl", "paging 5",
                "5 vs compiled out", "no5lvl vs compiled out", "5 vs 4"], rows))
    w("")
    if cell("no5level", "4", "fault-file") is None:
        w("- Compiled in vs out is not measured by this run: no kernel in it has"
          " `CONFIG_X86_5LEVEL=n`. `make kernel-no5level` builds one, and `analysis/run`"
          " uses it when it is there.")
    w("- *5 vs compiled out* is the published comparison, in instructions. *no5lvl vs"
      " compiled out* is the same paging depth on the same CPU, compiled in vs out: what the"
      " run-time `pgtable_l5_enabled()` checks and the P4D level folded at run time instead"
      " of at build time cost. *5 vs 4* is one kernel on two CPUs; no5lvl runs the same code"
      " and branches as paging 4, so their equality says nothing about those checks.")
    w("- What can match: the sign and the size of the extra *work* on the fault path, in"
      " instructions. What cannot: lmbench measures time on hardware, where the cost also"
      " comes from branch mispredictions, i-cache and TLB footprint and the hardware page"
      " walk; TCG models none of these, and an instruction count weighs a cheap register"
      " move the same as a cache-missing load. So a percentage in instructions here and one"
      " in cycles there need not agree, and neither bounds the other.\n")

    # ---- item 2 ----
    w("\n## 2. Tracepoint cost\n")
    w("### Events off: patched vs vanilla\n")
    if "vanilla" in kernels:
        rows = []
        for op in OP_NAMES:
            r = [OP_TEXT[op]]
            for m in MODES:
                d = cmp("patched", m, "vanilla", m, op)[0]
                r.append("n/a" if not d else f"{d[0]:+,.0f}" if d[1] is None else
                         f"{d[0]:+,.0f} [{d[1]:+,.0f}, {d[2]:+,.0f}]")
            rows.append(r)
        w("Instructions per operation, patched minus vanilla: the difference of the boots'"
          " medians [95% CI]. With the events off the series adds a 5-byte NOP (the static"
          " key) per tracepoint site passed and, in `get_unmapped_area()`, a call to the"
          " bottom-up helper it factors out: a few instructions where those paths run. An"
          " interval that holds 0 means no difference is resolved with these boots.\n")
        w(md_table(["operation"] + [f"paging {m}" for m in MODES], rows))
        w("")
    else:
        w("No vanilla kernel in this run.\n")

    w("\n### Events consumed: instructions per event\n")
    w("On the patched kernel, each consumer of all four events is attached for every other"
      " sample and detached for the others (`swpath -t`; `on` in swpath.csv), so that the"
      " samples with and without it interleave and a slow drift of the machine's state"
      " falls on both alike; p4dstat, which cannot be toggled, runs in blocks that alternate"
      " with blocks without it (`off:p4dstat`). Extra cost per operation = median with the"
      " consumer - median without [95% interval]; per event = that / events per operation,"
      " as the counting programs saw them (for tracefs and p4dstat: as `tp_btf` saw them)."
      " Consumers: `tracefs`, the events written into a tracefs instance's ring buffer"
      " (enabling any event also turns on tracefs' recording of task names at every context"
      " switch, part of its cost for fork and exec); `tp_btf`, `raw_tp`, `tp`, a BPF program"
      " that only increments a counter (as the kernel's `bench_trigger` does) attached as a"
      " BTF raw tracepoint, a raw tracepoint and a classic tracepoint (a perf event with the"
      " program set); `p4dstat`, the project's tool as a user runs it (it also counts TLB"
      " flushes and mmap exits, so its cost per operation holds more than these events).\n")
    tp_rows = []
    for m in MODES:
        rows = []
        for op in ["syscall", "mmap", "mmap-high", "fork", "exec"]:
            r = [OP_TEXT[op]]
            evs = summ("patched", m, op, "tp_btf")
            if not evs:
                continue
            r.append(f"{sum(evs['events'].values()):.2f}")
            for c in CONSUMERS:
                on, off = summ("patched", m, op, c), summ("patched", m, op, "off:" + c)
                if not on or not off:
                    r.append("n/a")
                    continue
                own = c in ("tp_btf", "raw_tp", "tp")
                nev = sum((on if own else evs)["events"].values())
                d = diff_ci(on["vals"], off["vals"])
                if not d:
                    r.append("n/a")
                    continue
                per = f", {d[0] / nev:,.0f}/event" if nev >= 0.5 else ""
                r.append(f"{d[0]:+,.0f} [{d[1]:+,.0f}, {d[2]:+,.0f}]{per}")
                if nev >= 0.5:
                    tp_rows.append({"paging": m, "op": op, "consumer": c, "events_per_op": nev,
                                    "delta": d[0], "delta_low": d[1], "delta_high": d[2],
                                    "per_event": d[0] / nev})
            rows.append(r)
        if rows:
            w(f"\n**paging {m}**: extra instructions per operation [95% interval], per event\n")
            w(md_table(["operation", "events/op"] + CONSUMERS, rows))
            w("")
    write_csv(os.path.join(out, "tpcost.csv"), tp_rows,
              ["paging", "op", "consumer", "events_per_op", "delta", "delta_low",
               "delta_high", "per_event"])
    if tp_rows:
        w("\n**Per event**: the median over the mmap and mmap-high cells above (every paging"
          " mode; their samples are tight, so the difference is resolved to tens of"
          " instructions), next to the published per-event costs of BPF programs"
          " (`bench_trigger`, on hardware, in ns). fork and exec vary by thousands of"
          " instructions from sample to sample and between runs (allocator and vmalloc"
          " state), more than the events cost: their rows above bound the cost, they do not"
          " measure it.\n")
        rows = []
        for c in CONSUMERS:
            v = [t["per_event"] for t in tp_rows if t["consumer"] == c and t["op"] in PER_EVENT_OPS]
            if not v:
                continue
            pub = PUBLISHED_NS.get(c)
            rows.append([c, fmt(median(v)), f"{fmt(min(v))} .. {fmt(max(v))}", len(v),
                         f"~{pub} ns" if pub else ("(raw_tp's)" if c == "tp_btf" else "")])
        w(md_table(["consumer", "instructions/event", "range over cells", "cells", "published"],
                   rows))
        pe = {c: median([t["per_event"] for t in tp_rows
                         if t["consumer"] == c and t["op"] in PER_EVENT_OPS]) for c in TOGGLED}
        w("\nInstructions are not nanoseconds: at one instruction per cycle and 3 GHz, 100"
          " instructions take 33 ns, at four per cycle 8 ns; so only the order and the ratios"
          " between consumers can be set next to the published figures. There a classic `tp`"
          f" program costs {PUBLISHED_NS['tp'] / PUBLISHED_NS['raw_tp']:.1f} times a `raw_tp`"
          " one, because the perf path first fills the trace-event record"
          " (`perf_trace_*`) that a raw tracepoint program never builds.")
        if pe.get("tp") and pe.get("raw_tp") and pe.get("tp_btf"):
            w(f" Here `tp` costs {pe['tp'] / pe['raw_tp']:.1f} times `raw_tp` and"
              f" {pe['tp'] / pe['tp_btf']:.1f} times `tp_btf`"
              + (" per event: the same order, a smaller ratio."
                 if pe["tp"] > max(pe["raw_tp"], pe["tp_btf"]) else
                 " per event: not the published order; see the intervals above.")
              + f" `tp_btf` and `raw_tp` run the same program through the same hook and"
              f" differ by {abs(pe['tp_btf'] - pe['raw_tp']):.0f} instructions here, which"
              " says how far these medians can be trusted.")
        w("")
    notes = [c for c in data["consumer"] if c["kernel"] == "patched"]
    if notes:
        w("What each consumer saw, first boot of each mode (event totals over its blocks):\n")
        seen = set()
        for c in notes:
            if (c["paging"], c["consumer"]) in seen or c["round"] != min(x["round"] for x in notes):
                continue
            seen.add((c["paging"], c["consumer"]))
            note = c["note"]
            if len(note) > 200:
                note = note[:197] + "..."
            w(f"- paging {c['paging']}, {c['consumer']}: `{note}`")
        w("")

    # ---- item 3 ----
    plot_rows = []
    if data["chase"]:
        plot_rows = wall_time_walks(w, data, out, boots, first)
    else:
        modelled_walks(w, out)

    # ---- item 4 ----
    w("\n## 4. Memory: page-table pages per process\n")
    w("`analysis/ptmem.c` forks N processes that each map and touch one page in each of K"
      " regions above 47 bits (hints i << 48), holds them alive and reads /proc and the"
      " counters. Levels, for the first child: the tables its present pages need"
      " (/proc/PID/pagemap), checked against its VmPTE; P4D tables from the `p4d_alloc` /"
      " `p4d_free` events (live = allocated - freed, all processes, per process); the PGD"
      " is one page per process (order 0: no page-table isolation in this config), which"
      " /proc does not count. In 6.1 `PageTables` of /proc/meminfo counts PTE and PMD tables"
      " only, VmPTE counts PTE, PMD and PUD tables: **neither sees the P4D level.**\n")
    pm = [r for r in data["ptmem"] if r["kernel"] == "patched"]
    rows = []
    mem_dat = []
    for mode in MODES:
        for k in sorted({r["regions"] for r in pm}):
            rs = [r for r in pm if r["paging"] == mode and r["regions"] == k]
            if not rs:
                continue
            big = max(rs, key=lambda r: r["procs"])
            p4d = (big["p4d_alloc_held"] - big["p4d_free_held"]) / big["procs"]
            levels = [1, p4d, big["pud"], big["pmd"], big["pte"]]
            model_ok = big["vmpte_kb_first"] == 4 * (big["pte"] + big["pmd"] + big["pud"])
            total = sum(levels)
            rows.append([f"paging {mode}, K={k}", f"{p4d:.2f}", big["pud"], big["pmd"], big["pte"],
                         f"{total:.2f}", f"{total * 4:.1f}",
                         f"{(big['pt_kb_held'] - big['pt_kb_before']) / big['procs']:.2f}",
                         f"{big['vmpte_kb_sum'] / big['procs']:.2f}"
                         + ("" if model_ok else f" (first: {big['vmpte_kb_first']})"),
                         big["procs"]])
            mem_dat.append((mode, k, levels))
    w(md_table(["paging, high regions K", "P4D (events)", "PUD", "PMD", "PTE",
                "pages incl. PGD", "KiB", "PageTables KiB/proc", "VmPTE KiB/proc", "N"], rows))
    w("\nPageTables and VmPTE per process come from the largest N; the level counts from the"
      " first child. Over N (all runs, paging 5 and 4, patched):\n")
    rows = []
    for mode in ["4", "5"]:
        for r in sorted((r for r in pm if r["paging"] == mode), key=lambda r: (r["regions"], r["procs"])):
            rows.append([f"paging {mode}, K={r['regions']}", r["procs"],
                         r["pt_kb_held"] - r["pt_kb_before"], r["vmpte_kb_sum"],
                         (r["p4d_alloc_held"] - r["p4d_free_held"]) if mode == "5" else "n/a",
                         f"{r['p4d_alloc_all']} / {r['p4d_free_all']}" if mode == "5" else "n/a"])
    w(md_table(["paging, K", "N", "PageTables +KiB", "sum VmPTE KiB", "P4D live (events)",
                "P4D alloc / free, to the end"], rows))
    w("\nPageTables is a per-CPU vmstat counter folded into the global value in batches, so"
      " for small N its difference is off by up to a batch; it converges at N = 100 and"
      " 1000.\n")
    with open(os.path.join(out, "ptmem.dat"), "w") as f:
        f.write("# label pgd p4d pud pmd pte (pages per process)\n")
        for mode, k, levels in mem_dat:
            f.write(f'"{mode}, K={k}" ' + " ".join(f"{v:.2f}" for v in levels) + "\n")

    # ---- plot data for item 1, and what plots.gp can draw ----
    series = [("patched", "5", "4", "patched, paging 5"), ("patched", "no5lvl", "4",
              "patched, no5lvl"), ("vanilla", "5", "4", "vanilla, paging 5")]
    have = [any(ratio(cell(k, a, op), cell(k, b, op)) for op in OP_NAMES)
            for k, a, b, _ in series]
    with open(os.path.join(out, "swpath.dat"), "w") as f:
        f.write("# op, then per series the % difference of the median to paging 4\n")
        for op in OP_NAMES:
            vals = []
            for kern, a, b, _ in series:
                rr = ratio(cell(kern, a, op), cell(kern, b, op))
                vals.append(f"{(rr - 1) * 100:.3f}" if rr else "NaN")
            f.write(f'"{op}" ' + " ".join(vals) + "\n")
    walks_drawn = [wk for wk, _ in WALKS if any(r[0] == wk for r in plot_rows)]
    with open(os.path.join(out, "plotvars.gp"), "w") as f:
        f.write("# Written by analysis/stats.py: what analysis/plots.gp has data for.\n")
        f.write('swpath_cols = "%s"\n' % " ".join(str(i + 2) for i, h in enumerate(have) if h))
        f.write('swpath_titles = "%s"\n' % " ".join(f"'{t[3]}'" for t, h in zip(series, have) if h))
        f.write(f"tpcost_rows = {len([1 for c in CONSUMERS if any(t['consumer'] == c and t['op'] in PER_EVENT_OPS for t in tp_rows)])}\n")
        f.write(f"ptmem_rows = {len(mem_dat)}\n")
        f.write(f'walk_names = "{" ".join(walks_drawn)}"\n')
    with open(os.path.join(out, "tpcost.dat"), "w") as f:
        f.write("# consumer median_instructions_per_event\n")
        for c in CONSUMERS:
            v = [t["per_event"] for t in tp_rows if t["consumer"] == c and t["op"] in PER_EVENT_OPS]
            if v:
                f.write(f'"{c}" {median(v):.1f}\n')

    # ---- method ----
    w("\n## Method and limits\n")
    w("- Guests: `scripts/run-guest --smp 1`, 1 GiB, QEMU TCG with `-cpu qemu64,+la57`"
      " (paging 5 and no5lvl) or `qemu64` (paging 4). Software paths with `--icount`"
      " (`-icount shift=0,sleep=off`): guest time advances one ns per guest instruction, and"
      " an idle vCPU jumps to the next timer, so a timed section counts the instructions of"
      " everything the one vCPU ran meanwhile (interrupts included; `intr` in swpath.csv"
      " says which samples had one).")
    w("- The timed programs are static and run from the guest's tmpfs: no 9p I/O while timed."
      " THP is `always` in the guest and madvise() is not built in, so 4K runs use"
      " `prctl(PR_SET_THP_DISABLE)`.")
    w("- execve on 5-level allocates two P4D tables, not one: the new mm's temporary"
      " argument stack sits at the top of the 56-bit space (STACK_TOP_MAX, PGD entry 255) until"
      " `setup_arg_pages()` moves it below 47 bits and frees that table (seen as"
      " `p4d_alloc address=0xffffffffffef..` then `p4d_free address=0xff000000000000`).")
    w("- Deferred work (RCU callbacks freeing maple-tree nodes, task structs and stacks)"
      " runs at timer ticks, in whichever sample the tick falls: single-operation minima"
      " exclude it, long batches average it in.")
    w("- Page walks: wall time is emulator time, on a shared 2-CPU host; see the section's"
      " warning. The sparse chase puts its pages 16 GiB apart so that they collide in QEMU's"
      " direct-mapped soft TLB at any size it can grow to; the dense chase can be partly"
      " absorbed when QEMU grows its TLB at a flush.")
    w("- Files: swpath.csv (every sample), tpcost.csv, ptmem.csv, walk.csv, calib.csv,"
      " consumers.csv, boots.csv; plots swpath.png/svg, tpcost.png/svg, pagewalk.png/svg,"
      " ptmem.png/svg.")
    w("\n![5 vs 4 instructions](swpath.svg)\n![per-event cost](tpcost.svg)\n"
      "![page walks](pagewalk.svg)\n![page-table pages](ptmem.svg)\n")

    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
