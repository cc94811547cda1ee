// SPDX-License-Identifier: GPL-2.0
/*
 * hintboundary: an mmap hint in the last 2 MiB below 1 << 47 never yields a mapping at or
 * above 1 << 47 (Documentation/arch/x86/x86_64/5level-paging.rst: user space gets
 * addresses above 47 bits only when its hint is above them).
 *
 *   hintboundary [legacy]
 *
 * Every hint, page aligned and not, is tried without MAP_FIXED on ordinary anonymous
 * mappings (4 KiB and 2 MiB long) and on hugetlb mappings of 2 MiB pages and, where the
 * kernel has them (/sys/kernel/mm/hugepages/hugepages-1048576kB), of 1 GiB pages. The
 * rule is the same on every paging mode, so the program takes none. Each result names
 * the mapping, the hint and where the mapping landed. "legacy" re-executes with the
 * bottom-up layout (personality ADDR_COMPAT_LAYOUT), the other get_unmapped_area path.
 * Hugetlb cases need free huge pages (tests/guest/hint-boundary.t reserves them); with
 * none free they are skipped with the reason. Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#include "p4d_layout.h"
#include "tap.h"

#define WINDOW		P4D_DEFAULT_MAP_WINDOW	/* 1 << 47 */
#define PAGE		P4D_PAGE_SIZE
#define SZ_1M		(1UL << 20)
#define SZ_2M		(2UL << 20)
#define SZ_1G		(1UL << 30)

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT	26
#endif
#define MAP_HUGE_2M	(21 << MAP_HUGE_SHIFT)
#define MAP_HUGE_1G	(30 << MAP_HUGE_SHIFT)

/* Hints in the last 2 MiB below the boundary: 2 MiB, 1 MiB and page aligned, and not. */
static const unsigned long hints[] = {
	WINDOW - SZ_2M,			/* 2 MiB aligned: the last huge page below */
	WINDOW - SZ_2M + 1,
	WINDOW - SZ_2M + PAGE,		/* 0x7fffffe01000 */
	WINDOW - SZ_1M,			/* 0x7ffffff00000 */
	WINDOW - SZ_1M + 1,
	WINDOW - PAGE,			/* 0x7ffffffff000: the guard page of the window */
	WINDOW - PAGE + 1,
	WINDOW - 1,			/* the last byte below */
};

struct kind {
	const char *name;
	unsigned long len;
	int flags;
	const char *pool;	/* the sysfs directory of its huge pages, NULL if none */
};

static const struct kind kinds[] = {
	{ "anonymous 4 KiB", PAGE, 0, NULL },
	{ "anonymous 2 MiB", SZ_2M, 0, NULL },
	{ "hugetlb 2 MiB", SZ_2M, MAP_HUGETLB | MAP_HUGE_2M, "hugepages-2048kB" },
	{ "hugetlb 1 GiB", SZ_1G, MAP_HUGETLB | MAP_HUGE_1G, "hugepages-1048576kB" },
};

/* free_huge_pages: the pool's free pages, or -1 with the reason in why when it has none. */
static long free_huge_pages(const char *pool, char *why, size_t size)
{
	char path[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/free_hugepages", pool);
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, size, "no %s pool in this kernel (%s: %s)", pool, path, strerror(errno));
		return -1;
	}
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	if (n < 1)
		snprintf(why, size, "no free page in %s (%s says %ld)", pool, path, n);
	return n;
}

static void check(const struct kind *k, unsigned long hint)
{
	void *p = mmap((void *)hint, k->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | k->flags, -1, 0);
	unsigned long addr = (unsigned long)p;

	if (p == MAP_FAILED) {
		/* Below the boundary is free in this process: a failure is a failure. */
		tap_result(0, "%s, hint %#lx: mmap failed with %s", k->name, hint,
			   strerrorname_np(errno));
		return;
	}
	if (!tap_result(addr + k->len <= WINDOW, "%s, hint %#lx: landed at %#lx, %s", k->name,
			hint, addr, addr + k->len <= WINDOW ? "below 1<<47" : "NOT below 1<<47"))
		tap_diag("[%#lx, %#lx) reaches above 1<<47 (%#lx) without a hint above it",
			 addr, addr + k->len, WINDOW);
	munmap(p, k->len);
}

int main(int argc, char **argv)
{
	const size_t nhints = sizeof(hints) / sizeof(hints[0]);
	char why[256], name[96];

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "legacy"))) {
		fprintf(stderr, "usage: hintboundary [legacy]\n");
		return 2;
	}
	if (argc == 2 && !(personality(0xffffffff) & ADDR_COMPAT_LAYOUT)) {
		/* The layout is chosen at exec: switch the personality, then exec again. */
		personality(ADDR_COMPAT_LAYOUT);
		execv("/proc/self/exe", argv);
		perror("hintboundary: execv");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct kind *k = &kinds[i];

		if (k->pool && free_huge_pages(k->pool, why, sizeof(why)) < 1) {
			snprintf(name, sizeof(name), "%s: %zu hints below 1<<47 land below it",
				 k->name, nhints);
			tap_skip(name, why);
			continue;
		}
		for (size_t j = 0; j < nhints; j++)
			check(k, hints[j]);
	}
	return tap_done();
}
