// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat's BPF side: counters for P4D tables, kernel page-table syncs, TLB flushes and
 * mappings above 47 bits.
 *
 * Several programs feed the same counter, one per kind of probe: the series' tracepoints
 * (tp_btf), then fentry/fexit, then kprobes. User space probes the running kernel and
 * autoloads one program per counter group (see choose_sources() in p4dstat.c).
 *
 * Hot path: a per-CPU array, atomic adds (a nested program on the same CPU, e.g. a TLB
 * shootdown IPI, cannot lose an update), no locks. Only -C looks up a per-CPU hash by
 * command name, and inserts under the map's bucket lock once per new command.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "p4dstat.h"

#define EEXIST	17	/* errno values (vmlinux.h has no macros) */
#define EINVAL	22

/* Set by user space before load. */
const volatile __u32 targ_tgid;			/* -p: count only this process */
const volatile bool per_comm;			/* -C */
const volatile __u64 task_size_max;		/* TASK_SIZE_MAX of the booted paging mode */

/* The kernel's mm; untyped, so libbpf takes its address from kallsyms (no BTF var). */
extern const void init_mm __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct p4dstat_counts);
} counts SEC(".maps");

/* -C: user space sets max_entries (--comms); full means dropped, never evicted. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, P4DSTAT_COMMS_DEFAULT);
	__type(key, struct p4dstat_comm_key);
	__type(value, struct p4dstat_comm_counts);
} comms SEC(".maps");

#define add(field, n)	__sync_fetch_and_add(&(field), (n))

static __always_inline struct p4dstat_counts *traced(void)
{
	__u32 zero = 0;

	if (targ_tgid && bpf_get_current_pid_tgid() >> 32 != targ_tgid)
		return NULL;
	return bpf_map_lookup_elem(&counts, &zero);
}

/* The current command's -C slot, created on first use; NULL without -C or when full. */
static __always_inline struct p4dstat_comm_counts *comm_slot(struct p4dstat_counts *c)
{
	static const struct p4dstat_comm_counts zero;
	struct p4dstat_comm_counts *slot;
	struct p4dstat_comm_key key = {};	/* bytes after the name are part of the key */
	long err;

	if (!per_comm)
		return NULL;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	slot = bpf_map_lookup_elem(&comms, &key);
	if (slot)
		return slot;
	err = bpf_map_update_elem(&comms, &key, &zero, BPF_NOEXIST);
	if (err && err != -EEXIST) {	/* EEXIST: another CPU inserted it first */
		add(c->comm_dropped, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&comms, &key);
}

static __always_inline void count_p4d_alloc(struct p4dstat_counts *c, struct mm_struct *mm)
{
	struct p4dstat_comm_counts *slot;

	if ((const void *)mm == &init_mm)
		add(c->p4d_alloc_kernel, 1);
	else
		add(c->p4d_alloc_user, 1);
	slot = comm_slot(c);
	if (slot)
		add(slot->p4d_alloc, 1);
}

static __always_inline void count_p4d_free(void)
{
	struct p4dstat_counts *c = traced();
	struct p4dstat_comm_counts *slot;

	if (!c)
		return;
	add(c->p4d_free, 1);
	slot = comm_slot(c);
	if (slot)
		add(slot->p4d_free, 1);
}

static __always_inline void count_above47(struct p4dstat_counts *c, unsigned long len)
{
	struct p4dstat_comm_counts *slot;

	add(c->gua_above47, 1);
	add(c->gua_above47_bytes, len);
	slot = comm_slot(c);
	if (slot) {
		add(slot->above47, 1);
		add(slot->above47_bytes, len);
	}
}

static __always_inline void count_kernel_flush(struct p4dstat_counts *c, __u64 *field)
{
	struct p4dstat_comm_counts *slot;

	add(*field, 1);
	slot = comm_slot(c);
	if (slot)
		add(slot->tlb_kernel, 1);
}

/* ---- P4D table allocations ---- */

/* pgtable:p4d_alloc: patch 1 of p4dscope's series. */
SEC("tp_btf/p4d_alloc")
int BPF_PROG(p4d_alloc_tp, struct mm_struct *mm, unsigned long address, p4d_t *p4d,
	     enum p4d_alloc_outcome outcome)
{
	struct p4dstat_counts *c = traced();

	if (!c)
		return 0;
	if (outcome == bpf_core_enum_value(enum p4d_alloc_outcome, P4D_ALLOC_INSTALLED))
		count_p4d_alloc(c, mm);
	else if (outcome == bpf_core_enum_value(enum p4d_alloc_outcome, P4D_ALLOC_RACED))
		add(c->p4d_raced, 1);
	else
		add(c->p4d_nomem, 1);
	return 0;
}

/*
 * Without the series: __p4d_alloc() returns 0 for an installed table and for one that
 * lost the race (freed inline by p4d_free(), nothing to probe), -ENOMEM otherwise.
 */
SEC("fexit/__p4d_alloc")
int BPF_PROG(p4d_alloc_fexit, struct mm_struct *mm, pgd_t *pgd, unsigned long address,
	     int ret)
{
	struct p4dstat_counts *c = traced();

	if (!c)
		return 0;
	if (ret)
		add(c->p4d_nomem, 1);
	else
		count_p4d_alloc(c, mm);
	return 0;
}

/* kprobes: the call is counted on entry (mm is known only there), failures on return. */
SEC("kprobe/__p4d_alloc")
int BPF_KPROBE(p4d_alloc_kprobe, struct mm_struct *mm)
{
	struct p4dstat_counts *c = traced();

	if (c)
		count_p4d_alloc(c, mm);
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

/* ---- P4D table frees ---- */

/* pgtable:p4d_free: patch 1. */
SEC("tp_btf/p4d_free")
int BPF_PROG(p4d_free_tp)
{
	count_p4d_free();
	return 0;
}

/* ___p4d_free_tlb(): out of line in arch/x86/mm/pgtable.c when CONFIG_PGTABLE_LEVELS > 4. */
SEC("fentry/___p4d_free_tlb")
int BPF_PROG(p4d_free_fentry)
{
	count_p4d_free();
	return 0;
}

SEC("kprobe/___p4d_free_tlb")
int BPF_KPROBE(p4d_free_kprobe)
{
	count_p4d_free();
	return 0;
}

/* ---- kernel top-level entry syncs ---- */

/* pgtable:kernel_pgd_sync: patch 2. */
SEC("tp_btf/kernel_pgd_sync")
int BPF_PROG(kernel_pgd_sync_tp, unsigned long start, unsigned long end,
	     enum kernel_pgd_sync_level level, unsigned int copied, unsigned int visited)
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

/* mmap:x86_get_unmapped_area: patches 4 and 5. Window and outcome as its TP_fast_assign. */
SEC("tp_btf/x86_get_unmapped_area")
int BPF_PROG(gua_tp, unsigned long hint, unsigned long len, unsigned long flags,
	     enum x86_gua_path path, unsigned long high_limit, enum x86_gua_outcome outcome,
	     unsigned long result)
{
	struct p4dstat_counts *c = traced();
	bool full;

	if (!c)
		return 0;
	full = high_limit ? high_limit > P4DSTAT_KERNEL_MAP_WINDOW :
	       hint > P4DSTAT_KERNEL_MAP_WINDOW && hint < task_size_max;
	add(c->gua_window[full ? P4DSTAT_WINDOW_FULL : P4DSTAT_WINDOW_DEFAULT], 1);

	if (is_err_value(result))
		add(c->gua_outcome[result == (unsigned long)-EINVAL ? P4DSTAT_OUTCOME_EINVAL :
				   P4DSTAT_OUTCOME_ENOMEM], 1);
	else if (outcome == bpf_core_enum_value(enum x86_gua_outcome, X86_GUA_FIXED))
		add(c->gua_outcome[P4DSTAT_OUTCOME_FIXED], 1);
	else if (outcome == bpf_core_enum_value(enum x86_gua_outcome, X86_GUA_HINT))
		add(c->gua_outcome[P4DSTAT_OUTCOME_HINT], 1);
	else if (outcome == bpf_core_enum_value(enum x86_gua_outcome, X86_GUA_SEARCH))
		add(c->gua_outcome[P4DSTAT_OUTCOME_SEARCH], 1);
	else if (outcome == bpf_core_enum_value(enum x86_gua_outcome, X86_GUA_FALLBACK))
		add(c->gua_outcome[P4DSTAT_OUTCOME_FALLBACK], 1);

	if (!is_err_value(result) && result >= P4D_DEFAULT_MAP_WINDOW)
		count_above47(c, len);
	return 0;
}

/*
 * Without the series: the generic get_unmapped_area() (mm/mmap.c) around every
 * placement gives the result and length, not the window or the outcome.
 */
static int gua_exit(unsigned long len, unsigned long ret)
{
	struct p4dstat_counts *c = traced();

	if (c && !is_err_value(ret) && ret >= P4D_DEFAULT_MAP_WINDOW)
		count_above47(c, len);
	return 0;
}

SEC("fexit/get_unmapped_area")
int BPF_PROG(gua_fexit, struct file *file, unsigned long addr, unsigned long len,
	     unsigned long pgoff, unsigned long flags, unsigned long ret)
{
	return gua_exit(len, ret);
}

/* Since 6.10 get_unmapped_area() is an inline wrapper of this, which takes vm_flags. */
SEC("fexit/__get_unmapped_area")
int BPF_PROG(gua_vmflags_fexit, struct file *file, unsigned long addr, unsigned long len,
	     unsigned long pgoff, unsigned long flags, unsigned long vm_flags, unsigned long ret)
{
	return gua_exit(len, ret);
}

/* ---- TLB flushes ---- */

/* tlb:tlb_flush (x86 since 3.17; tp_btf since 5.5); it does not see kernel-range flushes. */
SEC("tp_btf/tlb_flush")
int BPF_PROG(tlb_flush_tp, int reason, unsigned long pages)
{
	struct p4dstat_counts *c = traced();
	struct p4dstat_comm_counts *slot;

	if (!c || reason < 0 || reason >= P4DSTAT_TLB_REASONS)
		return 0;
	add(c->tlb_flush[reason], 1);
	slot = comm_slot(c);
	if (slot)
		add(slot->tlb_flush, 1);
	return 0;
}

/* Kernel-range flushes: x86's flush_tlb_kernel_range() and flush_tlb_all(). */
SEC("fentry/flush_tlb_kernel_range")
int BPF_PROG(tlb_kernel_range_fentry)
{
	struct p4dstat_counts *c = traced();

	if (c)
		count_kernel_flush(c, &c->tlb_kernel_range);
	return 0;
}

SEC("fentry/flush_tlb_all")
int BPF_PROG(tlb_all_fentry)
{
	struct p4dstat_counts *c = traced();

	if (c)
		count_kernel_flush(c, &c->tlb_all);
	return 0;
}

SEC("kprobe/flush_tlb_kernel_range")
int BPF_KPROBE(tlb_kernel_range_kprobe)
{
	struct p4dstat_counts *c = traced();

	if (c)
		count_kernel_flush(c, &c->tlb_kernel_range);
	return 0;
}

SEC("kprobe/flush_tlb_all")
int BPF_KPROBE(tlb_all_kprobe)
{
	struct p4dstat_counts *c = traced();

	if (c)
		count_kernel_flush(c, &c->tlb_all);
	return 0;
}

/* ---- mmap() cross-check ---- */

/*
 * syscalls:sys_exit_mmap (CONFIG_FTRACE_SYSCALLS) has only the result; the length is
 * the syscall's second argument, still in the task's saved user registers.
 */
SEC("tracepoint/syscalls/sys_exit_mmap")
int mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct p4dstat_counts *c = traced();
	struct pt_regs *regs;
	unsigned long len;

	if (!c || ctx->ret < (long)P4D_DEFAULT_MAP_WINDOW)	/* below, or an error */
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	len = BPF_CORE_READ(regs, si);
	add(c->mmap_above47, 1);
	add(c->mmap_above47_bytes, (len + P4D_PAGE_SIZE - 1) & ~(P4D_PAGE_SIZE - 1));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
