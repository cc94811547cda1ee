/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exechold: what its BPF side (exechold.bpf.c), its user side (exechold.c) and the
 * workload it orders (tests/workloads/la57-thread-exec.c) share.
 */
#ifndef EXECHOLD_H
#define EXECHOLD_H

/*
 * The lengths that mark the two mmap() calls to hold (odd: no other program asks for
 * them). The leader's is held until a fatal signal is pending for it; the other
 * thread's until the leader is held, after which that thread calls execve().
 */
#define EXECHOLD_LEADER_LEN	(3 * 4096 + 1)
#define EXECHOLD_EXECER_LEN	(5 * 4096 + 1)

/*
 * The longest either thread busy-waits in the kernel. Each wait ends in milliseconds
 * once the other thread runs (seconds at worst on a loaded TCG host), so reaching 30 s
 * means something is broken; and it stays a quarter of what a CPU held that long
 * would trip in the guests run-guest boots: the soft-lockup report at 120 s
 * (2 x watchdog_thresh=60) and the RCU stall report at 120 s (rcu_cpu_stall_timeout).
 * A hold that reaches it fails the test that asked for it; nothing retries.
 */
#define EXECHOLD_DEADLINE_S	30

enum exechold_state {
	EXECHOLD_UNSEEN,	/* the thread never made its marked mmap */
	EXECHOLD_HOLDING,	/* it waits inside that mmap */
	EXECHOLD_RELEASED,	/* what it waited for came: it went on */
	EXECHOLD_TIMED_OUT,	/* the deadline came first: it went on anyway */
};

/* One process's two holds, keyed by its PID in the BPF side's map. */
struct exechold_proc {
	int leader;			/* enum exechold_state */
	int execer;
	int leader_tid;
	int execer_tid;
	unsigned long long leader_waited_ns;
	unsigned long long execer_waited_ns;
};

#endif
