// SPDX-License-Identifier: GPL-2.0
/*
 * la57-tagged: a list whose links keep a tag in bits 48-62, the way runtimes that
 * "know" user pointers fit in 48 bits do (NaN-boxing, pointer tagging). Packing keeps
 * the low 48 bits of the address; unpacking trusts them to be the whole address.
 * With the heap below 47 bits it prints the list's sum and exits 0; with the heap above
 * 47 bits the unpacked pointer has lost its upper bits, and the walk faults on it.
 *
 *   la57-tagged [--check]
 *
 * --check makes it refuse a pointer that does not fit in 48 bits instead: it says so on
 * stderr and exits 1, as a runtime that checks its allocations would.
 *
 * la57-check's known answers: crashed, on a high pointer cut to 48 bits; with --check,
 * misbehaved (exit status and stderr differ).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES		1000
#define ADDR_BITS	48
#define ADDR_MASK	((1ULL << ADDR_BITS) - 1)

struct node {
	uint64_t next;		/* packed: tag in bits 48-62, address in bits 0-47 */
	long value;
};

static uint64_t pack(struct node *n, unsigned tag)
{
	return ((uint64_t)(uintptr_t)n & ADDR_MASK) | ((uint64_t)(tag & 0x7fff) << ADDR_BITS);
}

static struct node *unpack(uint64_t v)
{
	return (struct node *)(uintptr_t)(v & ADDR_MASK);
}

int main(int argc, char **argv)
{
	bool check = argc == 2 && !strcmp(argv[1], "--check");
	struct node *head = NULL;
	long sum = 0;

	if (argc > 1 && !check) {
		fprintf(stderr, "usage: la57-tagged [--check]\n");
		return 2;
	}
	for (int i = 1; i <= NODES; i++) {
		struct node *n = malloc(sizeof(*n));

		if (!n) {
			perror("la57-tagged: malloc");
			return 1;
		}
		if (check && ((uintptr_t)n & ~ADDR_MASK)) {
			fprintf(stderr, "la57-tagged: a heap pointer does not fit in %d bits\n",
				ADDR_BITS);
			return 1;
		}
		n->value = i;
		n->next = head ? pack(head, i) : 0;
		head = n;
	}
	for (struct node *n = head; n; n = n->next ? unpack(n->next) : NULL)
		sum += n->value;
	printf("sum=%ld\n", sum);
	return 0;
}
