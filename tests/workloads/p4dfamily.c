// SPDX-License-Identifier: GPL-2.0
/*
 * p4dfamily: a process whose P4D tables are known from its layout alone. Run it by
 * exec (fresh address space); it maps and touches one page in each of K distinct
 * 256 TiB (PGD-entry) regions above 47 bits, forks N children that touch every page,
 * waits for them and exits.
 *
 *   p4dfamily K N
 *
 * On 5-level paging that makes, while it runs: exec's temporary stack table at the top
 * PGD slot (1, freed again before main()), the table of PGD slot 0 of the new mm (1)
 * and of each child's (N), and one table per region in the parent and in each child
 * (K x (1 + N)); every one is freed by the time it has exited. Region i (1..K) is
 * hinted at i << 48; on 4-level paging the hints fall back below 47 bits. Prints
 * "high=H" (mappings that landed above 47 bits) and exits 0 when every child did.
 * Exit status: 0, 1 on a failure, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4d_layout.h"

#define MAX_REGIONS 254	/* region K << 48 stays below the top slot, exec's stack */

static int touch_all(volatile char **pages, int k, char value)
{
	for (int i = 0; i < k; i++)
		pages[i][0] = value;
	return 0;
}

int main(int argc, char **argv)
{
	volatile char *pages[MAX_REGIONS];
	int k, n, high = 0, failed = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: p4dfamily K N\n");
		return 2;
	}
	k = atoi(argv[1]);
	n = atoi(argv[2]);
	if (k < 0 || k > MAX_REGIONS || n < 0) {
		fprintf(stderr, "p4dfamily: K must be 0..%d, N 0 or more\n", MAX_REGIONS);
		return 2;
	}
	for (int i = 0; i < k; i++) {
		void *hint = (void *)((unsigned long)(i + 1) << P4D_PGDIR_SHIFT_L5);
		void *p = mmap(hint, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("p4dfamily: mmap");
			return 1;
		}
		pages[i] = p;
		high += (unsigned long)p >= P4D_DEFAULT_MAP_WINDOW;
	}
	touch_all(pages, k, 1);
	/* Said before the forks: stdio's buffer is not copied into the children. */
	printf("high=%d\n", high);
	fflush(stdout);

	for (int c = 0; c < n; c++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("p4dfamily: fork");
			return 1;
		}
		if (!pid)
			_exit(touch_all(pages, k, 2));
	}
	for (int c = 0; c < n; c++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	return failed;
}
