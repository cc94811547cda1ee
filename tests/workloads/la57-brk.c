// SPDX-License-Identifier: GPL-2.0
/*
 * la57-brk: grows its heap with sbrk() and fails when it cannot, wherever its memory
 * is. Refusing brk breaks it; placing its mappings above 47 bits does not.
 * la57-check's known answers: needs brk; with --keep-brk, survived.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define GROWTH	(1 << 20)

int main(void)
{
	char *grown = sbrk(GROWTH);

	if (grown == (void *)-1) {
		fprintf(stderr, "la57-brk: sbrk(%d) failed\n", GROWTH);
		return 1;
	}
	memset(grown, 'b', GROWTH);
	printf("la57-brk: grew the heap by %d bytes\n", GROWTH);
	return 0;
}
