// SPDX-License-Identifier: GPL-2.0
/*
 * la57-fail-where: fails in every run, differently depending on where its memory is, so
 * the failure of a high run is not the failure of the normal run.
 *
 *   la57-fail-where [--crash]
 *
 * Without --crash it says on stderr whether a large malloc block (its own mmap) landed
 * below or above 47 bits, and exits 1. With --crash it writes through a null pointer,
 * from one function when the block is low and from another when it is high.
 * la57-check's known answer: misbehaved (not "fails anyway"), in both forms.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4d_layout.h"

#define LARGE_BYTES	(4UL << 20)	/* above malloc's mmap threshold */

static volatile int *nowhere;

static __attribute__((noinline)) void crash_low(void)
{
	*nowhere = 1;
}

static __attribute__((noinline)) void crash_high(void)
{
	*nowhere = 2;
}

int main(int argc, char **argv)
{
	char *block = malloc(LARGE_BYTES);
	int high;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--crash"))) {
		fprintf(stderr, "usage: la57-fail-where [--crash]\n");
		return 2;
	}
	if (!block)
		return 1;
	high = (uintptr_t)block >= P4D_DEFAULT_MAP_WINDOW;
	if (argc == 2) {
		if (high)
			crash_high();
		else
			crash_low();
	}
	fprintf(stderr, "la57-fail-where: failing with the block %s 47 bits\n",
		high ? "above" : "below");
	return 1;
}
