// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls: the guest test of funcs.so, a workload whose path is known. Each round calls
 * getppid() N times between FUNCMARK_START() and FUNCMARK_STOP(), then runs an empty loop
 * of N turns the same way, each in its own section (FUNCMARK_NEXT()): section 2r holds
 * round r's calls, section 2r+1 its empty loop. Under run-guest --icount the clock counts
 * guest instructions, so each round also prints what the clock saw around both parts:
 *
 *   syscalls,ROUND,N,CALLS_NS,EMPTY_NS
 *
 * The clock readings enclose the marks, so (CALLS_NS - EMPTY_NS) and the plugin's
 * (section 2r - section 2r+1) count the same instructions: N calls, less N empty turns.
 *
 *   syscalls [-n N] [-r ROUNDS]      defaults 1000 and 5
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "funcmark.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1) {
		fprintf(stderr, "syscalls: '%s' is not a positive number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = 1000, rounds = 5;
	int c;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		switch (c) {
		case 'n': n = number(optarg); break;
		case 'r': rounds = number(optarg); break;
		default:
			fprintf(stderr, "usage: syscalls [-n N] [-r ROUNDS]\n");
			return 2;
		}
	}
	for (long r = 0; r < rounds; r++) {
		long long t0, t1, e0, e1;

		t0 = now_ns();
		FUNCMARK_START();
		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		FUNCMARK_STOP();
		t1 = now_ns();
		FUNCMARK_NEXT();

		e0 = now_ns();
		FUNCMARK_START();
		for (long i = 0; i < n; i++)
			__asm__ __volatile__("" ::: "memory");
		FUNCMARK_STOP();
		e1 = now_ns();
		FUNCMARK_NEXT();
		printf("syscalls,%ld,%ld,%lld,%lld\n", r, n, t1 - t0, e1 - e0);
	}
	return 0;
}
