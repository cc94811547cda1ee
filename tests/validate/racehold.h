/* SPDX-License-Identifier: GPL-2.0 */
/* racehold: what its BPF side (racehold.bpf.c) and its user side (racehold.c) share. */
#ifndef RACEHOLD_H
#define RACEHOLD_H

/*
 * How long the held thread waits at most for the other thread's install, and the other
 * thread for the hold to begin. Each wait ends in milliseconds once the other thread
 * runs (seconds at worst on a loaded TCG host), so reaching 30 s means something is
 * broken; and the held CPU, busy in a kprobe with preemption off, stays a quarter of
 * what would trip the soft-lockup report (120 s: 2 x watchdog_thresh=60) and the RCU
 * stall report (120 s: rcu_cpu_stall_timeout) in the guests run-guest boots. A region
 * that reaches it fails raced.t; nothing retries.
 */
#define RACEHOLD_DEADLINE_S	30

/* Where the held thread is; the user side polls it through the mmapped .bss. */
enum racehold_state {
	RACEHOLD_IDLE,		/* armed, the held thread has not entered __p4d_alloc() */
	RACEHOLD_HOLDING,	/* the held thread waits inside __p4d_alloc() */
	RACEHOLD_RELEASED,	/* the other thread installed the table: it went on */
	RACEHOLD_TIMED_OUT,	/* nobody installed it within the bound: it went on */
};

#endif
