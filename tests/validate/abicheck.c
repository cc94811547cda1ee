// SPDX-License-Identifier: GPL-2.0
/*
 * abicheck: the user-space ABI of the 47-bit mmap window, written from
 * Documentation/x86/x86_64/5level-paging.rst and mmap(2)/mremap(2), checked case by case.
 *
 *   abicheck 5|4|no5lvl [legacy]
 *
 * The first argument is the paging mode the guest was booted in (run-guest's
 * $P4DSCOPE_PAGING); no5lvl behaves as 4-level. "legacy" re-executes with the bottom-up
 * layout (personality ADDR_COMPAT_LAYOUT), the other get_unmapped_area path.
 * Prints TAP; each result names what the mode must show. Hugetlb cases need free huge
 * pages (tests/guest/abi.t reserves them through /proc/sys/vm/nr_hugepages).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4d_layout.h"
#include "tap.h"

#define PAGE		P4D_PAGE_SIZE
#define WINDOW		P4D_DEFAULT_MAP_WINDOW			/* 1 << 47 */
#define USER_TOP_L5	(P4D_TASK_SIZE_MAX_L5 + P4D_PAGE_SIZE)	/* 1 << 56 */
#define HUGE_2M		(2UL << 20)
#define HUGE_PAGES_NEEDED 6

static int level5;			/* booted with 5-level paging */
static int legacy;			/* bottom-up layout */
static unsigned long task_size_max;	/* the mode's TASK_SIZE_MAX: the end of user space */

/* One mmap; the errno of a failure in *err (0 on success). */
static unsigned long map(unsigned long hint, unsigned long len, int prot, int flags, int *err)
{
	void *p = mmap((void *)hint, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	*err = p == MAP_FAILED ? errno : 0;
	return (unsigned long)p;
}

static unsigned long map_rw(unsigned long hint, unsigned long len, int flags, int *err)
{
	return map(hint, len, PROT_READ | PROT_WRITE, flags, err);
}

/* Write then read back a word in the first and the last page: the mapping is usable. */
static int touch(unsigned long addr, unsigned long len)
{
	volatile unsigned long *first = (unsigned long *)addr;
	volatile unsigned long *last = (unsigned long *)(addr + len - sizeof(long));

	*first = addr;
	*last = ~addr;
	return *first == addr && *last == ~addr;
}

static const char *outcome(unsigned long addr, int err)
{
	static char buf[64];

	if (err)
		snprintf(buf, sizeof(buf), "error %s", strerrorname_np(err));
	else
		snprintf(buf, sizeof(buf), "%#lx", addr);
	return buf;
}

/* The mapping [addr, addr + len) lies below the 47-bit boundary. */
static int low(unsigned long addr, unsigned long len, int err)
{
	return !err && addr + len <= WINDOW;
}

/* The mapping lies above it and inside the mode's user space. */
static int high(unsigned long addr, unsigned long len, int err)
{
	return !err && addr >= WINDOW && addr + len <= task_size_max;
}

/* A result: "name" passes when cond holds; the diagnostic shows what mmap returned. */
static void expect(int cond, const char *name, unsigned long addr, int err)
{
	if (!tap_result(cond, "%s", name))
		tap_diag("mmap returned %s", outcome(addr, err));
}

static void unmap(unsigned long addr, unsigned long len, int err)
{
	if (!err)
		munmap((void *)addr, len);
}

/* Every mapping of this fresh process, [vsyscall] aside, lies below 1 << 47. */
static void check_fresh_layout(void)
{
	char line[512], name[256];
	unsigned long start, end, stack_end = 0, worst = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps) {
		tap_result(0, "a fresh process maps nothing above 1<<47");
		tap_diag("/proc/self/maps: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), maps)) {
		name[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end, name) < 2)
			continue;
		if (!strcmp(name, "[vsyscall]"))	/* the fixed kernel page, see mm.rst */
			continue;
		if (end > worst)
			worst = end;
		if (!strcmp(name, "[stack]"))
			stack_end = end;
	}
	fclose(maps);
	if (!tap_result(worst <= WINDOW, "a fresh process maps nothing above 1<<47"))
		tap_diag("highest mapping ends at %#lx", worst);
	if (!tap_result(stack_end && stack_end <= WINDOW, "the stack lies below 1<<47"))
		tap_diag("[stack] ends at %#lx", stack_end);
}

/* mmap_base and no-hint mappings: below 47 bits, in the layout's direction. */
static void check_no_hint(void)
{
	/* The legacy base: TASK_UNMAPPED_BASE, a third of the default window (plus ASLR). */
	unsigned long legacy_base = (WINDOW - PAGE) / 3 & ~(PAGE - 1);
	unsigned long first, addr, worst = 0;
	int err, bad = 0;

	first = map_rw(0, PAGE, 0, &err);
	if (legacy)
		expect(!err && first >= legacy_base && low(first, PAGE, err),
		       "bottom-up: the first no-hint mmap lands between TASK_UNMAPPED_BASE and 1<<47",
		       first, err);
	else
		expect(low(first, PAGE, err), "top-down: mmap_base lies below 1<<47", first, err);

	/* 64 more, from a page to 1 GiB, all below the boundary. */
	for (int i = 0; i < 64; i++) {
		unsigned long len = PAGE << (i % 19);

		addr = map(0, len, PROT_NONE, MAP_NORESERVE, &err);
		if (!low(addr, len, err)) {
			bad++;
			worst = err ? (unsigned long)-err : addr;
		}
	}
	if (!tap_result(!bad, "64 no-hint mmaps of 4 KiB to 1 GiB all land below 1<<47"))
		tap_diag("%d did not; last %#lx", bad, worst);
}

/* A hint above 47 bits maps exactly there (5-level) or falls back below (4-level). */
static void check_high_hints(void)
{
	static const struct { unsigned long hint; const char *name; } hints[] = {
		{ WINDOW,			"1<<47" },
		{ WINDOW + PAGE,		"1<<47 + 4 KiB" },
		{ 1UL << 48,			"1<<48" },
		{ 1UL << 50,			"1<<50" },
		{ 1UL << 55,			"1<<55" },
		{ USER_TOP_L5 - 2 * PAGE,	"1<<56 - 8 KiB (the highest page)" },
	};
	char name[160];
	unsigned long addr;
	int err;

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		addr = map_rw(hints[i].hint, PAGE, 0, &err);
		if (level5) {
			snprintf(name, sizeof(name), "hint %s maps exactly there, and the page is usable",
				 hints[i].name);
			expect(!err && addr == hints[i].hint && touch(addr, PAGE), name, addr, err);
		} else {
			snprintf(name, sizeof(name), "hint %s falls back below 1<<47", hints[i].name);
			expect(low(addr, PAGE, err) && touch(addr, PAGE), name, addr, err);
		}
		unmap(addr, PAGE, err);
	}

	/* A random spread over the whole 56-bit space (fixed seed: the same every run). */
	unsigned int seed = 47;
	int bad = 0;

	for (int i = 0; i < 32; i++) {
		unsigned long r = ((unsigned long)rand_r(&seed) << 31) ^ rand_r(&seed);
		unsigned long hint = WINDOW + (r % ((USER_TOP_L5 - WINDOW) / PAGE - 1)) * PAGE;

		addr = map_rw(hint, PAGE, 0, &err);
		if (level5 ? err || addr != hint : !low(addr, PAGE, err)) {
			if (!bad++)
				tap_diag("hint %#lx: %s", hint, outcome(addr, err));
		}
		unmap(addr, PAGE, err);
	}
	tap_result(!bad, level5 ? "32 random hints in [1<<47, 1<<56) all map exactly there"
				: "32 random hints in [1<<47, 1<<56) all fall back below 1<<47");
}

/* An occupied high hint goes elsewhere; a high hint affects only its own allocation. */
static void check_occupied(void)
{
	unsigned long hint = 1UL << 51, first, second, next;
	int err1, err2, err3;

	first = map_rw(hint, PAGE, 0, &err1);
	second = map_rw(hint, PAGE, 0, &err2);
	if (!level5)
		expect(low(second, PAGE, err2), "occupied high hint: falls back below 1<<47",
		       second, err2);
	else if (legacy)
		/* The full-window search runs bottom-up from the legacy base: its first fit is low. */
		expect(!err1 && first == hint && second != hint && low(second, PAGE, err2),
		       "bottom-up: occupied high hint: lands elsewhere, first fit from the legacy base",
		       second, err2);
	else
		/* The full-window search runs top-down from 1<<56: it lands high. */
		expect(!err1 && first == hint && second != hint && high(second, PAGE, err2),
		       "top-down: occupied high hint: lands elsewhere above 1<<47 (full-space search)",
		       second, err2);
	next = map_rw(0, PAGE, 0, &err3);
	expect(low(next, PAGE, err3), "the next no-hint mmap after high ones lands below 1<<47",
	       next, err3);
	unmap(first, PAGE, err1);
	unmap(second, PAGE, err2);
	unmap(next, PAGE, err3);
}

/* MAP_FIXED and MAP_FIXED_NOREPLACE above 47 bits. */
static void check_fixed(void)
{
	unsigned long at = 1UL << 52, addr, again;
	int err, err2;

	addr = map_rw(at, 2 * PAGE, MAP_FIXED, &err);
	if (level5) {
		expect(!err && addr == at && touch(addr, 2 * PAGE),
		       "MAP_FIXED at 1<<52 maps exactly there", addr, err);
		/* Replacing it gives fresh zero-filled pages. */
		again = map_rw(at, PAGE, MAP_FIXED, &err2);
		expect(!err2 && again == at && *(volatile unsigned long *)again == 0,
		       "MAP_FIXED over it replaces the mapping (fresh zero page)", again, err2);
		again = map_rw(at, PAGE, MAP_FIXED_NOREPLACE, &err2);
		expect(err2 == EEXIST, "MAP_FIXED_NOREPLACE over it fails with EEXIST", again, err2);
		unmap(at, 2 * PAGE, err);
		again = map_rw(at + PAGE, PAGE, MAP_FIXED_NOREPLACE, &err2);
		expect(!err2 && again == at + PAGE && touch(again, PAGE),
		       "MAP_FIXED_NOREPLACE at a free high address maps exactly there", again, err2);
		unmap(again, PAGE, err2);
	} else {
		/* mmap(2): ENOMEM, addr exceeds the virtual address space of the CPU. */
		expect(err == ENOMEM, "MAP_FIXED at 1<<52 fails with ENOMEM", addr, err);
		unmap(addr, 2 * PAGE, err);
		again = map_rw(at, PAGE, MAP_FIXED_NOREPLACE, &err2);
		expect(err2 == ENOMEM, "MAP_FIXED_NOREPLACE at 1<<52 fails with ENOMEM", again, err2);
		unmap(again, PAGE, err2);
		addr = map_rw(WINDOW, PAGE, MAP_FIXED, &err);
		expect(err == ENOMEM, "MAP_FIXED at 1<<47 fails with ENOMEM", addr, err);
		unmap(addr, PAGE, err);
	}
}

/* Ranges that cross the 47-bit boundary, and the last page of user space. */
static void check_boundaries(void)
{
	unsigned long top = task_size_max;	/* the guard page starts here */
	unsigned long addr;
	int err;

	/* A hint range crossing the boundary is not honoured: it is searched below. */
	addr = map_rw(WINDOW - PAGE, 2 * PAGE, 0, &err);
	expect(low(addr, 2 * PAGE, err), "hint 1<<47 - 4 KiB, 8 KiB long (straddling): lands below 1<<47",
	       addr, err);
	unmap(addr, 2 * PAGE, err);
	addr = map_rw(WINDOW - PAGE, 2 * PAGE, MAP_FIXED, &err);
	if (level5)
		expect(!err && addr == WINDOW - PAGE && touch(addr, 2 * PAGE),
		       "MAP_FIXED straddling 1<<47 maps exactly there", addr, err);
	else
		expect(err == ENOMEM, "MAP_FIXED straddling 1<<47 fails with ENOMEM", addr, err);
	unmap(addr, 2 * PAGE, err);

	/* The top page below 1 << 56 (1 << 47 on 4-level) is the guard page: never mapped. */
	addr = map_rw(top, PAGE, MAP_FIXED, &err);
	expect(err == ENOMEM, level5 ? "MAP_FIXED at 1<<56 - 4 KiB (the guard page) fails with ENOMEM"
				     : "MAP_FIXED at 1<<47 - 4 KiB (the guard page) fails with ENOMEM",
	       addr, err);
	unmap(addr, PAGE, err);
	addr = map_rw(top, PAGE, MAP_FIXED_NOREPLACE, &err);
	expect(err == ENOMEM, "MAP_FIXED_NOREPLACE at the guard page fails with ENOMEM", addr, err);
	unmap(addr, PAGE, err);
	addr = map_rw(top, PAGE, 0, &err);
	expect(!err && addr + PAGE <= top, "hint at the guard page lands below it", addr, err);
	unmap(addr, PAGE, err);
	/* NOREPLACE: on 4-level an unrandomized stack ends right there. */
	addr = map_rw(top - PAGE, PAGE, MAP_FIXED_NOREPLACE, &err);
	if (err == EEXIST)
		tap_skip("MAP_FIXED_NOREPLACE at the page under the guard page maps exactly there",
			 "that page is in use in this process");
	else
		expect(!err && addr == top - PAGE && touch(addr, PAGE),
		       "MAP_FIXED_NOREPLACE at the page under the guard page maps exactly there",
		       addr, err);
	unmap(addr, PAGE, err);

	/* Beyond the address space: non-canonical and the top of the 64-bit range. */
	static const unsigned long beyond[] = { 1UL << 56, 1UL << 63, -PAGE };
	int bad = 0;

	for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++) {
		addr = map_rw(beyond[i], PAGE, MAP_FIXED, &err);
		if (err != ENOMEM && !bad++)
			tap_diag("MAP_FIXED at %#lx: %s", beyond[i], outcome(addr, err));
		unmap(addr, PAGE, err);
	}
	tap_result(!bad, "MAP_FIXED at 1<<56, 1<<63 and -4 KiB fails with ENOMEM");

	/* MAP_32BIT wins over a high hint: the first 2 GiB. */
	addr = map_rw(1UL << 50, PAGE, MAP_32BIT, &err);
	expect(!err && addr + PAGE <= 1UL << 31, "MAP_32BIT with hint 1<<50 lands below 2 GiB",
	       addr, err);
	unmap(addr, PAGE, err);
}

/* The page size of the mapping that starts at addr, from /proc/self/smaps (0: not found). */
static unsigned long kernel_page_size(unsigned long addr)
{
	char line[512];
	unsigned long start, end, kb = 0;
	int in = 0;
	FILE *smaps = fopen("/proc/self/smaps", "r");

	if (!smaps)
		return 0;
	while (fgets(line, sizeof(line), smaps)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = start == addr;
		else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
			break;
	}
	fclose(smaps);
	return kb * 1024;
}

static unsigned long free_huge_pages(void)
{
	char line[128];
	unsigned long n = 0;
	FILE *meminfo = fopen("/proc/meminfo", "r");

	while (meminfo && fgets(line, sizeof(line), meminfo))
		if (sscanf(line, "HugePages_Free: %lu", &n) == 1)
			break;
	if (meminfo)
		fclose(meminfo);
	return n;
}

/* Hugetlb mappings take their own get_unmapped_area: the same rules, 2 MiB aligned. */
static void check_hugetlb(void)
{
	const char *names[] = {
		"hugetlb: no hint lands below 1<<47, 2 MiB aligned, backed by 2 MiB pages",
		level5 ? "hugetlb: hint 1<<49 maps exactly there, backed by 2 MiB pages"
		       : "hugetlb: hint 1<<49 falls back below 1<<47",
		level5 && !legacy ? "hugetlb: occupied high hint lands elsewhere above 1<<47"
				  : "hugetlb: occupied high hint lands below 1<<47",
		level5 ? "hugetlb: MAP_FIXED at 1<<53 maps exactly there"
		       : "hugetlb: MAP_FIXED at 1<<53 fails with ENOMEM",
	};
	unsigned long hint = 1UL << 49, fixed_at = 1UL << 53, addr, other;
	int err, err2, flags = MAP_HUGETLB;
	char why[64];

	if (free_huge_pages() < HUGE_PAGES_NEEDED) {
		snprintf(why, sizeof(why), "fewer than %d free 2 MiB huge pages", HUGE_PAGES_NEEDED);
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			tap_skip(names[i], why);
		return;
	}

	addr = map_rw(0, HUGE_2M, flags, &err);
	expect(low(addr, HUGE_2M, err) && !(addr & (HUGE_2M - 1)) && touch(addr, HUGE_2M) &&
	       kernel_page_size(addr) == HUGE_2M, names[0], addr, err);
	unmap(addr, HUGE_2M, err);

	addr = map_rw(hint, HUGE_2M, flags, &err);
	if (level5)
		expect(!err && addr == hint && touch(addr, HUGE_2M) && kernel_page_size(addr) == HUGE_2M,
		       names[1], addr, err);
	else
		expect(low(addr, HUGE_2M, err) && touch(addr, HUGE_2M), names[1], addr, err);

	/* Top-down searches the full space from the top; bottom-up from the legacy base. */
	other = map_rw(hint, HUGE_2M, flags, &err2);
	if (level5 && !legacy)
		expect(!err && high(other, HUGE_2M, err2) && other != hint &&
		       !(other & (HUGE_2M - 1)), names[2], other, err2);
	else
		expect(!err && low(other, HUGE_2M, err2) && !(other & (HUGE_2M - 1)),
		       names[2], other, err2);
	unmap(addr, HUGE_2M, err);
	unmap(other, HUGE_2M, err2);

	addr = map_rw(fixed_at, HUGE_2M, flags | MAP_FIXED, &err);
	if (level5)
		expect(!err && addr == fixed_at && touch(addr, HUGE_2M) &&
		       kernel_page_size(addr) == HUGE_2M, names[3], addr, err);
	else
		expect(err == ENOMEM, names[3], addr, err);
	unmap(addr, HUGE_2M, err);
}

/* mremap: moves above 47 bits only when asked (MREMAP_FIXED or a DONTUNMAP hint). */
static void check_mremap(void)
{
	unsigned long src, dst = 1UL << 54, moved, grown, target;
	int err;

	src = map_rw(0, 4 * PAGE, 0, &err);
	if (err || !touch(src, 4 * PAGE)) {
		tap_result(0, "mremap: a source mapping");
		return;
	}
	moved = (unsigned long)mremap((void *)src, 4 * PAGE, 4 * PAGE,
				      MREMAP_MAYMOVE | MREMAP_FIXED, (void *)dst);
	err = moved == (unsigned long)MAP_FAILED ? errno : 0;
	if (level5) {
		expect(!err && moved == dst && *(unsigned long *)dst == src,
		       "mremap MREMAP_FIXED to 1<<54 moves the pages there", moved, err);
	} else {
		/* mremap(2): EINVAL, new_address was invalid. */
		expect(err == EINVAL, "mremap MREMAP_FIXED to 1<<54 fails with EINVAL", moved, err);
		munmap((void *)src, 4 * PAGE);
		return;
	}

	/* Growing it where the next page is taken must move it: the kernel passes no hint. */
	target = map_rw(dst + 4 * PAGE, PAGE, MAP_FIXED_NOREPLACE, &err);
	grown = (unsigned long)mremap((void *)dst, 4 * PAGE, 64 * PAGE, MREMAP_MAYMOVE);
	err = grown == (unsigned long)MAP_FAILED ? errno : 0;
	expect(low(grown, 64 * PAGE, err) && *(unsigned long *)grown == src,
	       "mremap growth of a high mapping that must move lands below 1<<47 (no hint)",
	       grown, err);
	munmap((void *)target, PAGE);

	/* MREMAP_DONTUNMAP takes new_address as a hint: a high one is honoured. */
	moved = (unsigned long)mremap((void *)grown, 64 * PAGE, 64 * PAGE,
				      MREMAP_MAYMOVE | MREMAP_DONTUNMAP, (void *)dst);
	err = moved == (unsigned long)MAP_FAILED ? errno : 0;
	expect(!err && moved == dst && *(unsigned long *)dst == src,
	       "mremap MREMAP_DONTUNMAP with hint 1<<54 moves the pages there", moved, err);
	munmap((void *)grown, 64 * PAGE);
	munmap((void *)moved, 64 * PAGE);
}

struct exhaust_report {
	int mapped, escaped, other_errno;
	unsigned long last_err, after, high_addr;
	int after_err, high_err;
};

/*
 * Fill the default window with no-hint PROT_NONE mappings, halving the size down to a
 * page on each failure. None may land above 1 << 47; then a no-hint page fails with
 * ENOMEM while a high hint still maps (5-level) or fails too (4-level).
 * Runs in a child: the window stays full only there.
 */
static void exhaust_window(struct exhaust_report *r)
{
	unsigned long len = 1UL << 46, addr, hint = 1UL << 50;
	int err;

	while (len >= PAGE) {
		addr = map(0, len, PROT_NONE, MAP_NORESERVE, &err);
		if (err) {
			if (err != ENOMEM)
				r->other_errno = err;
			len >>= 1;
			continue;
		}
		r->mapped++;
		if (addr + len > WINDOW)
			r->escaped++;
	}
	r->after = map(0, PAGE, PROT_NONE, 0, &r->after_err);
	r->high_addr = map(hint, PAGE, PROT_NONE, 0, &r->high_err);
}

static void check_exhaustion(void)
{
	struct exhaust_report *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	if (r == MAP_FAILED || (pid = fork()) < 0) {
		tap_result(0, "window exhaustion: set up");
		return;
	}
	if (pid == 0) {
		exhaust_window(r);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (!tap_result(WIFEXITED(status) && !r->escaped && !r->other_errno && r->mapped > 0,
			"no-hint mmaps fill the window below 1<<47, none lands above"))
		tap_diag("%d mappings, %d above 1<<47, other errno %d, child status %#x",
			 r->mapped, r->escaped, r->other_errno, status);
	expect(r->after_err == ENOMEM, "with the window full, a no-hint mmap fails with ENOMEM",
	       r->after, r->after_err);
	if (level5)
		expect(!r->high_err && r->high_addr == 1UL << 50,
		       "with the window full, hint 1<<50 still maps exactly there",
		       r->high_addr, r->high_err);
	else
		expect(r->high_err == ENOMEM, "with the window full, hint 1<<50 fails with ENOMEM",
		       r->high_addr, r->high_err);
	munmap(r, sizeof(*r));
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "legacy")) ||
	    (strcmp(argv[1], "5") && strcmp(argv[1], "4") && strcmp(argv[1], "no5lvl"))) {
		fprintf(stderr, "usage: abicheck 5|4|no5lvl [legacy]\n");
		return 2;
	}
	legacy = argc == 3;
	if (legacy && !(personality(0xffffffff) & ADDR_COMPAT_LAYOUT)) {
		/* The layout is chosen at exec: switch the personality, then exec again. */
		personality(ADDR_COMPAT_LAYOUT);
		execv("/proc/self/exe", argv);
		perror("abicheck: execv");
		return 1;
	}
	level5 = !strcmp(argv[1], "5");
	task_size_max = level5 ? P4D_TASK_SIZE_MAX_L5 : P4D_TASK_SIZE_MAX_L4;
	setvbuf(stdout, NULL, _IOLBF, 0);

	check_fresh_layout();
	check_no_hint();
	check_high_hints();
	check_occupied();
	check_fixed();
	check_boundaries();
	check_hugetlb();
	check_mremap();
	check_exhaustion();
	return tap_done();
}
