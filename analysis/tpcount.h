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
};

/* The events, in enum order: trace system and event name. */
#define TPCOUNT_EVENTS {				\
	{ "pgtable", "p4d_alloc" },			\
	{ "pgtable", "p4d_free" },			\
	{ "pgtable", "kernel_pgd_sync" },		\
	{ "mmap", "x86_get_unmapped_area" },		\
}

/*
 * Program KIND_EVENT (e.g. tp_btf_p4d_alloc) counts EVENT when attached as KIND; tpcount
 * pins it under that name in its directory.
 */
#define TPCOUNT_KINDS	{ "tp_btf", "raw_tp", "tp" }

/* The programs' .bss: nothing else lives there, so the pinned .bss map is exactly this. */
struct tpcount_counts {
	unsigned long long hits[TPC_NR_EVENTS];
};

/* Where tpcount pins its links and the counters map. */
#define TPCOUNT_PIN_DIR		"/sys/fs/bpf/p4dbench"
#define TPCOUNT_COUNTS_PIN	TPCOUNT_PIN_DIR "/counts"

#endif /* P4DBENCH_TPCOUNT_H */
