// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat-cost: the guest time of one mmap + touch + munmap of a page, averaged over N
 * rounds, for p4dstat's OVERHEAD figure. Under `run-guest --icount` guest time advances
 * one nanosecond per guest instruction, so the figure is instructions per round.
 *
 *   p4dstat-cost N [low|high]
 *
 * low (default): no hint, the mapping lands below 47 bits. high: hinted at 1 << 48, so
 * on 5-level paging each round also allocates and frees a P4D table.
 * Prints "rounds=N where=low|high ns_per_round=X".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "p4d_layout.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	const char *where = argc > 2 ? argv[2] : "low";
	void *hint = NULL;
	long long t0, t1;

	if (n < 1 || argc > 3 || (strcmp(where, "low") && strcmp(where, "high"))) {
		fprintf(stderr, "usage: p4dstat-cost N [low|high]\n");
		return 2;
	}
	if (!strcmp(where, "high"))
		hint = (void *)(1UL << P4D_PGDIR_SHIFT_L5);

	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		char *p = mmap(hint, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("p4dstat-cost: mmap");
			return 1;
		}
		p[0] = 1;
		munmap(p, P4D_PAGE_SIZE);
	}
	t1 = now_ns();
	printf("rounds=%ld where=%s ns_per_round=%lld\n", n, where, (t1 - t0) / n);
	return 0;
}
