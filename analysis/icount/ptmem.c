// SPDX-License-Identifier: GPL-2.0
/*
 * ptmem: what page tables cost per process, level by level.
 *
 *   ptmem [-k REGIONS] [-c COUNTERS] [-H] PROCS
 *
 * Forks PROCS children. Each maps and touches one page in each of REGIONS 256 TiB regions
 * above 47 bits (hints i << 48, i = 1..REGIONS; a 4-level kernel places them below), then
 * waits. With all of them alive, ptmem reads:
 *   - PageTables of /proc/meminfo, before, while they live and after they exited. In 6.1
 *     this counts PTE and PMD tables (the levels with a page-table constructor).
 *   - VmPTE of every child's /proc/PID/status: PTE, PMD and PUD tables (mm_pgtables_bytes).
 *   - for the first child, the tables its layout requires, level by level, from
 *     /proc/PID/maps and /proc/PID/pagemap: one table per distinct 2M (PTE), 1G (PMD),
 *     512G (PUD) and, on 5-level, 256T (P4D) span that holds a present page.
 *   - with -c, the p4d_alloc and p4d_free events the tpcount programs counted (all
 *     processes): P4D tables are counted nowhere in /proc.
 * One CSV row, -H prints the header first:
 *   procs,regions,pt_kb_before,pt_kb_held,pt_kb_after,vmpte_kb_sum,vmpte_kb_first,
 *   pte,pmd,pud,p4d,p4d_alloc_held,p4d_free_held,p4d_alloc_all,p4d_free_all
 * p4d is -1 on a 4-level boot (no such level); the *_held counts cover fork to "all
 * alive", the *_all counts fork to "all reaped".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "p4d_layout.h"

#define MAX_REGIONS	255
#define MAX_SPANS	4096	/* distinct spans per level the layout count can hold */

/* The value of "TAG: N kB" in a /proc file, read without stdio so that no buffer of ours
 * grows the page tables being measured. */
static long proc_kb(const char *path, const char *tag)
{
	static char buf[16384];
	char *p;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die("cannot read %s", path);
	buf[n] = '\0';
	p = strstr(buf, tag);
	if (!p)
		die("no %s in %s", tag, path);
	return strtol(p + strlen(tag), NULL, 10);
}

struct span_set {
	unsigned long key[MAX_SPANS];
	int n;
};

static void span_add(struct span_set *s, unsigned long key)
{
	for (int i = 0; i < s->n; i++)
		if (s->key[i] == key)
			return;
	if (s->n == MAX_SPANS)
		die("more than %d distinct spans in one level", MAX_SPANS);
	s->key[s->n++] = key;
}

/* Count the tables pid's present pages need at each level (see the header comment). */
static void layout_tables(pid_t pid, int five_level, long counts[4])
{
	static struct span_set level[4];	/* PTE, PMD, PUD, P4D */
	static const int shift[4] = { 21, 30, 39, P4D_PGDIR_SHIFT_L5 };
	static char maps[65536];
	char path[64], *line, *save;
	ssize_t n;
	int fd, pm;

	for (int l = 0; l < 4; l++)
		level[l].n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, maps, sizeof(maps) - 1);
	if (n <= 0)
		die("cannot read %s", path);
	close(fd);
	maps[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pm = open(path, O_RDONLY);
	if (pm < 0)
		die("cannot open %s: %s", path, strerror(errno));

	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx", &start, &end) != 2)
			die("bad line in /proc/%d/maps: %s", pid, line);
		/* The vsyscall page lives in the kernel's half of the page table. */
		if (strstr(line, "[vsyscall]"))
			continue;
		for (unsigned long a = start; a < end; a += P4D_PAGE_SIZE) {
			unsigned long long e;

			if (pread(pm, &e, sizeof(e), a / P4D_PAGE_SIZE * sizeof(e)) != sizeof(e))
				die("cannot read %s at %#lx", path, a);
			if (!(e >> 62))		/* bit 63 present, bit 62 swapped */
				continue;
			for (int l = 0; l < 4; l++)
				span_add(&level[l], a >> shift[l]);
		}
	}
	close(pm);
	for (int l = 0; l < 4; l++)
		counts[l] = level[l].n;
	if (!five_level)
		counts[3] = -1;
}

/* Whether the kernel runs 5-level paging: only then does a hint above 47 bits stick. */
static int runs_five_level(void)
{
	void *p = mmap((void *)(1UL << P4D_PGDIR_SHIFT_L5), P4D_PAGE_SIZE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	munmap(p, P4D_PAGE_SIZE);
	return (unsigned long)p >= P4D_DEFAULT_MAP_WINDOW;
}

static int child(int ready_fd, int release_fd, int regions)
{
	char byte = 1;

	for (int i = 1; i <= regions; i++) {
		char *p = mmap((void *)((unsigned long)i << P4D_PGDIR_SHIFT_L5), P4D_PAGE_SIZE,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		p[0] = 1;
	}
	if (write(ready_fd, &byte, 1) != 1)
		return 1;
	/* Wait for the parent to close its end: read() then returns 0. */
	while (read(release_fd, &byte, 1) > 0)
		;
	return 0;
}

static noreturn void usage(void)
{
	fprintf(stderr, "usage: ptmem [-k REGIONS] [-c COUNTERS] [-H] PROCS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct tpcount_counts c0, c_held, c_all;
	long procs, regions = 0, pt_before, pt_held, pt_after, vmpte_sum = 0, vmpte_first = 0;
	long tables[4];
	int ready[2], release[2], c, header = 0, counters_fd, five_level;
	const char *counters = NULL;
	static pid_t pids[100000];
	char byte, path[64];

	while ((c = getopt(argc, argv, "k:c:H")) != -1) {
		switch (c) {
		case 'k': regions = parse_size(optarg, "REGIONS"); break;
		case 'c': counters = optarg; break;
		case 'H': header = 1; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || regions > MAX_REGIONS)
		usage();
	procs = parse_size(argv[optind], "PROCS");
	if (procs < 1 || procs > (long)(sizeof(pids) / sizeof(pids[0])))
		usage();
	five_level = runs_five_level();
	counters_fd = counters_open(counters);
	if (pipe(ready) || pipe(release))
		die("pipe: %s", strerror(errno));

	pt_before = proc_kb("/proc/meminfo", "PageTables:");
	counters_read(counters_fd, &c0);
	for (long i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork %ld of %ld: %s", i + 1, procs, strerror(errno));
		if (pids[i] == 0) {
			close(ready[0]);
			close(release[1]);
			_exit(child(ready[1], release[0], regions));
		}
	}
	close(ready[1]);
	close(release[0]);
	for (long i = 0; i < procs; i++)
		if (read(ready[0], &byte, 1) != 1)
			die("child %ld of %ld failed before it was ready", i + 1, procs);

	counters_read(counters_fd, &c_held);
	pt_held = proc_kb("/proc/meminfo", "PageTables:");
	for (long i = 0; i < procs; i++) {
		long kb;

		snprintf(path, sizeof(path), "/proc/%d/status", pids[i]);
		kb = proc_kb(path, "VmPTE:");
		vmpte_sum += kb;
		if (i == 0)
			vmpte_first = kb;
	}
	layout_tables(pids[0], five_level, tables);

	close(release[1]);
	for (long i = 0; i < procs; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("child %d failed (status %#x)", pids[i], status);
	}
	counters_read(counters_fd, &c_all);
	pt_after = proc_kb("/proc/meminfo", "PageTables:");
	counters_sub(&c_held, &c0);
	counters_sub(&c_all, &c0);

	if (header)
		printf("procs,regions,pt_kb_before,pt_kb_held,pt_kb_after,vmpte_kb_sum,"
		       "vmpte_kb_first,pte,pmd,pud,p4d,p4d_alloc_held,p4d_free_held,"
		       "p4d_alloc_all,p4d_free_all\n");
	printf("%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%llu,%llu,%llu,%llu\n",
	       procs, regions, pt_before, pt_held, pt_after, vmpte_sum, vmpte_first,
	       tables[0], tables[1], tables[2], tables[3],
	       c_held.hits[TPC_P4D_ALLOC], c_held.hits[TPC_P4D_FREE],
	       c_all.hits[TPC_P4D_ALLOC], c_all.hits[TPC_P4D_FREE]);
	return 0;
}
