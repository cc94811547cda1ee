// SPDX-License-Identifier: GPL-2.0
/*
 * la57-clean: a program that treats pointers as opaque, using every kind of hint-less
 * mapping la57-check moves: malloc's main arena (small blocks), a large malloc (its own
 * mmap), a grown realloc (mremap), a thread and its stack, an anonymous mmap and a
 * library loaded with dlopen. It prints the same line wherever its memory is.
 *
 *   la57-clean [--record FILE]
 *
 * --record appends one line to FILE with the address of each kind, so a test can check
 * where they landed without the program's own output depending on it.
 * Exit status: 0 when every check passes, 1 otherwise, 2 on a usage error.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SMALL_BLOCKS	1000
#define LARGE_BYTES	(4UL << 20)	/* above malloc's mmap threshold */
#define GROWN_BYTES	(16UL << 20)

static void *thread_stack_addr(void *arg)
{
	volatile int on_stack = 1;

	*(uintptr_t *)arg = (uintptr_t)&on_stack;
	return NULL;
}

int main(int argc, char **argv)
{
	uintptr_t small, large, grown, stack = 0, anon, lib;
	long *blocks[SMALL_BLOCKS], sum = 0;
	const char *record = NULL;
	double (*cosine)(double);
	pthread_t thread;
	char *big, *p;
	void *libm;

	if (argc == 3 && !strcmp(argv[1], "--record")) {
		record = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: la57-clean [--record FILE]\n");
		return 2;
	}
	for (int i = 0; i < SMALL_BLOCKS; i++) {
		blocks[i] = malloc(sizeof(long));
		if (!blocks[i])
			return 1;
		*blocks[i] = i;
	}
	for (int i = 0; i < SMALL_BLOCKS; i++)
		sum += *blocks[i];
	small = (uintptr_t)blocks[0];

	big = malloc(LARGE_BYTES);
	if (!big)
		return 1;
	memset(big, 'x', LARGE_BYTES);
	large = (uintptr_t)big;
	/* A second large block, grown: glibc moves it with mremap(MREMAP_MAYMOVE). */
	p = malloc(LARGE_BYTES);
	if (!p)
		return 1;
	memset(p, 'x', LARGE_BYTES);
	p = realloc(p, GROWN_BYTES);
	if (!p || p[LARGE_BYTES - 1] != 'x' || big[LARGE_BYTES - 1] != 'x')
		return 1;
	memset(p + LARGE_BYTES, 'y', GROWN_BYTES - LARGE_BYTES);
	grown = (uintptr_t)p;

	if (pthread_create(&thread, NULL, thread_stack_addr, &stack) || pthread_join(thread, NULL))
		return 1;

	anon = (uintptr_t)mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == (uintptr_t)MAP_FAILED)
		return 1;
	*(volatile char *)anon = 1;

	libm = dlopen("libm.so.6", RTLD_NOW);
	cosine = libm ? (double (*)(double))dlsym(libm, "cos") : NULL;
	if (!cosine || cosine(0.0) != 1.0)
		return 1;
	lib = (uintptr_t)cosine;

	if (record) {
		FILE *f = fopen(record, "a");

		if (!f)
			return 1;
		fprintf(f, "malloc_small=%#lx malloc_large=%#lx realloc_grown=%#lx "
			"thread_stack=%#lx mmap_anon=%#lx dlopen=%#lx\n",
			(unsigned long)small, (unsigned long)large, (unsigned long)grown,
			(unsigned long)stack, (unsigned long)anon, (unsigned long)lib);
		fclose(f);
	}
	printf("sum=%ld checks passed\n", sum);
	return 0;
}
