// SPDX-License-Identifier: GPL-2.0
/* funcs.so's counting; see count.h. */
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "funcmark.h"

#define KERNEL_BIT (1ull << 63)

static const char *const special_name[FC_FIRST_FUNCTION] = {
	[FC_SLOT_USER] = "[user]",
	[FC_SLOT_NOSYM] = "[kernel-no-symbol]",
};

struct sym {
	uint64_t start, size;
	char *name;
};

static int by_address(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One line of `nm -n -S`: "ADDR [SIZE] TYPE NAME". true for a text symbol. */
static bool parse_line(char *line, struct sym *s)
{
	char *f[4], *save = NULL;
	int n = 0;

	for (char *w = strtok_r(line, " \t\n", &save); w && n < 4; w = strtok_r(NULL, " \t\n", &save))
		f[n++] = w;
	if (n < 3)
		return false;
	const char *type = n == 4 ? f[2] : f[1];
	if (strlen(type) != 1 || !strchr("tTwW", type[0]))
		return false;
	s->start = strtoull(f[0], NULL, 16);
	s->size = n == 4 ? strtoull(f[1], NULL, 16) : 0;
	s->name = strdup(n == 4 ? f[3] : f[2]);
	return s->name != NULL;
}

bool fc_load(struct fc_table *t, FILE *in, char *err, size_t errlen)
{
	struct sym *syms = NULL;
	size_t n = 0, cap = 0, nf = 0;
	char line[4096];

	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), in)) {
		struct sym s;

		if (!parse_line(line, &s))
			continue;
		if (!(s.start & KERNEL_BIT)) {
			free(s.name);
			continue;
		}
		if (n == cap) {
			struct sym *more = realloc(syms, (cap = cap ? 2 * cap : 4096) * sizeof(*syms));

			if (!more)
				goto nomem;
			syms = more;
		}
		syms[n++] = s;
	}
	if (!n) {
		snprintf(err, errlen, "no kernel text symbols in the symbol file (nm -n -S VMLINUX)");
		free(syms);
		return false;
	}
	qsort(syms, n, sizeof(*syms), by_address);

	t->start = calloc(FC_FIRST_FUNCTION + n, sizeof(*t->start));
	t->end = calloc(FC_FIRST_FUNCTION + n, sizeof(*t->end));
	t->name = calloc(FC_FIRST_FUNCTION + n, sizeof(*t->name));
	if (!t->start || !t->end || !t->name)
		goto nomem;
	for (int i = 0; i < FC_FIRST_FUNCTION; i++)
		t->name[i] = strdup(special_name[i]);
	nf = FC_FIRST_FUNCTION;
	for (size_t i = 0; i < n; i++) {
		struct sym *s = &syms[i];
		size_t last = nf - 1;

		if (nf > FC_FIRST_FUNCTION && s->start == t->start[last]) {
			/* An alias: one function, every name. */
			size_t len = strlen(t->name[last]) + strlen(s->name) + 2;
			char *joined = malloc(len);

			if (!joined)
				goto nomem;
			snprintf(joined, len, "%s|%s", t->name[last], s->name);
			free(t->name[last]);
			t->name[last] = joined;
			if (s->start + s->size > t->end[last])
				t->end[last] = s->start + s->size;
			free(s->name);
		} else if (nf > FC_FIRST_FUNCTION && s->start < t->end[last]) {
			free(s->name);	/* a label inside the function before it */
		} else {
			t->start[nf] = s->start;
			t->end[nf] = s->start + s->size;
			t->name[nf++] = s->name;
		}
		s->name = NULL;
	}
	free(syms);
	syms = NULL;
	t->nslots = nf;
	t->live = calloc(nf, sizeof(*t->live));
	t->at_start = calloc(nf, sizeof(*t->at_start));
	t->sum = calloc(nf, sizeof(*t->sum));
	if (!t->live || !t->at_start || !t->sum)
		goto nomem;
	return true;
nomem:
	snprintf(err, errlen, "out of memory reading the symbol file");
	for (size_t i = 0; syms && i < n; i++)
		free(syms[i].name);
	free(syms);
	t->nslots = nf;
	fc_free(t);
	return false;
}

void fc_free(struct fc_table *t)
{
	for (size_t i = 0; t->name && i < t->nslots; i++)
		free(t->name[i]);
	free(t->name);
	free(t->start);
	free(t->end);
	free(t->live);
	free(t->at_start);
	free(t->sum);
	memset(t, 0, sizeof(*t));
}

size_t fc_slot(const struct fc_table *t, uint64_t vaddr)
{
	size_t lo = FC_FIRST_FUNCTION, hi = t->nslots;

	if (!(vaddr & KERNEL_BIT))
		return FC_SLOT_USER;
	/* The last function starting at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->start[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == FC_FIRST_FUNCTION)
		return FC_SLOT_NOSYM;
	lo--;
	/* Past the end of a function whose size is known: nobody's code. */
	if (t->end[lo] > t->start[lo] && vaddr >= t->end[lo])
		return FC_SLOT_NOSYM;
	return lo;
}

struct fc_plan fc_plan(struct fc_table *t, uint64_t vaddr, const uint8_t *bytes, size_t len)
{
	struct fc_plan p = { .kind = FC_COUNT };
	size_t slot;

	if (len == 7 && bytes[0] == 0x0f && bytes[1] == 0x1f && bytes[2] == 0x80) {
		uint32_t disp = bytes[3] | bytes[4] << 8 | bytes[5] << 16 | (uint32_t)bytes[6] << 24;

		if ((disp & ~0xffu) == FUNCMARK_MAGIC) {
			switch (disp & 0xff) {
			case FUNCMARK_CMD_START: p.kind = FC_START; return p;
			case FUNCMARK_CMD_STOP: p.kind = FC_STOP; return p;
			case FUNCMARK_CMD_NEXT: p.kind = FC_NEXT; return p;
			}
		}
	}
	slot = fc_slot(t, vaddr);
	p.insns = &t->live[slot].insns;
	if (slot >= FC_FIRST_FUNCTION && vaddr == t->start[slot])
		p.entries = &t->live[slot].entries;
	return p;
}

void fc_write_header(FILE *out)
{
	fprintf(out, "section,pairs,function,insns,entries\n");
}

static void write_section(struct fc_table *t, FILE *out)
{
	for (size_t i = 0; i < t->nslots; i++) {
		if (!t->sum[i].insns && !t->sum[i].entries)
			continue;
		fprintf(out, "%llu,%llu,%s,%llu,%llu\n", (unsigned long long)t->sections,
			(unsigned long long)t->pairs, t->name[i],
			(unsigned long long)t->sum[i].insns, (unsigned long long)t->sum[i].entries);
	}
	/* A section that counted nothing still says so: its pairs, no function. */
	fprintf(out, "%llu,%llu,[total],", (unsigned long long)t->sections,
		(unsigned long long)t->pairs);
	{
		uint64_t insns = 0, entries = 0;

		for (size_t i = 0; i < t->nslots; i++)
			insns += t->sum[i].insns, entries += t->sum[i].entries;
		fprintf(out, "%llu,%llu\n", (unsigned long long)insns, (unsigned long long)entries);
	}
	memset(t->sum, 0, t->nslots * sizeof(*t->sum));
	t->pairs = 0;
	t->sections++;
}

void fc_mark(struct fc_table *t, enum fc_kind kind, FILE *out)
{
	switch (kind) {
	case FC_START:
		if (t->measuring) {
			t->misplaced++;
			return;
		}
		memcpy(t->at_start, t->live, t->nslots * sizeof(*t->live));
		t->measuring = true;
		return;
	case FC_STOP:
		if (!t->measuring) {
			t->misplaced++;
			return;
		}
		for (size_t i = 0; i < t->nslots; i++) {
			t->sum[i].insns += t->live[i].insns - t->at_start[i].insns;
			t->sum[i].entries += t->live[i].entries - t->at_start[i].entries;
		}
		t->pairs++;
		t->measuring = false;
		return;
	case FC_NEXT:
		if (t->measuring) {	/* a pair left open: dropped, and counted as such */
			t->misplaced++;
			t->measuring = false;
		}
		write_section(t, out);
		return;
	case FC_COUNT:
		return;
	}
}

void fc_finish(struct fc_table *t, FILE *out)
{
	if (t->measuring) {
		t->misplaced++;
		t->measuring = false;
	}
	if (t->pairs)
		write_section(t, out);
}
