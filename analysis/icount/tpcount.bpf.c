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
 *
 * The "tables" kind (programs pt_*) counts, for a pass that is not timed, the page-table
 * pages allocated and freed per level (fentry on the functions every user page-table
 * allocation and every freeing through an mmu_gather passes: for PTE tables
 * pte_alloc_one(), which the fault-around and THP paths call directly) and the 4K pages
 * the kernel clears.
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

#define COUNT_CALLS(func, ev)						\
SEC("fentry/" #func)							\
int pt_##func(void *ctx)						\
{									\
	COUNT(ev);							\
	return 0;							\
}

COUNT_CALLS(__p4d_alloc, TPC_ALLOC_P4D)
COUNT_CALLS(__pud_alloc, TPC_ALLOC_PUD)
COUNT_CALLS(__pmd_alloc, TPC_ALLOC_PMD)
COUNT_CALLS(pte_alloc_one, TPC_ALLOC_PTE)
COUNT_CALLS(___p4d_free_tlb, TPC_FREE_P4D)
COUNT_CALLS(___pud_free_tlb, TPC_FREE_PUD)
COUNT_CALLS(___pmd_free_tlb, TPC_FREE_PMD)
COUNT_CALLS(___pte_free_tlb, TPC_FREE_PTE)

/*
 * Pages cleared. clear_page() is assembly that neither kprobes (notrace) nor fentry can
 * reach, so count where clearing is asked for: every page allocation with __GFP_ZERO
 * (user 4K pages on x86, page tables) is cleared by the allocator, and a THP is
 * cleared page by page by clear_huge_page() (6.1) or folio_zero_user() (6.9 on; the
 * kernel has one of the two). Nothing else on the measured paths clears, unless the
 * kernel runs with init_on_alloc (Debian's configuration): then post_alloc_hook() clears
 * every allocation, flag or not, and every page allocated counts.
 */
#define GFP_ZERO	0x100u	/* ___GFP_ZERO, in 6.1, 6.12 and 7.3 alike */

/* Set by tpcount.c before loading: the kernel runs with init_on_alloc. */
const volatile int clear_every_alloc;

struct page;

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(pt_page_alloc, struct page *page, unsigned int order, unsigned int gfp_flags)
{
	if (page && (clear_every_alloc || (gfp_flags & GFP_ZERO)))
		__sync_fetch_and_add(&counts.hits[TPC_PAGE_CLEAR], 1ULL << order);
	return 0;
}

SEC("fentry/clear_huge_page")
int BPF_PROG(pt_clear_huge_page, struct page *page, unsigned long addr_hint,
	     unsigned int pages_per_huge_page)
{
	__sync_fetch_and_add(&counts.hits[TPC_PAGE_CLEAR], pages_per_huge_page);
	return 0;
}

/* A large folio's order: the low byte of its second page's flags (folio_large_order()). */
struct folio {
	unsigned long _flags_1;
} __attribute__((preserve_access_index));

SEC("fentry/folio_zero_user")
int BPF_PROG(pt_folio_zero_user, struct folio *folio, unsigned long addr_hint)
{
	unsigned int order = folio->_flags_1 & 0xff;

	/* The paths timed clear only THPs here (order 9); a bound keeps a stray value out. */
	if (order >= 1 && order <= 18)
		__sync_fetch_and_add(&counts.hits[TPC_PAGE_CLEAR], 1ULL << order);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
