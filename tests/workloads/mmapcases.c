// SPDX-License-Identifier: GPL-2.0
/*
 * mmapcases: the get_unmapped_area cases the pgtable/mmap event tests check, one mmap
 * each, in a fixed order.
 *
 *   mmapcases topdown|bottomup|bigstack [TRACE_MARKER]
 *
 * Each layout re-executes itself once with its personality and stack limit, since both
 * are read at exec: ADDR_NO_RANDOMIZE always (so mmap_base and the legacy base are the
 * documented values, not randomized ones), plus ADDR_COMPAT_LAYOUT for bottomup
 * (mm->get_unmapped_area is then arch_get_unmapped_area), and for bigstack an unlimited
 * stack on the top-down layout (mmap_base drops to a sixth of the 47-bit window, so a
 * large mapping fails top-down and falls back to a bottom-up search). Before each mmap it
 * writes "mmapcases case=NAME" to TRACE_MARKER (a tracefs trace_marker), so the test can
 * pair each case with the event that follows. It prints first
 *   layout=NAME rlimit_stack=BYTES|infinity mmap_min_addr=BYTES
 * then per case
 *   case=NAME hint=0x... len=0x... result=0x...      or   ... error=ERRNO_NAME
 * and, after the last case, its /proc/self/maps, each line prefixed with "map ": the
 * kernel's own account of where the mappings are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <unistd.h>

#include "p4d_layout.h"

#define HUGE_2M (2UL << 20)
#define PGD_REGION(i) ((unsigned long)(i) << P4D_PGDIR_SHIFT_L5)
/* The highest page a 5-level process can map: TASK_SIZE_MAX is 1 << 56 less a page. */
#define TOP_PAGE_L5 (P4D_TASK_SIZE_MAX_L5 - P4D_PAGE_SIZE)
/* Larger than bigstack's mmap_base (a sixth of 128 TiB), smaller than the 85 TiB above the
 * legacy base: only the bottom-up fallback fits it. NORESERVE: no overcommit charge. */
#define FALLBACK_LEN (32UL << 40)

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
	/* Below mmap_min_addr: mmap() rounds the hint up to it before the arch code runs. */
	{ "minhint",	P4D_PAGE_SIZE,			P4D_PAGE_SIZE,	0 },
	/* MAP_FIXED at the edges: the last page of the 47-bit window, 1 << 47, the top. */
	{ "fixedwindow", P4D_DEFAULT_MAP_WINDOW - P4D_PAGE_SIZE, P4D_PAGE_SIZE, MAP_FIXED },
	{ "fixed47",	P4D_DEFAULT_MAP_WINDOW,		P4D_PAGE_SIZE,	MAP_FIXED },
	{ "fixedtop",	TOP_PAGE_L5,			P4D_PAGE_SIZE,	MAP_FIXED },
	{ "hugefixed",	PGD_REGION(11),			HUGE_2M,	MAP_HUGETLB | MAP_FIXED },
	/* Off the 2 MiB grid: hugetlb refuses it with EINVAL. */
	{ "hugefixedbad", (1UL << 40) + P4D_PAGE_SIZE,	HUGE_2M,	MAP_HUGETLB | MAP_FIXED },
	/* No hint, a multiple of 2 MiB: 6.12 pads the search by 2 MiB to align it for THP. */
	{ "padded",	0,				2 * HUGE_2M,	0 },
};

static const struct mmap_case bottomup_cases[] = {
	{ "bu-nohint",	0,				P4D_PAGE_SIZE,	0 },
	{ "bu-highhint", PGD_REGION(8),			P4D_PAGE_SIZE,	0 },
	{ "bu-occupied", PGD_REGION(8),			P4D_PAGE_SIZE,	0 },
	{ "bu-fixed",	PGD_REGION(9),			P4D_PAGE_SIZE,	MAP_FIXED },
	{ "bu-huge",	0,				HUGE_2M,	MAP_HUGETLB },
	{ "bu-hugehigh", PGD_REGION(10),		HUGE_2M,	MAP_HUGETLB },
};

static const struct mmap_case bigstack_cases[] = {
	{ "bs-fallback", 0,		FALLBACK_LEN,	MAP_NORESERVE },
	{ "bs-hugefallback", 0,		FALLBACK_LEN,	MAP_HUGETLB | MAP_NORESERVE },
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

/* The personality and stack limit LAYOUT runs with; exec once to get them (read at exec). */
static int enter_layout(const char *layout, char **argv)
{
	unsigned long want = ADDR_NO_RANDOMIZE;
	struct rlimit stack;
	int execed = getenv("MMAPCASES_EXECED") != NULL;
	int ok;

	if (!strcmp(layout, "bottomup"))
		want |= ADDR_COMPAT_LAYOUT;
	if (getrlimit(RLIMIT_STACK, &stack))
		return -1;
	ok = (personality(0xffffffff) & (ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT)) == want &&
	     (strcmp(layout, "bigstack") || stack.rlim_cur == RLIM_INFINITY);
	if (ok)
		return 0;
	if (execed) {
		fprintf(stderr, "mmapcases: %s: personality or stack limit did not hold\n", layout);
		return -1;
	}
	if (!strcmp(layout, "bigstack")) {
		stack.rlim_cur = stack.rlim_max = RLIM_INFINITY;
		if (setrlimit(RLIMIT_STACK, &stack)) {
			perror("mmapcases: setrlimit(RLIMIT_STACK, unlimited)");
			return -1;
		}
	}
	personality((personality(0xffffffff) & ~ADDR_COMPAT_LAYOUT) | want);
	setenv("MMAPCASES_EXECED", "1", 1);
	/* By the name it was run as, when that is a path: exec names the task after it. */
	execv(strchr(argv[0], '/') ? argv[0] : "/proc/self/exe", argv);
	perror("mmapcases: execv");
	return -1;
}

static void print_layout(const char *layout)
{
	unsigned long min_addr = 0;
	struct rlimit stack;
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");

	if (!f || fscanf(f, "%lu", &min_addr) != 1)
		perror("mmapcases: /proc/sys/vm/mmap_min_addr");
	if (f)
		fclose(f);
	getrlimit(RLIMIT_STACK, &stack);
	printf("layout=%s rlimit_stack=", layout);
	if (stack.rlim_cur == RLIM_INFINITY)
		printf("infinity");
	else
		printf("%lu", (unsigned long)stack.rlim_cur);
	printf(" mmap_min_addr=%lu\n", min_addr);
}

#define RUN(cases) run_cases(cases, sizeof(cases) / sizeof(cases[0]), marker)

int main(int argc, char **argv)
{
	int marker = -1;

	if (argc < 2 || argc > 3 || (strcmp(argv[1], "topdown") && strcmp(argv[1], "bottomup") &&
				     strcmp(argv[1], "bigstack"))) {
		fprintf(stderr, "usage: mmapcases topdown|bottomup|bigstack [TRACE_MARKER]\n");
		return 2;
	}
	if (enter_layout(argv[1], argv))
		return 1;
	if (argc == 3) {
		marker = open(argv[2], O_WRONLY);
		if (marker < 0) {
			perror(argv[2]);
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_layout(argv[1]);
	if (!strcmp(argv[1], "topdown"))
		RUN(topdown_cases);
	else if (!strcmp(argv[1], "bottomup"))
		RUN(bottomup_cases);
	else
		RUN(bigstack_cases);
	return print_maps();
}
