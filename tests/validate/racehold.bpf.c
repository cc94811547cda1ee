// SPDX-License-Identifier: GPL-2.0
/*
 * racehold's BPF side: holds one thread at the entry of __p4d_alloc() until another
 * thread has installed the P4D table of the same region (pgtable:p4d_alloc
 * outcome=installed), so that the held thread then allocates a table of its own, finds
 * the PGD entry populated and loses the race (outcome=raced). The wait is a bounded
 * busy loop (bpf_loop), ended by the install or by the deadline user space sets
 * (RACEHOLD_DEADLINE_S, racehold.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "racehold.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * bpf_loop() runs at most 1 << 23 rounds a call: an outer bpf_loop() makes enough such
 * calls to outlast the deadline (bpf_loop() in a callback, as 6.1's selftest
 * prog_nested_calls does; 6.1's verifier refuses a C loop around the call here).
 */
#define LOOP_ROUNDS	(1 << 23)
#define LOOP_CALLS	1024

/* Set by user space before each region. */
volatile int held_tid;		/* the thread to hold */
volatile int winner_tid;	/* the thread whose install releases it */
volatile unsigned long region;	/* the region's start (p4d_alloc's address) */
volatile unsigned long max_wait_ns;
/* Read by user space. */
volatile int state;
volatile int installed;
volatile int held_outcome;	/* the held thread's p4d_alloc outcome (user space sets -1) */
volatile unsigned long waited_ns;
volatile unsigned long spins;

struct wait_ctx {
	unsigned long deadline;
};

static long wait_for_install(__u64 i, void *arg)
{
	struct wait_ctx *ctx = arg;

	/* A few reads per deadline check: the clock read is the costly part. */
	for (int n = 0; n < 32; n++)
		if (installed)
			return 1;
	spins++;
	return bpf_ktime_get_ns() > ctx->deadline;
}

static long wait_rounds(__u64 i, void *arg)
{
	struct wait_ctx *ctx = arg;

	bpf_loop(LOOP_ROUNDS, wait_for_install, ctx, 0);
	return installed || bpf_ktime_get_ns() > ctx->deadline;
}

SEC("kprobe/__p4d_alloc")
int BPF_KPROBE(hold_p4d_alloc, struct mm_struct *mm, pgd_t *pgd, unsigned long address)
{
	struct wait_ctx wait;
	unsigned long start;

	if ((int)bpf_get_current_pid_tgid() != held_tid || state != RACEHOLD_IDLE ||
	    (address & ~((1UL << 48) - 1)) != region)
		return 0;
	state = RACEHOLD_HOLDING;
	start = bpf_ktime_get_ns();
	wait.deadline = start + max_wait_ns;
	bpf_loop(LOOP_CALLS, wait_rounds, &wait, 0);
	waited_ns = bpf_ktime_get_ns() - start;
	state = installed ? RACEHOLD_RELEASED : RACEHOLD_TIMED_OUT;
	return 0;
}

SEC("tp_btf/p4d_alloc")
int BPF_PROG(see_p4d_alloc, struct mm_struct *mm, unsigned long address, void *table,
	     enum pgtable_alloc_outcome outcome)
{
	int tid = (int)bpf_get_current_pid_tgid();

	if (address != region)
		return 0;
	if (tid == winner_tid && outcome == PGTABLE_ALLOC_INSTALLED)
		installed = 1;
	else if (tid == held_tid)
		held_outcome = outcome;
	return 0;
}
