// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat-churn: one process that, on a go signal, maps, touches and unmaps N regions
 * above 47 bits, one at a time, then exits. Its effects are exactly known, so a test can
 * hold a tool's counts (filtered to this process) against them.
 *
 *   p4dstat-churn N [LEN]
 *
 * Prints "ready pid=PID" and waits for a line on stdin (a FIFO: the test attaches its
 * tools first). Then, for i = 0..N-1: an anonymous mapping of LEN bytes (default 3 pages)
 * hinted at (i % 255 + 1) << 48, every page touched, unmapped. Finally prints
 * "mapped=N above47=A bytes=B" (A of the N mappings landed above 47 bits, B their bytes).
 *
 * On 5-level paging each mapping sits alone in its PGD entry: touching it installs a P4D
 * table, unmapping it frees the table again. After the go signal the process makes no
 * other mapping (no stdio input, output buffered before), so an exit adds one more free:
 * the P4D table of PGD entry 0. On 4-level paging the hints fall back below 47 bits.
 * Exit status: 0, 1 when a mapping fails, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p4d_layout.h"

#define REGIONS 255	/* hints (i + 1) << 48 stay below 2^56 */

int main(int argc, char **argv)
{
	unsigned long len = 3 * P4D_PAGE_SIZE, above = 0, bytes = 0;
	long n;
	char go;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: p4dstat-churn N [LEN]\n");
		return 2;
	}
	n = atol(argv[1]);
	if (argc > 2)
		len = strtoul(argv[2], NULL, 0);
	if (n < 1 || len < 1 || len % P4D_PAGE_SIZE) {
		fprintf(stderr, "p4dstat-churn: N must be at least 1, LEN a multiple of %lu\n",
			P4D_PAGE_SIZE);
		return 2;
	}

	printf("ready pid=%d\n", getpid());
	fflush(stdout);		/* stdout's buffer now exists: no allocation later */
	if (read(STDIN_FILENO, &go, 1) != 1)
		return 1;

	for (long i = 0; i < n; i++) {
		unsigned long hint = (unsigned long)(i % REGIONS + 1) << P4D_PGDIR_SHIFT_L5;
		char *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		for (unsigned long off = 0; off < len; off += P4D_PAGE_SIZE)
			p[off] = 1;
		if ((unsigned long)p >= P4D_DEFAULT_MAP_WINDOW) {
			above++;
			bytes += len;
		}
		munmap(p, len);
	}
	printf("mapped=%ld above47=%lu bytes=%lu\n", n, above, bytes);
	return 0;
}
