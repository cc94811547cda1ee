// SPDX-License-Identifier: GPL-2.0
/*
 * mmaphint: one anonymous mmap with a hint, touched, and where it landed.
 *
 *   mmaphint HINT [LENGTH] [fixed|noreplace]
 *
 * Prints "hint=0x... len=... addr=0x... above47=yes|no" and exits 0, or
 * "hint=0x... len=... error=ERRNO_NAME" and exits 1. Numbers take a 0x prefix or are decimal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "p4d_layout.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static unsigned long parse_number(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "mmaphint: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long hint, len = P4D_PAGE_SIZE;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: mmaphint HINT [LENGTH] [fixed|noreplace]\n");
		return 2;
	}
	hint = parse_number(argv[1], "hint");
	if (argc > 2)
		len = parse_number(argv[2], "length");
	if (argc > 3) {
		if (!strcmp(argv[3], "fixed"))
			flags |= MAP_FIXED;
		else if (!strcmp(argv[3], "noreplace"))
			flags |= MAP_FIXED_NOREPLACE;
		else {
			fprintf(stderr, "mmaphint: mode must be fixed or noreplace\n");
			return 2;
		}
	}

	p = mmap((void *)hint, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		printf("hint=%#lx len=%lu error=%s\n", hint, len, strerrorname_np(errno));
		return 1;
	}
	p[0] = 1;	/* fault it in: page tables down to the PTE now exist */
	printf("hint=%#lx len=%lu addr=%#lx above47=%s\n", hint, len, (unsigned long)p,
	       (unsigned long)p >= P4D_DEFAULT_MAP_WINDOW ? "yes" : "no");
	return 0;
}
