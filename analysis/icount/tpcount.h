/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tpcount: the counters its BPF programs keep, one per p4dscope trace event. Shared by
 * tpcount.bpf.c (which increments them), tpcount.c (which pins them) and the benchmark
 * programs (which read the pinned map around what they time).
 */
#ifndef P4DBENCH_TPCOUNT_H
#define P4DBENCH_TPCOUNT_H

enum tpcount_event {
	TPC_P4D_ALLOC,		/* pgtable:p4d_alloc, every outcome */
	TPC_P4D_FREE,		/* pgtable:p4d_free */
	TPC_PGD_SYNC,		/* pgtable:kernel_pgd_sync */
	TPC_GUA,		/* mmap:x86_get_unmapped_area */
	TPC_NR_EVENTS,
	/*
	 * The "tables" kind: page-table pages a process's page tables gain and lose, per
	 * level, and pages the kernel clears, from kernel functions (not trace events), for
	 * a pass that is not timed.
	 */
	TPC_ALLOC_P4D = TPC_NR_EVENTS,	/* fentry __p4d_alloc (absent when folded) */
	TPC_ALLOC_PUD,		/* fentry __pud_alloc */
	TPC_ALLOC_PMD,		/* fentry __pmd_alloc */
	TPC_ALLOC_PTE,		/* fentry pte_alloc_one (incl. THP deposits) */
	TPC_FREE_P4D,		/* fentry ___p4d_free_tlb (absent when folded) */
	TPC_FREE_PUD,		/* fentry ___pud_free_tlb */
	TPC_FREE_PMD,		/* fentry ___pmd_free_tlb */
	TPC_FREE_PTE,		/* fentry ___pte_free_tlb */
	TPC_PAGE_CLEAR,		/* 4K pages cleared: __GFP_ZERO allocations, THPs */
	TPC_NR_COUNTERS,
};

/* The events, in enum order: trace system and event name. */
#define TPCOUNT_EVENTS {				\
	{ "pgtable", "p4d_alloc" },			\
	{ "pgtable", "p4d_free" },			\
	{ "pgtable", "kernel_pgd_sync" },		\
	{ "mmap", "x86_get_unmapped_area" },		\
}

/* Every counter's name, in enum order (tpcount show). */
#define TPCOUNT_NAMES {							\
	"p4d_alloc", "p4d_free", "kernel_pgd_sync", "x86_get_unmapped_area",	\
	"alloc_p4d", "alloc_pud", "alloc_pmd", "alloc_pte",			\
	"free_p4d", "free_pud", "free_pmd", "free_pte", "page_clear",		\
}

/*
 * Program KIND_EVENT (e.g. tp_btf_p4d_alloc) counts EVENT when attached as KIND; tpcount
 * pins it under that name in its directory.
 */
/* The programs' .bss: nothing else lives there, so the pinned .bss map is exactly this. */
struct tpcount_counts {
	unsigned long long hits[TPC_NR_COUNTERS];
};

/* Where tpcount pins its links and the counters map. */
#define TPCOUNT_PIN_DIR		"/sys/fs/bpf/p4dbench"
#define TPCOUNT_COUNTS_PIN	TPCOUNT_PIN_DIR "/counts"

#endif /* P4DBENCH_TPCOUNT_H */
