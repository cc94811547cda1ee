// SPDX-License-Identifier: GPL-2.0
/*
 * racehold: forces pgtable:p4d_alloc outcome=raced, every time. Two threads, pinned to
 * CPUs 0 and 1, fault in the same fresh 256 TiB region: racehold.bpf.c holds the first
 * at the entry of __p4d_alloc() until the second has installed the region's P4D table,
 * so the first allocates a table of its own, finds the entry populated and frees it.
 *
 *   racehold [REGIONS]          one forced race per region 1 << 48 .. REGIONS << 48
 *   racehold --hold SECONDS     hold one thread for SECONDS with nobody to release it
 *                               (a kernel busy for that long: the soft-lockup check)
 *
 * Prints "racehold pid=PID held=TID winner=TID" and per region
 *   region=0x... state=released|timed_out|never_held outcome=raced|installed|... waited_ms=N
 * Both waits end at RACEHOLD_DEADLINE_S (racehold.h): a region that reaches it is said on
 * stderr ("racehold: region ...: ... deadline") and fails; nothing is tried again.
 * Exit status: 0 when every region raced (--hold: when the hold timed out), 1 otherwise,
 * 2 on a usage error. Needs root, BTF and 5-level paging (the P4D events).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "p4d_layout.h"
#include "racehold.h"
#include "racehold.skel.h"

#define MAX_REGIONS 255

static struct racehold_bpf *skel;
static pthread_barrier_t round_start, round_end;
static volatile char *pages[MAX_REGIONS + 1];
static int rounds, hold_only;
static pid_t tids[2];

static const char *state_name(int s)
{
	static const char *names[] = { "never_held", "holding", "released", "timed_out" };

	return s >= 0 && s <= RACEHOLD_TIMED_OUT ? names[s] : "?";
}

static const char *outcome_name(int o)
{
	static const char *names[] = { "installed", "raced", "nomem" };

	return o >= 0 && o <= 2 ? names[o] : "none";
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Thread 0 is held in the kernel; thread 1 installs once the hold has begun. */
static void *toucher(void *arg)
{
	int me = (int)(long)arg;

	tids[me] = gettid();
	if (pin(me)) {
		perror("racehold: sched_setaffinity");
		tids[me] = -1;
	}
	pthread_barrier_wait(&round_start);	/* ids known */
	for (int r = 1; r <= rounds; r++) {
		pthread_barrier_wait(&round_start);
		if (me == 0) {
			pages[r][0] = 1;
		} else if (!hold_only) {
			int waited = 0;

			/* The hold begins when thread 0 reaches __p4d_alloc(). */
			while (skel->bss->state == RACEHOLD_IDLE &&
			       waited++ < RACEHOLD_DEADLINE_S * 1000)
				sleep_ms(1);
			if (skel->bss->state == RACEHOLD_HOLDING)
				pages[r][0] = 1;
		}
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

/* A region whose wait reached the deadline: what did not happen, on stderr. */
static void say_deadline(unsigned long region, const char *what)
{
	fprintf(stderr, "racehold: region %#lx: %s within the %d s deadline (RACEHOLD_DEADLINE_S)\n",
		region, what, RACEHOLD_DEADLINE_S);
}

static int usage(void)
{
	fprintf(stderr, "usage: racehold [REGIONS] | racehold --hold SECONDS (REGIONS 1..%d)\n",
		MAX_REGIONS);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long max_wait_s = RACEHOLD_DEADLINE_S;
	pthread_t threads[2];
	int failed = 0, err;

	if (argc == 3 && !strcmp(argv[1], "--hold")) {
		hold_only = 1;
		rounds = 1;
		max_wait_s = strtoul(argv[2], NULL, 10);
		if (max_wait_s < 1 || max_wait_s > 120)
			return usage();
	} else if (argc <= 2) {
		rounds = argc == 2 ? atoi(argv[1]) : 4;
		if (rounds < 1 || rounds > MAX_REGIONS)
			return usage();
	} else {
		return usage();
	}
	for (int r = 1; r <= rounds; r++) {
		void *p = mmap((void *)((unsigned long)r << P4D_PGDIR_SHIFT_L5), P4D_PAGE_SIZE,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || ((unsigned long)p >> P4D_PGDIR_SHIFT_L5) != (unsigned long)r) {
			fprintf(stderr, "racehold: region %d: no mapping at %#lx (5-level paging?)\n",
				r, (unsigned long)r << P4D_PGDIR_SHIFT_L5);
			return 1;
		}
		pages[r] = p;
	}
	skel = racehold_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "racehold: loading the BPF program failed: %s (root? BTF?)\n",
			strerror(errno));
		return 1;
	}
	skel->bss->max_wait_ns = max_wait_s * 1000000000UL;
	err = racehold_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "racehold: attaching failed: %s\n", strerror(-err));
		racehold_bpf__destroy(skel);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_barrier_init(&round_start, NULL, 3);
	pthread_barrier_init(&round_end, NULL, 3);
	for (long i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, toucher, (void *)i);
	pthread_barrier_wait(&round_start);
	if (tids[0] < 0 || tids[1] < 0)
		failed = 1;
	printf("racehold pid=%d held=%d winner=%d\n", getpid(), tids[0], tids[1]);
	for (int r = 1; r <= rounds; r++) {
		skel->bss->held_tid = tids[0];
		skel->bss->winner_tid = hold_only ? 0 : tids[1];
		skel->bss->region = (unsigned long)r << P4D_PGDIR_SHIFT_L5;
		skel->bss->installed = 0;
		skel->bss->held_outcome = -1;
		skel->bss->state = RACEHOLD_IDLE;
		pthread_barrier_wait(&round_start);
		pthread_barrier_wait(&round_end);
		printf("region=%#lx state=%s outcome=%s waited_ms=%lu\n", skel->bss->region,
		       state_name(skel->bss->state), outcome_name(skel->bss->held_outcome),
		       skel->bss->waited_ns / 1000000);
		if (hold_only ? skel->bss->state != RACEHOLD_TIMED_OUT :
				skel->bss->state != RACEHOLD_RELEASED ||
				skel->bss->held_outcome != 1)
			failed = 1;
		if (!hold_only && skel->bss->state == RACEHOLD_TIMED_OUT)
			say_deadline(skel->bss->region, "no install released the held thread");
		else if (!hold_only && skel->bss->state == RACEHOLD_IDLE)
			say_deadline(skel->bss->region, "the held thread never reached __p4d_alloc()");
	}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	racehold_bpf__destroy(skel);
	return failed;
}
