#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The tables of what the exec RFC saves, from analysis/exec-rfc/gain's records.

    report.py LOGDIR

LOGDIR (analysis/exec-rfc/records/: the run of gain.md) holds icount_KERNEL_MODE_ROUND.log
(--icount boots of gain-guest.sh) and funcs_KERNEL_MODE.{log,csv} (funcs.so boots).
Kernels sort by name, "exec-rfc" last, and the first is the baseline; every number is
recomputed from the records on each run.
Instructions per exec are each boot's median (the boot is the unit of replication), then
the mean over boots with a 95% t interval; differences are Welch intervals over boots."""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
from benchstats import mean_ci, median, welch  # noqa: E402
from funcs import difference, read_funcs  # noqa: E402
from mdtable import md_table  # noqa: E402
from records import per_op, read_logs  # noqa: E402

VARIANTS = {
    "exec": "vfork + exec of a static noop binary (no libc), ASLR off",
    "exec-glibc": "vfork + exec of a static glibc program, ASLR off",
    "exec-glibc-aslr": "vfork + exec of a static glibc program, ASLR on",
    "forkexec-true": "fork + exec of /bin/true (dynamically linked), ASLR off",
    "forkexec-true-aslr": "fork + exec of /bin/true, ASLR on",
}
MODES = ["5", "no5lvl"]
RFC = "exec-rfc"
SHOWN = 12
TABLE_ALLOC = ["__p4d_alloc", "__pud_alloc", "__pmd_alloc", "__pte_alloc"]


# exec's phases, for the per-function differences: the first rule that matches a
# function's name decides. The differences compare exec on two kernels or modes, so a
# function both sides run as often (the stack VMA's insertion, the ELF loading) drops
# out; what is left of the maple tree, slab and rmap work is the move's (vma_expand()
# and vma_shrink() in relocate_vma_down()). The rest: scheduler, timers and kernel
# threads that ran inside the timed windows, and the per-CPU allocator.
PHASES = [
    ("allocating and clearing tables", re.compile(
        r"__(p4d|pud|pmd|pte)_alloc|pte_alloc_one|__p(4d|ud|md)_alloc_one.*|pmd_install"
        r"|__pagetable_ctor|pagetable_.*ctor|virt_to_ptdesc|clear_highpages.*|clear_page.*"
        r"|get_page_from_freelist|__alloc_.*pages.*|alloc_pages.*|get_free_pages.*"
        r"|__?rmqueue.*|prepare_alloc_pages.*|prep_new_page|post_alloc_hook|check_new_pages"
        r"|zone_watermark.*|should_fail_alloc_page|current_gfp_context|first_zones_zonelist"
        r"|is_check_pages_enabled|alloc_from_pcs.*|mod_node_state|mod_node_page_state"
        r"|native_set_p4d|native_set_pgd|trace_p4d_alloc|policy_nodemask"
        r"|lruvec_stat_mod_folio|__list_del_entry_valid.*")),
    ("the move (setup_arg_pages)", re.compile(
        r"setup_arg_pages|relocate_vma_down|shift_arg_pages|move_page_tables|move_pgt_entry"
        r"|move_ptes|move_normal_.*|get_old_.*|alloc_new_.*|vma_.*|__vma_.*|commit_merge"
        r"|init_multi_vma_prep|mas_.*|ma_.*|mte_.*|mtree_.*|trace_ma_.*|_?_?anon_rmap_tree_.*"
        r"|__rb_.*|rb_next|avc_.*|split_huge_pmd_if_needed|flush_tlb.*|native_flush_tlb.*"
        r"|trace_tlb_flush|down_write|up_write|rwsem_.*|(__)?pte_offset_map.*|protnone_mask"
        r"|change_protection"
        r"|p[mu]d_flags|pmd_pfn|folio_.*|is_vma_hugetlb_flags|mm_(needs_)?global_asid"
        r"|___slab_alloc|slab_.*|kmem_cache_alloc.*|trace_kmem_cache_alloc")),
    ("freeing tables", re.compile(
        r"free_pgd_range|free_p(4d|ud|md|te)_range|___p(4d|ud|md|te)_free_tlb|tlb_.*|__tlb_.*"
        r"|(__)?call_rcu.*|kvfree_call_rcu|__kfree_rcu.*|rcu_segcblist_.*"
        r"|p(gd|4d|ud|md)_none_or_clear_bad"
        r"|pmd_pgtable_page")),
    ("walking the fifth level", re.compile(
        r"p4d_offset|pgd_none|pgd_bad|pgd_present|pgd_offset_pgd|pud_offset.*|pmd_offset.*")),
]
OTHER = "the rest"


def phase_of(function):
    for name, rule in PHASES:
        if any(rule.fullmatch(alias) for alias in function.split("|")):
            return name
    return OTHER


def boot_medians(rows):
    """{(kernel, mode, variant): [one median per boot]}."""
    by_boot = defaultdict(list)
    for r in rows:
        by_boot[(r["kernel"], r["paging"], r["op"], r["round"])].append(per_op(r))
    out = defaultdict(list)
    for (k, m, v, _), xs in sorted(by_boot.items()):
        out[(k, m, v)].append(median(xs))
    return out


def fmt_ci(c):
    if not c:
        return "n/a"
    m, lo, hi = c
    return f"{m:,.0f}" if lo is None else f"{m:,.0f} [{lo:,.0f}, {hi:,.0f}]"


def fmt_diff(d):
    if not d:
        return "n/a"
    m, lo, hi = d
    return f"{m:+,.0f}" if lo is None else f"{m:+,.0f} [{lo:+,.0f}, {hi:+,.0f}]"


def p4d_counts(logdir):
    """{(kernel, mode, variant): {(allocs, above47) per exec, ...}} over the boots."""
    out = defaultdict(set)
    for name in sorted(os.listdir(logdir)):
        if not name.startswith("icount_") or not name.endswith(".log"):
            continue
        kernel, mode, _ = name[len("icount_"):-len(".log")].rsplit("_", 2)
        with open(os.path.join(logdir, name)) as f:
            for line in f:
                fields = line.rstrip("\n").split(",")
                if fields[0] == "p4d":
                    execs, allocs, high = map(int, fields[2:5])
                    out[(kernel, mode, fields[1])].add((allocs / execs, high / execs))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py LOGDIR")
    logdir = sys.argv[1]
    data, boots, _ = read_logs(logdir)
    bad = [b for b in boots if b.get("status") != "0"]
    if bad:
        sys.exit(f"report.py: {len(bad)} boot(s) did not end with status 0 in {logdir}")
    med = boot_medians(data["swpath"])
    kernels = sorted({k for k, _, _ in med}, key=lambda k: (k == RFC, k))
    if len(kernels) < 1:
        sys.exit(f"report.py: no records in {logdir}")
    base = kernels[0]
    w = sys.stdout.write
    nboots = sorted({len(v) for v in med.values()})
    w(f"Instructions per exec (guest instructions under `--icount`, the timed loop less an"
      f" empty one): the mean over {'/'.join(map(str, nboots))} boots of each boot's median"
      f" of 100 single-exec samples, with its 95% t interval; differences are Welch"
      f" intervals over the boots' medians. Kernels: {', '.join(kernels)}.\n\n")
    for v, text in VARIANTS.items():
        if not any((k, m, v) in med for k in kernels for m in MODES):
            continue
        w(f"**{v}**: {text}\n\n")
        rows = []
        for k in kernels:
            a, b = med.get((k, "5", v)), med.get((k, "no5lvl", v))
            rows.append([k, fmt_ci(mean_ci(a or [])), fmt_ci(mean_ci(b or [])),
                         fmt_diff(welch(a or [], b or []))])
        for k in kernels[1:]:
            for m in MODES:
                rows.append([f"{k} − {base}, {m}", "", "",
                             fmt_diff(welch(med.get((k, m, v), []), med.get((base, m, v), [])))])
        w(md_table(["kernel", "5-level", "no5lvl", "5-level − no5lvl"], rows) + "\n")
        w("\n")

    tables = p4d_counts(logdir)
    if tables:
        w("P4D tables allocated per exec (the series' `p4d_alloc` events; 21 execs less 1,"
          " every boot): all of them / those above 47 bits.\n\n")
        rows = []
        for v in VARIANTS:
            cells = []
            for k in kernels:
                for m in MODES:
                    got = tables.get((k, m, v))
                    cells.append("n/a" if not got else " or ".join(
                        f"{a:g} / {h:g}" for a, h in sorted(got)))
            rows.append([v] + cells)
        w(md_table(["variant"] + [f"{k}, {m}" for k in kernels for m in MODES], rows) + "\n")
        w("\n")

    cells = read_funcs(logdir)
    if cells:
        w("Per kernel function (`funcs.so`, one `--icount` boot per kernel and mode, 30"
          " execs per variant): the functions whose instructions per exec differ, largest"
          " first; the rows add up exactly to the difference of the totals (last row).\n")
        comps = [((k, "5"), (base, "5")) for k in kernels[1:]]
        comps += [((k, "5"), (k, "no5lvl")) for k in kernels]
        for v in VARIANTS:
            for a, b in comps:
                if a not in cells or b not in cells or v not in cells[a]["ops"] \
                        or v not in cells[b]["ops"]:
                    continue
                ga, gb = cells[a]["ops"][v], cells[b]["ops"][v]
                d, total = difference(ga, gb)
                names = sorted(d, key=lambda f: (-abs(d[f]), f))
                w(f"\n**{v}: {a[0]} {a[1]} − {b[0]} {b[1]}**\n\n")
                rows = [[f"`{f}`", f"{float(ga['insns'].get(f, 0)):,.2f}",
                         f"{float(gb['insns'].get(f, 0)):,.2f}", f"{float(d[f]):+,.2f}"]
                        for f in names[:SHOWN]]
                if names[SHOWN:]:
                    rows.append([f"{len(names) - SHOWN} other functions", "", "",
                                 f"{float(sum(d[f] for f in names[SHOWN:])):+,.2f}"])
                rows.append(["**all functions**", f"{float(ga['total']):,.2f}",
                             f"{float(gb['total']):,.2f}", f"**{float(total):+,.2f}**"])
                w(md_table(["function", f"{a[0]} {a[1]}", f"{b[0]} {b[1]}", "difference"],
                           rows) + "\n")
        w("\nBy phase: the same differences, each function in the phase the first"
          " rule of `PHASES` (report.py) that matches its name gives; the rows add up"
          " exactly to each column's total.\n")
        for a, b in comps:
            if a not in cells or b not in cells:
                continue
            shown = [v for v in VARIANTS if v in cells[a]["ops"] and v in cells[b]["ops"]]
            sums = {v: defaultdict(int) for v in shown}
            totals = {}
            for v in shown:
                d, totals[v] = difference(cells[a]["ops"][v], cells[b]["ops"][v])
                for f, x in d.items():
                    sums[v][phase_of(f)] += x
                assert sum(sums[v].values()) == totals[v]
            rows = [[name] + [f"{float(sums[v][name]):+,.0f}" for v in shown]
                    for name in [p for p, _ in PHASES] + [OTHER]]
            rows.append(["**all functions**"] + [f"**{float(totals[v]):+,.0f}**" for v in shown])
            w(f"\n**{a[0]} {a[1]} − {b[0]} {b[1]}**\n\n")
            w(md_table(["phase"] + shown, rows) + "\n")
        w("\nPage-table pages allocated per exec: calls of the allocation functions"
          " (funcs.so's entries; each call allocates one table, or loses a race and frees"
          " it), mean over the boot's execs:\n\n")
        order = [(k, m) for k in kernels for m in MODES if (k, m) in cells]
        rows = []
        for v in VARIANTS:
            for fn in TABLE_ALLOC:
                vals = [cells[c]["ops"].get(v, {}).get("entries", {}).get(fn) for c in order]
                if any(vals):
                    rows.append([v, f"`{fn}`"] + [f"{float(x or 0):.2f}".rstrip("0").rstrip(".")
                                                  for x in vals])
        w(md_table(["variant", "function"] + [f"{k}, {m}" for k, m in order], rows) + "\n")


if __name__ == "__main__":
    main()
