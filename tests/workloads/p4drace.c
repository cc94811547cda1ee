// SPDX-License-Identifier: GPL-2.0
/*
 * p4drace: two threads, one per CPU, fault in the same fresh 256 TiB regions at the same
 * time, so that both may allocate the region's P4D table and one loses the race to
 * install it (pgtable:p4d_alloc outcome=raced).
 *
 *   p4drace [REGIONS]
 *
 * Maps one page at hint i << 48 for i in 1..REGIONS (default 32, at most 255) in a fresh
 * process (the calling one forks), then the two threads, pinned to CPUs 0 and 1 and
 * released together by a barrier, touch the pages in the same order. Prints
 *   child=PID threads=TID,TID status=S addr=0x... addr=0x...
 * with the threads that touched (trace events name them, not the process) and the
 * address each mmap returned. Exit status: 0 when the child exited 0, 1
 * otherwise, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4d_layout.h"

#define MAX_REGIONS 255	/* region REGIONS << 48 must stay below 2^56 */

struct race {
	pthread_barrier_t start;
	volatile char *page[MAX_REGIONS];
	int regions;
};

struct toucher {
	struct race *race;
	int cpu;
	pid_t *tid;	/* where to report the thread's id, shared with the parent */
};

/* What the child reports to its parent, in memory they share. */
struct report {
	pid_t tid[2];
	unsigned long addr[MAX_REGIONS];
};

static void *touch_all(void *arg)
{
	struct toucher *t = arg;
	cpu_set_t cpus;

	*t->tid = gettid();
	CPU_ZERO(&cpus);
	CPU_SET(t->cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return (void *)1;	/* one CPU only: the race cannot happen */
	pthread_barrier_wait(&t->race->start);
	for (int i = 0; i < t->race->regions; i++)
		t->race->page[i][0] = 1;	/* the first touch allocates the P4D table */
	return NULL;
}

static int race_child(struct race *race, struct report *report)
{
	struct toucher t[2] = { { race, 0, &report->tid[0] }, { race, 1, &report->tid[1] } };
	pthread_t thread;
	void *other;
	int failed;

	for (int i = 0; i < race->regions; i++) {
		unsigned long hint = (unsigned long)(i + 1) << P4D_PGDIR_SHIFT_L5;
		void *p = mmap((void *)hint, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		race->page[i] = p;
		report->addr[i] = (unsigned long)p;
	}
	if (pthread_barrier_init(&race->start, NULL, 2) ||
	    pthread_create(&thread, NULL, touch_all, &t[1]))
		return 1;
	failed = touch_all(&t[0]) != NULL;
	pthread_join(thread, &other);
	return failed || other != NULL;
}

int main(int argc, char **argv)
{
	struct race race = { .regions = argc > 1 ? atoi(argv[1]) : 32 };
	struct report *report;
	int status;
	pid_t pid;

	if (argc > 2 || race.regions < 1 || race.regions > MAX_REGIONS) {
		fprintf(stderr, "usage: p4drace [REGIONS] (REGIONS 1..%d)\n", MAX_REGIONS);
		return 2;
	}
	/* Shared with the child, so it reports where its pages landed. */
	report = mmap(NULL, sizeof(*report), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (report == MAP_FAILED) {
		perror("p4drace");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("p4drace: fork");
		return 1;
	}
	if (pid == 0)
		_exit(race_child(&race, report));
	if (waitpid(pid, &status, 0) < 0) {
		perror("p4drace: waitpid");
		return 1;
	}
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	printf("child=%d threads=%d,%d status=%d", pid, report->tid[0], report->tid[1], status);
	for (int i = 0; i < race.regions; i++)
		printf(" addr=%#lx", report->addr[i]);
	printf("\n");
	return status != 0;
}
