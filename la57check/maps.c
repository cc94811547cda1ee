// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps of a traced process: read while the process is stopped (at a fault or
 * at its exit, before the address space goes), summarized for the report.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "la57check.h"

int maps_read(pid_t pid, struct maps *m)
{
	char path[64], line[512];
	size_t cap = 0;
	FILE *f;

	m->v = NULL;
	m->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct mapping mp = { 0 };
		char perms[8] = "";
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
			   &mp.start, &mp.end, perms, &mp.offset, &name_at) < 4)
			continue;
		mp.exec = perms[2] == 'x';
		if (name_at > 0) {
			snprintf(mp.name, sizeof(mp.name), "%s", line + name_at);
			mp.name[strcspn(mp.name, "\n")] = '\0';
		}
		if (m->n == cap) {
			struct mapping *v = realloc(m->v, (cap ? cap * 2 : 64) * sizeof(*v));

			if (!v)
				break;
			m->v = v;
			cap = cap ? cap * 2 : 64;
		}
		m->v[m->n++] = mp;
	}
	fclose(f);
	return 0;
}

void maps_free(struct maps *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

const struct mapping *maps_find(const struct maps *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return &m->v[i];
	return NULL;
}

static const char *display_name(const struct mapping *mp)
{
	return mp->name[0] ? mp->name : "[anon]";
}

/* "name xN" of the mappings that stayed low, as every other list of the report. */
static void list_low_names(const struct maps *m, char *buf, size_t len)
{
	struct tally names = { .len = 0 };

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].start < P4D_DEFAULT_MAP_WINDOW)
			tally_add(&names, display_name(&m->v[i]));
	tally_format(&names, buf, len);
}

/*
 * Code a runtime generated: executable, and not a file's (a path) or the kernel's
 * ([vdso], [vsyscall]). Anonymous, or named by the program ([anon:...]).
 */
static bool is_generated_code(const struct mapping *mp)
{
	return mp->exec && mp->name[0] != '/' &&
	       (mp->name[0] != '[' || !strncmp(mp->name, "[anon:", 6));
}

void maps_summarize(const struct maps *m, struct maps_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < m->n; i++) {
		bool jit = is_generated_code(&m->v[i]);

		if (is_kernel_half(m->v[i].start))
			continue;
		sum->mappings++;
		sum->jit_mappings += jit;
		if (!is_high_user(m->v[i].start))
			continue;
		sum->jit_high += jit;
		sum->high_mappings++;
		sum->high_bytes += m->v[i].end - m->v[i].start;
	}
	list_low_names(m, sum->low_names, sizeof(sum->low_names));
}
