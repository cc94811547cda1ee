// SPDX-License-Identifier: GPL-2.0
/*
 * la57-asan: a correct program built with AddressSanitizer (the Makefile adds
 * -fsanitize=address): it allocates, fills and frees some blocks and prints their sum.
 * ASan's x86-64 shadow mapping and allocator assume user memory below 2^47
 * (google/sanitizers#1745), so above 47 bits it fails although the program is right.
 * la57-check's known answer: detect_leaks=0 added (LeakSanitizer cannot run under
 * ptrace); the usual run survives; the high run ends in ASan's own failure.
 *
 *   la57-asan
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS	64

int main(void)
{
	long sum = 0;

	for (int i = 0; i < BLOCKS; i++) {
		size_t len = (size_t)(i + 1) * 4096;
		unsigned char *p = malloc(len);

		if (!p)
			return 1;
		memset(p, 1, len);
		sum += p[0] + p[len - 1];
		free(p);
	}
	printf("la57-asan: sum %ld\n", sum);
	return 0;
}
