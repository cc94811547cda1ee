// SPDX-License-Identifier: GPL-2.0
/*
 * la57-thread-exec: a thread other than the leader calls execve() while the leader is
 * inside a hint-less mmap(), the one la57-check rewrites and puts back at its exit.
 *
 *   la57-thread-exec PROGRAM [ARG...]
 *
 * The kernel kills the leader there (it never stops at that mmap's exit) and gives the
 * execing thread the leader's tid. A tracer that still waits for that exit puts the
 * leader's saved arguments into the new image at execve's exit: PROGRAM then starts
 * with mmap's protection (3) in rdx, which static glibc's _start takes for the exit
 * hook ld.so would pass, and calls at exit. la57-check's known answer with a static
 * PROGRAM (la57-exec-target): survived.
 *
 * The order is forced, not waited for, under tests/validate/exechold: the leader's
 * mmap and the other thread's are marked by their lengths (exechold.h); exechold's BPF
 * side holds the leader inside its mmap until execve() kills it, and the other thread
 * inside its own until the leader is held, so execve() comes only then. Without
 * exechold the two threads race. Each thread runs on a CPU of its own: a held thread
 * busy-waits in the kernel, where nothing else gets its CPU. la57-place's report counts
 * the rewrite cut short (cut_by_exec), so a test can tell the race was run.
 * Exit status: PROGRAM's; 1 when it cannot start, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../validate/exechold.h"

#define LEADER_CPU	0
#define EXECER_CPU	1

static char **target;

static void say_unpinned(int cpu)
{
	/* On stderr, in both of la57-check's runs alike. */
	fprintf(stderr, "la57-thread-exec: cannot run on CPU %d: the threads may share one\n", cpu);
}

/* One anonymous mmap of LEN bytes, unmapped again. */
static void map_once(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, len);
}

static void *exec_from_thread(void *unused)
{
	(void)unused;
	/* Returns once the leader is held inside its mmap (under exechold). */
	map_once(EXECHOLD_EXECER_LEN);
	execv(target[0], target);
	perror("la57-thread-exec: execv");
	_exit(1);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t execer;
	cpu_set_t set;

	if (argc < 2) {
		fprintf(stderr, "usage: la57-thread-exec PROGRAM [ARG...]\n");
		return 2;
	}
	target = argv + 1;
	/*
	 * Each thread on its CPU from the start: a thread runnable only where the other one
	 * is held would wait there until the deadline.
	 */
	CPU_ZERO(&set);
	CPU_SET(LEADER_CPU, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		say_unpinned(LEADER_CPU);
	CPU_ZERO(&set);
	CPU_SET(EXECER_CPU, &set);
	if (pthread_attr_init(&attr) || pthread_attr_setaffinity_np(&attr, sizeof(set), &set))
		return 1;
	if (pthread_create(&execer, &attr, exec_from_thread, NULL)) {
		say_unpinned(EXECER_CPU);
		if (pthread_create(&execer, NULL, exec_from_thread, NULL))
			return 1;
	}
	/* Held in the first one until execve() kills this thread (under exechold). */
	for (;;)
		map_once(EXECHOLD_LEADER_LEN);
}
