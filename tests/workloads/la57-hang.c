// SPDX-License-Identifier: GPL-2.0
/*
 * la57-hang: waits forever when its heap is above 47 bits, as a program that spins on
 * a lock word it mangled would; below 47 bits it prints a line and exits 0.
 * la57-check's known answer: hung, with the usual run's result (exited 0) kept.
 *
 *   la57-hang
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "p4d_layout.h"

int main(void)
{
	void *block = malloc(1 << 20);

	if (!block)
		return 1;
	if ((uintptr_t)block >= P4D_DEFAULT_MAP_WINDOW)
		for (;;)
			pause();
	printf("la57-hang: heap below 47 bits, done\n");
	return 0;
}
