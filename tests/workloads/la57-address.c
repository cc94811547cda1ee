// SPDX-License-Identifier: GPL-2.0
/*
 * la57-address: a healthy program that prints where its memory is: a heap block, a
 * large block (mmap'ed by malloc) and a stack variable. ASLR makes every run print
 * other numbers, so two usual runs already differ; the program treats its pointers as
 * opaque and works wherever they are. la57-check's known answer: survived, its stdout
 * compared with the numbers masked, and said so.
 *
 *   la57-address
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *small = malloc(64), *large = malloc(4 << 20);
	int here = 0;

	if (!small || !large)
		return 1;
	memset(large, 1, 4 << 20);
	printf("heap block at %p\nlarge block at %p\nstack at %p\n", (void *)small,
	       (void *)large, (void *)&here);
	printf("sum %d\n", large[0] + large[(4 << 20) - 1]);
	free(large);
	free(small);
	return 0;
}
