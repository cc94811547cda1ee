# SPDX-License-Identifier: GPL-2.0
"""The per-function counts of make bench (analysis/funcs/run): reading funcs.so's sections
and the guest's records, and the results.md section that names every extra instruction.

funcs_KERNEL_PAGING.log holds the guest's records (analysis/funcs/guest.sh: which section
is which operation, the swpath batches of each), funcs_KERNEL_PAGING.csv the plugin's
sections (section,pairs,function,insns,entries). Counts per operation are kept as exact
fractions, so the differences of the functions add up to the difference of the totals
exactly; only the printing rounds."""
import csv
import os
import re
from fractions import Fraction

from records import RecordError

FUNCS_LOG = re.compile(r"^funcs_([a-z0-9-]+)_(4|5|no5lvl)\.log$")
TOTAL = "[total]"
USER = "[user]"
# How many functions a difference table names; the rest are summed in one row.
SHOWN = 12


def _read_log(path):
    """The guest's records: {section: {"op": OP, "ops": N, "batches": B}}, status, meta."""
    sections, status, meta, current = {}, None, {}, None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            fields = line.rstrip("\n").split(",")
            try:
                if fields[0] == "section":
                    current = int(fields[1])
                    sections[current] = {"op": fields[2], "ops": 0, "batches": 0}
                elif fields[0] == "swpath":
                    if current is None:
                        raise ValueError("a batch before any section")
                    sections[current]["ops"] += int(fields[3])
                    sections[current]["batches"] += 1
                elif fields[0] == "meta" and len(fields) >= 3:
                    meta[fields[1]] = ",".join(fields[2:])
                elif fields[0] == "host" and fields[1] == "status":
                    status = fields[2]
            except (ValueError, IndexError) as e:
                raise RecordError(f"{path}:{lineno}: a bad {fields[0]} record ({e}):"
                                  f" {line.strip()}")
    return sections, status, meta


def _read_csv(path):
    """The plugin's sections: {section: {"pairs": P, "insns": {function: n},
    "entries": {function: n}}}."""
    out = {}
    with open(path) as f:
        for lineno, row in enumerate(csv.DictReader(f), 2):
            try:
                s = out.setdefault(int(row["section"]), {"pairs": int(row["pairs"]),
                                                         "insns": {}, "entries": {}})
                # Static functions of one name in different files: one row each, added
                # together here (kernels are matched by function name).
                f = row["function"]
                s["insns"][f] = s["insns"].get(f, 0) + int(row["insns"])
                s["entries"][f] = s["entries"].get(f, 0) + int(row["entries"])
            except (KeyError, TypeError, ValueError) as e:
                raise RecordError(f"{path}:{lineno}: a bad funcs.so row ({e})")
    return out


def read_funcs(logdir):
    """{(kernel, paging): {"ops": {OP: {"insns": {f: Fraction per op}, "entries": {...},
    "total": Fraction, "batches": B, "pairs": P}}, "status": S, "meta": {...}}}."""
    cells = {}
    if not os.path.isdir(logdir):
        return cells
    for name in sorted(os.listdir(logdir)):
        m = FUNCS_LOG.match(name)
        if not m:
            continue
        log = os.path.join(logdir, name)
        sections, status, meta = _read_log(log)
        counts_path = log[:-4] + ".csv"
        counts = _read_csv(counts_path) if os.path.exists(counts_path) else {}
        ops = {}
        for index, sec in sections.items():
            c = counts.get(index)
            if not c or not sec["ops"]:
                continue
            per_op = {f: Fraction(n, sec["ops"]) for f, n in c["insns"].items() if f != TOTAL}
            total = Fraction(c["insns"].get(TOTAL, 0), sec["ops"])
            if sum(per_op.values()) != total:
                raise RecordError(f"{counts_path}: section {index}: the functions add up to"
                                  f" {sum(per_op.values())}, the total says {total}")
            ops[sec["op"]] = {
                "insns": per_op, "total": total, "batches": sec["batches"], "pairs": c["pairs"],
                "entries": {f: Fraction(n, sec["ops"]) for f, n in c["entries"].items()
                            if f != TOTAL}}
        cells[m.groups()] = {"ops": ops, "status": status, "meta": meta}
    return cells


def difference(a, b):
    """Per-function a - b (functions in either), and the total difference: the first sums
    to the second exactly."""
    names = set(a["insns"]) | set(b["insns"])
    d = {f: a["insns"].get(f, 0) - b["insns"].get(f, 0) for f in names}
    d = {f: v for f, v in d.items() if v}
    total = a["total"] - b["total"]
    assert sum(d.values()) == total, "per-function differences must sum to the total's"
    return d, total


def _num(v, digits=2):
    return f"{float(v):+,.{digits}f}" if v else "0"


def _short(name):
    """Aliases (a|b|c) shown as the first and how many more."""
    parts = name.split("|")
    return parts[0] if len(parts) == 1 else f"{parts[0]} (+{len(parts) - 1} aliases)"


def section(w, md_table, cells, configs, op_text, key_diff, spread):
    """The results.md section, and the differences its counts put outside the boots'
    spread. configs: [(title, cols, comps)], cols [((kernel, paging), name)] and comps
    [(cell a, cell b, title)] the cells counted and their differences; key_diff(a, b, op)
    gives the key table's difference (icount, over boots) for the same cells, or None;
    spread(a, b, op) the range of one icount boot's difference (boot means), or None."""
    w("\n## Where the extra instructions are: per kernel function\n")
    if not cells:
        w("No per-function counts in this run's logs (`analysis/run --parts funcs`).\n")
        return [], []
    w("`funcs.so` (analysis/funcs/), a TCG plugin, counts every guest instruction into the"
      " kernel function that holds it (the booted kernel's own symbol table, the guest"
      " booted `nokaslr`; inlined code counts in its caller; static functions of one name"
      " are added together) and into `[user]` for user"
      " space, between the marks swpath puts around each timed batch: the same part the"
      " key table times. One `--icount` boot per kernel and paging mode; counts per"
      " operation are summed over all batches of that boot. Each table lists the functions"
      " whose count per operation differs between the cells, largest first; the rows add"
      " up exactly to the total difference (the last row), which is set next to the key"
      " table's difference of the same cells (a mean over boots, so it differs from one"
      " boot's by the boot-to-boot spread). A faulting user load counts twice in the plugin"
      " (it is restarted after the fault) and once under `--icount`; that is the same in"
      " every cell. One plugin boot sums every batch, so it compares with one `--icount`"
      " boot's mean over all its rounds, not with the medians the key table uses: the"
      " last row gives the range one such boot's difference took (the lowest boot of the"
      " first cell less the highest of the second, and the other way round), and a total"
      " outside it is marked *outside* and listed under *Checks the records carry*.\n")
    rows_csv, outside = [], []
    for title, cols, comps in configs:
        have = [c for c, _ in cols if c in cells]
        if len(have) < 2:
            w(f"\n**{title}**: not counted by this run (its kernels' cells are missing).\n")
            continue
        ops = [op for op in op_text if all(op in cells[c]["ops"] for c in have)]
        for op in ops:
            got = {c: cells[c]["ops"][op] for c in have}
            for c, d in got.items():
                for f, v in d["insns"].items():
                    rows_csv.append({"config": title, "op": op, "kernel": c[0], "paging": c[1],
                                     "function": f, "insns_per_op": f"{float(v):.4f}",
                                     "entries_per_op": f"{float(d['entries'].get(f, 0)):.4f}"})
            shown = [(a, b, t) for a, b, t in comps if a in got and b in got]
            if not shown:
                continue
            diffs = [difference(got[a], got[b]) + (a, b, t) for a, b, t in shown]
            names = sorted({f for d, *_ in diffs for f in d},
                           key=lambda f: (-max(abs(d.get(f, 0)) for d, *_ in diffs), f))
            w(f"\n**{title}, {op_text[op]}**: instructions per operation\n")
            rows = []
            for f in names[:SHOWN]:
                rows.append([f"`{_short(f)}`"] + [f"{float(got[c]['insns'].get(f, 0)):,.2f}"
                                                  for c in have]
                            + [_num(d.get(f, 0)) for d, *_ in diffs])
            rest = names[SHOWN:]
            if rest:
                rows.append([f"{len(rest)} other functions"] + ["" for _ in have]
                            + [_num(sum(d.get(f, 0) for f in rest)) for d, *_ in diffs])
            rows.append(["**all functions**"] + [f"{float(got[c]['total']):,.2f}" for c in have]
                        + [f"**{_num(total)}**" for _, total, *_ in diffs])
            key = []
            for _, _, a, b, _ in diffs:
                k = key_diff(a, b, op)
                key.append("n/a" if not k else f"{k[0]:+,.2f}")
            rows.append(["key table (`--icount`, mean over boots)"] + ["" for _ in have] + key)
            ranges = []
            for d, total, a, b, t in diffs:
                r = spread(a, b, op)
                if not r:
                    ranges.append("n/a")
                    continue
                ranges.append(f"[{r[0]:+,.2f}, {r[1]:+,.2f}]")
                if not r[0] - SLACK <= total <= r[1] + SLACK:
                    ranges[-1] += " *outside*"
                    outside.append(_outside(title, op_text[op], t, total, r, d))
            rows.append(["one `--icount` boot's difference (boot means), range"]
                        + ["" for _ in have] + ranges)
            w(md_table(["function"] + [t for c, t in cols if c in got]
                       + [t for *_, t in diffs], rows))
            w("")
    return rows_csv, outside


# Instructions per operation a plugin boot may stray beyond the icount boots' range for
# rounding alone (the counts per operation are printed to two decimals).
SLACK = 0.01


def _outside(config, op, comp, total, r, d):
    """One line for a difference outside the boots' range: by how much, and the
    functions whose differences lean the same way the most."""
    excess = total - (r[1] if total > r[1] else r[0])
    sign = 1 if excess > 0 else -1
    top = sorted(((f, v) for f, v in d.items() if sign * v > 0),
                 key=lambda fv: (-sign * fv[1], fv[0]))[:3]
    return (f"{config}, {op}, {comp}: the plugin boots' {_num(total)} lies {_num(excess)}"
            f" beyond one `--icount` boot's range [{r[0]:+,.2f}, {r[1]:+,.2f}]; "
            + ("the functions leaning that way most: "
               + ", ".join(f"`{_short(f)}` {_num(v)}" for f, v in top) if top else
               "no function's count moved that way"))


def checks(cells, outside=()):
    """What the records prove: every batch one START/STOP pair, the fault-around window;
    and the differences outside the boots' range (section()'s)."""
    lines = list(outside)
    for (kernel, mode), c in sorted(cells.items()):
        bad = [op for op, d in c["ops"].items() if d["pairs"] != d["batches"]]
        lines.append(f"funcs {kernel} paging {mode}: {len(c['ops'])} operations, "
                     + ("one marked pair per batch" if not bad else
                        "marked pairs and batches differ in " + ", ".join(bad))
                     + f", fault_around_bytes {c['meta'].get('fault_around_bytes', '?')}")
    return lines
