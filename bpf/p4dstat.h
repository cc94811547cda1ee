/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p4dstat: what the BPF programs (p4dstat.bpf.c) and user space (p4dstat.c) share.
 *
 * Every counter is cumulative since the programs were attached; user space turns them
 * into per-interval deltas, so nothing is ever reset under a running program.
 */
#ifndef P4DSTAT_H
#define P4DSTAT_H

#ifndef __bpf__		/* user space; the BPF side has these types from p4d_kernel.h */
#include <stdbool.h>
#include <linux/types.h>
#endif
#include "p4d_layout.h"

#define P4DSTAT_COMM_LEN	16	/* TASK_COMM_LEN */
#define P4DSTAT_COMMS_DEFAULT	256	/* -C table slots unless --comms says otherwise */
#define P4DSTAT_TABLES_MAX	65536	/* P4D tables whose allocation is remembered */
#define P4DSTAT_HIST_SLOTS	40	/* log2 buckets of table lifetimes, in usecs */
#define P4DSTAT_FOLLOW_MAX	32768	/* -- CMD: processes of the command followed at once */

/*
 * The kernel's DEFAULT_MAP_WINDOW (arch/x86/include/asm/page_64_types.h) ends one page
 * below the 47-bit boundary; mmap:x86_get_unmapped_area compares hints against it.
 */
#define P4DSTAT_KERNEL_MAP_WINDOW	(P4D_DEFAULT_MAP_WINDOW - P4D_PAGE_SIZE)

/*
 * tlb:tlb_flush reasons, in the order of enum tlb_flush_reason (include/linux/mm_types.h);
 * where each fires: arch/x86/mm/tlb.c.
 */
enum p4dstat_tlb_reason {
	P4DSTAT_TLB_TASK_SWITCH,	/* switch_mm_irqs_off(): CR3 loaded with another mm */
	P4DSTAT_TLB_SHOOTDOWN_RECEIVED,	/* flush_tlb_func() for another CPU's request */
	P4DSTAT_TLB_BATCHED,		/* flush_tlb_func() with no mm, this CPU: the batched
					   flush after unmapping pages (arch_tlbbatch_flush()) */
	P4DSTAT_TLB_LOCAL_MM,		/* flush_tlb_func() for an mm's range, this CPU */
	P4DSTAT_TLB_SHOOTDOWN_REQUEST,	/* native_flush_tlb_multi(): a request, not a flush */
	P4DSTAT_TLB_REASONS,
};

/* Why a P4D table exists: whose page table it is in, which PGD slot it fills, and when. */
enum p4dstat_cause {
	P4DSTAT_CAUSE_FIRST,		/* PGD slot 0: the low 256 TiB, every process has it */
	P4DSTAT_CAUSE_EXEC_STACK,	/* the top user slot, during execve(): the arg stack */
	P4DSTAT_CAUSE_HIGH,		/* another user slot: a hint or MAP_FIXED above 47 bits */
	P4DSTAT_CAUSE_LDT,		/* a kernel-half slot of a process's mm: PTI's LDT remap */
	P4DSTAT_CAUSE_KERNEL,		/* the kernel's own page table, init_mm */
	P4DSTAT_CAUSES,
};

#define P4DSTAT_KERNEL_HALF	(1UL << 63)	/* x86-64: kernel addresses have bit 63 set */
/* P4D tables exist only with 5 levels, where one PGD entry maps 256 TiB. */
#define P4DSTAT_PGDIR_SIZE	(1UL << P4D_PGDIR_SHIFT_L5)

/*
 * The cause of a table installed for the region at ADDRESS. INIT_MM: the mm is init_mm
 * (p4d_alloc's init_mm field). A process's mm holds a kernel-half table only for PTI's
 * LDT remap (map_ldt_struct() in arch/x86/kernel/ldt.c, at LDT_BASE_ADDR), so that is
 * what a kernel address with INIT_MM false is. EXEC_STACK: the table is the one execve()
 * builds its argument stack in (exec_stack_table() in p4dstat.bpf.c). Shared by the BPF
 * programs and tests/host/p4dstat-cause.c.
 */
static inline enum p4dstat_cause p4dstat_cause(bool init_mm, __u64 address, bool exec_stack)
{
	if (init_mm)
		return P4DSTAT_CAUSE_KERNEL;
	if (address & P4DSTAT_KERNEL_HALF)
		return P4DSTAT_CAUSE_LDT;
	if (address < P4DSTAT_PGDIR_SIZE)
		return P4DSTAT_CAUSE_FIRST;
	return exec_stack ? P4DSTAT_CAUSE_EXEC_STACK : P4DSTAT_CAUSE_HIGH;
}

/* The address window a get_unmapped_area decision searched (enum x86_gua_window). */
enum p4dstat_window {
	P4DSTAT_WINDOW_DEFAULT,		/* below 47 bits */
	P4DSTAT_WINDOW_FULL,		/* the whole 56-bit space a high hint opens */
	P4DSTAT_WINDOWS,
};

/* How get_unmapped_area placed a mapping (enum x86_gua_outcome, patch 4). */
enum p4dstat_outcome {
	P4DSTAT_OUTCOME_FIXED,
	P4DSTAT_OUTCOME_HINT,
	P4DSTAT_OUTCOME_SEARCH,
	P4DSTAT_OUTCOME_FALLBACK,
	P4DSTAT_OUTCOME_ENOMEM,
	P4DSTAT_OUTCOME_EINVAL,
	P4DSTAT_OUTCOMES,
};

/* The system-wide (or -p filtered) counters: one per CPU, summed by user space. */
struct p4dstat_counts {
	__u64 p4d_alloc_user;		/* P4D tables installed in a process's page table */
	__u64 p4d_alloc_kernel;		/* ... in the kernel's, init_mm */
	__u64 p4d_raced;		/* allocated, lost the race, freed again */
	__u64 p4d_nomem;		/* allocation failed */
	__u64 p4d_free;			/* installed tables unlinked to be freed, all */
	__u64 p4d_free_old;		/* ... of them, tables allocated before the trace */
	__u64 p4d_untracked;		/* installed, but the table map was full */
	__u64 p4d_cause[P4DSTAT_CAUSES];	/* installed tables by cause */
	__u64 sync_calls;		/* sync_global_pgds() runs */
	__u64 sync_copied;		/* top-level entries copied into page tables */
	__u64 sync_visited;		/* page tables examined */
	__u64 tlb_flush[P4DSTAT_TLB_REASONS];	/* tlb:tlb_flush with pages != 0 */
	__u64 tlb_noop;			/* tlb:tlb_flush with pages == 0: nothing flushed */
	__u64 tlb_ipis;			/* call-function IPIs that ran a shootdown request */
	__u64 tlb_kernel_range;		/* flush_tlb_kernel_range() calls */
	__u64 tlb_all;			/* flush_tlb_all() calls */
	__u64 gua_window[P4DSTAT_WINDOWS];
	__u64 gua_outcome[P4DSTAT_OUTCOMES];
	__u64 gua_above47;		/* decisions at or above 47 bits, refused or not */
	__u64 mmap_above47;		/* mmap() calls that succeeded there ... */
	__u64 mmap_above47_bytes;	/* ... and the page-rounded length they asked for */
	__u64 comm_dropped;		/* events of commands the -C table had no slot for */
	__u64 mmap_untracked;		/* decisions above 47 bits mmap()'s exit cannot see */
	__u64 follow_dropped;		/* -- CMD: children not followed, the set was full */
};

/* What -C keeps per command (the key is the command name, P4DSTAT_COMM_LEN bytes). */
struct p4dstat_comm_counts {
	__u64 p4d_alloc;		/* installed, user and kernel */
	__u64 p4d_free;
	__u64 tlb_flush;		/* flushes done: tlb:tlb_flush, pages != 0, no request */
	__u64 tlb_kernel;		/* flush_tlb_kernel_range() and flush_tlb_all() calls */
	__u64 mmap_above47;		/* mmap() calls that placed a mapping above 47 bits ... */
	__u64 mmap_above47_bytes;	/* ... and their length */
};

struct p4dstat_comm_key {
	char comm[P4DSTAT_COMM_LEN];
};

/*
 * Task-switch flushes on one CPU not charged yet: they are the task's that runs after
 * them, charged when it leaves the CPU (map "switch_flushes").
 */
struct p4dstat_switch_flushes {
	__u64 flushes;			/* pages != 0 */
	__u64 noop;			/* pages == 0 */
};

/* A P4D table installed while p4dstat runs, until it is freed (map "tables"). */
struct p4dstat_table {
	__u64 born_ns;			/* bpf_ktime_get_ns() at installation */
	struct p4dstat_comm_key owner;	/* the command whose mm it is, for -C */
};

#endif /* P4DSTAT_H */
