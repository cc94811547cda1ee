// SPDX-License-Identifier: GPL-2.0
/*
 * mmapcases: the get_unmapped_area cases the pgtable/mmap event tests check, one mmap
 * each, in a fixed order.
 *
 *   mmapcases topdown|bottomup [TRACE_MARKER]
 *
 * bottomup re-executes itself with the legacy layout (personality ADDR_COMPAT_LAYOUT),
 * so mm->get_unmapped_area is arch_get_unmapped_area. Before each mmap it writes
 * "mmapcases case=NAME" to TRACE_MARKER (a tracefs trace_marker), so the test can pair
 * each case with the event that follows. Per case it prints
 *   case=NAME hint=0x... len=0x... result=0x...      or   ... error=ERRNO_NAME
 * and, after the last case, its /proc/self/maps, each line prefixed with "map ": the
 * kernel's own account of where the mappings are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#include "p4d_layout.h"

#define HUGE_2M (2UL << 20)
#define PGD_REGION(i) ((unsigned long)(i) << P4D_PGDIR_SHIFT_L5)

struct mmap_case {
	const char *name;
	unsigned long hint;
	unsigned long len;
	int flags;	/* added to MAP_PRIVATE | MAP_ANONYMOUS */
};

/* Order matters: "occupied" cases re-use the hint of the case before them. */
static const struct mmap_case topdown_cases[] = {
	{ "nohint",	0,				P4D_PAGE_SIZE,	0 },
	{ "lowhint",	1UL << 44,			P4D_PAGE_SIZE,	0 },
	{ "highhint",	PGD_REGION(4),			P4D_PAGE_SIZE,	0 },
	{ "occupied",	PGD_REGION(4),			P4D_PAGE_SIZE,	0 },
	{ "straddle",	P4D_DEFAULT_MAP_WINDOW - P4D_PAGE_SIZE, 2 * P4D_PAGE_SIZE, 0 },
	{ "fixed",	PGD_REGION(5),			P4D_PAGE_SIZE,	MAP_FIXED },
	{ "noreplace",	PGD_REGION(6),			P4D_PAGE_SIZE,	MAP_FIXED_NOREPLACE },
	{ "map32bit",	0,				P4D_PAGE_SIZE,	MAP_32BIT },
	{ "nospace",	0,	P4D_DEFAULT_MAP_WINDOW - 2 * P4D_PAGE_SIZE,	0 },
	{ "huge",	0,				HUGE_2M,	MAP_HUGETLB },
	{ "hugehigh",	PGD_REGION(7),			HUGE_2M,	MAP_HUGETLB },
	{ "hugeoccupied", PGD_REGION(7),		HUGE_2M,	MAP_HUGETLB },
};

static const struct mmap_case bottomup_cases[] = {
	{ "bu-nohint",	0,				P4D_PAGE_SIZE,	0 },
	{ "bu-highhint", PGD_REGION(8),			P4D_PAGE_SIZE,	0 },
	{ "bu-occupied", PGD_REGION(8),			P4D_PAGE_SIZE,	0 },
	{ "bu-fixed",	PGD_REGION(9),			P4D_PAGE_SIZE,	MAP_FIXED },
	{ "bu-huge",	0,				HUGE_2M,	MAP_HUGETLB },
	{ "bu-hugehigh", PGD_REGION(10),		HUGE_2M,	MAP_HUGETLB },
};

static void run_cases(const struct mmap_case *cases, size_t n, int marker)
{
	char line[128];

	for (size_t i = 0; i < n; i++) {
		const struct mmap_case *c = &cases[i];
		void *p;
		int len;

		len = snprintf(line, sizeof(line), "mmapcases case=%s\n", c->name);
		if (marker >= 0 && write(marker, line, len) != len)
			perror("mmapcases: trace_marker");
		p = mmap((void *)c->hint, c->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | c->flags, -1, 0);
		printf("case=%s hint=%#lx len=%#lx ", c->name, c->hint, c->len);
		if (p == MAP_FAILED)
			printf("error=%s\n", strerrorname_np(errno));
		else
			printf("result=%#lx\n", (unsigned long)p);
		/* Leave successful mappings in place: the occupied cases rely on them. */
	}
}

static int print_maps(void)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps) {
		perror("mmapcases: /proc/self/maps");
		return 1;
	}
	while (fgets(line, sizeof(line), maps))
		printf("map %s", line);
	fclose(maps);
	return 0;
}

int main(int argc, char **argv)
{
	int marker = -1;

	if (argc < 2 || argc > 3 ||
	    (strcmp(argv[1], "topdown") && strcmp(argv[1], "bottomup"))) {
		fprintf(stderr, "usage: mmapcases topdown|bottomup [TRACE_MARKER]\n");
		return 2;
	}
	if (!strcmp(argv[1], "bottomup") && !(personality(0xffffffff) & ADDR_COMPAT_LAYOUT)) {
		/* The layout is chosen at exec: switch the personality, then exec again. */
		personality(ADDR_COMPAT_LAYOUT);
		execv("/proc/self/exe", argv);
		perror("mmapcases: execv");
		return 1;
	}
	if (argc == 3) {
		marker = open(argv[2], O_WRONLY);
		if (marker < 0) {
			perror(argv[2]);
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "topdown"))
		run_cases(topdown_cases, sizeof(topdown_cases) / sizeof(topdown_cases[0]), marker);
	else
		run_cases(bottomup_cases, sizeof(bottomup_cases) / sizeof(bottomup_cases[0]), marker);
	return print_maps();
}
