// SPDX-License-Identifier: GPL-2.0
/*
 * icount-probe: run a loop of exactly 2*N instructions (dec + jnz) and print the
 * CLOCK_MONOTONIC time it took as "loop_ns=...". Under QEMU's -icount shift=0 guest
 * time advances one nanosecond per instruction, so the answer is close to 2*N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000;
	long long t0, t1;

	if (!n) {
		fprintf(stderr, "usage: icount-probe ITERATIONS (> 0)\n");
		return 2;
	}
	t0 = now_ns();
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
	t1 = now_ns();
	printf("loop_ns=%lld\n", t1 - t0);
	return 0;
}
