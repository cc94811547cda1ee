// SPDX-License-Identifier: GPL-2.0
/*
 * exechold's BPF side: makes one thread of a process call execve() while another, the
 * leader, is inside mmap(): past the syscall's entry (and a tracer's entry stop), before
 * its exit. At the entry of ksys_mmap_pgoff(), which x86's mmap syscall calls first
 * (arch/x86/kernel/sys_x86_64.c, 6.1 and 6.12), the leader's marked mmap busy-waits until
 * a fatal signal is pending for it: execve()'s de_thread() sends SIGKILL to every other
 * thread (zap_other_threads()), and a thread with one pending makes no ptrace stop
 * (ptrace_stop()), so the leader never stops at that mmap's exit. The other thread's
 * marked mmap busy-waits until the leader is held; its execve() comes after. Both waits
 * are bounded busy loops (bpf_loop), ended by what they wait for or by the deadline.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "exechold.h"

char LICENSE[] SEC("license") = "GPL";

#define SIGKILL		9
/*
 * bpf_loop() runs at most 1 << 23 rounds a call: an outer bpf_loop() makes enough such
 * calls to outlast the deadline (bpf_loop() in a callback, as 6.1's selftest
 * prog_nested_calls does; a C loop around it, laid out with a fall-through back-edge,
 * is refused by 6.1's verifier).
 */
#define LOOP_ROUNDS	(1 << 23)
#define LOOP_CALLS	1024

volatile unsigned long max_wait_ns;	/* set by user space */
volatile unsigned long rounds;		/* busy-loop rounds, all holds together */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, int);			/* the process's PID */
	__type(value, struct exechold_proc);
} procs SEC(".maps");

struct wait_ctx {
	unsigned long deadline;
	int pid;
	bool leader;		/* the leader waits for a kill, the other thread for it */
	bool came;		/* what it waited for came */
};

/* __fatal_signal_pending(current): SIGKILL in the thread's own pending set. */
static bool fatal_signal_pending(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	unsigned long pending = BPF_CORE_READ(task, pending.signal.sig[0]);

	return pending & (1UL << (SIGKILL - 1));
}

/* The leader is held (or was, or gave up): anything but unseen. */
static bool leader_seen(int pid)
{
	struct exechold_proc *p = bpf_map_lookup_elem(&procs, &pid);

	return p && p->leader != EXECHOLD_UNSEEN;
}

static long wait_round(__u64 i, void *arg)
{
	struct wait_ctx *ctx = arg;

	if (ctx->leader ? fatal_signal_pending() : leader_seen(ctx->pid)) {
		ctx->came = true;
		return 1;
	}
	return bpf_ktime_get_ns() > ctx->deadline;
}

static long wait_rounds(__u64 i, void *arg)
{
	struct wait_ctx *ctx = arg;

	rounds += bpf_loop(LOOP_ROUNDS, wait_round, ctx, 0);
	return ctx->came || bpf_ktime_get_ns() > ctx->deadline;
}

SEC("fentry/ksys_mmap_pgoff")
int BPF_PROG(hold_marked_mmap, unsigned long addr, unsigned long len)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct exechold_proc fresh = {}, *p;
	int pid = id >> 32, tid = (int)id;
	struct wait_ctx wait = {};
	unsigned long start;
	int state;

	if (len != EXECHOLD_LEADER_LEN && len != EXECHOLD_EXECER_LEN)
		return 0;
	wait.leader = len == EXECHOLD_LEADER_LEN;
	wait.pid = pid;
	/* Whichever thread comes first makes the process's entry. */
	bpf_map_update_elem(&procs, &pid, &fresh, BPF_NOEXIST);
	p = bpf_map_lookup_elem(&procs, &pid);
	if (!p)
		return 0;
	/* One hold per thread and process: a later marked mmap goes through. */
	if (wait.leader ? p->leader != EXECHOLD_UNSEEN : p->execer != EXECHOLD_UNSEEN)
		return 0;
	if (wait.leader) {
		p->leader_tid = tid;
		p->leader = EXECHOLD_HOLDING;
	} else {
		p->execer_tid = tid;
		p->execer = EXECHOLD_HOLDING;
	}
	start = bpf_ktime_get_ns();
	wait.deadline = start + max_wait_ns;
	bpf_loop(LOOP_CALLS, wait_rounds, &wait, 0);
	state = wait.came ? EXECHOLD_RELEASED : EXECHOLD_TIMED_OUT;
	if (wait.leader) {
		p->leader_waited_ns = bpf_ktime_get_ns() - start;
		p->leader = state;
	} else {
		p->execer_waited_ns = bpf_ktime_get_ns() - start;
		p->execer = state;
	}
	return 0;
}
