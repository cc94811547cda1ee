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
 * To be sure the leader is inside that mmap (past the tracer's entry stop, not yet at
 * its exit), a third thread keeps the mmap lock busy populating a large mapping, and
 * the execing thread waits until /proc shows the leader asleep in mmap. la57-place's
 * report counts the rewrite cut short (cut_by_exec), so a test can tell the race was run.
 * Exit status: PROGRAM's; 1 when it cannot start, 2 on a usage error.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Read-only: the zero page, no memory but page tables (8 MiB of them). Large, so that
 * the leader waits long for the lock and is still waiting when execve() kills it.
 */
#define POPULATED_BYTES	(4UL << 30)
#define WAIT_POLLS	20000		/* 1 ms each: execve anyway after 20 s */

static pid_t leader;
static char **target;

/* Holds the mmap lock for reading while it faults in a large mapping, again and again. */
static void *hold_mmap_lock(void *unused)
{
	(void)unused;
	for (;;) {
		void *p = mmap(NULL, POPULATED_BYTES, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, POPULATED_BYTES);
	}
	return NULL;
}

/* The leader sleeps in the kernel in mmap (syscall 9), not stopped by a tracer. */
static bool leader_asleep_in_mmap(void)
{
	char path[64], buf[256], *state;
	bool in_mmap = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)leader);
	f = fopen(path, "re");
	if (!f)
		return false;
	in_mmap = fgets(buf, sizeof(buf), f) && !strncmp(buf, "9 ", 2);
	fclose(f);
	if (!in_mmap)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)leader);
	f = fopen(path, "re");
	if (!f)
		return false;
	state = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return state && (state[2] == 'D' || state[2] == 'S');
}

static void *exec_from_thread(void *unused)
{
	const struct timespec ms = { 0, 1000000 };
	int polls = 0;

	(void)unused;
	while (!leader_asleep_in_mmap())
		if (polls++ == WAIT_POLLS || nanosleep(&ms, NULL)) {
			/* Said on stderr, so a check that never set up the race cannot pass. */
			fprintf(stderr, "la57-thread-exec: the leader was never seen inside mmap\n");
			break;
		}
	execv(target[0], target);
	perror("la57-thread-exec: execv");
	_exit(1);
}

int main(int argc, char **argv)
{
	pthread_t holder, execer;

	if (argc < 2) {
		fprintf(stderr, "usage: la57-thread-exec PROGRAM [ARG...]\n");
		return 2;
	}
	leader = getpid();
	target = argv + 1;
	if (pthread_create(&holder, NULL, hold_mmap_lock, NULL) ||
	    pthread_create(&execer, NULL, exec_from_thread, NULL))
		return 1;
	for (;;) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
}
