/* SPDX-License-Identifier: GPL-2.0 */
/*
 * la57-place: run a program under ptrace and move its hint-less mappings above 47 bits.
 * Shared declarations of the tracer's parts: placement (syscall rewriting), maps
 * (/proc/PID/maps summaries) and fault (what a crash looked like).
 */
#ifndef LA57CHECK_H
#define LA57CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/user.h>

#include "p4d_layout.h"

/* A user address above the 47-bit window: only an mmap hint puts anything there. */
static inline bool is_high_user(uint64_t addr)
{
	return addr >= P4D_DEFAULT_MAP_WINDOW && addr <= P4D_TASK_SIZE_MAX_L5;
}

/* The kernel half (vsyscall): neither low nor high user memory. */
static inline bool is_kernel_half(uint64_t addr)
{
	return addr >> 63;
}

struct placement_options {
	bool high;		/* rewrite placements; false: only watch them */
	bool refuse_brk;	/* turn brk growth into a query (high, and the brk-only run) */
	bool keep_low_stack;	/* leave MAP_STACK mappings (thread stacks) low */
	bool move_hinted;	/* move mmaps hinted below 47 bits too */
};

struct placement_stats {
	unsigned long hintless;		/* hint-less mmaps that succeeded */
	unsigned long hintless_high;	/* ... and landed at or above 2^47 */
	unsigned long hinted;		/* mmaps with a hint or MAP_32BIT, left as asked */
	unsigned long hinted_low;	/* ... that landed below 2^47 */
	unsigned long hinted_moved;	/* ... given a high hint instead (--move-hinted) */
	unsigned long stacks_kept_low;	/* MAP_STACK mmaps left alone (--keep-low-stack) */
	unsigned long brk_refused;	/* brk growth turned into a query */
	unsigned long mremap_moved;	/* MREMAP_MAYMOVE given a high MREMAP_FIXED target */
	unsigned long cut_by_exec;	/* rewrites whose exit never came: another thread exec'd */
	unsigned long fd_kept;		/* mmaps of a device or anon-inode fd, left alone */
	unsigned long info_failed;	/* stops PTRACE_GET_SYSCALL_INFO could not describe */
};

/*
 * Names counted as "name xN": what kind of fd a kept mmap was of, how each process
 * ended, which mappings stayed low. Past TALLY_MAX names, the rest only count.
 */
#define TALLY_MAX	16
struct tally {
	struct {
		char name[80];
		unsigned long n;
	} v[TALLY_MAX];
	size_t len;
	unsigned long others;
};

void tally_add(struct tally *t, const char *name);
/* "name xN, ..." sorted by name (so two runs compare), "-" when empty. */
void tally_format(const struct tally *t, char *buf, size_t len);

/* A summary of one address space, taken from /proc/PID/maps. */
struct maps_summary {
	unsigned long mappings;
	unsigned long high_mappings;	/* starting at or above 2^47 */
	unsigned long high_bytes;
	unsigned long jit_mappings;	/* executable and not from a file: generated code */
	unsigned long jit_high;		/* ... starting at or above 2^47 */
	char low_names[1024];		/* "name xN, ..." of the mappings that stayed low */
};

enum pending_call {
	PENDING_NONE,
	PENDING_MMAP,		/* a hint-less mmap (rewritten or not): count its result */
	PENDING_MMAP_HINTED,	/* an mmap the program placed itself: count its result */
	PENDING_MREMAP_RESERVE,	/* an mremap turned into a high reservation, to replay */
};

/* What the tracer remembers about one traced thread between its syscall stops. */
struct task {
	pid_t tid;
	bool seen_first_stop;		/* the SIGSTOP every auto-attached task starts with */
	bool replaying_mremap;		/* the next mremap entry is our replay: leave it */
	bool restore_args;		/* put the caller's arguments back at syscall exit */
	long restore_nr;		/* ... of this call only: the one whose entry saved them */
	enum pending_call pending;
	struct user_regs_struct saved;	/* registers at the entry of a rewritten call */
	bool exited;			/* a process leader stopped at its exit ... */
	struct maps_summary at_exit;	/* ... with this address space, counted once it dies */
	char comm[32];			/* ... and this name, for the record of its end */
	bool ended_by_us;		/* killed by the tracer: not the program's own end */
};

/* Does the task wait for the exit stop of its current syscall? */
static inline bool awaits_syscall_exit(const struct task *t)
{
	return t->pending != PENDING_NONE || t->restore_args;
}

/*
 * Stop the traced program only at mmap, brk and mremap (x86-64 calls): a seccomp filter
 * returning SECCOMP_RET_TRACE for them. Called in the child before execve(); false when
 * the kernel refuses the filter (then every syscall stops, as PTRACE_SYSCALL makes it).
 */
bool seccomp_stop_only_placement_calls(void);

/* A syscall's entry as seccomp or ptrace's syscall-entry stop shows it. */
struct syscall_entry {
	uint32_t arch;
	uint64_t nr;
	uint64_t args[6];
};

struct __ptrace_syscall_info;
void placement_on_entry(struct task *t, const struct syscall_entry *e,
			const struct placement_options *opt, struct placement_stats *st,
			struct tally *fd_kinds);
void placement_on_exit(struct task *t, const struct __ptrace_syscall_info *info,
		       struct placement_stats *st);
/*
 * The task's image was replaced by execve(): nothing of a rewrite before it holds.
 * True when a rewritten call was still waiting for its exit.
 */
bool placement_forget_pending(struct task *t);

/* One mapping, as much as fault analysis needs. */
struct mapping {
	uint64_t start, end;
	uint64_t offset;
	bool exec;
	char name[256];
};

struct maps {
	struct mapping *v;
	size_t n;
};

int maps_read(pid_t pid, struct maps *m);
void maps_free(struct maps *m);
const struct mapping *maps_find(const struct maps *m, uint64_t addr);
void maps_summarize(const struct maps *m, struct maps_summary *sum);

/* Describe how VALUE relates to the high mappings of M, in BUF (one phrase). */
void describe_address(const struct maps *m, uint64_t value, char *buf, size_t len);

/* The last fatal-looking signal a traced thread received, already written out as text. */
struct fault {
	int signo;
	unsigned long count;	/* fault signals seen, handled ones included */
	char text[2048];	/* "key=value" lines for the report */
};

void fault_record(pid_t tid, const siginfo_t *si, struct fault *f);
bool is_fault_signal(int signo);

#endif /* LA57CHECK_H */
