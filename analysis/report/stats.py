#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stats.py LOGDIR OUTDIR [WALKMODEL_LOGDIR]: make bench's records -> CSV, plot data, results.md.

LOGDIR holds what analysis/run collected: icount_KERNEL_PAGING_ROUND.log (the records of
analysis/icount/guest.sh, parts icount and debian), funcs_KERNEL_PAGING.log and .csv (part
funcs) and host-PART.txt; OUTDIR/walkmodel/ the walk model's report; WALKMODEL_LOGDIR its
raw logs (the pagefault workload's fault count). The report is made from whichever parts'
logs exist and names the missing ones. Only the standard library: it runs on any python3.
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "walkmodel"))

import funcs
from benchstats import mean, mean_ci, median, welch
from mdtable import md_table
from records import (EVENTS, LEVELS, PARTS, PTMEM_COLS, SWPATH_COLS, RecordError, per_op, read_logs,
                     write_csv)
# the walk model's own reading and pricing of its runs
from report import WHERE
from report import events as walkmodel_events, load as walkmodel_load

OPS = [
    ("syscall", "getppid() (control)"),
    ("fault4k", "first-touch fault, 4K page"),
    ("fault-file", "read fault, page-cache file, one fault per page"),
    ("lat-pagefault", "lat_pagefault shape: every page of a 64 MiB file, per page"),
    ("lat-pagefault-unmap", "lmbench 3's lat_pagefault: the same, with munmap + mmap + msync,"
     " less an untouched one's, per page"),
    ("faultthp", "first-touch fault, 2M THP"),
    ("mmap", "mmap + munmap, 1 page"),
    ("mmap-high", "mmap at 1<<48 + touch + munmap"),
    ("mmap-newpud", "mmap at 1<<46 + touch + munmap (new PUD chain)"),
    ("fork", "fork + exit + wait"),
    ("exec", "vfork + execve(static) + exit + wait"),
    ("munmap-sparse-low", "munmap, 64G sparse, low"),
    ("munmap-sparse-high", "munmap, 64G sparse, at 1<<48"),
]
OP_NAMES = [o for o, _ in OPS]
OP_TEXT = dict(OPS)
MODES = ["4", "no5lvl", "5"]


class Config:
    """One kernel configuration: its patched and vanilla kernels and a third (analysis/
    kernels.sh): compiled out (no5level) where the tree has CONFIG_X86_5LEVEL, the exec
    RFC's kernel (exec-rfc) where it has not. cells are the key table's columns, comps its
    comparisons ((kernel, paging) a vs b, title); func_cells and func_comps the per-function
    tables'."""

    def __init__(self, part, title, patched, vanilla, third, targets):
        self.part, self.title, self.targets = part, title, targets
        self.patched, self.vanilla, self.third = patched, vanilla, third
        self.kernels = [patched, vanilla, third]
        self.P4, self.N5, self.P5 = (patched, "4"), (patched, "no5lvl"), (patched, "5")
        self.compiled_out = third.endswith("no5level")
        # The 4-level run the fifth level is held against: compiled out, or no5lvl.
        self.BASE = (third, "4") if self.compiled_out else self.N5
        self.base_name = "compiled out" if self.compiled_out else "no5lvl"
        if self.compiled_out:
            # The four builds and boots of the published comparison (AMD's Zen 4 and 5).
            self.OUT = (third, "4")
            self.cells = [(third, "4", "compiled out"), (patched, "4", "paging 4 (no LA57)"),
                          (patched, "no5lvl", "no5lvl"), (patched, "5", "paging 5")]
            self.comps = [(self.P5, self.OUT, "5 vs compiled out"),
                          (self.P4, self.OUT, "4 vs compiled out"), (self.P5, self.P4, "5 vs 4")]
            self.func_cells = [(self.OUT, "compiled out"), (self.P4, "paging 4"),
                               (self.P5, "paging 5")]
            self.func_comps = [(self.P5, self.OUT, "paging 5 − compiled out"),
                               (self.P4, self.OUT, "paging 4 − compiled out"),
                               (self.P5, self.P4, "paging 5 − paging 4")]
        else:
            # No compiled-out kernel: no5lvl is the 4-level baseline, on the same build.
            self.OUT = None
            R5 = (third, "5")
            self.cells = [(patched, "4", "paging 4 (no LA57)"), (patched, "no5lvl", "no5lvl"),
                          (patched, "5", "paging 5"), (third, "no5lvl", "RFC no5lvl"),
                          (third, "5", "RFC paging 5")]
            self.comps = [(self.P5, self.N5, "5 vs no5lvl"), (R5, self.N5, "RFC 5 vs no5lvl"),
                          (R5, self.P5, "RFC 5 vs 5")]
            self.func_cells = [(self.N5, "no5lvl"), (self.P5, "paging 5"), (R5, "RFC paging 5")]
            self.func_comps = [(self.P5, self.N5, "paging 5 − no5lvl"),
                               (R5, self.N5, "RFC 5 − no5lvl"),
                               (R5, self.P5, "RFC 5 − paging 5")]
        # What the series changes with its events off, in both layouts.
        V5 = (vanilla, "5")
        self.func_cells.append((V5, "vanilla paging 5"))
        self.func_comps.append((self.P5, V5, "patched − vanilla, paging 5"))


TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def fragments(kind, tree):
    """The fragments scripts/build-kernel adds on top of tinyconfig (small) or Debian's
    configuration (debian): every tree's, and the tree's own where it has one."""
    common = "kernel" if kind == "small" else "debian"
    own = f"guest-image/{common}-{tree}.config"
    return f"`guest-image/{common}.config`" + (
        f" and `{own}`" if os.path.exists(os.path.join(TOP, own)) else "")


def configs_for(tree, third):
    return [
        Config("icount", "small guest kernel (tinyconfig + "
               f"{fragments('small', tree).replace('`', '')})",
               "patched", "vanilla", third, f"make kernel kernel-vanilla kernel-{third}"),
        Config("debian", f"Debian's cloud-kernel configuration (linux-config-{tree} + "
               f"{fragments('debian', tree).replace('`', '')})", "debian", "debian-vanilla",
               f"debian-{third}",
               "make kernels-debian"),
    ]


# The tree the report is about (host-PART.txt's "tree"; logs without one are 6.1's) and its
# configurations: set once by main() before any section is written.
TREE = "6.1"
CONFIGS = configs_for(TREE, "no5level")
TINY = CONFIGS[0]
# How running text names each configuration.
CONFIG_NAME = {"icount": "the small kernel", "debian": "Debian's configuration"}
KERNELS = [k for c in CONFIGS for k in c.kernels]


def use_tree(tree, third):
    global TREE, CONFIGS, TINY, KERNELS
    TREE, CONFIGS = tree, configs_for(tree, third)
    TINY = CONFIGS[0]
    KERNELS = [k for c in CONFIGS for k in c.kernels]


# What each part needs and how to make its logs, for the report's list of missing parts.
PART_HOW = {"icount": "analysis/run --parts icount",
            "debian": "make kernels-debian, then analysis/run --parts debian",
            "model": "analysis/run --parts model",
            "funcs": "analysis/run --parts funcs"}
CONSUMERS = ["tracefs", "tp_btf", "raw_tp", "tp", "p4dstat"]
OWN_COUNTERS = ["tp_btf", "raw_tp", "tp"]
CONSUMER_OPS = ["syscall", "mmap", "mmap-high", "fork", "exec"]
# The operations whose samples are tight enough to price one event.
PER_EVENT_OPS = ["mmap", "mmap-high"]
# Published per-event costs of BPF programs (kernel selftests bench_trigger, hardware).
PUBLISHED_NS = {"raw_tp": 8, "tp": 41}
FAULT_OPS = ["fault4k", "fault-file", "lat-pagefault", "lat-pagefault-unmap", "faultthp",
             "mmap-newpud", "mmap-high"]
# The published lat_pagefault figures, microseconds per page (lmbench reports per page).
# Zen 4: two-socket EPYC, CONFIG_X86_5LEVEL on (running 5-level) vs off, THP never and
# always, 31 Jul 2024, LKML <80734605-1926-4ac7-9c63-006fe3ea6b6a@amd.com>.
AMD_ZEN4 = {"never": (0.4068, 0.4294), "always": (0.4061, 0.4288)}
AMD_ZEN4_MSGID = "80734605-1926-4ac7-9c63-006fe3ea6b6a@amd.com"
# Zen 5: 6.15-rc6+, `lat_pagefault -N 100` on a 1 GB file, means of 50 runs, 15 May 2025,
# LKML <7c315a0d-1508-4310-b584-ecaeaba52296@amd.com>.
AMD_ZEN5 = {"compiled out": 0.137958, "no5lvl": 0.138876, "5-level": 0.138904}
AMD_ZEN5_MSGID = "7c315a0d-1508-4310-b584-ecaeaba52296@amd.com"
# AMD's follow-up with perf profiles of the Zen 4 kernels (quoted from issue 36's review).
AMD_PROFILE_MSGID = "5b031938-9c82-4f09-b5dc-c45bc7fe6e07@amd.com"
# How the kernel clears a 4K page on the guest CPU (REP_GOOD), where it is not 6.1's
# clear_page_rep.
CLEAR_PAGE = {"7.3": "`clear_pages()`, inline (arch/x86/include/asm/page_64.h)"}
# Base cycles per instruction that turn walk cycles into a share of a fault's time: an
# assumption (the walk model's report uses the same band).
CPI_BAND = (0.5, 1.5)


# ---- formatting ----------------------------------------------------------------------------

def fmt(v, digits=0):
    return "n/a" if v is None else f"{v:,.{digits}f}"


def _shown(x, spec):
    """x as spec prints it, with a value that rounds to zero printed as zero: "-0.00" and
    "+0.00" are one number, and must compare (and read) as one."""
    s = format(x, spec)
    return format(0.0, spec) if float(s.replace(",", "")) == 0 else s


def _interval(v, spec, unit=""):
    """"+12 [+3, +20]"; the value alone when the interval is narrower than the last digit
    shown (every boot the same): never a range whose ends are one number."""
    m, lo, hi = (None if x is None else _shown(x, spec) for x in v)
    if lo is None or lo == hi == m:
        return f"{m}{unit}"
    return f"{m}{unit} [{lo}, {hi}]"


def fmt_diff(d, digits=0):
    """A difference with its interval: "+12 [+3, +20]"."""
    return _interval(d, f"+,.{digits}f") if d else "n/a"


def fmt_rel(d, base, digits=2):
    """A difference with its interval, in per cent of base: "+1.20% [+0.80, +1.60]"."""
    if not d or not base:
        return "n/a"
    return _interval([None if v is None else v / base * 100 for v in d], f"+.{digits}f", "%")


# ---- the cells of the matrix ------------------------------------------------------------

class Matrix:
    """swpath samples by cell: (kernel, paging, consumer, kind, op) -> {round: [rows]}."""

    def __init__(self, rows, p4d_free_via_pud=()):
        # Kernels whose ___p4d_free_tlb runs through ___pud_free_tlb (analysis/run reads
        # it from each vmlinux): their PUD frees count every P4D free once more.
        self.p4d_free_via_pud = set(p4d_free_via_pud)
        self.g = defaultdict(lambda: defaultdict(list))
        for r in rows:
            self.g[(r["kernel"], r["paging"], r["consumer"], r["kind"], r["op"])][r["round"]] \
                .append(r)
        # The operations the tables list: those the records have (an operation added to
        # swpath after the run is left out, not shown as n/a); all of them without records.
        measured = {key[4] for key in self.g}
        self.ops = [op for op in OP_NAMES if op in measured or not measured]
        self.fault_ops = [op for op in FAULT_OPS if op in measured or not measured]

    def rounds(self, kernel, mode, op, consumer="off", kind="single"):
        return self.g.get((kernel, mode, consumer, kind, op), {})

    def boots(self, kernel, mode, op, consumer="off", kind="single"):
        """Each boot's median instructions per operation: the unit of replication."""
        return [median([per_op(r) for r in rs])
                for rs in self.rounds(kernel, mode, op, consumer, kind).values()]

    def boot_means(self, kernel, mode, op):
        """Each boot's mean instructions per operation over all its rounds: the estimator
        of a funcs.so boot, which sums every batch."""
        return [sum((r["op_ns"] - r["empty_ns"]) for r in rs) / sum(r["ops"] for r in rs)
                for rs in self.rounds(kernel, mode, op).values()]

    def spread(self, a, b, op):
        """The range one boot of cell a less one boot of cell b took (boot means), or None."""
        ma, mb = self.boot_means(*a, op), self.boot_means(*b, op)
        return (min(ma) - max(mb), max(ma) - min(mb)) if ma and mb else None

    def value(self, kernel, mode, op, kind="single"):
        return mean(self.boots(kernel, mode, op, kind=kind))

    def fastest(self, kernel, mode, op):
        v = [per_op(r) for rs in self.rounds(kernel, mode, op).values() for r in rs]
        return min(v) if v else None

    def diff(self, a, b, op, kind="single"):
        """Cell a - cell b (each (kernel, mode)), Welch over the boots' medians."""
        return welch(self.boots(*a, op, kind=kind), self.boots(*b, op, kind=kind))

    def rel(self, a, b, op, kind="single"):
        return fmt_rel(self.diff(a, b, op, kind), self.value(*b, op, kind))

    def tables(self, kernel, mode, op):
        """Page-table pages and cleared pages per operation (the untimed tables pass)."""
        rows = [r for rs in self.rounds(kernel, mode, op, "tables").values() for r in rs]
        if not rows:
            return None
        n = sum(r["ops"] for r in rows)
        t = {k: sum(r[k] for r in rows) / n
             for k in ["alloc_" + l for l in LEVELS] + ["free_" + l for l in LEVELS]
             + ["page_clear"]}
        # GCC's identical-code folding can make ___p4d_free_tlb a tail call of
        # ___pud_free_tlb (same body on x86): then every P4D free also enters the PUD one.
        if kernel in self.p4d_free_via_pud:
            t["free_pud"] -= t["free_p4d"]
        return t

    def events(self, mode, op, consumer="tp_btf"):
        """Trace events per operation as a counting consumer saw them (patched kernel)."""
        rows = [r for rs in self.rounds("patched", mode, op, consumer).values() for r in rs]
        n = sum(r["ops"] for r in rows)
        return sum(r[e] for r in rows for e in EVENTS) / n if n else None

    def nboots(self, kernels):
        n = [len(v) for k, v in self.g.items()
             if k[0] in kernels and k[2] == "off" and k[3] == "single"]
        return (min(n), max(n)) if n else (0, 0)

    def has(self, kernel):
        return any(k[0] == kernel for k in self.g)


# ---- the sections of results.md -----------------------------------------------------------

def commits(host):
    """The commit each part ran at: "commit abc1234", or per part where they differ."""
    by = defaultdict(list)
    for p in PARTS:
        if host.get(p, {}).get("commit"):
            by[host[p]["commit"]].append(p)
    if len(by) <= 1:
        return f"commit {next(iter(by), '?')}"
    return ", ".join(f"commit {c} (part{'s' if len(ps) > 1 else ''} {', '.join(ps)})"
                     for c, ps in by.items())


def header(w, boots, host, kernels, missing, model_report):
    quick = any(h.get("mode") == "quick" for h in host.values())
    w("# What the fifth paging level costs: measurements"
      + ("" if TREE == "6.1" else f" on Linux {TREE}") + "\n")
    if quick:
        w("> **Quick run** (`make bench QUICK=1`): a reduced matrix with few repetitions, made"
          " to prove the programs work. Its numbers are not the results; `make bench` makes"
          " those.\n")
    w("Written by `analysis/run` (`make bench`) from the guests' records; every number below"
      " comes from the CSV files next to this report (swpath.csv holds every sample) or"
      " from `walkmodel/`. The Method section at the end says how.\n")
    h = next((host[p] for p in PARTS if p in host), {})

    def when(part):
        p = host.get(part)
        if not p and part == "model" and model_report:
            return "not rerun by this run: walkmodel/walkmodel.md says when its run was"
        if not p:
            return f"**missing**: no logs of this part ({PART_HOW[part]})"
        d = int(p.get("duration_s", 0))
        return (f"{p.get('date', '?')}, {d // 60} min {d % 60} s, host load (1-min average)"
                f" {p.get('loadavg_start', '?')} at the start, {p.get('loadavg_end', '?')}"
                " at the end")
    rows = [["host", h.get("host", "?")],
            ["emulator", h.get("qemu", "?") + " (TCG; KVM is not usable on this machine)"],
            ["repository", commits(host) + f", series {h.get('series', '?')}"]]
    for k in kernels:
        rows.append([f"kernel {k}", next((host[p].get("kernel_" + k) for p in PARTS
                                          if host.get(p, {}).get("kernel_" + k)), "?")])
    # The kernels of one configuration differ only in what their names say (analysis/run
    # records each .config against its patched kernel's).
    for k in kernels:
        change = next((host[p].get("configdiff_" + k) for p in PARTS
                       if host.get(p, {}).get("configdiff_" + k)), None)
        if change:
            ref = "debian" if k.startswith("debian") else "patched"
            rows.append([f".config {k} vs {ref}", "no difference" if change == "none"
                         else change])
    rows += [[f"part {p}", when(p)] for p in PARTS]
    w(md_table(["", ""], rows, ["l", "l"]))
    third = TINY.third
    how = ("the patched tree built with `CONFIG_X86_5LEVEL=n`" if TINY.compiled_out else
           f"the patched tree with the exec RFC (patches/{TREE}/exec-rfc) on top")
    w(f"\nKernels: *patched* is {TREE} with `patches/{TREE}`, *vanilla* without them,"
      f" *{third}* {how}, built by `make kernel-{third}`; all three from tinyconfig and"
      f" {fragments('small', TREE)}. *debian*, *debian-vanilla* and"
      f" *debian-{third}* are the same three from Debian's own configuration of its cloud"
      f" kernel (`make kernels-debian`, {fragments('debian', TREE)}). The config hashes are"
      " sha256 of each build's `.config`.")
    if missing:
        w("\n**Missing from this report**: " + "; ".join(missing) + ".")
    failed = [b for b in boots if b.get("status") not in ("0", None)]
    if failed:
        w("\n**Failed boots** (their records are missing from the tables): " + ", ".join(
            f"{b['kernel']} paging {b['paging']} round {b['round']} (status {b['status']})"
            for b in failed))
    w("")


def key_table(w, M, cfg, first):
    lo, hi = M.nboots(cfg.kernels)
    nb = (f"{lo} boot" if lo == hi == 1 else f"{lo} boots" if lo == hi
          else f"{lo} to {hi} boots")
    versus = "compiled out and in" if cfg.compiled_out else "no5lvl and 5-level, exec RFC"
    w(f"\n## Key table{'' if first else ' (' + cfg.part + ')'}: instructions per operation,"
      f" {versus}, {cfg.title}\n")
    if not M.has(cfg.patched):
        w(f"Not measured by this run: no records of the {cfg.patched} kernel"
          f" ({PART_HOW[cfg.part]}).\n")
        return
    if first:
        intro = ("Guest instructions per operation under `run-guest --icount` (one guest ns ="
                 " one instruction), trace events off: each boot's median, averaged over the"
                 f" boots of each cell ({nb} per cell; boots are the unit of replication,"
                 " because each starts from its own allocator and layout state). ")
        diffs = ("Differences: mean difference of the boots' medians with its 95% interval"
                 " (Welch), in per cent of the second; where the interval is narrower than the"
                 " last digit shown (every boot the same), the value stands alone. ")
        if cfg.compiled_out:
            w(intro + "Four ways to run the same operation: *compiled out*, the kernel built"
              " without `CONFIG_X86_5LEVEL` on the LA57 CPU (it runs 4-level paging);"
              " *paging 4*, the patched kernel on a CPU without LA57; *no5lvl*, the patched"
              " kernel booted with `no5lvl` on the LA57 CPU; *paging 5*, the patched kernel"
              " running 5-level paging. " + diffs + "*5 vs compiled out* is AMD's Zen 4"
              " comparison; *4 vs compiled out* is what having the fifth level compiled in"
              " costs a 4-level boot (the run-time `pgtable_l5_enabled()` checks, the P4D level"
              " folded at run time); *5 vs 4* adds the fifth level itself. no5lvl runs the code"
              " and branches of paging 4, so it is a check of the method (it must equal paging"
              " 4), not a finding.\n")
        else:
            w(intro + f"On {TREE} the fifth level cannot be compiled out (upstream"
              " 7212b58d6d71 removed `CONFIG_X86_5LEVEL` in 6.16), so there is no compiled-out"
              " kernel: every x86-64 kernel carries the 5-level code, and *no5lvl* (the patched"
              " kernel booted with `no5lvl` on the LA57 CPU: 4-level paging, the P4D level"
              " folded at run time) is the baseline. *paging 4* is the same kernel on a CPU"
              " without LA57, a check of the method (it must equal no5lvl, not a finding)."
              f" *RFC* is the patched kernel with the exec RFC on top (patches/{TREE}/exec-rfc:"
              " exec's temporary stack built below 47 bits), booted the same two ways. "
              + diffs + "*5 vs no5lvl* is what the fifth level costs; *RFC 5 vs no5lvl* what"
              " is left of it with the RFC; *RFC 5 vs 5* what the RFC saves.\n")
    else:
        w(f"The same method and columns as the first key table ({nb} per cell), on"
          " the kernels built from Debian's configuration.\n")
    rows = []
    for op in M.ops:
        rows.append([OP_TEXT[op]] + [fmt(M.value(k, m, op)) for k, m, _ in cfg.cells]
                    + [M.rel(a, b, op) for a, b, _ in cfg.comps]
                    + [fmt_diff(M.diff(cfg.P5, (cfg.vanilla, "5"), op))])
    w(md_table(["operation"] + [t for _, _, t in cfg.cells] + [t for _, _, t in cfg.comps]
               + ["patched - vanilla, paging 5"], rows))
    if not cfg.compiled_out:
        w("")
        return
    d = M.diff(cfg.OUT, cfg.P4, "munmap-sparse-low")
    if d and d[1] is not None and d[1] > 0:
        # zap_pmd_range() visits every PMD entry of the range, present or not.
        entries = (64 << 30) // (2 << 20)
        w(f"\nThe sparse munmap runs more instructions on the compiled-out kernel:"
          f" {fmt_diff(d)}, {d[0] / entries:.2f} per PMD entry the unmap visits (64 GiB /"
          f" 2 MiB = {entries:,}); both kernels allocate and free the same tables (below),"
          " so the difference is in the code of the unmap loop, not in paging work: the"
          " per-function table of the sparse munmap names the functions.")
    w("")


def walk_per_fault(wm_logs, preset="zen4"):
    """The walk model's pagefault workload on 5-level, as the model's own report prices
    it (report.py's Run.priced(): the fifth level's PML5E reads and PDC lookups, or where
    larger its price in full against the preset's twin without the level; its share of
    the run's modelled time): per fault. None if absent."""
    if not wm_logs or not os.path.exists(os.path.join(wm_logs, "runs.csv")):
        return None
    run = walkmodel_load(wm_logs)[1].get(("pagefault", "5"))
    if not run or not run.has(preset) or not run.walks(preset):
        return None
    _, faults = walkmodel_events(run)
    if not faults:
        return None
    fifth = run.priced(preset)
    return {"faults": faults, "preset": preset,
            "pml5e": sum(run.m(preset).get(f"refs_PML5E_{where}", 0) for where in WHERE) / faults,
            "cycles": [c / faults for c in fifth], "share": run.share(preset, fifth),
            "instructions": run.insns / faults}


def clear_cost(M):
    """Instructions --icount charges per cleared 4K page (clear4k, every cell pooled)."""
    v = [b for c in CONFIGS for k, m, _ in c.cells + [(c.vanilla, "5", "")]
         for b in M.boots(k, m, "clear4k")]
    return median(v) if v else None


def pct(a, b):
    return (a - b) / b * 100


def span(values):
    """The values seen: one, or "lowest to highest" when they differ."""
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo} to {hi}"


def fmt_range(lo, hi, digits=2, unit=""):
    """A range, or one number when both ends are the same at this precision."""
    a, b = _shown(lo, f"+.{digits}f"), _shown(hi, f"+.{digits}f")
    return f"{a}{unit}" if a == b else f"{a} to {b}{unit}"


def anchor(w, M, wm_logs):
    w("\n## Against AMD's lat_pagefault\n")
    w("Two published measurements, both of lmbench's `lat_pagefault`, which reports the"
      " time per page of a file in the page cache, mapped and read page by page: with the"
      " default `fault_around_bytes` (64 KiB) one fault maps 16 pages, so the figure is a"
      " sixteenth of a fault and its fault-around, plus the touch of each page.\n")
    zen4 = [(t, a, b, pct(b, a)) for t, (a, b) in AMD_ZEN4.items()]
    z5 = AMD_ZEN5
    w(f"- **AMD Zen 4** (two-socket EPYC, one socket used; a kernel with `CONFIG_X86_5LEVEL`"
      f" against one without, 31 Jul 2024, LKML `<{AMD_ZEN4_MSGID}>`): "
      + "; ".join(f"THP {t}: {a} us compiled out, {b} us 5-level, {p:+.2f}%"
                  for t, a, b, p in zen4)
      + ". The same message: XSBench -2.36% (lookups/s), Redis -1.02%, memcached -0.87%,"
      " GUPS -0.10% (throughput; 5-level lower).")
    w(f"- **AMD Zen 5** (6.15-rc6+, `lat_pagefault -N 100` on a 1 GB file, means of 50 runs,"
      f" 15 May 2025, LKML `<{AMD_ZEN5_MSGID}>`): two builds booted three ways, one with"
      " `CONFIG_X86_5LEVEL` off and one with it on, booted with and without `no5lvl`:"
      f" compiled out {z5['compiled out']} us, `no5lvl` {z5['no5lvl']} us, 5-level"
      f" {z5['5-level']} us per page; AMD judged the differences (~1%) to be within noise"
      " after repeating the runs.")
    w(f"- **AMD's profiles** (the same thread, LKML `<{AMD_PROFILE_MSGID}>`: `lat_pagefault"
      " -N 100` on a 1 GB file, perf profiles of both kernels, a 6.9 or later kernel): as"
      " reported by the review that opened p4dscope's issue 36, the growth is in"
      " `__lruvec_stat_mod_folio`, `cgroup_rstat_updated` and `srso_alias_safe_ret`, not in"
      " page-table code. The message itself was not read here (no LKML access from the"
      " measuring machine).")
    w("- Upstream removed `CONFIG_X86_5LEVEL` in 6.16 (commit 7212b58d6d71, \"x86/mm/64:"
      " Make 5-level paging support unconditional\"): on current kernels the choice is"
      " 5-level or `no5lvl`, which is *paging 5* against *paging 4* / *no5lvl* here.\n")
    w("Here, per page of the lat_pagefault-shaped workload (`lat-pagefault`: a 64 MiB file"
      " in tmpfs, every page read once in a random order, the default fault-around; the"
      " guest has 1 GiB, so not AMD's 1 GB file), the same as lmbench 3 measures it where"
      " the run has it (`lat-pagefault-unmap`: each pass with the populated mapping's"
      " munmap and the next mmap + msync, less the same on an untouched mapping; lmbench"
      " 3's src/lat_pagefault.c) and per fault of the one-fault-per-page"
      " workload (`fault-file`), in guest instructions. The same three-way split as AMD's"
      " Zen 5 run: *no5lvl vs compiled out* is the cost of the option compiled in, *5-level"
      " vs no5lvl* the cost of running the fifth level.\n")
    comps = [("5-level vs compiled out", "P5", "OUT",
              fmt_range(min(p for *_, p in zen4), max(p for *_, p in zen4), unit="%"),
              f"{pct(z5['5-level'], z5['compiled out']):+.2f}%"),
             ("no5lvl vs compiled out", ("no5lvl",), "OUT", "not measured",
              f"{pct(z5['no5lvl'], z5['compiled out']):+.2f}%"),
             ("5-level vs no5lvl", "P5", ("no5lvl",), "not measured",
              f"{pct(z5['5-level'], z5['no5lvl']):+.2f}%")]

    def cell(cfg, which):
        if which == ("no5lvl",):
            return (cfg.patched, "no5lvl")
        return getattr(cfg, which)
    header = ["comparison", "AMD Zen 4 (time per page)", "AMD Zen 5 (time per page)"]
    rows = []
    cfgs = [c for c in CONFIGS if M.has(c.patched)]
    # lat-pagefault-unmap only where the run measured it (records before it have none).
    ops = [op for op in ("lat-pagefault", "lat-pagefault-unmap", "fault-file")
           if any(M.rounds(*cfg.P5, op) for cfg in cfgs)]
    for cfg in cfgs:
        header += [f"{cfg.part}: {op}, " + ("per fault" if op == "fault-file" else "per page")
                   for op in ops]
    for text, a, b, z4, z5txt in comps:
        r = [text, z4, z5txt]
        for cfg in cfgs:
            for op in ops:
                r.append(M.rel(cell(cfg, a), cell(cfg, b), op))
        rows.append(r)
    w(md_table(header, rows))
    w("\nInstructions per page and per fault behind those differences:\n")
    rows = []
    for cfg in cfgs:
        for op in ops:
            rows.append([f"{cfg.part}: {OP_TEXT[op]}"]
                        + [fmt(M.value(k, m, op), 1) for k, m, _ in cfg.cells]
                        + [fmt_diff(M.diff(cfg.P5, cfg.OUT, op), 1)])
    w(md_table(["operation"] + [t for _, _, t in TINY.cells] + ["5-level - compiled out"],
               rows))
    faults = [(cfg, {r["aux"] / r["ops"] for rs in M.rounds(*cfg.P5, "lat-pagefault").values()
                     for r in rs}) for cfg in cfgs]
    for cfg, f in faults:
        if f:
            w(f"\n{cfg.part}, paging 5: lat-pagefault took {min(f):.4f}"
              + ("" if len(f) == 1 else f" to {max(f):.4f}") + " faults per page read"
              " (1/16 = 0.0625; one more per batch where the mapping's start is not 64 KiB"
              " aligned).")
    w("")
    # The page's instruction growth, 5-level against compiled out, per configuration.
    growth = []
    for cfg in cfgs:
        d = M.diff(cfg.P5, cfg.OUT, "lat-pagefault")
        if d:
            growth.append((CONFIG_NAME[cfg.part], d[0] / M.value(*cfg.OUT, "lat-pagefault") * 100))
    if growth:
        z4 = min(x for *_, x in zen4)
        z5 = pct(AMD_ZEN5["5-level"], AMD_ZEN5["compiled out"])
        w(f"- **Time against instructions**: on Zen 4, 5-level compiled in costs {z4:+.2f}%"
          " per page or more, in time, on AMD's kernels; the instructions of the same page"
          " here grow by " + ", ".join(f"{g:+.2f}% ({n})" for n, g in growth) + ". The two"
          " are not subtracted: the kernels differ, time per instruction is not measured"
          " here, and AMD's profiles, as reported, place the growth outside page-table"
          f" code. On Zen 5, AMD's whole difference ({z5:+.2f}%) is within what AMD called"
          " noise.")
    wf = walk_per_fault(wm_logs)
    if wf:
        w(f"- **Hardware page walks** (walk model, preset {wf['preset']}, its pagefault"
          f" workload on 5-level: {wf['faults']:,} faults of {wf['instructions']:,.0f}"
          f" instructions each, user and kernel): {wf['pml5e']:.4f} PML5E reads per fault;"
          f" the fifth level costs {fmt_range(*wf['cycles'], digits=2).replace('+', '')}"
          " cycles per fault (its reads and lookups, or in full against the preset without"
          " the level where that is more), "
          + (f"{fmt_range(*wf['share'], digits=3).replace('+', '')}%" if wf["share"] else "n/a")
          + " of the fault workload's time: from its modelled time (instructions at {}-{}"
          " cycles each, plus its data accesses and walks at the preset's latencies) up to an"
          " upper bound, those cycles over themselves plus the instructions alone at {} cycles"
          " each; the walk model's own report says under which cache design this holds."
          .format(*CPI_BAND, CPI_BAND[0]))
    else:
        w("- **Hardware page walks**: no walk-model run of the pagefault workload here"
          " (`analysis/run --parts model`).")
    w("- In 6.1, `pgtable_l5_enabled()` outside early boot is `cpu_feature_enabled(X86_"
      "FEATURE_LA57)`, a `static_cpu_has()` whose test the alternatives patch into an"
      " unconditional jump at boot (build/linux-6.1/arch/x86/include/asm/pgtable_64_types.h,"
      " asm/cpufeature.h): no branch to predict. Where the extra instructions are is"
      " named function by function below.\n")


def where_mmap_high_goes(w, M, cfg):
    w(f"\n## Where the extra of an mmap at 1<<48 goes ({cfg.part})\n")
    if not M.has(cfg.patched):
        w(f"Not measured by this run ({PART_HOW[cfg.part]}).\n")
        return
    w("Page-table pages allocated per operation, by level, and 4K pages cleared, counted in"
      " an untimed pass of the same operations (tpcount's `tables` programs: fentry on"
      " `__p4d_alloc`, `__pud_alloc`, `__pmd_alloc`, `pte_alloc_one` and the"
      " `___p?d_free_tlb` frees; for clearing, `mm:mm_page_alloc` with `__GFP_ZERO`, or"
      " every allocation where the kernel runs with init_on_alloc (Debian's configuration),"
      " and THPs through `clear_huge_page()` or `folio_zero_user()`), first boot of each"
      " cell. Freed tables per level are in swpath.csv (`tables` rows); every operation"
      " below frees what it allocated.\n")
    rows = []
    for op in M.ops:
        r = [OP_TEXT[op]]
        for k, m, _ in cfg.cells:
            t = M.tables(k, m, op)
            r.append("n/a" if not t else " / ".join(
                ("-" if cfg.compiled_out and k == cfg.third and l == "p4d"
                 else f"{t['alloc_' + l]:.2f}")
                for l in LEVELS) + f"; {t['page_clear']:.2f}")
        rows.append(r)
    w(md_table(["operation: P4D / PUD / PMD / PTE allocated; pages cleared"]
               + [t for _, _, t in cfg.cells], rows))
    w("\n(" + ("`-`: the compiled-out kernel has no P4D level to allocate. "
               if cfg.compiled_out else "")
      + "THP faults count the PTE table deposited for a later split.)\n")
    # The decomposition: the same operation in an existing chain, a new chain on either
    # depth, and a new chain under a new P4D table.
    a = (cfg.P4, "mmap-high")        # 4-level ignores the hint: an existing chain
    b = (cfg.P4, "mmap-newpud")      # a new PUD chain, 4-level
    c = (cfg.P5, "mmap-newpud")      # the same chain on 5-level
    dd = (cfg.P5, "mmap-high")       # a new P4D table and its chain
    vals = [M.value(*cell, op) for cell, op in (a, b, c, dd)]
    if None in vals:
        w("The decomposition needs paging 4 and 5 of the patched kernel.\n")
        return
    steps = [("mmap + touch + munmap in an existing chain (paging 4, hint ignored)", a, None),
             ("+ a new PUD, PMD and PTE table (paging 4, an empty 512 GiB region)", b, a),
             ("+ 5-level paging, same chain (paging 5, same region)", c, b),
             ("+ a new P4D table (paging 5, hint 1<<48)", dd, c)]
    rows = []
    for text, (cell, op), prev in steps:
        added = welch(M.boots(*cell, op), M.boots(*prev[0], prev[1])) if prev else None
        rows.append([text, fmt(M.value(*cell, op)), fmt_diff(added) if prev else ""])
    w(md_table(["step", "instructions", "added [95% CI]"], rows))
    total = welch(M.boots(*dd[0], dd[1]), M.boots(*a[0], a[1]))
    w(f"\nIn all {fmt_diff(total)} instructions from the first row to the last"
      f" ({fmt_rel(total, vals[0])}): the key table's *5 vs 4* for mmap at 1<<48 compares"
      " the last row with the first, so it holds a new chain of tables, not only the fifth"
      " level.\n")


def clearing(w, M):
    c = clear_cost(M)
    w("\n## Page clearing inside the fault rows\n")
    if c is None:
        w("No clear4k samples in this run.\n")
        return
    w("Under `--icount` every iteration of `rep stosq` counts as one instruction, so"
      " clearing a page weighs hundreds of \"instructions\" that hardware does in a few"
      " dozen cycles. The guest CPU has REP_GOOD, so the kernel clears with"
      f" {CLEAR_PAGE.get(TREE, '`clear_page_rep`')} (`rep stosq`, 512 iterations);"
      " `clear4k` runs that sequence in"
      f" user space: {c:,.0f} instructions per page (plus the kernel's call and return)."
      " Pages cleared per operation come from the tables pass above. Rows with and without"
      " the clearing (its instructions subtracted from each boot):\n")

    def cleared(cell, op):
        t = M.tables(*cell, op)
        return t["page_clear"] if t else None

    rows = []
    for cfg in CONFIGS:
        if not M.has(cfg.patched):
            continue
        for op in M.fault_ops:
            r = [f"{cfg.part}: {OP_TEXT[op]}"]
            po, p5 = cleared(cfg.BASE, op), cleared(cfg.P5, op)
            for cell, p in ((cfg.BASE, po), (cfg.P5, p5)):
                v = M.value(*cell, op)
                r.append("n/a" if v is None or p is None else
                         f"{fmt(v)} / {fmt(v - p * c)} ({p * c / v * 100:.0f}%)")
            with_c = M.diff(cfg.P5, cfg.BASE, op)
            r.append(M.rel(cfg.P5, cfg.BASE, op))
            if with_c and po is not None and p5 is not None:
                base = M.value(*cfg.BASE, op) - po * c
                shift = (p5 - po) * c
                r.append(fmt_rel(tuple(None if v is None else v - shift for v in with_c), base))
            else:
                r.append("n/a")
            rows.append(r)
    base = TINY.base_name
    w(md_table(["operation", f"{base}: all / without clearing (clearing's share)",
                "paging 5: all / without clearing (share)", f"5 vs {base}",
                f"5 vs {base}, without clearing"], rows))
    w("")


def detail(w, M, kernels):
    w("\n## Software paths in detail\n")
    w("Each operation runs between two `clock_gettime()` calls, one operation per sample"
      " (fault4k and fault-file: 512 faults; lat-pagefault: 16384 pages; clear4k: 512"
      " pages; getppid: 1000 calls), after a 10 ms pause in which the work the previous"
      " sample left to kworkers and RCU callbacks runs. An empty loop of the same shape is"
      " timed right after and subtracted (for faults: the same accesses again, now to"
      " present pages). Per cell: *fastest*, the fastest sample of all boots; *boots*, the"
      " mean of each boot's median; *long*, the same for long batches (hundreds of"
      " operations back to back) whose average also holds the deferred work (RCU callbacks"
      " freeing maple-tree nodes, task structs and stacks); *spread*, max - min of the"
      " boots' medians in per cent of their mean.\n")
    for kernel in kernels:
        modes = [m for m in MODES if M.boots(kernel, m, "syscall")]
        rows = []
        for op in M.ops + ["clear4k"]:
            r = [OP_TEXT.get(op, "rep stosq over a 4K page (clear_page_rep)")]
            for m in modes:
                b = M.boots(kernel, m, op)
                spread = (max(b) - min(b)) / mean(b) * 100 if len(b) > 1 and mean(b) else None
                r.append(f"{fmt(M.fastest(kernel, m, op))} / {fmt(mean(b))} /"
                         f" {fmt(M.value(kernel, m, op, 'long'))} / {fmt(spread, 2)}%"
                         if b else "n/a")
            rows.append(r)
        w(f"\n**{kernel} kernel**: fastest / boots / long / spread\n")
        w(md_table(["operation"] + [f"paging {m}" for m in modes], rows))
        w("")
    for cfg in CONFIGS:
        if M.has(cfg.patched):
            w(f"Long batches, 5 vs 4 ({cfg.patched}): " + "; ".join(
                f"{o} {M.rel(cfg.P5, cfg.P4, o, 'long')}" for o in
                ["mmap", "mmap-high", "fork", "exec"]) + ".\n")


def checks(w, M, data, func_cells, func_outside):
    """What the records themselves prove about the runs."""
    lines = []
    for cfg in CONFIGS:
        for k, m, t in cfg.cells:
            for op, what in (("fault-file", "minor faults per 512 pages"),
                             ("lat-pagefault", "minor faults per 16384 pages"),
                             ("lat-pagefault-unmap", "minor faults per 16384 pages"),
                             ("mmap-newpud", "mappings at the hint per sample"),
                             ("clear4k", "pages read back zero per 512")):
                aux = {r["aux"] for rs in M.rounds(k, m, op).values() for r in rs}
                if aux:
                    lines.append(f"{k} {t}, {op}: {what} {span(aux)}")
        thp = {r["aux"] for rs in M.rounds(*cfg.P5, "faultthp").values() for r in rs}
        if thp:
            lines.append(f"{cfg.patched} paging 5, faultthp: THPs mapped per sample {span(thp)}")
    cal = data["calib"]
    if cal:
        rel = [c["ns"] / c["instructions"] for c in cal]
        lines.append(f"clock: a loop of exactly {cal[0]['instructions']:,} instructions read"
                     f" {min(rel):.5f} to {max(rel):.5f} guest ns per instruction"
                     f" ({len(cal)} readings; the excess is timer ticks inside the loop)")
    lines += funcs.checks(func_cells, func_outside)
    if lines:
        w("\n### Checks the records carry\n")
        w("\n".join("- " + s for s in lines) + "\n")


def consumer_costs(M, mode, op, consumer):
    """Per boot: median with the consumer - median without (same boot); then the mean
    over boots with its t interval, the number of boots and the events per operation."""
    off = "off:" + consumer
    on_r, off_r = M.rounds("patched", mode, op, consumer), M.rounds("patched", mode, op, off)
    per_boot = [median([per_op(r) for r in on_r[k]]) - median([per_op(r) for r in off_r[k]])
                for k in on_r if k in off_r]
    if not per_boot:
        return None
    nev = M.events(mode, op, consumer if consumer in OWN_COUNTERS else "tp_btf")
    return {"ci": mean_ci(per_boot), "boots": len(per_boot), "events": nev}


def tracepoints(w, M, data, out):
    """The tracepoint sections; returns how many consumers the per-event plot shows."""
    w("\n## Tracepoint cost\n")
    w("### Events off: patched vs vanilla\n")
    w("Instructions per operation, patched minus vanilla [95% interval over boots]. With"
      " the events off, a tracepoint site passed is a static-key branch: a 5-byte NOP where"
      " the kernel has `CONFIG_JUMP_LABEL` (Debian's configuration), a load, test and"
      " branch where it has not (the small kernel: tinyconfig leaves jump labels off);"
      " what else the series changes on these paths its cover letter says. An interval"
      " that holds 0: no difference resolved with these boots.\n")
    cols = [(cfg, m) for cfg in CONFIGS if M.has(cfg.vanilla) for m in ("4", "5")]
    rows = [[OP_TEXT[op]] + [fmt_diff(M.diff((cfg.patched, m), (cfg.vanilla, m), op))
                             for cfg, m in cols] for op in M.ops]
    w(md_table(["operation"] + [f"{cfg.part}, paging {m}" for cfg, m in cols], rows))
    w("")
    w("\n### Events consumed\n")
    w("On the patched small kernel, each consumer of all four events is attached for every"
      " other sample and detached for the others (`swpath -t`), so samples with and without"
      " it interleave; p4dstat, which cannot be toggled, runs in blocks that alternate with"
      " blocks without it. Per boot: the median with the consumer minus the median without;"
      " over boots (the unit of replication; *n* says how many): the mean and its 95% t"
      " interval. Per event: that / the events per operation (as the consumer's own"
      " counters saw them; for tracefs and p4dstat as `tp_btf` saw them); *n/a* where the"
      " operation fired no event (what attaching the consumer changed is shown in brackets:"
      " a difference, not a cost of events), *unresolved* where the interval reaches 0 or"
      " below."
      " Consumers: `tracefs` (the events into a tracefs instance's ring buffer; enabling"
      " any event also records task names at every context switch), `tp_btf`, `raw_tp`,"
      " `tp` (a BPF program that only increments a counter, attached three ways), `p4dstat`"
      " (the project's tool as a user runs it; it also counts TLB flushes and mmap exits).\n")
    tp_rows = []
    for m in MODES:
        rows = []
        for op in CONSUMER_OPS:
            cells = [consumer_costs(M, m, op, c) for c in CONSUMERS]
            if not any(cells):
                continue
            nev = M.events(m, op)
            r = [OP_TEXT[op], fmt(nev, 2)]
            for c, cc in zip(CONSUMERS, cells):
                if not cc:
                    r.append("n/a")
                    continue
                mc, lo, hi = cc["ci"]
                txt = fmt_diff(cc["ci"]) + f" (n={cc['boots']})"
                if not cc["events"]:
                    txt = f"n/a: no event (difference {txt})"
                elif lo is not None and lo <= 0:
                    txt += ", per event unresolved"
                else:
                    e = cc["events"]
                    if lo is None:      # one boot (a quick run): no interval
                        lo = hi = mc
                        txt += f", {mc / e:,.0f}/event (1 boot: no interval)"
                    else:
                        txt += ", " + _interval((mc / e, lo / e, hi / e), ",.0f") + "/event"
                    tp_rows.append({"paging": m, "op": op, "consumer": c, "events_per_op": e,
                                    "boots": cc["boots"], "delta": mc, "delta_low": lo,
                                    "delta_high": hi, "per_event": mc / e,
                                    "per_event_low": lo / e, "per_event_high": hi / e})
                r.append(txt)
            rows.append(r)
        if rows:
            w(f"\n**paging {m}**: extra instructions per operation [95% interval] (boots),"
              " per event\n")
            w(md_table(["operation", "events/op"] + CONSUMERS, rows))
            w("")
    write_csv(os.path.join(out, "tpcost.csv"), tp_rows,
              ["paging", "op", "consumer", "events_per_op", "boots", "delta", "delta_low",
               "delta_high", "per_event", "per_event_low", "per_event_high"])
    tpcost_rows = per_event_summary(w, tp_rows, out)
    notes = [c for c in data["consumer"] if c["kernel"] == "patched"]
    if notes:
        first = min(c["round"] for c in notes)
        w("What each consumer saw, first boot of each mode (event totals over its samples;"
          " p4dstat: its summary line after its first block):\n")
        seen = set()
        for c in notes:
            if c["round"] == first and (c["paging"], c["consumer"]) not in seen:
                seen.add((c["paging"], c["consumer"]))
                note = c["note"] if len(c["note"]) <= 200 else c["note"][:197] + "..."
                w(f"- paging {c['paging']}, {c['consumer']}: `{note}`")
        w("")
    return tpcost_rows


def per_event_summary(w, tp_rows, out):
    """One figure per consumer: the resolved mmap and mmap-high cells, pooled. Returns
    how many consumers tpcost.dat holds (the plot's bars)."""
    rows, dat = [], []
    for c in CONSUMERS:
        v = [t for t in tp_rows if t["consumer"] == c and t["op"] in PER_EVENT_OPS]
        if not v:
            continue
        mid = median([t["per_event"] for t in v])
        lo = min(t["per_event_low"] for t in v)
        hi = max(t["per_event_high"] for t in v)
        pub = PUBLISHED_NS.get(c)
        rows.append([c, fmt(mid), f"{fmt(lo)} .. {fmt(hi)}", len(v),
                     f"~{pub} ns" if pub else ""])
        dat.append((c, mid, lo, hi))
    with open(os.path.join(out, "tpcost.dat"), "w") as f:
        f.write("# consumer median_per_event lowest_interval_end highest_interval_end\n")
        for c, mid, lo, hi in dat:
            f.write(f'"{c}" {mid:.1f} {lo:.1f} {hi:.1f}\n')
    if not rows:
        w("No consumer cost was resolved per event in this run.\n")
        return 0
    w("\n**Per event**: over the resolved mmap and mmap-high cells of every paging mode (the"
      " operations whose samples are tight enough; fork and exec vary by thousands of"
      " instructions between boots, more than the events cost): the median of the cells'"
      " estimates and the span of their 95% intervals, next to the published per-event"
      " costs of BPF programs (the kernel's `bench_trigger`, on hardware, in ns;"
      " instructions are not nanoseconds, so only the order compares).\n")
    w(md_table(["consumer", "instructions/event", "interval span", "cells", "published"],
               rows))
    w("")
    return len(dat)


def memory(w, data, out):
    w("\n## Memory: page-table pages per process\n")
    w("`analysis/icount/ptmem.c` forks N processes that each map and touch one page in each of K"
      " regions above 47 bits (hints i << 48), holds them alive and reads /proc and the"
      " counters. Levels, for the first child: the tables its present pages need"
      " (/proc/PID/pagemap), checked against its VmPTE; P4D tables from the `p4d_alloc` /"
      " `p4d_free` events; the PGD is one page per process, which /proc does not count. "
      + ("In 6.1 `PageTables` counts PTE and PMD tables only, VmPTE PTE, PMD and PUD tables:"
         " **neither sees the P4D level.**" if TREE == "6.1" else
         "What `PageTables` and VmPTE count on this tree: compare their columns with the"
         " levels'.") + " Largest N per row.\n")
    pm = [r for r in data["ptmem"] if r["kernel"] == "patched"]
    rows, dat = [], []
    for mode in MODES:
        for k in sorted({r["regions"] for r in pm}):
            rs = [r for r in pm if r["paging"] == mode and r["regions"] == k]
            if not rs:
                continue
            big = max(rs, key=lambda r: r["procs"])
            p4d = (big["p4d_alloc_held"] - big["p4d_free_held"]) / big["procs"]
            levels = [1, p4d, big["pud"], big["pmd"], big["pte"]]
            rows.append([f"paging {mode}, K={k}", f"{p4d:.2f}", big["pud"], big["pmd"],
                         big["pte"], f"{sum(levels):.2f}", f"{sum(levels) * 4:.1f}",
                         f"{(big['pt_kb_held'] - big['pt_kb_before']) / big['procs']:.2f}",
                         f"{big['vmpte_kb_sum'] / big['procs']:.2f}", big["procs"]])
            dat.append((mode, k, levels))
    w(md_table(["paging, high regions K", "P4D (events)", "PUD", "PMD", "PTE",
                "pages incl. PGD", "KiB", "PageTables KiB/proc", "VmPTE KiB/proc", "N"], rows))
    w("")
    with open(os.path.join(out, "ptmem.dat"), "w") as f:
        f.write("# label pgd p4d pud pmd pte (pages per process)\n")
        for mode, k, levels in dat:
            f.write(f'"{mode}, K={k}" ' + " ".join(f"{v:.2f}" for v in levels) + "\n")
    return len(dat)


def modelled_walks(w, out):
    w("\n## Page walks, modelled\n")
    path = os.path.join(out, "walkmodel", "walkmodel.md")
    if not os.path.exists(path):
        w("No walk-model report here (`analysis/run --parts model` writes it).\n")
        return
    with open(path) as f:
        text = f.read()
    start = text.find("## Key table")
    end = text.find("\n## ", start + 1)
    w("From [walkmodel/walkmodel.md](walkmodel/walkmodel.md), where the method, the"
      " presets' sources, the model's limits and its own run's provenance are written"
      " out:\n")
    w(text[start:end].replace("## Key table", "### Key table", 1))


def mitigations(boots, kernel):
    """What the first paging-5 boot of a kernel reported for the CPU's vulnerabilities,
    leaving out those it is not affected by."""
    b = sorted((b for b in boots if b["kernel"] == kernel and b["paging"] == "5"),
               key=lambda b: b["round"])
    if not b:
        return None
    v = {k[len("vulnerability_"):]: x for k, x in b[0]["meta"].items()
         if k.startswith("vulnerability_")}
    if not v:
        return None
    return "; ".join(f"{k}: {x}" for k, x in sorted(v.items()) if x != "Not affected") \
        or "not affected by any"


def method(w, boots):
    w("\n## Method and limits\n")
    w("- Guests: `scripts/run-guest --icount --smp 1`, 1 GiB, QEMU TCG with"
      " `-cpu qemu64,+la57` (paging 5, no5lvl, compiled out) or `qemu64` (paging 4);"
      " `-icount shift=0,sleep=off`: guest time advances one ns per guest instruction, so a"
      " timed section counts the instructions of everything the one vCPU ran meanwhile"
      " (interrupts included; `intr` in swpath.csv). Instruction counts do not depend on the"
      " host's load; boots run two at a time.")
    w(f"- Two kernel configurations of {TREE}, each built three ways (patched, vanilla,"
      f" {'compiled out' if TINY.compiled_out else 'exec RFC'}):"
      " the project's small guest kernel (tinyconfig: `-Os`, no jump labels,"
      f" {'SLOB' if TREE == '6.1' else 'SLUB_TINY'}, no"
      " memcg, cgroups or NUMA, mitigations off) and Debian's own configuration of its"
      " cloud kernel with only the guest's drivers turned from modules into built-ins"
      " (`guest-image/debian.config` names each change): `-O2`, jump labels, SLUB, memcg,"
      " cgroups, NUMA, the LSMs, the mitigations and PTI as Debian ships them.")
    for cfg in CONFIGS:
        m = mitigations(boots, cfg.patched)
        if m:
            w(f"- What the {cfg.patched} kernel chose on the guest CPU (`qemu64`;"
              f" /sys/devices/system/cpu/vulnerabilities, paging 5): {m}.")
    w("- The timed programs are static and run from the guest's tmpfs, ASLR off (`setarch"
      " -R`). THP is `always` in the guest, so 4K runs use `prctl(PR_SET_THP_DISABLE)`."
      " The file workloads use tmpfs, where the page cache is the file; lat-pagefault's"
      " file is 64 MiB, not AMD's 1 GB, because the guest has 1 GiB.")
    w("- execve on 5-level allocates two P4D tables: the new mm's temporary argument stack"
      " sits at the top of the 56-bit space until `setup_arg_pages()` moves it below 47"
      " bits and frees that table.")
    w("- Instructions are not cycles: TCG models no caches, branch predictors or TLBs; the"
      " walk model prices the page walks separately.")
    w("- The tables pass attaches fentry programs (and one tracepoint program) that cost"
      " instructions, so it is never timed; its counts are exact. Where GCC folds"
      " `___p4d_free_tlb()` into a tail call of `___pud_free_tlb()` (identical bodies;"
      " analysis/run reads it from each vmlinux), each P4D free also enters the PUD one:"
      " the report subtracts it.")
    if not TINY.compiled_out:
        w(f"- The exec RFC (patches/{TREE}/exec-rfc) builds the temporary stack below 47"
          " bits, where the final stack will be: its exec allocates the process's own first"
          " P4D table and no other.")
    w("- Files: swpath.csv (every sample, `tables` rows included) and funcs.csv"
      " (instructions and entries per operation of every kernel function counted):"
      " megabytes, so written by the run but not committed; tpcost.csv, ptmem.csv,"
      " calib.csv, consumers.csv, boots.csv; plots swpath, tpcost, ptmem (PNG and SVG).")
    w(f"\n![5-level vs {TINY.base_name} and vs 4-level](swpath.svg)\n"
      "![per-event cost](tpcost.svg)\n![page-table pages](ptmem.svg)\n")


def plot_data(M, out, tpcost_rows, ptmem_rows):
    """swpath.dat: per operation, the key tables' three comparisons with intervals, for
    each configuration."""
    series = [(a, b, f"{cfg.part}: {t}") for cfg in CONFIGS for a, b, t in cfg.comps]
    with open(os.path.join(out, "swpath.dat"), "w") as f:
        f.write("# op, then per series: % difference, low, high (95% interval)\n")
        for op in M.ops:
            vals = []
            for a, b, _ in series:
                d, base = M.diff(a, b, op), M.value(*b, op)
                if not d or not base:
                    vals += ["NaN"] * 3
                else:   # one boot per cell (a quick run): no interval, a zero-length bar
                    vals += [f"{(d[0] if v is None else v) / base * 100:.3f}" for v in d]
            f.write(f'"{op}" ' + " ".join(vals) + "\n")
    have = [any(M.diff(a, b, op) for op in M.ops) for a, b, _ in series]
    with open(os.path.join(out, "plotvars.gp"), "w") as f:
        f.write("# SPDX-License-Identifier: GPL-2.0\n"
                "# Written by analysis/report/stats.py: what analysis/report/plots.gp has data for.\n")
        f.write('swpath_cols = "%s"\n' % " ".join(str(2 + 3 * i) for i, h in enumerate(have)
                                                  if h))
        f.write('swpath_titles = "%s"\n' % " ".join(f"'{t}'" for (_, _, t), h in
                                                    zip(series, have) if h))
        f.write(f"tpcost_rows = {tpcost_rows}\n")
        f.write(f"ptmem_rows = {ptmem_rows}\n")


def missing_parts(host, M, func_cells, out):
    """The parts whose logs this report lacks, each with how to make them."""
    have = {"icount": M.has(TINY.patched), "debian": M.has(CONFIGS[1].patched),
            "model": os.path.exists(os.path.join(out, "walkmodel", "walkmodel.md")),
            "funcs": any(c["ops"] for c in func_cells.values())}
    # The walk model runs on the default tree only (analysis/run).
    expected = [p for p in PARTS if p != "model" or TREE == "6.1"]
    return [f"part {p} ({PART_HOW[p]})" for p in expected if not have[p]]


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: stats.py LOGDIR OUTDIR [WALKMODEL_LOGDIR]", file=sys.stderr)
        return 2
    logdir, out = sys.argv[1], sys.argv[2]
    wm_logs = sys.argv[3] if len(sys.argv) == 4 else None
    os.makedirs(out, exist_ok=True)
    try:
        data, boots, host = read_logs(logdir)
        func_cells = funcs.read_funcs(logdir)
        trees = {h["tree"] for h in host.values() if h.get("tree")} or {"6.1"}
        if len(trees) > 1:
            raise RecordError(f"{logdir}: parts of different trees ({', '.join(sorted(trees))})")
        # The third kernel is the one analysis/kernels.sh chose ("third" in host-PART.txt);
        # logs from before it was written have the exec RFC's boots or 6.1's no5level.
        thirds = {h["third"] for h in host.values() if h.get("third")}
        if not thirds:
            booted = {b["kernel"] for b in boots} | {k for k, _ in func_cells}
            thirds = {"exec-rfc" if any(k.endswith("exec-rfc") for k in booted) else "no5level"}
        if len(thirds) > 1:
            raise RecordError(f"{logdir}: parts with different third kernels"
                              f" ({', '.join(sorted(thirds))})")
        use_tree(trees.pop(), thirds.pop())
    except RecordError as e:
        print(f"stats.py: {e}", file=sys.stderr)
        return 1
    if not data["swpath"] and not func_cells:
        print(f"stats.py: no swpath or funcs records in {logdir}: did the guests run?",
              file=sys.stderr)
        return 1
    ctx = ["kernel", "paging", "round"]
    write_csv(os.path.join(out, "swpath.csv"), data["swpath"],
              ctx + ["consumer", "kind"] + SWPATH_COLS)
    write_csv(os.path.join(out, "ptmem.csv"), data["ptmem"], ctx + PTMEM_COLS)
    write_csv(os.path.join(out, "calib.csv"), data["calib"], ctx + ["instructions", "ns"])
    write_csv(os.path.join(out, "consumers.csv"), data["consumer"], ctx + ["consumer", "note"])
    write_csv(os.path.join(out, "boots.csv"), boots,
              ["part", "kernel", "paging", "round", "status", "seconds", "loadavg"])

    folded = {k for h in host.values() for k in KERNELS
              if h.get("p4d_free_via_pud_" + k) == "yes"}
    M = Matrix(data["swpath"], folded)
    kernels = [k for k in KERNELS if M.has(k)]
    md = []
    w = md.append
    header(w, boots, host, kernels, missing_parts(host, M, func_cells, out),
           os.path.exists(os.path.join(out, "walkmodel", "walkmodel.md")))
    for i, cfg in enumerate(CONFIGS):
        key_table(w, M, cfg, i == 0)
    if TINY.compiled_out:
        # AMD's figures compare compiled out and in (anchor() says which).
        anchor(w, M, wm_logs)
    func_rows, func_outside = funcs.section(w, md_table, func_cells,
                              [(c.title, c.func_cells, c.func_comps) for c in CONFIGS],
                                            OP_TEXT, M.diff, M.spread)
    write_csv(os.path.join(out, "funcs.csv"), func_rows,
              ["config", "op", "kernel", "paging", "function", "insns_per_op", "entries_per_op"])
    for cfg in CONFIGS:
        where_mmap_high_goes(w, M, cfg)
    clearing(w, M)
    if TREE == "6.1":
        modelled_walks(w, out)
    tpcost_rows = tracepoints(w, M, data, out)
    ptmem_rows = memory(w, data, out)
    detail(w, M, kernels)
    checks(w, M, data, func_cells, func_outside)
    method(w, boots)
    plot_data(M, out, tpcost_rows, ptmem_rows)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
