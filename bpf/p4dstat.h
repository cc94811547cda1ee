/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p4dstat: what the BPF programs (p4dstat.bpf.c) and user space (p4dstat.c) share.
 *
 * Every counter is cumulative since the programs were attached; user space turns them
 * into per-interval deltas, so nothing is ever reset under a running program.
 */
#ifndef P4DSTAT_H
#define P4DSTAT_H

#include "p4d_layout.h"

#define P4DSTAT_COMM_LEN	16	/* TASK_COMM_LEN */
#define P4DSTAT_COMMS_DEFAULT	256	/* -C table slots unless --comms says otherwise */

/*
 * The kernel's DEFAULT_MAP_WINDOW (arch/x86/include/asm/page_64_types.h) ends one page
 * below the 47-bit boundary; mmap:x86_get_unmapped_area compares hints against it.
 */
#define P4DSTAT_KERNEL_MAP_WINDOW	(P4D_DEFAULT_MAP_WINDOW - P4D_PAGE_SIZE)

/* tlb:tlb_flush reasons, in the order of enum tlb_flush_reason (include/linux/mm_types.h). */
#define P4DSTAT_TLB_REASONS	5

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
	__u64 p4d_alloc_user;		/* P4D tables installed in a process's PGD */
	__u64 p4d_alloc_kernel;		/* ... in init_mm's */
	__u64 p4d_raced;		/* allocated, lost the race, freed again */
	__u64 p4d_nomem;		/* allocation failed */
	__u64 p4d_free;			/* installed tables unlinked to be freed */
	__u64 sync_calls;		/* sync_global_pgds() runs */
	__u64 sync_copied;		/* top-level entries copied into page tables */
	__u64 sync_visited;		/* page tables examined */
	__u64 tlb_flush[P4DSTAT_TLB_REASONS];
	__u64 tlb_kernel_range;		/* flush_tlb_kernel_range() calls */
	__u64 tlb_all;			/* flush_tlb_all() calls */
	__u64 gua_window[P4DSTAT_WINDOWS];
	__u64 gua_outcome[P4DSTAT_OUTCOMES];
	__u64 gua_above47;		/* placements at or above 47 bits ... */
	__u64 gua_above47_bytes;	/* ... and their length */
	__u64 mmap_above47;		/* mmap() syscalls returning such an address ... */
	__u64 mmap_above47_bytes;	/* ... and the page-rounded length they asked for */
	__u64 comm_dropped;		/* events of commands the -C table had no slot for */
};

/* What -C keeps per command (the key is the command name, P4DSTAT_COMM_LEN bytes). */
struct p4dstat_comm_counts {
	__u64 p4d_alloc;		/* installed, user and kernel */
	__u64 p4d_free;
	__u64 tlb_flush;		/* tlb:tlb_flush, every reason */
	__u64 tlb_kernel;		/* flush_tlb_kernel_range() and flush_tlb_all() */
	__u64 above47;			/* get_unmapped_area placements above 47 bits ... */
	__u64 above47_bytes;		/* ... and their length */
};

struct p4dstat_comm_key {
	char comm[P4DSTAT_COMM_LEN];
};

#endif /* P4DSTAT_H */
