# SPDX-License-Identifier: GPL-2.0
"""The statistics of make bench's report: medians, means and their t intervals.

Only the standard library, so the report runs on any python3."""
import math


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def mean(xs):
    return sum(xs) / len(xs) if xs else None


# Two-sided 97.5% quantiles of Student's t, by degrees of freedom (more: 1.96).
T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    df = max(1, int(df))
    return T975[df] if df < len(T975) else 1.96


def mean_ci(xs):
    """mean(xs) and its 95% t interval: (mean, low, high); low/high None below 2 values."""
    if not xs:
        return None
    m = mean(xs)
    if len(xs) < 2:
        return m, None, None
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    half = t975(len(xs) - 1) * sd / math.sqrt(len(xs))
    return m, m - half, m + half


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
    half = t975(df) * math.sqrt(va + vb)
    return d, d - half, d + half
