// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat's BPF side: counters for P4D tables, kernel page-table syncs, TLB flushes and
 * mappings above 47 bits.
 *
 * Several programs feed the same counter, one per kind of probe: the series' tracepoints
 * (tp_btf), then fentry/fexit, then kprobes. User space loads and attaches one program
 * set per counter group, falling back kind by kind (probe.c); all share these maps.
 *
 * Hot path: a per-CPU array, atomic adds (a nested program on the same CPU, e.g. a TLB
 * shootdown IPI, cannot lose an update), no locks. The tracepoint path also remembers
 * each installed table in a hash keyed by the table's address, so that a free pairs with
 * its allocation: that is what makes LIVE exact and gives the lifetime histogram.
 */
#include "p4d_kernel.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "p4dstat.h"

#define E2BIG	7	/* errno values (no kernel header here) */
#define EEXIST	17
#define EINVAL	22

#define NR_MMAP		9	/* __NR_mmap, x86-64 (arch/x86/entry/syscalls/syscall_64.tbl) */
#define PGDIR_SIZE	P4DSTAT_PGDIR_SIZE

/*
 * The series' enums, as its patches define them (values by name: CO-RE looks each up
 * in the running kernel's BTF). A kernel without the series has none of them, nor the
 * events that pass them; "___p4dscope" keeps them apart from a kernel header's.
 */
enum pgtable_alloc_outcome___p4dscope {	/* include/trace/events/pgtable.h, patch 1 */
	PGTABLE_ALLOC_INSTALLED,
	PGTABLE_ALLOC_RACED,
	PGTABLE_ALLOC_NOMEM,
};

enum kernel_pgd_sync_level___p4dscope {	/* arch/x86/include/asm/trace/pgd_sync.h, patch 3 */
	KERNEL_PGD_SYNC_PGD,
	KERNEL_PGD_SYNC_P4D,
};

enum x86_gua_outcome___p4dscope {	/* arch/x86/include/asm/trace/mmap.h, patch 4 */
	X86_GUA_FIXED,
	X86_GUA_HINT,
	X86_GUA_SEARCH,
	X86_GUA_FALLBACK,
};

/* The running kernel's value of an enumerator of the series. */
#define ALLOC_OUTCOME(v)	bpf_core_enum_value(enum pgtable_alloc_outcome___p4dscope, v)
#define GUA_OUTCOME(v)		bpf_core_enum_value(enum x86_gua_outcome___p4dscope, v)

/* Set by user space before load. */
const volatile __u32 targ_tgid;			/* -p: count only this process */
const volatile bool filter_cgroup;		/* -c: only tasks in cgroup_filter[0] */
const volatile bool per_comm;			/* -C */
const volatile __u64 task_size_max;		/* TASK_SIZE_MAX of the booted paging mode */
const volatile bool follow;			/* -- CMD: only the processes in followed */

/*
 * The kernel's init_mm, from kallsyms (untyped: 6.1's BTF has no global variables).
 * Weak: without kallsyms it is 0, and a kernel address then stands for init_mm.
 */
extern const void init_mm __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct p4dstat_counts);
} counts SEC(".maps");

/*
 * Set by user space once every group is attached: nothing counts, and no table is
 * remembered, before, so the counters and the table map start at the same instant.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} armed SEC(".maps");

/* Tables allocated since start and not yet freed: one shared word, read atomically. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} live SEC(".maps");

/* Installed tables by address, until freed. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, P4DSTAT_TABLES_MAX);
	__type(key, __u64);
	__type(value, struct p4dstat_table);
} tables SEC(".maps");

/* -L: lifetimes of paired tables, log2(usecs) buckets. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, P4DSTAT_HIST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} lifetimes SEC(".maps");

/*
 * -c: the cgroup (v2 directory fd) in slot 0. A kernel without CONFIG_CGROUPS has no
 * such map type: user space makes it a plain array then, and filter_cgroup is false, so
 * the verifier never reaches the helper that reads it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

/* Per CPU: task-switch flushes the task running next has not been charged for yet. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct p4dstat_switch_flushes);
} switch_flushes SEC(".maps");

/* Per CPU: inside a call-function IPI, and whether it ran a shootdown (enum ipi_state). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} in_ipi SEC(".maps");

/*
 * Per thread inside mmap(): 1 when a get_unmapped_area decision of this call chose an
 * address above 47 bits; only mmap()'s success makes that a placement. Task local
 * storage (kernel/bpf/bpf_task_storage.c, 5.11 on) is freed with its task, so unlike
 * a hash keyed by thread it cannot fill; the helper refuses only a nested use on the
 * same CPU, and such a decision is counted in mmap_untracked.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} mmap_high SEC(".maps");

/*
 * -- CMD: the processes (tgids) counted, the command's and its descendants'. User space
 * seeds it with the command's PID before the command runs; sched_process_fork adds
 * every child of a member, and a member leaves when its task is freed. Full: the child
 * is not followed, and follow_dropped says so.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, P4DSTAT_FOLLOW_MAX);
	__type(key, __u32);
	__type(value, __u8);
} followed SEC(".maps");

/* -C: user space sets max_entries (--comms); full means dropped, never evicted. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, P4DSTAT_COMMS_DEFAULT);
	__type(key, struct p4dstat_comm_key);
	__type(value, struct p4dstat_comm_counts);
} comms SEC(".maps");

#define add(field, n)	__sync_fetch_and_add(&(field), (n))

static __always_inline struct p4dstat_counts *counters(void)
{
	__u32 zero = 0, *on = bpf_map_lookup_elem(&armed, &zero);

	if (!on || !*on)
		return NULL;
	return bpf_map_lookup_elem(&counts, &zero);
}

static __always_inline bool current_in_cgroup(void)
{
	return !filter_cgroup || bpf_current_task_under_cgroup(&cgroup_filter, 0) == 1;
}

/* -p or -- CMD: is the current task in the process, or in the command's family? */
static __always_inline bool current_tgid_selected(void)
{
	__u32 tgid;

	if (!follow && !targ_tgid)
		return true;	/* system-wide: not even the helper call */
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (follow)
		return bpf_map_lookup_elem(&followed, &tgid) != NULL;
	return tgid == targ_tgid;
}

static __always_inline bool current_is_target(void)
{
	return current_tgid_selected() && current_in_cgroup();
}

/* Counters for an event of the current task (TLB, placements, syncs), NULL if filtered. */
static __always_inline struct p4dstat_counts *traced(void)
{
	return current_is_target() ? counters() : NULL;
}

/* A kernel without task_struct's in_execve bit (none so far) never says so. */
static __always_inline bool in_execve(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->in_execve))
		return false;
	return BPF_CORE_READ_BITFIELD_PROBED(task, in_execve);
}

/*
 * The mm execve() is building for the current task: copy_strings() fills its argument
 * stack before current->in_execve is set and before the task switches to it. It is a
 * foreign mm whose only mapping is that stack, one page (create_init_stack_vma() or
 * __bprm_mm_init() set total_vm = stack_vm = 1). A fork's child mm is foreign too when
 * its tables are copied, but dup_mmap() gives it the parent's counts.
 */
static __always_inline bool exec_new_mm(struct mm_struct *mm)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return mm != task->mm && BPF_CORE_READ(mm, total_vm) == 1 &&
	       BPF_CORE_READ(mm, stack_vm) == 1;
}

/*
 * The table exec builds its argument stack in, when that is at the top of the user
 * address space (STACK_TOP_MAX) and not where the stack ends up: the top PGD slot of
 * exec's new mm. With the stack built below 47 bits it is the new mm's first table, in
 * slot 0, and stays.
 */
static __always_inline bool exec_stack_table(struct mm_struct *mm, unsigned long address)
{
	__u64 top_slot = (task_size_max - 1) & ~(PGDIR_SIZE - 1);

	return address == top_slot && exec_new_mm(mm);
}

/*
 * -p: is MM the target process's address space? Its own (mm == current->mm), the one
 * execve() builds for it, and at exit or exec the one it leaves (in_execve, or no mm at
 * all). A fork's child mm is built by the parent, but is the child's. Not seen: tables
 * another process puts in the target's mm (ptrace, process_vm_writev), a rare case.
 */
static __always_inline bool mm_of_target(struct mm_struct *mm, bool freeing)
{
	struct task_struct *task;
	struct mm_struct *own;

	if (!current_in_cgroup())
		return false;
	if (!targ_tgid && !follow)
		return true;
	if (!current_tgid_selected())
		return false;
	/* A followed process's fork builds the child's mm: the child is followed too. */
	if (follow)
		return true;
	task = bpf_get_current_task_btf();
	own = task->mm;
	if (mm == own || in_execve(task))
		return true;
	return freeing ? !own : exec_new_mm(mm);
}

/*
 * The -C slot of COMM, created on first use; NULL without -C or when full, and then the
 * EVENTS the caller would have charged to it count as dropped (a task switch can charge
 * several flushes at once).
 */
static __always_inline struct p4dstat_comm_counts *comm_slot(struct p4dstat_counts *c,
							     struct p4dstat_comm_key *key,
							     __u64 events)
{
	static const struct p4dstat_comm_counts zero;
	struct p4dstat_comm_counts *slot;
	long err;

	if (!per_comm)
		return NULL;
	slot = bpf_map_lookup_elem(&comms, key);
	if (slot)
		return slot;
	err = bpf_map_update_elem(&comms, key, &zero, BPF_NOEXIST);
	if (err && err != -EEXIST) {	/* EEXIST: another CPU inserted it first */
		add(c->comm_dropped, events);
		return NULL;
	}
	return bpf_map_lookup_elem(&comms, key);
}

static __always_inline struct p4dstat_comm_counts *current_comm_slot(struct p4dstat_counts *c,
								     __u64 events)
{
	struct p4dstat_comm_key key = {};	/* bytes after the name are part of the key */

	if (!per_comm)
		return NULL;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	return comm_slot(c, &key, events);
}

/* p4d_alloc's init_mm field, from the tracepoint's arguments. */
static __always_inline bool is_init_mm(struct mm_struct *mm, unsigned long address)
{
	if (!&init_mm)
		return address & P4DSTAT_KERNEL_HALF;
	return (const void *)mm == &init_mm;
}

static __always_inline void count_installed(struct p4dstat_counts *c, bool kernel,
					    struct p4dstat_comm_key *owner)
{
	struct p4dstat_comm_counts *slot;

	if (kernel)
		add(c->p4d_alloc_kernel, 1);
	else
		add(c->p4d_alloc_user, 1);
	slot = comm_slot(c, owner, 1);
	if (slot)
		add(slot->p4d_alloc, 1);
}

static __always_inline void count_free(struct p4dstat_counts *c, struct p4dstat_comm_key *owner)
{
	struct p4dstat_comm_counts *slot;

	add(c->p4d_free, 1);
	slot = comm_slot(c, owner, 1);
	if (slot)
		add(slot->p4d_free, 1);
}

static __always_inline void add_live(__s64 n)
{
	__u32 zero = 0;
	__s64 *v = bpf_map_lookup_elem(&live, &zero);

	if (v)
		__sync_fetch_and_add(v, n);
}

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 slot = 0;

	/* Bounded for the verifier: at most 64 halvings. */
	for (int i = 0; i < 64 && v > 1; i++) {
		v >>= 1;
		slot++;
	}
	return slot < P4DSTAT_HIST_SLOTS ? slot : P4DSTAT_HIST_SLOTS - 1;
}

/* ---- P4D table allocations and frees: the series' tracepoints ---- */

/* pgtable:p4d_alloc: patch 1 of p4dscope's series. ADDRESS is the region's start. */
SEC("tp_btf/p4d_alloc")
int BPF_PROG(p4d_alloc_tp, struct mm_struct *mm, unsigned long address, void *p4d,
	     enum pgtable_alloc_outcome___p4dscope outcome)
{
	struct p4dstat_counts *c;
	struct p4dstat_table table = {};
	__u64 key = (__u64)p4d;
	bool kernel;

	if (!mm_of_target(mm, false) || !(c = counters()))
		return 0;
	if (outcome == ALLOC_OUTCOME(PGTABLE_ALLOC_RACED)) {
		add(c->p4d_raced, 1);
		return 0;
	}
	if (outcome != ALLOC_OUTCOME(PGTABLE_ALLOC_INSTALLED)) {
		add(c->p4d_nomem, 1);
		return 0;
	}
	/*
	 * -C charges the table to the command running now: the mm's own, or for a fork
	 * the parent's, whose name the child carries until it execs.
	 */
	bpf_get_current_comm(table.owner.comm, sizeof(table.owner.comm));
	kernel = is_init_mm(mm, address);
	count_installed(c, kernel, &table.owner);
	add(c->p4d_cause[p4dstat_cause(kernel, address, exec_stack_table(mm, address))], 1);
	table.born_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&tables, &key, &table, BPF_ANY))
		add(c->p4d_untracked, 1);
	else
		add_live(1);
	return 0;
}

/* pgtable:p4d_free: patch 1; only installed tables, so every free has an allocation. */
SEC("tp_btf/p4d_free")
int BPF_PROG(p4d_free_tp, struct mm_struct *mm, unsigned long address, void *p4d)
{
	struct p4dstat_counts *c = counters();
	struct p4dstat_table *table;
	struct p4dstat_comm_key owner = {};
	__u64 key = (__u64)p4d, usecs;
	__u32 slot;
	__u64 *bucket;

	if (!c)
		return 0;
	table = bpf_map_lookup_elem(&tables, &key);
	if (!table) {
		/* Older than the trace (or not remembered): its own column, never LIVE. */
		if (!mm_of_target(mm, true))
			return 0;
		bpf_get_current_comm(owner.comm, sizeof(owner.comm));
		add(c->p4d_free_old, 1);
		count_free(c, &owner);
		return 0;
	}
	owner = table->owner;
	usecs = (bpf_ktime_get_ns() - table->born_ns) / 1000;
	/* Only the program that deletes the entry accounts for it. */
	if (bpf_map_delete_elem(&tables, &key))
		return 0;
	add_live(-1);
	count_free(c, &owner);
	slot = log2_slot(usecs);
	bucket = bpf_map_lookup_elem(&lifetimes, &slot);
	if (bucket)
		add(*bucket, 1);
	return 0;
}

/* ---- the same without the series: neither tells a lost race from an install ---- */

/*
 * __p4d_alloc() returns 0 for an installed table and for a raced one, -ENOMEM else.
 * PGD is a pgd_t *, unread.
 */
SEC("fexit/__p4d_alloc")
int BPF_PROG(p4d_alloc_fexit, struct mm_struct *mm, void *pgd, unsigned long address,
	     int ret)
{
	struct p4dstat_counts *c;
	struct p4dstat_comm_key owner = {};

	if (!mm_of_target(mm, false) || !(c = counters()))
		return 0;
	if (ret) {
		add(c->p4d_nomem, 1);
		return 0;
	}
	bpf_get_current_comm(owner.comm, sizeof(owner.comm));
	count_installed(c, is_init_mm(mm, address), &owner);
	return 0;
}

/* kprobes: the call is counted on entry (the arguments are known only there). */
SEC("kprobe/__p4d_alloc")
int BPF_KPROBE(p4d_alloc_kprobe, struct mm_struct *mm, void *pgd, unsigned long address)
{
	struct p4dstat_counts *c;
	struct p4dstat_comm_key owner = {};

	if (!mm_of_target(mm, false) || !(c = counters()))
		return 0;
	bpf_get_current_comm(owner.comm, sizeof(owner.comm));
	count_installed(c, is_init_mm(mm, address), &owner);
	return 0;
}

SEC("kretprobe/__p4d_alloc")
int BPF_KRETPROBE(p4d_alloc_kretprobe, int ret)
{
	struct p4dstat_counts *c = traced();

	if (c && ret)
		add(c->p4d_nomem, 1);
	return 0;
}

static __always_inline void count_free_fallback(struct mm_struct *mm)
{
	struct p4dstat_counts *c;
	struct p4dstat_comm_key owner = {};

	if (!mm_of_target(mm, true) || !(c = counters()))
		return;
	bpf_get_current_comm(owner.comm, sizeof(owner.comm));
	count_free(c, &owner);
}

/* ___p4d_free_tlb(): out of line in arch/x86/mm/pgtable.c when CONFIG_PGTABLE_LEVELS > 4. */
SEC("fentry/___p4d_free_tlb")
int BPF_PROG(p4d_free_fentry, struct mmu_gather *tlb)
{
	count_free_fallback(tlb->mm);
	return 0;
}

SEC("kprobe/___p4d_free_tlb")
int BPF_KPROBE(p4d_free_kprobe, struct mmu_gather *tlb)
{
	count_free_fallback(BPF_CORE_READ(tlb, mm));
	return 0;
}

/* ---- kernel top-level entry syncs ---- */

/* pgtable:kernel_pgd_sync: patch 3 of the series. */
SEC("tp_btf/kernel_pgd_sync")
int BPF_PROG(kernel_pgd_sync_tp, unsigned long start, unsigned long end,
	     enum kernel_pgd_sync_level___p4dscope level, unsigned int copied,
	     unsigned int visited)
{
	struct p4dstat_counts *c = traced();

	if (!c)
		return 0;
	add(c->sync_calls, 1);
	add(c->sync_copied, copied);
	add(c->sync_visited, visited);
	return 0;
}

/* Without the series only the calls of sync_global_pgds() (arch/x86/mm/init_64.c) count. */
SEC("fentry/sync_global_pgds")
int BPF_PROG(sync_fentry)
{
	struct p4dstat_counts *c = traced();

	if (c)
		add(c->sync_calls, 1);
	return 0;
}

SEC("kprobe/sync_global_pgds")
int BPF_KPROBE(sync_kprobe)
{
	struct p4dstat_counts *c = traced();

	if (c)
		add(c->sync_calls, 1);
	return 0;
}

/* ---- get_unmapped_area decisions ---- */

static __always_inline bool is_err_value(unsigned long x)
{
	return x >= (unsigned long)-4095;	/* IS_ERR_VALUE() */
}

/*
 * A decision that placed a mapping at RESULT, above 47 bits or not. mmap() may still
 * refuse it (a MAP_FIXED above 47 bits on 4-level paging fails the generic
 * get_unmapped_area()'s TASK_SIZE check), and one mmap() can make several decisions
 * (shmem's and THP's padded searches): a decision above 47 bits inside mmap() is only
 * remembered for the thread, and mmap_exit() counts the placement if mmap() succeeds.
 */
static __always_inline void count_decision(struct p4dstat_counts *c, unsigned long result)
{
	struct task_struct *task;
	struct pt_regs *regs;
	__u32 *high;

	if (is_err_value(result) || result < P4D_DEFAULT_MAP_WINDOW)
		return;
	add(c->gua_above47, 1);
	task = bpf_get_current_task_btf();
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (BPF_CORE_READ(regs, orig_ax) != NR_MMAP)
		return;		/* exec's ELF mappings, mremap(), shmat(): not mmap()'s */
	high = bpf_task_storage_get(&mmap_high, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (high)
		*high = 1;
	else
		add(c->mmap_untracked, 1);
}

/* mmap:x86_get_unmapped_area: window and outcome as its TP_fast_assign. */
static void count_placement(unsigned long hint, unsigned long high_limit,
			    enum x86_gua_outcome___p4dscope outcome, unsigned long result)
{
	struct p4dstat_counts *c = traced();
	bool full;

	if (!c)
		return;
	full = high_limit ? high_limit > P4DSTAT_KERNEL_MAP_WINDOW :
	       hint > P4DSTAT_KERNEL_MAP_WINDOW && hint < task_size_max;
	add(c->gua_window[full ? P4DSTAT_WINDOW_FULL : P4DSTAT_WINDOW_DEFAULT], 1);

	if (is_err_value(result))
		add(c->gua_outcome[result == (unsigned long)-EINVAL ? P4DSTAT_OUTCOME_EINVAL :
				   P4DSTAT_OUTCOME_ENOMEM], 1);
	else if (outcome == GUA_OUTCOME(X86_GUA_FIXED))
		add(c->gua_outcome[P4DSTAT_OUTCOME_FIXED], 1);
	else if (outcome == GUA_OUTCOME(X86_GUA_HINT))
		add(c->gua_outcome[P4DSTAT_OUTCOME_HINT], 1);
	else if (outcome == GUA_OUTCOME(X86_GUA_SEARCH))
		add(c->gua_outcome[P4DSTAT_OUTCOME_SEARCH], 1);
	else if (outcome == GUA_OUTCOME(X86_GUA_FALLBACK))
		add(c->gua_outcome[P4DSTAT_OUTCOME_FALLBACK], 1);
	count_decision(c, result);
}

/*
 * Series v4 (7.3): the tracepoint takes the file first. The load of filp->f_flags proves
 * that prototype: the verifier rejects it where the first argument is v3's hint (a
 * scalar), so only the v3 program below attaches there.
 */
SEC("tp_btf/x86_get_unmapped_area")
int BPF_PROG(gua_tp_v4, struct file *filp, unsigned long hint, unsigned long len,
	     unsigned long flags, unsigned long high_limit,
	     enum x86_gua_outcome___p4dscope outcome, unsigned long result)
{
	unsigned int f_flags = filp ? filp->f_flags : 0;

	asm volatile("" : : "r"(f_flags));
	count_placement(hint, high_limit, outcome, result);
	return 0;
}

/* Series v3 (6.1, 6.12): patches 4 and 5. */
SEC("tp_btf/x86_get_unmapped_area")
int BPF_PROG(gua_tp, unsigned long hint, unsigned long len, unsigned long flags,
	     bool hugetlb, unsigned long high_limit,
	     enum x86_gua_outcome___p4dscope outcome, unsigned long result)
{
	count_placement(hint, high_limit, outcome, result);
	return 0;
}

/*
 * Without the series: the generic get_unmapped_area() (mm/mmap.c) around every
 * placement gives the result and length, not the window or the outcome.
 */
static int gua_exit(unsigned long ret)
{
	struct p4dstat_counts *c = traced();

	if (c)
		count_decision(c, ret);
	return 0;
}

SEC("fexit/get_unmapped_area")
int BPF_PROG(gua_fexit, struct file *file, unsigned long addr, unsigned long len,
	     unsigned long pgoff, unsigned long flags, unsigned long ret)
{
	return gua_exit(ret);
}

/* Since 6.10 get_unmapped_area() is an inline wrapper of this, which takes vm_flags. */
SEC("fexit/__get_unmapped_area")
int BPF_PROG(gua_vmflags_fexit, struct file *file, unsigned long addr, unsigned long len,
	     unsigned long pgoff, unsigned long flags, unsigned long vm_flags, unsigned long ret)
{
	return gua_exit(ret);
}

/* ---- TLB flushes ---- */

static __always_inline void count_flushes(struct p4dstat_counts *c, __u32 reason,
					  __u64 flushes, __u64 noop)
{
	struct p4dstat_comm_counts *slot;

	add(c->tlb_noop, noop);
	/* Checked where the index is used: the verifier loses a bound checked earlier. */
	if (!flushes || reason >= P4DSTAT_TLB_REASONS)
		return;
	add(c->tlb_flush[reason], flushes);
	if (reason == P4DSTAT_TLB_SHOOTDOWN_REQUEST)
		return;	/* a request: the flushes are the receivers' */
	slot = current_comm_slot(c, flushes);
	if (slot)
		add(slot->tlb_flush, flushes);
}

/*
 * tlb:tlb_flush (x86 since 3.17; tp_btf since 5.5). PAGES 0 means nothing was flushed:
 * a task switch that found the TLB current, or a shootdown already caught up with. A
 * shootdown shows once as a request (native_flush_tlb_multi(), on the initiating CPU,
 * once per call whatever the number of targets, IPI or not) and once per CPU that ran it.
 *
 * A task switch fires in switch_mm_irqs_off() while the task leaving is still current
 * (context_switch() calls it before switch_to()); the flush is for the mm coming in.
 * It waits in switch_flushes until the task that runs next leaves the CPU, and
 * sched_switch_tp() charges it to that task then, when it is current. The other callers
 * (exec_mmap()'s activate_mm(), kthread_use_mm(), leave_mm()) run in the task that keeps
 * the CPU afterwards, so the same rule charges them to the right task.
 */
SEC("tp_btf/tlb_flush")
int BPF_PROG(tlb_flush_tp, int reason, unsigned long pages)
{
	struct p4dstat_switch_flushes *pending;
	struct p4dstat_counts *c;
	__u32 zero = 0;

	if (reason == P4DSTAT_TLB_TASK_SWITCH) {
		/* Interrupts are off in every caller: no other update on this CPU meanwhile. */
		pending = bpf_map_lookup_elem(&switch_flushes, &zero);
		if (pending && counters()) {
			if (pages)
				pending->flushes++;
			else
				pending->noop++;
		}
		return 0;
	}
	c = traced();
	if (c)
		count_flushes(c, reason, pages ? 1 : 0, pages ? 0 : 1);
	return 0;
}

/* sched:sched_switch: the task leaving the CPU is current; charge what it was flushed for. */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_tp)
{
	struct p4dstat_switch_flushes *pending;
	struct p4dstat_counts *c;
	__u32 zero = 0;

	pending = bpf_map_lookup_elem(&switch_flushes, &zero);
	if (!pending || !(pending->flushes | pending->noop))
		return 0;
	c = traced();
	if (c)
		count_flushes(c, P4DSTAT_TLB_TASK_SWITCH, pending->flushes, pending->noop);
	pending->flushes = 0;
	pending->noop = 0;
	return 0;
}

/* ---- shootdown IPIs ---- */

/*
 * irq_vectors:call_function_entry/exit and call_function_single_entry/exit (x86,
 * arch/x86/kernel/smp.c) bracket every call-function IPI a CPU takes; a shootdown runs
 * flush_tlb_func() inside one. Counted once per IPI however many requests it ran, on the
 * CPU that takes it, for the task it interrupts. A request run without an IPI (the idle
 * loop flushes the call queue of a polling CPU) is not counted; an IPI sent to a CPU
 * that then found the queue already empty is not either.
 */
enum ipi_state { IPI_NONE, IPI_OPEN, IPI_COUNTED };

static __always_inline void ipi_state(enum ipi_state state)
{
	__u32 zero = 0, *v = bpf_map_lookup_elem(&in_ipi, &zero);

	if (v)
		*v = state;
}

/* One program per event: the vectors CALL_FUNCTION and CALL_FUNCTION_SINGLE. */
#define IPI_EDGE(event, state)			\
SEC("tp_btf/" #event)				\
int BPF_PROG(event##_tp)			\
{						\
	ipi_state(state);			\
	return 0;				\
}

IPI_EDGE(call_function_entry, IPI_OPEN)
IPI_EDGE(call_function_single_entry, IPI_OPEN)
IPI_EDGE(call_function_exit, IPI_NONE)
IPI_EDGE(call_function_single_exit, IPI_NONE)

/* flush_tlb_func(): arch/x86/mm/tlb.c, every shootdown request a CPU runs. */
SEC("fentry/flush_tlb_func")
int BPF_PROG(flush_tlb_func_fentry)
{
	struct p4dstat_counts *c;
	__u32 zero = 0, *v = bpf_map_lookup_elem(&in_ipi, &zero);

	if (!v || *v != IPI_OPEN)
		return 0;
	*v = IPI_COUNTED;
	c = traced();
	if (c)
		add(c->tlb_ipis, 1);
	return 0;
}

static __always_inline void count_kernel_flush(bool whole)
{
	struct p4dstat_counts *c = traced();
	struct p4dstat_comm_counts *slot;

	if (!c)
		return;
	if (whole)
		add(c->tlb_all, 1);
	else
		add(c->tlb_kernel_range, 1);
	slot = current_comm_slot(c, 1);
	if (slot)
		add(slot->tlb_kernel, 1);
}

/* Kernel-range flushes: x86's flush_tlb_kernel_range() and flush_tlb_all(). */
SEC("fentry/flush_tlb_kernel_range")
int BPF_PROG(tlb_kernel_range_fentry)
{
	count_kernel_flush(false);
	return 0;
}

SEC("fentry/flush_tlb_all")
int BPF_PROG(tlb_all_fentry)
{
	count_kernel_flush(true);
	return 0;
}

SEC("kprobe/flush_tlb_kernel_range")
int BPF_KPROBE(tlb_kernel_range_kprobe)
{
	count_kernel_flush(false);
	return 0;
}

SEC("kprobe/flush_tlb_all")
int BPF_KPROBE(tlb_all_kprobe)
{
	count_kernel_flush(true);
	return 0;
}

/* ---- placements: mmap()'s exit ---- */

/*
 * A mapping counts when a decision of this mmap() chose an address above 47 bits and
 * mmap() returned one. RET is mmap()'s result; LEN its length argument.
 */
static __always_inline void count_mmap_exit(long ret, unsigned long len)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct p4dstat_comm_counts *slot;
	struct p4dstat_counts *c;
	__u32 *high;

	high = bpf_task_storage_get(&mmap_high, task, NULL, 0);
	if (!high || !*high)
		return;		/* no decision above 47 bits in this call */
	*high = 0;
	c = traced();
	if (!c || ret < (long)P4D_DEFAULT_MAP_WINDOW)	/* refused, or placed below */
		return;
	len = (len + P4D_PAGE_SIZE - 1) & ~(P4D_PAGE_SIZE - 1);
	add(c->mmap_above47, 1);
	add(c->mmap_above47_bytes, len);
	slot = current_comm_slot(c, 1);
	if (slot) {
		add(slot->mmap_above47, 1);
		add(slot->mmap_above47_bytes, len);
	}
}

/*
 * ksys_mmap_pgoff() (mm/mmap.c): x86-64's mmap() (arch/x86/kernel/sys_x86_64.c) returns
 * through it on 6.1, 6.12 and 7.3, out of line in each (a global function the syscall
 * calls from another file). A trampoline on one function costs only its callers, where
 * a syscall tracepoint puts every syscall of every thread on the slow path.
 */
SEC("fexit/ksys_mmap_pgoff")
int BPF_PROG(mmap_fexit, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, unsigned long fd, unsigned long pgoff, unsigned long ret)
{
	count_mmap_exit((long)ret, len);
	return 0;
}

/* The length is the syscall's second argument, still in the saved user registers. */
static __always_inline unsigned long mmap_len_arg(void)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	return BPF_CORE_READ(regs, si);
}

SEC("kretprobe/ksys_mmap_pgoff")
int BPF_KRETPROBE(mmap_kretprobe, long ret)
{
	count_mmap_exit(ret, mmap_len_arg());
	return 0;
}

/* syscalls:sys_exit_mmap (CONFIG_FTRACE_SYSCALLS): where ksys_mmap_pgoff() is not seen. */
SEC("tracepoint/syscalls/sys_exit_mmap")
int mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	count_mmap_exit(ctx->ret, mmap_len_arg());
	return 0;
}

/* ---- -- CMD: the command's family ---- */

/* sched:sched_process_fork: a member's child joins (a thread's tgid is already in). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, tgid = child->tgid;
	struct p4dstat_counts *c;
	__u8 one = 1;
	long err;

	if (ptgid == tgid || !bpf_map_lookup_elem(&followed, &ptgid))
		return 0;
	err = bpf_map_update_elem(&followed, &tgid, &one, BPF_NOEXIST);
	if (err && err != -EEXIST) {	/* -E2BIG: full */
		c = counters();
		if (c)
			add(c->follow_dropped, 1);
	}
	return 0;
}

/*
 * sched:sched_process_free: a group leader is freed after every thread of its group
 * was reaped, and after its exit tore its mm down (on 7.3 sched_process_exit fires
 * before exit_mm(), too early). Its tgid may then be reused by another process.
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(follow_free, struct task_struct *task)
{
	__u32 tgid = task->tgid;

	if (task->pid == tgid)
		bpf_map_delete_elem(&followed, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
