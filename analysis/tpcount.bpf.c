// SPDX-License-Identifier: GPL-2.0
/*
 * tpcount: the smallest useful consumer of p4dscope's trace events, to price what a
 * consumer adds per event. Each program counts one event into a global counter, as the
 * kernel's BPF trigger benchmark (tools/testing/selftests/bpf/benchs/bench_trigger.c)
 * does for its raw_tp and tp figures. The same counter is reached three ways:
 *   tp_btf/  BTF-typed raw tracepoint (what p4dstat uses)
 *   raw_tp/  raw tracepoint (bpf_raw_tracepoint_open)
 *   tracepoint/  classic tracepoint, through the perf event and its ring-buffer layout
 * tpcount.c loads only the programs of the kind it is asked for.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tpcount.h"

struct tpcount_counts counts = {};

#define COUNT(ev)	__sync_fetch_and_add(&counts.hits[ev], 1)

#define COUNTERS(system, event, ev)					\
SEC("tp_btf/" #event)							\
int BPF_PROG(tp_btf_##event)						\
{									\
	COUNT(ev);							\
	return 0;							\
}									\
SEC("raw_tp/" #event)							\
int BPF_PROG(raw_tp_##event)						\
{									\
	COUNT(ev);							\
	return 0;							\
}									\
SEC("tracepoint/" #system "/" #event)					\
int tp_##event(void *ctx)						\
{									\
	COUNT(ev);							\
	return 0;							\
}

COUNTERS(pgtable, p4d_alloc, TPC_P4D_ALLOC)
COUNTERS(pgtable, p4d_free, TPC_P4D_FREE)
COUNTERS(pgtable, kernel_pgd_sync, TPC_PGD_SYNC)
COUNTERS(mmap, x86_get_unmapped_area, TPC_GUA)

char LICENSE[] SEC("license") = "GPL";
