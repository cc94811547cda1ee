// SPDX-License-Identifier: GPL-2.0
/*
 * highhold: map and touch two pages at a hint in each of K distinct 256 TiB (PGD-entry)
 * regions above 47 bits, say where they landed, then hold them until stdin reaches EOF
 * or says anything, so a test can look at the process while its mappings exist.
 *
 *   highhold K
 *
 * Prints one "addr=0x... len=N" line per mapping, then "ready". Region i (1..K) is
 * hinted at i << 48; on a 4-level kernel the hints fall back below 47 bits
 * (Documentation/arch/x86/x86_64/5level-paging.rst). Exit status: 0, 1 when a mapping
 * fails, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p4d_layout.h"

#define MAX_REGIONS	255	/* region K << 48 must stay below 2^56 */
#define PAGES		2

int main(int argc, char **argv)
{
	size_t len = PAGES * P4D_PAGE_SIZE;
	char byte;
	int k;

	k = argc == 2 ? atoi(argv[1]) : -1;
	if (k < 1 || k > MAX_REGIONS) {
		fprintf(stderr, "usage: highhold K (K from 1 to %d)\n", MAX_REGIONS);
		return 2;
	}
	for (int i = 1; i <= k; i++) {
		unsigned long hint = (unsigned long)i << P4D_PGDIR_SHIFT_L5;
		char *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("highhold: mmap");
			return 1;
		}
		/* Fault both pages in: the page tables down to them now exist. */
		p[0] = 1;
		p[len - 1] = 1;
		printf("addr=%#lx len=%zu\n", (unsigned long)p, len);
	}
	printf("ready\n");
	fflush(stdout);
	/* Hold until the test lets go; a read error ends the hold too. */
	if (read(STDIN_FILENO, &byte, 1) < 0)
		perror("highhold: read");
	return 0;
}
