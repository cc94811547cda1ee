# SPDX-License-Identifier: GPL-2.0
"""A Markdown table, as the reports of analysis/ print them."""


def md_table(header, rows, align=None):
    """header, rows of cells; align "l" or "r" per column (default: the first left, the
    rest right)."""
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)
