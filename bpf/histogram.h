/* SPDX-License-Identifier: GPL-2.0 */
/* Log2 histograms as text: "     usecs               : count    distribution". */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <stdio.h>
#include <linux/types.h>

/*
 * Print SLOTS[0..n): slot i counts values v with floor(log2(v)) == i (slot 0 also
 * holds 0), so its range is [2^i, 2^(i+1) - 1]. Rows from the first to the last
 * non-empty slot; nothing when all are empty. UNIT names the values ("usecs").
 * Returns the number of rows printed.
 */
int histogram_print_log2(FILE *out, const __u64 *slots, int n, const char *unit);

/* Bounds of slot I, as histogram_print_log2 prints them. */
void histogram_slot_range(int i, __u64 *low, __u64 *high);

#endif /* HISTOGRAM_H */
