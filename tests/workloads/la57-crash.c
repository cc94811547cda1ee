// SPDX-License-Identifier: GPL-2.0
/*
 * la57-crash: write through a bad low pointer, wherever the program's memory is.
 * la57-check's known answer: fails anyway (SIGSEGV in both runs, so not placement's doing).
 */
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	/* Computed from argc so the compiler cannot prove it and drop the store. */
	volatile int *bad = (volatile int *)(uintptr_t)(4096 * argc - 4096 + 16);

	(void)argv;
	printf("about to fault\n");
	fflush(stdout);
	*bad = 1;
	return 0;
}
