// SPDX-License-Identifier: GPL-2.0
/*
 * tlbshoot: TLB shootdowns whose number is known. Two threads of one process, one
 * pinned to each of CPUs 0 and 1; the second spins in the address space while the first
 * unmaps M pages it touched, one munmap() each.
 *
 *   tlbshoot M
 *
 * Prints "ready pid=PID" and waits for a line on stdin; then does the M munmaps, prints
 * "done unmapped=M" and waits for a second line before it exits, so a tool can stop
 * counting before the exit's own flushes.
 *
 * Each munmap() clears a present PTE, so x86's flush_tlb_mm_range() flushes this CPU
 * (tlb_flush reason TLB_LOCAL_MM_SHOOTDOWN) and, CPU 1 being in the mm's cpumask,
 * calls native_flush_tlb_multi() (TLB_REMOTE_SEND_IPI, one per call); CPU 1, running
 * the spinning thread in this mm, not lazy, flushes on receiving it
 * (TLB_REMOTE_SHOOTDOWN). Exit status: 0, 1 on a failure, 2 on a usage error.
 *
 * No transparent huge pages in this mm: the thread's stack lands just below the area
 * and merges with it, and khugepaged may collapse a 2 MiB range holding area pages
 * into one huge page; the munmap() that splits it shoots down once more
 * (__split_huge_pmd() from __split_vma()). Seen in a guest run, and in the stack
 * traces of tlb:tlb_flush.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "p4d_layout.h"

static atomic_int stop;
static atomic_int spinning;
static atomic_ulong spins;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* CPU 1: stay in this mm, never sleeping, so CPU 1 is never lazy meanwhile. */
static void *spin(void *arg)
{
	(void)arg;
	if (pin(1)) {
		perror("tlbshoot: CPU 1");
		exit(1);
	}
	atomic_store(&spinning, 1);
	while (!atomic_load(&stop))
		atomic_fetch_add(&spins, 1);
	return NULL;
}

/*
 * Returns once the spinner has run since the call. CPU 1 may run another task for a
 * while (the test's shell, the tool): it then leaves this mm's cpumask, and a munmap()
 * meanwhile sends no shootdown. Seen as 20 munmaps with none sent in loaded runs.
 */
static void wait_spinner_on_cpu(void)
{
	unsigned long seen = atomic_load(&spins);

	while (atomic_load(&spins) == seen)
		;
}

static int wait_line(void)
{
	char line[64];

	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t spinner;
	char *area;
	long m;

	if (argc != 2 || (m = atol(argv[1])) < 1) {
		fprintf(stderr, "usage: tlbshoot M (M >= 1)\n");
		return 2;
	}
	if (pin(0)) {
		perror("tlbshoot: CPU 0");
		return 1;
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)) {
		perror("tlbshoot: PR_SET_THP_DISABLE");
		return 1;
	}
	/* Every other page, so each munmap() is a range of its own. */
	area = mmap(NULL, 2 * m * P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("tlbshoot: mmap");
		return 1;
	}
	for (long i = 0; i < 2 * m; i++)
		area[i * P4D_PAGE_SIZE] = 1;
	if (pthread_create(&spinner, NULL, spin, NULL)) {
		fprintf(stderr, "tlbshoot: cannot start the thread on CPU 1\n");
		return 1;
	}
	while (!atomic_load(&spinning))
		;
	printf("ready pid=%d\n", getpid());
	fflush(stdout);
	if (wait_line())
		return 1;

	for (long i = 0; i < m; i++) {
		wait_spinner_on_cpu();
		if (munmap(area + 2 * i * P4D_PAGE_SIZE, P4D_PAGE_SIZE)) {
			perror("tlbshoot: munmap");
			return 1;
		}
	}
	printf("done unmapped=%ld\n", m);
	fflush(stdout);
	wait_line();
	atomic_store(&stop, 1);
	pthread_join(spinner, NULL);
	return 0;
}
