// SPDX-License-Identifier: GPL-2.0
/*
 * highmap: fork N children; each maps and touches one page at a hint in each of K
 * distinct 256 TiB (PGD-entry) regions above 47 bits, then exits.
 *
 *   highmap K [N [HOLD_MS]]
 *
 * For each child, once it has exited, one line:
 *   child=PID status=S addr=0x... addr=0x...
 * HOLD_MS keeps each child alive that long after mapping (default 0). Region i (1..K)
 * is hinted at i << 48; on a 4-level kernel the hints fall back below 47 bits.
 * Exit status: 0 when every child exited 0, 1 otherwise, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "p4d_layout.h"

#define MAX_REGIONS 255	/* region K << 48 must stay below 2^56 */

struct child_report {
	unsigned long addr[MAX_REGIONS];
};

static int map_regions(struct child_report *report, int k, long hold_ms)
{
	struct timespec hold = { hold_ms / 1000, (hold_ms % 1000) * 1000000 };

	for (int i = 0; i < k; i++) {
		unsigned long hint = (unsigned long)(i + 1) << P4D_PGDIR_SHIFT_L5;
		char *p = mmap((void *)hint, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		p[0] = 1;	/* fault in: the P4D table for the region now exists */
		report->addr[i] = (unsigned long)p;
	}
	nanosleep(&hold, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	int k, n, failed = 0;
	long hold_ms;
	struct child_report *reports;
	pid_t *pids;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: highmap K [N [HOLD_MS]]\n");
		return 2;
	}
	k = atoi(argv[1]);
	n = argc > 2 ? atoi(argv[2]) : 1;
	hold_ms = argc > 3 ? atol(argv[3]) : 0;
	if (k < 0 || k > MAX_REGIONS || n < 1 || hold_ms < 0) {
		fprintf(stderr, "highmap: K must be 0..%d, N at least 1, HOLD_MS >= 0\n",
			MAX_REGIONS);
		return 2;
	}

	/* Shared with the children, so each reports where its pages landed. */
	reports = mmap(NULL, sizeof(*reports) * n, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(n, sizeof(*pids));
	if (reports == MAP_FAILED || !pids) {
		perror("highmap");
		return 1;
	}

	for (int c = 0; c < n; c++) {
		pids[c] = fork();
		if (pids[c] < 0) {
			perror("highmap: fork");
			return 1;
		}
		if (pids[c] == 0)
			_exit(map_regions(&reports[c], k, hold_ms));
	}
	for (int c = 0; c < n; c++) {
		int status;

		if (waitpid(pids[c], &status, 0) < 0) {
			perror("highmap: waitpid");
			return 1;
		}
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		failed |= status != 0;
		printf("child=%d status=%d", pids[c], status);
		for (int i = 0; i < k; i++)
			printf(" addr=%#lx", reports[c].addr[i]);
		printf("\n");
	}
	return failed;
}
