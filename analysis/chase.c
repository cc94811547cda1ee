// SPDX-License-Identifier: GPL-2.0
/*
 * chase: a dependent-load pointer chase, to price page walks by wall time (no --icount).
 *
 *   chase [-p PAGES] [-s STRIDE] [-t MS] [-r REPS] [-w WARMUP] [-u] [-H] random|sequential
 *
 * The working set is PAGES 4K pages, STRIDE bytes apart (default 4096: contiguous), in one
 * anonymous mapping with THP off; with -u the mapping is hinted at 1 << 48, above 47 bits
 * (a 4-level kernel ignores the hint). Each node is a pointer to the next:
 *   random      one 64-byte line per page, at a random offset in it; the pages in a random
 *               cyclic order. Every step lands on another page: with more pages than the
 *               TLB holds, every step is a TLB miss and a page walk.
 *   sequential  every line of every page in address order: one new page per 64 steps, so
 *               the walks are amortised away. The control.
 * A rep chases for at least MS ms (the step count is calibrated once, before the first
 * warm-up rep). One CSV row per rep after WARMUP (-H prints the header first):
 *   pattern,placement,rep,pages,stride,steps,ns,addr,above47
 * placement is "high" with -u, else "low"; above47 says where the mapping really landed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bench.h"
#include "p4d_layout.h"

#define LINE		64
#define LINES_PER_PAGE	(P4D_PAGE_SIZE / LINE)

/* A small fixed-seed generator: the same chain on every boot and every mode. */
static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned long rng_below(unsigned long n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* Follow the chain for steps (a multiple of 8) loads; returns where it stopped. */
static void **chase(void **p, unsigned long steps)
{
	for (unsigned long i = 0; i < steps; i += 8) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
	}
	return p;
}

static void **build_random(char *base, unsigned long pages, unsigned long stride)
{
	unsigned long *order = malloc(pages * sizeof(*order));
	void **first, **node;

	if (!order)
		die("out of memory for %lu pages", pages);
	/* Sattolo's shuffle: one cycle through all the pages. */
	for (unsigned long i = 0; i < pages; i++)
		order[i] = i;
	for (unsigned long i = pages - 1; i > 0; i--) {
		unsigned long j = rng_below(i), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned long i = 0; i < pages; i++)
		order[i] = order[i] * stride + rng_below(LINES_PER_PAGE) * LINE;
	first = (void **)(base + order[0]);
	node = first;
	for (unsigned long i = 1; i < pages; i++) {
		void **next = (void **)(base + order[i]);

		*node = next;
		node = next;
	}
	*node = first;
	free(order);
	return first;
}

static void **build_sequential(char *base, unsigned long pages, unsigned long stride)
{
	void **first = (void **)base, **node = first;

	for (unsigned long pg = 0; pg < pages; pg++)
		for (unsigned long l = 0; l < LINES_PER_PAGE; l++) {
			void **next = (void **)(base + pg * stride + l * LINE);

			if (next == first)
				continue;
			*node = next;
			node = next;
		}
	*node = first;
	return first;
}

static noreturn void usage(void)
{
	fprintf(stderr, "usage: chase [-p PAGES] [-s STRIDE] [-t MS] [-r REPS] [-w WARMUP] [-u]"
		" [-H] random|sequential\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long pages = 65536, stride = P4D_PAGE_SIZE, ms = 200, reps = 5, warmup = 1;
	unsigned long steps = 8 * 1024;
	int c, high = 0, header = 0, random;
	void *hint = NULL, **p;
	size_t len;
	char *base;

	while ((c = getopt(argc, argv, "p:s:t:r:w:uH")) != -1) {
		switch (c) {
		case 'p': pages = parse_size(optarg, "PAGES"); break;
		case 's': stride = parse_size(optarg, "STRIDE"); break;
		case 't': ms = parse_size(optarg, "MS"); break;
		case 'r': reps = parse_size(optarg, "REPS"); break;
		case 'w': warmup = parse_size(optarg, "WARMUP"); break;
		case 'u': high = 1; break;
		case 'H': header = 1; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || pages < 2 || stride < P4D_PAGE_SIZE ||
	    stride % P4D_PAGE_SIZE || reps < 1)
		usage();
	if (!strcmp(argv[optind], "random"))
		random = 1;
	else if (!strcmp(argv[optind], "sequential"))
		random = 0;
	else
		usage();

	/* 4K pages only: the guest's THP is "always" and it has no madvise(). */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE): %s", strerror(errno));
	if (high)
		hint = (void *)(1UL << P4D_PGDIR_SHIFT_L5);
	len = (pages - 1) * stride + P4D_PAGE_SIZE;
	base = mmap(hint, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		die("mmap of %zu bytes: %s", len, strerror(errno));
	p = random ? build_random(base, pages, stride) : build_sequential(base, pages, stride);

	/* Calibrate: double the steps until one chase takes MS. */
	for (;;) {
		long long t = now_ns();

		p = chase(p, steps);
		if (now_ns() - t >= (long long)ms * 1000000 || steps >= (1UL << 40))
			break;
		steps *= 2;
	}
	if (header)
		printf("pattern,placement,rep,pages,stride,steps,ns,addr,above47\n");
	for (long rep = -(long)warmup; rep < (long)reps; rep++) {
		long long t = now_ns();

		p = chase(p, steps);
		t = now_ns() - t;
		if (rep < 0)
			continue;
		printf("%s,%s,%ld,%lu,%lu,%lu,%lld,%#lx,%d\n", argv[optind], high ? "high" : "low",
		       rep, pages, stride, steps, t, (unsigned long)base,
		       (unsigned long)base >= P4D_DEFAULT_MAP_WINDOW);
	}
	/* Keep the chase from being optimised away. */
	return p == NULL;
}
