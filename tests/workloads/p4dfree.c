// SPDX-License-Identifier: GPL-2.0
/*
 * p4dfree: the ways a P4D table is freed or copied other than at exit, one step each,
 * every step in 256 TiB regions of its own and cleaned up before the next.
 *
 *   p4dfree TRACE_MARKER
 *
 * Before each step it writes "p4dfree step=NAME" to TRACE_MARKER (a tracefs
 * trace_marker), and "p4dfree step=end" after the last, so the test can split the events
 * by step. The steps (region R is R << 48):
 *   floor    a page at region 2 and one at region 2 + 1 TiB, both touched (one table);
 *            "floor-first" then unmaps the first (the second still needs the table:
 *            free_pgtables()' ceiling keeps it), "floor-second" the second (freed)
 *   mremap   a touched page at region 3 moved (MREMAP_FIXED) to region 4: region 4's
 *            table is installed, region 3's freed; "mremap-unmap" unmaps it (4 freed)
 *   fork     pages touched at regions 5 and 6, region 7 mapped but never touched;
 *            "fork-copy" forks a child that exits at once: fork copies the page tables
 *            of mappings with pages only (entry 0, regions 5 and 6, not 7), and the
 *            child's exit frees them; "fork-unmap" unmaps the three
 * Prints "STEP addr=0x..." for every mapping it made, and "child=PID" for the fork.
 * On 4-level paging the hints fall back below 47 bits and MREMAP_FIXED/MAP_FIXED above
 * fail: it says so and goes on (the test's control). Exit status: 0, 1 on an error that
 * is not the mode's, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4d_layout.h"

#define REGION(r) ((unsigned long)(r) << P4D_PGDIR_SHIFT_L5)

static int marker = -1;

static void step(const char *name)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "p4dfree step=%s\n", name);

	if (write(marker, line, len) != len)
		perror("p4dfree: trace_marker");
}

/* A page hinted at ADDR, touched unless TOUCH is 0; NULL when mmap failed. */
static char *map_page(const char *name, unsigned long addr, int touch)
{
	char *p = mmap((void *)addr, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("p4dfree: mmap");
		return NULL;
	}
	printf("%s addr=%#lx\n", name, (unsigned long)p);
	if (touch)
		p[0] = 1;
	return p;
}

int main(int argc, char **argv)
{
	char *a, *b, *moved, *f5, *f6, *f7;
	int status;
	pid_t child;

	if (argc != 2) {
		fprintf(stderr, "usage: p4dfree TRACE_MARKER\n");
		return 2;
	}
	marker = open(argv[1], O_WRONLY);
	if (marker < 0) {
		perror(argv[1]);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	step("floor");
	a = map_page("floor", REGION(2), 1);
	b = map_page("floor", REGION(2) + (1UL << 40), 1);
	if (!a || !b)
		return 1;
	step("floor-first");
	munmap(a, P4D_PAGE_SIZE);
	step("floor-second");
	munmap(b, P4D_PAGE_SIZE);

	step("mremap");
	a = map_page("mremap", REGION(3), 1);
	if (!a)
		return 1;
	moved = mremap(a, P4D_PAGE_SIZE, P4D_PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
		       (void *)REGION(4));
	if (moved == MAP_FAILED) {
		/* 4-level paging: region 4 is beyond TASK_SIZE. */
		perror("p4dfree: mremap to region 4");
		moved = a;
	} else {
		printf("mremap addr=%#lx\n", (unsigned long)moved);
	}
	step("mremap-unmap");
	munmap(moved, P4D_PAGE_SIZE);

	step("fork");
	f5 = map_page("fork", REGION(5), 1);
	f6 = map_page("fork", REGION(6), 1);
	f7 = map_page("fork", REGION(7), 0);
	if (!f5 || !f6 || !f7)
		return 1;
	step("fork-copy");
	child = fork();
	if (child < 0) {
		perror("p4dfree: fork");
		return 1;
	}
	if (child == 0)
		_exit(f5[0] + f6[0] == 2 ? 0 : 1);	/* reads the copied pages */
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "p4dfree: the child failed\n");
		return 1;
	}
	printf("child=%d\n", child);
	step("fork-unmap");
	munmap(f5, P4D_PAGE_SIZE);
	munmap(f6, P4D_PAGE_SIZE);
	munmap(f7, P4D_PAGE_SIZE);
	step("end");
	return 0;
}
