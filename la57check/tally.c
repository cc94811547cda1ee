// SPDX-License-Identifier: GPL-2.0
/*
 * Counting names: the kinds of fd whose mmaps were left alone, how each process of a run
 * ended. Printed sorted, so that two runs of one program print the same line whatever
 * order their processes ended in.
 */
#include <stdlib.h>
#include <string.h>

#include "la57check.h"

void tally_add(struct tally *t, const char *name)
{
	for (size_t i = 0; i < t->len; i++)
		if (!strcmp(t->v[i].name, name)) {
			t->v[i].n++;
			return;
		}
	if (t->len == TALLY_MAX) {
		t->others++;
		return;
	}
	snprintf(t->v[t->len].name, sizeof(t->v[t->len].name), "%s", name);
	t->v[t->len++].n = 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);	/* the name is each entry's first member */
}

void tally_format(const struct tally *t, char *buf, size_t len)
{
	struct tally sorted = *t;
	size_t used = 0;

	qsort(sorted.v, sorted.len, sizeof(sorted.v[0]), by_name);
	buf[0] = '\0';
	for (size_t i = 0; i < sorted.len && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s x%lu", i ? ", " : "",
				 sorted.v[i].name, sorted.v[i].n);
	if (sorted.others && used < len)
		snprintf(buf + used, len - used, "%s%lu more", used ? ", " : "", sorted.others);
	if (!buf[0])
		snprintf(buf, len, "-");
}
