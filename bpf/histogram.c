// SPDX-License-Identifier: GPL-2.0
/* Log2 histograms as text; see histogram.h. */
#include <string.h>

#include "histogram.h"

#define BAR_WIDTH	40

void histogram_slot_range(int i, __u64 *low, __u64 *high)
{
	*low = i ? 1ULL << i : 0;
	*high = i < 63 ? (1ULL << (i + 1)) - 1 : ~0ULL;
}

static void print_bar(FILE *out, __u64 count, __u64 max)
{
	int stars = max ? (int)(count * BAR_WIDTH / max) : 0;

	fputc('|', out);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < stars ? '*' : ' ', out);
	fputc('|', out);
}

int histogram_print_log2(FILE *out, const __u64 *slots, int n, const char *unit)
{
	int first = -1, last = -1;
	__u64 max = 0;

	for (int i = 0; i < n; i++) {
		if (!slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (first < 0)
		return 0;
	/* The range column is 24 wide, right-aligned like the unit's heading. */
	fprintf(out, "%*s%-*s : count    distribution\n", 10, unit, 14, "");
	for (int i = first; i <= last; i++) {
		__u64 low, high;

		histogram_slot_range(i, &low, &high);
		fprintf(out, "%10llu -> %-10llu : %-8llu ", (unsigned long long)low,
			(unsigned long long)high, (unsigned long long)slots[i]);
		print_bar(out, slots[i], max);
		fputc('\n', out);
	}
	return last - first + 1;
}
