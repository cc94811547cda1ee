// SPDX-License-Identifier: GPL-2.0
/*
 * test-model: TAP tests of the walk model (model.c, presets.c) on synthetic page tables.
 *
 *   test-model            run the tests (kselftest-style TAP; exit 1 on any failure)
 *   test-model --bench [N] [PRESET]
 *                         time N (default 50M) wm_access calls on synthetic streams
 *
 * The synthetic tables: every distinct paging structure gets its own 4K page, at a
 * physical address made from its level and the linear-address bits above that level's
 * index, and its entries are 8 bytes at index*8:
 *
 *   table of level L for va  = (L << 46) | (VA[top:12+9L] << 12)     top = 56 or 47
 *   entry of level L for va  = table + VA[12+9L-1 : 12+9(L-1)] * 8
 *
 * So a table page is 4K-aligned: its entries 0-7 share one 64-byte line, which falls in
 * L1D set 0 (64 sets); entries 8k..8k+7 are line k, in set k. Data pages sit below 2^41
 * (physical = linear & (2^40-1), plus a movable delta), far from the tables.
 *
 * Every expected number below is worked out in the comment next to it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hold.h"
#include "model.h"

/* ---- TAP ------------------------------------------------------------------------- */

static int n_tests, n_failed;
static bool cur_ok;

static void begin(void)
{
	cur_ok = true;
}

static void end(const char *name)
{
	n_tests++;
	if (!cur_ok)
		n_failed++;
	printf("%sok %d %s\n", cur_ok ? "" : "not ", n_tests, name);
	fflush(stdout);
}

/* Check one number; on a mismatch say which and fail the current test. */
#define EQ(what, got, want) eq_(what, (uint64_t)(got), (uint64_t)(want), __LINE__)
static void eq_(const char *what, uint64_t got, uint64_t want, int line)
{
	if (got == want)
		return;
	printf("#   line %d: %s: got %" PRIu64 ", want %" PRIu64 "\n", line, what, got, want);
	cur_ok = false;
}

#define DEQ(what, got, want) deq_(what, got, want, __LINE__)
static void deq_(const char *what, double got, double want, int line)
{
	if (got == want)
		return;
	printf("#   line %d: %s: got %.3f, want %.3f\n", line, what, got, want);
	cur_ok = false;
}

#define TRUE(what, cond) EQ(what, !!(cond), 1)

/* ---- synthetic page tables ------------------------------------------------------- */

struct pt {
	int levels;		/* 4 or 5 */
	int leaf;		/* 1 (4K), 2 (2M), 3 (1G) */
	bool present;		/* the leaf entry is present */
	bool global;		/* the leaf's G bit */
	bool fail;		/* the walker knows no root */
	uint64_t pa_delta;	/* added to every data page's physical address */
};

static uint64_t va_bits(uint64_t va, int levels)
{
	return va & ((1ULL << (levels == 5 ? 57 : 48)) - 1);
}

static uint64_t entry_pa(uint64_t va, int level, int levels)
{
	uint64_t v = va_bits(va, levels);
	uint64_t table = ((uint64_t)level << 46) |
			 ((v >> (12 + 9 * level) & ((1ULL << 34) - 1)) << 12);

	return table + (v >> (12 + 9 * (level - 1)) & 511) * 8;
}

static uint64_t page_bytes(int leaf)
{
	return 1ULL << (12 + 9 * (leaf - 1));
}

static uint64_t pa_of(const struct pt *t, uint64_t va)
{
	return (va & ((1ULL << 40) - 1)) + t->pa_delta;
}

static bool walker(void *ctx, uint64_t va, struct wm_path *p)
{
	const struct pt *t = ctx;

	if (t->fail)
		return false;
	p->levels = t->levels;
	p->leaf = t->leaf;
	p->present = t->present;
	p->global = t->global;
	for (int l = t->levels; l >= t->leaf; l--)
		p->entry_pa[l] = entry_pa(va, l, t->levels);
	p->page_pa = pa_of(t, va) & ~(page_bytes(t->leaf) - 1);
	return true;
}

static void acc(struct wm_model *m, struct pt *t, uint64_t va)
{
	wm_access(m, va, pa_of(t, va), 8, walker, t);
}

static const struct wm_space_stats *ust(const struct wm_model *m)
{
	return &wm_stats(m)->space[WM_USER];
}

static uint64_t lvl(const struct wm_space_stats *s, int level)
{
	uint64_t n = 0;

	for (int w = 0; w < WM_NWHERE; w++)
		n += s->refs[level][w];
	return n;
}

static uint64_t refs_total(const struct wm_model *m)
{
	uint64_t n = 0;

	for (int sp = 0; sp < WM_NSPACES; sp++)
		for (int l = WM_PTE; l <= WM_PML5E; l++)
			n += lvl(&wm_stats(m)->space[sp], l);
	return n;
}

static uint64_t walks(const struct wm_model *m)
{
	return wm_stats(m)->space[WM_USER].l2_tlb_misses +
	       wm_stats(m)->space[WM_KERNEL].l2_tlb_misses;
}

static struct wm_model *new_model(const struct wm_preset *p)
{
	struct wm_model *m = wm_model_new(p);

	if (!m) {
		printf("Bail out! wm_model_new(%s) failed\n", p->name);
		exit(1);
	}
	return m;
}

#define BASE	0x40000000ULL	/* 1 GiB: PML5/PML4 index 0, PDPT index 1, PD index 0 */
#define PG	0x1000ULL
#define MB2	0x200000ULL
#define GB1	0x40000000ULL

/* ---- 1: sequential 4K pages in one 2M region ------------------------------------- */

/* N pages of one 2M region, each touched once at offset 0x800 (L1D set 32). */
static void seq_stream(struct wm_model *m, struct pt *t, int n)
{
	for (int i = 0; i < n; i++)
		acc(m, t, BASE + i * PG + 0x800);
}

static void test_sequential(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));
	const struct wm_space_stats *s = ust(m);

	/*
	 * 64 distinct pages, never seen: 64 L1 and L2 misses, 64 walks.
	 * Walk 0 finds no PSC entry and reads PML5E..PTE, all from memory (cold).
	 * Walks 1..63: the PDE cache holds VA[56:21] of the region, the deepest hit, so each
	 * reads only its PTE: psc_hits[PDE] = 63, the upper levels are read once each.
	 * PTEs: page i's PTE is entry i of one page table, line i/8 (L1D set i/8): the first
	 * PTE of each line (i = 0, 8, ..., 56) comes from memory, the 7 others from L1 (the
	 * line is still there: set 0 also holds the 4 upper-level lines, 5 <= 8 ways; data
	 * lines all go to set 32). So refs[PTE] = 8 MEM + 56 L1.
	 * Data: 64 new lines: 64 from memory.
	 */
	begin();
	seq_stream(m, &t, 64);
	EQ("accesses", s->accesses, 64);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 64);
	EQ("walks (l2_tlb_misses)", s->l2_tlb_misses, 64);
	EQ("walks_failed", s->walks_failed, 0);
	EQ("refs[PTE][MEM]", s->refs[WM_PTE][WM_AT_MEM], 8);
	EQ("refs[PTE][L1]", s->refs[WM_PTE][WM_AT_L1], 56);
	EQ("refs[PTE]", lvl(s, WM_PTE), 64);
	for (int l = WM_PDE; l <= WM_PML5E; l++) {
		EQ("refs[upper level]", lvl(s, l), 1);
		EQ("refs[upper level][MEM]", s->refs[l][WM_AT_MEM], 1);
	}
	EQ("psc_hits[PDE]", s->psc_hits[WM_PDE], 63);
	EQ("psc_hits[PDPTE]", s->psc_hits[WM_PDPTE], 0);
	EQ("psc_hits[PML4E]", s->psc_hits[WM_PML4E], 0);
	EQ("psc_hits[PML5E]", s->psc_hits[WM_PML5E], 0);
	EQ("page_accesses[4K]", s->page_accesses[WM_4K], 64);
	EQ("data_at[MEM]", s->data_at[WM_AT_MEM], 64);
	EQ("kernel accesses", wm_stats(m)->space[WM_KERNEL].accesses, 0);
	end("sequential 4K pages in one 2M region: 64 walks, 64 PTE reads, upper levels once");

	/* Second pass: all 64 still in the 72-entry L1 DTLB: no new miss, no walk. */
	begin();
	seq_stream(m, &t, 64);
	EQ("accesses", s->accesses, 128);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 64);
	EQ("walks", s->l2_tlb_misses, 64);
	EQ("refs", refs_total(m), 68);
	end("second pass over the same pages hits the L1 DTLB");

	/* wm_stats_reset zeroes every counter but keeps TLB and cache contents: a third pass
	 * walks nothing, and its data comes from L2 (all 64 lines are in the 1 MiB L2; L1D
	 * set 32 kept only 8 of them, and each of pages 0..55 evicts one of those before
	 * pages 56..63 come round again). */
	begin();
	{
		struct wm_stats zero;

		wm_stats_reset(m);
		memset(&zero, 0, sizeof(zero));
		EQ("stats all zero after reset", !memcmp(wm_stats(m), &zero, sizeof(zero)), 1);
	}
	seq_stream(m, &t, 64);
	EQ("walks", s->l2_tlb_misses, 0);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 0);
	EQ("data_at[L2]", s->data_at[WM_AT_L2], 64);
	end("wm_stats_reset zeroes counters and keeps TLB and cache contents");
	wm_model_free(m);
}

/* ---- 2: PSC misses under a round-robin stream ------------------------------------ */

static void round_robin(struct wm_model *m, struct pt *t, uint64_t stride, int n, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < n; j++)
			acc(m, t, BASE * (stride == MB2) + j * stride + r * PG);
}

static void test_psc_round_robin(void)
{
	struct wm_preset p = *wm_preset_find("splitpsc");
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m;
	const struct wm_space_stats *s;

	/* PDE cache of 4, PML4E cache of 2, no PDPTE or PML5E cache. */
	memset(p.psc_entries, 0, sizeof(p.psc_entries));
	p.psc_entries[WM_PDE] = 4;
	p.psc_entries[WM_PML4E] = 2;

	/*
	 * 5 regions of 2M in one 1G, round robin, 4 rounds, a new page each time: 20 walks.
	 * The PDE cache (4, LRU) never holds the next region: 5 > 4 in round-robin order, so
	 * every PDE lookup misses. The PML4E cache holds VA[56:39] = 0 after walk 0.
	 * Walk 0: no hit, reads 5 levels. Walks 1..19: deepest hit PML4E, read PDPTE, PDE,
	 * PTE. psc_hits[PML4E] = 19, psc_hits[PDE] = 0 (20 PDE misses of 20).
	 * refs: PML5E 1, PML4E 1, PDPTE 20, PDE 20, PTE 20.
	 */
	begin();
	m = new_model(&p);
	s = ust(m);
	round_robin(m, &t, MB2, 5, 4);
	EQ("walks", s->l2_tlb_misses, 20);
	EQ("psc_hits[PDE]", s->psc_hits[WM_PDE], 0);
	EQ("psc_hits[PML4E]", s->psc_hits[WM_PML4E], 19);
	EQ("refs[PML5E]", lvl(s, WM_PML5E), 1);
	EQ("refs[PML4E]", lvl(s, WM_PML4E), 1);
	EQ("refs[PDPTE]", lvl(s, WM_PDPTE), 20);
	EQ("refs[PDE]", lvl(s, WM_PDE), 20);
	EQ("refs[PTE]", lvl(s, WM_PTE), 20);
	wm_model_free(m);
	end("5 2M regions round robin over a 4-entry PDE cache: every PDE lookup misses");

	/*
	 * 4 regions: round 0 as above (walk 0 reads 5, walks 1..3 hit PML4E and read 3);
	 * rounds 1..3 (12 walks) hit the PDE cache and read the PTE only.
	 * psc_hits[PDE] = 12, psc_hits[PML4E] = 3;
	 * refs: PML5E 1, PML4E 1, PDPTE 4, PDE 4, PTE 16.
	 */
	begin();
	m = new_model(&p);
	s = ust(m);
	round_robin(m, &t, MB2, 4, 4);
	EQ("walks", s->l2_tlb_misses, 16);
	EQ("psc_hits[PDE]", s->psc_hits[WM_PDE], 12);
	EQ("psc_hits[PML4E]", s->psc_hits[WM_PML4E], 3);
	EQ("refs[PML5E]", lvl(s, WM_PML5E), 1);
	EQ("refs[PML4E]", lvl(s, WM_PML4E), 1);
	EQ("refs[PDPTE]", lvl(s, WM_PDPTE), 4);
	EQ("refs[PDE]", lvl(s, WM_PDE), 4);
	EQ("refs[PTE]", lvl(s, WM_PTE), 16);
	wm_model_free(m);
	end("4 2M regions round robin over a 4-entry PDE cache: hits from round 2 on");

	/* Only a PML5E cache, of 2 entries. Regions of 256 TiB (VA[56:48] = j). */
	memset(p.psc_entries, 0, sizeof(p.psc_entries));
	p.psc_entries[WM_PML5E] = 2;

	/* 3 regions > 2 entries, round robin, 3 rounds: 9 walks, every lookup misses, each
	 * walk reads all 5 levels: 9 refs per level, psc_hits all 0. */
	begin();
	m = new_model(&p);
	s = ust(m);
	round_robin(m, &t, 1ULL << 48, 3, 3);
	EQ("walks", s->l2_tlb_misses, 9);
	EQ("psc_hits[PML5E]", s->psc_hits[WM_PML5E], 0);
	for (int l = WM_PTE; l <= WM_PML5E; l++)
		EQ("refs[level]", lvl(s, l), 9);
	wm_model_free(m);
	end("3 256TiB regions round robin over a 2-entry PML5E cache: 9 PML5E misses of 9");

	/* 2 regions: walks 0 and 1 miss (5 levels each); the 4 walks of rounds 2 and 3 hit
	 * and read PML4E..PTE. psc_hits[PML5E] = 4; refs PML5E 2, every other level 6. */
	begin();
	m = new_model(&p);
	s = ust(m);
	round_robin(m, &t, 1ULL << 48, 2, 3);
	EQ("walks", s->l2_tlb_misses, 6);
	EQ("psc_hits[PML5E]", s->psc_hits[WM_PML5E], 4);
	EQ("refs[PML5E]", lvl(s, WM_PML5E), 2);
	for (int l = WM_PTE; l <= WM_PML4E; l++)
		EQ("refs[level]", lvl(s, l), 6);
	wm_model_free(m);
	end("2 256TiB regions round robin over a 2-entry PML5E cache: 2 misses, 4 hits");
}

/* ---- 3: 5-level vs 4-level ------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* A mixed stream valid in both paging modes: user pages below 2^47 over 16 PML4 slots,
 * kernel pages at 0xffff888000000000 + (< 2^36), and a CR3 write every 500 accesses so
 * walks keep going back to the top of the tree. */
static void mixed_stream(struct wm_model *m, struct pt *t)
{
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 20000; i++) {
		uint64_t r = rnd(), va;

		if (i % 500 == 499)
			wm_write_cr3(m, 0, false);
		if (r & 1)
			va = (r >> 8 & 15) << 39 | (r >> 12 & 511) << 30 | (r >> 21 & 3) << 21 |
			     (r >> 23 & 63) << 12;
		else
			va = 0xffff888000000000ULL | (r >> 8 & 63) << 30 | (r >> 14 & 511) << 12;
		acc(m, t, va | (r >> 40 & 0xff8));
	}
}

static void test_levels(void)
{
	struct pt t5 = { .levels = 5, .leaf = 1, .present = true };
	struct pt t4 = { .levels = 4, .leaf = 1, .present = true };
	struct wm_model *m5 = new_model(wm_preset_find("splitpsc"));
	struct wm_model *m4 = new_model(wm_preset_find("splitpsc"));
	uint64_t pml5e = 0;

	/*
	 * The same stream at 5 and 4 levels. The TLBs do not depend on the mode, and the
	 * PSC keys of levels 2..4 separate the same regions in both modes (user VA[56:48] is
	 * 0, kernel VA[56:47] all ones), so every walk starts at the same level unless its
	 * deepest 5-level hit is the PML5E cache, which in 4-level mode is no hit: then it
	 * reads from the PML4E in both. Per-level counts for levels 1..4 are equal, the
	 * 4-level run reads no PML5E, and the totals differ by exactly refs[PML5E] of the
	 * 5-level run. (Where each read is served may differ: PML5 lines take cache room.)
	 */
	begin();
	mixed_stream(m5, &t5);
	mixed_stream(m4, &t4);
	EQ("walks equal", walks(m5), walks(m4));
	for (int sp = 0; sp < WM_NSPACES; sp++) {
		const struct wm_space_stats *a = &wm_stats(m5)->space[sp];
		const struct wm_space_stats *b = &wm_stats(m4)->space[sp];

		for (int l = WM_PTE; l <= WM_PML4E; l++) {
			EQ("refs[level] equal", lvl(a, l), lvl(b, l));
			if (l >= WM_PDE)
				EQ("psc_hits[level] equal", a->psc_hits[l], b->psc_hits[l]);
		}
		EQ("4-level refs[PML5E]", lvl(b, WM_PML5E), 0);
		EQ("4-level psc_hits[PML5E]", b->psc_hits[WM_PML5E], 0);
		pml5e += lvl(a, WM_PML5E);
	}
	EQ("total difference = 5-level refs[PML5E]", refs_total(m5) - refs_total(m4), pml5e);
	TRUE("the stream reads PML5Es at all", pml5e >= 40);
	printf("#   walks %" PRIu64 ", refs 5-level %" PRIu64 ", 4-level %" PRIu64
	       ", PML5E %" PRIu64 "\n", walks(m5), refs_total(m5), refs_total(m4), pml5e);
	wm_model_free(m5);
	wm_model_free(m4);
	end("same stream at 5 and 4 levels: totals differ by exactly refs[PML5E]");
}

/* ---- 4: flushes ------------------------------------------------------------------ */

/*
 * The flush fixture (splitpsc, 5-level, 4K pages), after which counters are reset:
 *   PCID 1 current; A and B: non-global pages of the region at BASE, under PCID 1;
 *   G: a global kernel page (filled under PCID 1); C: a page of the same region as A,
 *   under PCID 2. PSC entries: PCID 1 for BASE's region and G's, PCID 2 for BASE's.
 * Probes (each a new access): D (a new page of BASE's region, PCID 1), E (a new page of
 * BASE's region under PCID 2), G2 (a new global page next to G) show the PSC state by how
 * many entries their walk reads: 5 = no PSC entry of that PCID and region, 1 = PDE hit.
 */
#define VA_A	(BASE + 1 * PG)
#define VA_B	(BASE + 2 * PG)
#define VA_C	(BASE + 3 * PG)
#define VA_D	(BASE + 4 * PG)
#define VA_E	(BASE + 5 * PG)
#define VA_G	0xffff888000000000ULL
#define VA_G2	(VA_G + PG)

static struct pt fx_t = { .levels = 5, .leaf = 1, .present = true };
static struct pt fx_g = { .levels = 5, .leaf = 1, .present = true, .global = true };

static struct wm_model *fixture(void)
{
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));

	wm_write_cr3(m, 1, false);
	acc(m, &fx_t, VA_A);
	acc(m, &fx_t, VA_B);
	acc(m, &fx_g, VA_G);
	wm_write_cr3(m, 2, true);
	acc(m, &fx_t, VA_C);
	wm_write_cr3(m, 1, true);
	wm_stats_reset(m);
	return m;
}

/* Access va; true if it walked. */
static bool walked(struct wm_model *m, struct pt *t, uint64_t va)
{
	uint64_t before = walks(m);

	acc(m, t, va);
	return walks(m) != before;
}

/* Access va (a new page): how many paging-structure entries its walk read. */
static uint64_t walk_len(struct wm_model *m, struct pt *t, uint64_t va)
{
	uint64_t before = refs_total(m);

	acc(m, t, va);
	return refs_total(m) - before;
}

/* Under PCID 2 for a moment (no flush either way). */
static bool walked_pcid2(struct wm_model *m, uint64_t va)
{
	bool w;

	wm_write_cr3(m, 2, true);
	w = walked(m, &fx_t, va);
	wm_write_cr3(m, 1, true);
	return w;
}

static uint64_t walk_len_pcid2(struct wm_model *m, uint64_t va)
{
	uint64_t n;

	wm_write_cr3(m, 2, true);
	n = walk_len(m, &fx_t, va);
	wm_write_cr3(m, 1, true);
	return n;
}

static void test_flushes(void)
{
	struct wm_model *m;

	/* The fixture itself: every page it filled is still translated. */
	begin();
	m = fixture();
	EQ("A cached", walked(m, &fx_t, VA_A), 0);
	EQ("B cached", walked(m, &fx_t, VA_B), 0);
	EQ("G cached", walked(m, &fx_g, VA_G), 0);
	EQ("C cached under PCID 2", walked_pcid2(m, VA_C), 0);
	EQ("A is not PCID 2's", walked_pcid2(m, VA_A), 1);
	EQ("PSC of PCID 1 (D reads PTE only)", walk_len(m, &fx_t, VA_D), 1);
	EQ("G counted in kernel space", wm_stats(m)->space[WM_KERNEL].accesses, 1);
	wm_model_free(m);
	end("flush fixture: A, B, G, C cached, PSCs of both PCIDs filled");

	/* MOV to CR3, PCID 1, no-flush clear: non-global entries of PCID 1 and its PSC
	 * entries go; G (global) and PCID 2's entries stay. */
	begin();
	m = fixture();
	wm_write_cr3(m, 1, false);
	EQ("flushes_cr3", wm_stats(m)->flushes_cr3, 1);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("B gone", walked(m, &fx_t, VA_B), 1);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	EQ("C (PCID 2) stays", walked_pcid2(m, VA_C), 0);
	EQ("PSC of PCID 2 stays (E reads 1)", walk_len_pcid2(m, VA_E), 1);
	wm_model_free(m);
	end("CR3 write: non-global entries and PSCs of the new PCID go, globals stay");

	/* MOV to CR3 with bit 63 set: nothing goes. */
	begin();
	m = fixture();
	wm_write_cr3(m, 1, true);
	EQ("flushes_cr3", wm_stats(m)->flushes_cr3, 0);
	EQ("PSC stays (D reads 1)", walk_len(m, &fx_t, VA_D), 1);
	EQ("A stays", walked(m, &fx_t, VA_A), 0);
	EQ("B stays", walked(m, &fx_t, VA_B), 0);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	wm_model_free(m);
	end("CR3 write with no-flush: nothing invalidated");

	/* MOV to CR3 loading PCID 2, no-flush clear, then back to 1 with no-flush: PCID 2
	 * lost its entries and PSCs, PCID 1 kept everything. */
	begin();
	m = fixture();
	wm_write_cr3(m, 2, false);
	EQ("PSC of PCID 2 gone (E reads 5)", walk_len(m, &fx_t, VA_E), 5);
	EQ("C (PCID 2) gone", walked(m, &fx_t, VA_C), 1);
	wm_write_cr3(m, 1, true);
	EQ("PSC of PCID 1 stays (D reads 1)", walk_len(m, &fx_t, VA_D), 1);
	EQ("A stays", walked(m, &fx_t, VA_A), 0);
	EQ("B stays", walked(m, &fx_t, VA_B), 0);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	wm_model_free(m);
	end("CR3 write to another PCID: only that PCID's entries go");

	/* INVLPG A: A's entries go (L1 and L2), B stays; all PSC entries of the current
	 * PCID go (D reads 5, G2 reads 5), PCID 2's stay (E reads 1); C stays. */
	begin();
	m = fixture();
	wm_invlpg(m, true, VA_A);
	EQ("flushes_invlpg", wm_stats(m)->flushes_invlpg, 1);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of PCID 1 for G's region gone (G2 reads 5)", walk_len(m, &fx_g, VA_G2), 5);
	EQ("PSC of PCID 2 stays (E reads 1)", walk_len_pcid2(m, VA_E), 1);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("B stays", walked(m, &fx_t, VA_B), 0);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	EQ("C stays", walked_pcid2(m, VA_C), 0);
	wm_model_free(m);
	end("INVLPG: only that page's TLB entry, all PSCs of the current PCID");

	/* INVLPG G: a global entry for that page goes too. */
	begin();
	m = fixture();
	wm_invlpg(m, true, VA_G);
	EQ("G gone", walked(m, &fx_g, VA_G), 1);
	EQ("A stays", walked(m, &fx_t, VA_A), 0);
	wm_model_free(m);
	end("INVLPG of a global page drops the global entry");

	/* INVLPG with the operand unknown: TLB entries stay, PSCs of PCID 1 go. */
	begin();
	m = fixture();
	wm_invlpg(m, false, 0);
	EQ("flushes_invlpg", wm_stats(m)->flushes_invlpg, 1);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of PCID 2 stays (E reads 1)", walk_len_pcid2(m, VA_E), 1);
	EQ("A stays", walked(m, &fx_t, VA_A), 0);
	EQ("B stays", walked(m, &fx_t, VA_B), 0);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	wm_model_free(m);
	end("INVLPG with unknown operand: PSCs only");

	/* INVPCID 0 (PCID 1, A): A's non-global entries; PCID 1's PSC entries on A's path
	 * (D, same region, reads 5) but not those of G's region (G2 reads 1); nothing of
	 * PCID 2. */
	begin();
	m = fixture();
	wm_invpcid(m, 0, 1, VA_A);
	EQ("flushes_invpcid", wm_stats(m)->flushes_invpcid, 1);
	EQ("PSC on A's path gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of G's region stays (G2 reads 1)", walk_len(m, &fx_g, VA_G2), 1);
	EQ("PSC of PCID 2 stays (E reads 1)", walk_len_pcid2(m, VA_E), 1);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("B stays", walked(m, &fx_t, VA_B), 0);
	EQ("C stays", walked_pcid2(m, VA_C), 0);
	wm_model_free(m);
	end("INVPCID type 0: that page and PCID only");

	/* INVPCID 0 on a global page: global translations are excepted. */
	begin();
	m = fixture();
	wm_invpcid(m, 0, 1, VA_G);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	wm_model_free(m);
	end("INVPCID type 0 keeps global translations");

	/* INVPCID 1 (PCID 1): all non-global entries and PSCs of PCID 1. */
	begin();
	m = fixture();
	wm_invpcid(m, 1, 1, 0);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of PCID 2 stays (E reads 1)", walk_len_pcid2(m, VA_E), 1);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("B gone", walked(m, &fx_t, VA_B), 1);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	EQ("C stays", walked_pcid2(m, VA_C), 0);
	wm_model_free(m);
	end("INVPCID type 1: one PCID's non-global entries and PSCs");

	/* INVPCID 2: everything, globals included, every PCID. */
	begin();
	m = fixture();
	wm_invpcid(m, 2, 0, 0);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of PCID 2 gone (E reads 5)", walk_len_pcid2(m, VA_E), 5);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("B gone", walked(m, &fx_t, VA_B), 1);
	EQ("G gone", walked(m, &fx_g, VA_G), 1);
	EQ("C gone", walked_pcid2(m, VA_C), 1);
	wm_model_free(m);
	end("INVPCID type 2: every entry including globals, every PSC");

	/* INVPCID 3: every non-global entry of every PCID, every PSC; G stays. */
	begin();
	m = fixture();
	wm_invpcid(m, 3, 0, 0);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of PCID 2 gone (E reads 5)", walk_len_pcid2(m, VA_E), 5);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("B gone", walked(m, &fx_t, VA_B), 1);
	EQ("G stays", walked(m, &fx_g, VA_G), 0);
	EQ("C gone", walked_pcid2(m, VA_C), 1);
	wm_model_free(m);
	end("INVPCID type 3: every non-global entry, every PSC; globals stay");

	/* An undefined INVPCID type changes nothing and is not counted. */
	begin();
	m = fixture();
	wm_invpcid(m, 4, 1, 0);
	EQ("flushes_invpcid", wm_stats(m)->flushes_invpcid, 0);
	EQ("PSC stays (D reads 1)", walk_len(m, &fx_t, VA_D), 1);
	EQ("A stays", walked(m, &fx_t, VA_A), 0);
	wm_model_free(m);
	end("INVPCID type 4 (undefined): nothing");

	/*
	 * A way freed by an invalidation is the next one filled. goldencove's L1 DTLB for 4K
	 * pages is 16 sets x 6 ways: P0..P5, 64 KiB apart, fill one set (6 walks); INVLPG P3
	 * frees a way; P6 (same set, a walk) takes it, so all six valid pages stay: touching
	 * them again costs no L1 miss (evicting any valid entry instead would cost one).
	 */
	begin();
	m = new_model(wm_preset_find("goldencove"));
	for (int k = 0; k < 6; k++)
		acc(m, &fx_t, BASE + k * 0x10000);
	wm_invlpg(m, true, BASE + 3 * 0x10000);
	acc(m, &fx_t, BASE + 6 * 0x10000);
	EQ("l1_dtlb_misses", ust(m)->l1_dtlb_misses, 7);
	for (int k = 0; k < 7; k++) {
		if (k != 3)
			acc(m, &fx_t, BASE + k * 0x10000);
	}
	EQ("P0-P2, P4-P6 all in the L1 DTLB", ust(m)->l1_dtlb_misses, 7);
	wm_model_free(m);
	end("a TLB way freed by INVLPG is refilled before a valid entry is evicted");

	/* CR4.PGE toggled: everything. */
	begin();
	m = fixture();
	wm_flush_global(m);
	EQ("flushes_global", wm_stats(m)->flushes_global, 1);
	EQ("PSC of PCID 1 gone (D reads 5)", walk_len(m, &fx_t, VA_D), 5);
	EQ("PSC of PCID 2 gone (E reads 5)", walk_len_pcid2(m, VA_E), 5);
	EQ("A gone", walked(m, &fx_t, VA_A), 1);
	EQ("G gone", walked(m, &fx_g, VA_G), 1);
	EQ("C gone", walked_pcid2(m, VA_C), 1);
	wm_model_free(m);
	end("global flush (CR4.PGE): everything, globals included");
}

/* ---- 5: stale refills ------------------------------------------------------------ */

static void test_stale(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));
	const struct wm_space_stats *s = ust(m);

	/*
	 * A walked at pa P. The guest remaps A elsewhere (pa_delta moves the data pages by
	 * 64 GiB) without a flush: the L1 DTLB hit's page does not contain the new pa: one
	 * stale refill, one more L1 miss and walk. The next access uses the new translation.
	 */
	begin();
	acc(m, &t, VA_A);
	t.pa_delta = 1ULL << 36;
	acc(m, &t, VA_A);
	EQ("stale_refills", s->stale_refills, 1);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 2);
	EQ("walks", s->l2_tlb_misses, 2);
	acc(m, &t, VA_A);
	EQ("stale_refills after", s->stale_refills, 1);
	EQ("walks after", s->l2_tlb_misses, 2);
	EQ("page_accesses[4K]", s->page_accesses[WM_4K], 3);
	end("stale L1 DTLB entry: counted, dropped, walked once");

	/*
	 * The same in the L2 TLB. 72 new pages in the next 2M region push A out of the
	 * 72-entry L1 DTLB (A is its least recently used entry); A's L2 entry stays (the
	 * L2's 128 sets get at most 2 of these 73 pages each). Back to A, same pa: an L2 hit,
	 * no walk. Out of the L1 again, then remapped: the L2 hit is stale: one refill, a walk.
	 */
	begin();
	wm_model_free(m);
	m = new_model(wm_preset_find("splitpsc"));
	s = ust(m);
	t.pa_delta = 0;
	acc(m, &t, VA_A);
	for (int k = 0; k < 72; k++)
		acc(m, &t, BASE + MB2 + k * PG);
	EQ("walks", s->l2_tlb_misses, 73);
	acc(m, &t, VA_A);
	EQ("A from the L2 TLB: no walk", s->l2_tlb_misses, 73);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 74);
	acc(m, &t, VA_A + 8);
	EQ("the L2 hit refilled the L1 DTLB", s->l1_dtlb_misses, 74);
	for (int k = 72; k < 144; k++)
		acc(m, &t, BASE + MB2 + k * PG);
	t.pa_delta = 1ULL << 36;
	acc(m, &t, VA_A);
	EQ("stale_refills", s->stale_refills, 1);
	EQ("walks", s->l2_tlb_misses, 73 + 72 + 1);
	end("stale L2 TLB entry: counted, dropped, walked");
	wm_model_free(m);
}

/* ---- 6: where walk references are served ----------------------------------------- */

static void test_cache_levels(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));
	const struct wm_space_stats *s = ust(m);
	uint64_t page80 = BASE + 80 * PG;

	begin();
	/* Page 80: cold walk, 5 entries from memory. Its PTE is entry 80: line 10 of the page
	 * table, L1D set 10. Pages 81..87: PDE-cache hits; their PTEs share line 10: L1. */
	for (int i = 80; i < 88; i++)
		acc(m, &t, BASE + i * PG + 0x800);
	EQ("refs[PTE][MEM]", s->refs[WM_PTE][WM_AT_MEM], 1);
	EQ("refs[PTE][L1]", s->refs[WM_PTE][WM_AT_L1], 7);
	for (int l = WM_PDE; l <= WM_PML5E; l++)
		EQ("refs[upper][MEM]", s->refs[l][WM_AT_MEM], 1);
	/*
	 * 8 data lines in L1D set 10 (offset 0x280 of pages 80..87, TLB hits): set 10 held
	 * only the page-table line; the 8th new line evicts it (LRU), it stays in the L2.
	 * INVLPG page 80 (its TLB entries and every PSC entry go), then page 80 again: a
	 * walk of 5 levels, the 4 upper lines still in L1D set 0, the PTE line from L2. The
	 * data line (offset 0x800) is among the 8 lines of set 32: L1.
	 */
	for (int i = 80; i < 88; i++)
		acc(m, &t, BASE + i * PG + 0x280);
	wm_invlpg(m, true, page80);
	acc(m, &t, page80 + 0x800);
	EQ("walks", s->l2_tlb_misses, 9);
	EQ("refs[PTE][L2]", s->refs[WM_PTE][WM_AT_L2], 1);
	EQ("refs[PTE][L1]", s->refs[WM_PTE][WM_AT_L1], 7);
	EQ("refs[PTE][MEM]", s->refs[WM_PTE][WM_AT_MEM], 1);
	for (int l = WM_PDE; l <= WM_PML5E; l++) {
		EQ("refs[upper][L1]", s->refs[l][WM_AT_L1], 1);
		EQ("refs[upper][MEM]", s->refs[l][WM_AT_MEM], 1);
	}
	EQ("data_at[MEM]", s->data_at[WM_AT_MEM], 16);
	EQ("data_at[L1]", s->data_at[WM_AT_L1], 1);
	EQ("data_at[L2]", s->data_at[WM_AT_L2], 0);
	end("walk references served from memory, L1 (neighbour PTE) and L2 (evicted line)");
	wm_model_free(m);
}

/* ---- 1G pages ------------------------------------------------------------------- */

static void test_1g(void)
{
	struct pt t = { .levels = 5, .leaf = 3, .present = true };
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));
	const struct wm_space_stats *s = ust(m);
	uint64_t v0 = BASE + 0x123000;	/* in the 1G page [1G, 2G), its 2M part 0 */

	/*
	 * splitpsc (Zen 4's TLBs) keeps 1G pages in the L2 TLB as 2M entries for the 2M part used.
	 * 1: v0 walks (PML5E, PML4E, PDPTE: 3 reads).
	 * 2: 72 other 1G pages, page k+2 at its 2M part k (so their smashed entries spread
	 *    over the L2's sets, k & 127): 72 walks, v0 leaves the 72-entry L1 1G array.
	 * 3: v0 again: L2 hit on its smashed entry, back into the L1 as 1G: no walk; and
 *    v0 + 6M (2M part 3) now hits the L1 1G entry: no L1 miss.
	 * 4: 72 more 1G pages (k = 72..143) push v0 out of the L1 again.
	 * 5: v0 + 4M, same 1G page, 2M part 2: not in the L2 (only part 0 is): a walk.
	 * 6: INVLPG v0 + 8M (part 4): drops the L1 1G entry and both smashed parts.
	 * 7: v0: a walk. The other pages' smashed entries stay: page 2 (k = 0): no walk.
	 */
	begin();
	acc(m, &t, v0);
	EQ("refs of a 1G walk", refs_total(m), 3);
	for (int k = 0; k < 72; k++)
		acc(m, &t, (uint64_t)(k + 2) * GB1 + (uint64_t)k * MB2);
	EQ("walks", s->l2_tlb_misses, 73);
	acc(m, &t, v0);
	EQ("v0 from the smashed L2 entry", s->l2_tlb_misses, 73);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 74);
	acc(m, &t, v0 + 3 * MB2);
	EQ("refilled into the L1 as 1G", s->l1_dtlb_misses, 74);
	for (int k = 72; k < 144; k++)
		acc(m, &t, (uint64_t)(k + 2) * GB1 + (uint64_t)(k & 127) * MB2);
	EQ("walks", s->l2_tlb_misses, 145);
	acc(m, &t, v0 + 2 * MB2);
	EQ("another 2M part walks", s->l2_tlb_misses, 146);
	wm_invlpg(m, true, v0 + 4 * MB2);
	acc(m, &t, v0);
	EQ("after INVLPG of another part", s->l2_tlb_misses, 147);
	acc(m, &t, 2 * GB1);
	EQ("other 1G pages stay", s->l2_tlb_misses, 147);
	EQ("page_accesses[1G]", s->page_accesses[WM_1G], 150);
	EQ("page_accesses[2M]", s->page_accesses[WM_2M], 0);
	end("splitpsc (Zen 4 TLBs): 1G pages smashed into 2M L2 entries, refilled to L1 as 1G");
	wm_model_free(m);

	/* goldencove: an 8-entry L1 1G array and a 1G STLB array. v0, then 8 other 1G
	 * pages (v0 leaves the L1), then another 2M part of v0's page: an STLB hit. */
	begin();
	m = new_model(wm_preset_find("goldencove"));
	s = ust(m);
	acc(m, &t, v0);
	for (int k = 0; k < 8; k++)
		acc(m, &t, (uint64_t)(k + 2) * GB1);
	EQ("walks", s->l2_tlb_misses, 9);
	acc(m, &t, v0 + 2 * MB2);
	EQ("STLB 1G hit", s->l2_tlb_misses, 9);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 10);
	acc(m, &t, v0 + 4 * MB2);
	EQ("refilled into the L1", s->l1_dtlb_misses, 10);
	end("goldencove: 1G pages held by the STLB");
	wm_model_free(m);
}

/* ---- failed walks ---------------------------------------------------------------- */

static void test_failed(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = false };
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));
	const struct wm_space_stats *s = ust(m);

	/*
	 * A non-present PTE: the walk reads 5 entries and fails; nothing is cached, so the
	 * same access walks all 5 again (no PSC entry either). Present now: a third 5-entry
	 * walk, which succeeds. A walker without a root: a failed walk, no reads.
	 * A non-present PDE (leaf 2) on a new region: 4 reads... but this region shares the
	 * PDPTE with A's, filled by the successful walk: the PDPTE cache hit (deepest useful
	 * level for a PDE leaf) leaves only the PDE to read: 1.
	 */
	begin();
	acc(m, &t, VA_A);
	acc(m, &t, VA_A);
	EQ("walks_failed", s->walks_failed, 2);
	EQ("refs", refs_total(m), 10);
	t.present = true;
	acc(m, &t, VA_A);
	EQ("refs", refs_total(m), 15);
	EQ("walks_failed", s->walks_failed, 2);
	t.fail = true;
	acc(m, &t, VA_B);
	EQ("walks_failed", s->walks_failed, 3);
	EQ("refs", refs_total(m), 15);
	t.fail = false;
	t.present = false;
	t.leaf = 2;
	acc(m, &t, BASE + MB2);
	EQ("walks_failed", s->walks_failed, 4);
	EQ("refs", refs_total(m), 16);
	EQ("psc_hits[PDPTE]", s->psc_hits[WM_PDPTE], 1);
	EQ("walks", s->l2_tlb_misses, 5);
	EQ("page_accesses[4K]", s->page_accesses[WM_4K], 1);
	EQ("page_accesses[2M]", s->page_accesses[WM_2M], 0);
	EQ("accesses", s->accesses, 5);
	EQ("data accesses charged", s->data_at[WM_AT_L1] + s->data_at[WM_AT_L2] +
	   s->data_at[WM_AT_L3] + s->data_at[WM_AT_MEM], 5);
	end("failed walks: references charged, nothing filled");
	wm_model_free(m);
}

/* ---- 7: presets ------------------------------------------------------------------ */

static bool pow2_or_0(unsigned int x)
{
	return !(x & (x - 1));
}

static void test_presets(void)
{
	begin();
	for (const char *const *n = (const char *const[]){ "splitpsc", "goldencove", "nopsc", NULL };
	     *n; n++) {
		const struct wm_preset *p = wm_preset_find(*n);

		TRUE(*n, p && !strcmp(p->name, *n));
	}
	EQ("unknown name", wm_preset_find("pentium") == NULL, 1);
	EQ("empty name", wm_preset_find("") == NULL, 1);
	EQ("NULL name", wm_preset_find(NULL) == NULL, 1);
	end("wm_preset_find: known names found, unknown ones not");

	begin();
	for (int i = 0; wm_presets[i]; i++) {
		const struct wm_preset *p = wm_presets[i];
		struct wm_model *m;

		printf("#   %s: %s\n", p->name, p->cpu);
		TRUE("source", p->source && *p->source);
		TRUE("cpu", p->cpu && *p->cpu);
		TRUE("L1 DTLB 4K", p->l1_dtlb[WM_4K].sets && p->l1_dtlb[WM_4K].ways);
		for (int s = 0; s < WM_NPAGES; s++) {
			TRUE("L1 sets power of two", pow2_or_0(p->l1_dtlb[s].sets));
			TRUE("L2 sets power of two", pow2_or_0(p->l2_tlb[s].sets));
			TRUE("ways with sets", !p->l1_dtlb[s].sets == !p->l1_dtlb[s].ways);
		}
		TRUE("L1D present", p->l1d.size_kib && p->l1d.ways);
		for (int w = 0; w < WM_NWHERE; w++)
			TRUE("latency band", p->ref_latency[w].lo > 0 &&
			     p->ref_latency[w].lo <= p->ref_latency[w].hi);
		TRUE("latencies grow", p->ref_latency[WM_AT_L1].hi < p->ref_latency[WM_AT_L2].lo &&
		     p->ref_latency[WM_AT_L2].hi < p->ref_latency[WM_AT_L3].lo &&
		     p->ref_latency[WM_AT_L3].hi < p->ref_latency[WM_AT_MEM].lo);
		TRUE("clock", p->clock_ghz > 0);
		m = wm_model_new(p);
		TRUE("wm_model_new", m != NULL);
		wm_model_free(m);
	}
	for (int l = 0; l < WM_NLEVELS; l++)
		EQ("nopsc has no PSC", wm_preset_find("nopsc")->psc_entries[l], 0);
	TRUE("splitpsc has PSCs", wm_preset_find("splitpsc")->psc_entries[WM_PDE] > 0);
	end("every preset: a source, power-of-two sets, an L1 DTLB for 4K, sane latencies");

	/* What the names promise: a preset called zen4 models AMD's design, never Intel's;
	 * every Intel-style preset invalidates on a fault as the SDM says; a virtualised one
	 * has a 4- or 5-level host and a nested TLB. */
	begin();
	for (int i = 0; wm_presets[i]; i++) {
		const struct wm_preset *p = wm_presets[i];

		if (!strncmp(p->name, "zen4", 4)) {
			EQ(p->name, p->psc_design, WM_PSC_PDC);
			TRUE("zen4: PDC and unified L2 TLB", p->pdc_entries && p->l2_tlb_unified);
			TRUE("PDC hit band", p->pdc_hit.lo > 0 && p->pdc_hit.lo <= p->pdc_hit.hi);
		}
		if (p->psc_design == WM_PSC_SPLIT)
			TRUE("Intel-style: fault invalidates", p->fault_invalidates);
		if (strstr(p->name, "-npt") || strstr(p->name, "-ept")) {
			EQ("host levels in the name", p->host_levels,
			   p->name[strlen(p->name) - 1] - '0');
			TRUE("nested TLB", p->ntlb_entries > 0);
		} else {
			EQ("native", p->host_levels, 0);
		}
	}
	EQ("zen4-noinval keeps its caches on a fault",
	   wm_preset_find("zen4-noinval")->fault_invalidates, 0);
	end("preset names: zen4* is AMD's design, -nptN/-eptN a host of N levels");
}

/* ---- 8: cycles ------------------------------------------------------------------- */

static void test_cycles(void)
{
	struct wm_preset p = *wm_preset_find("splitpsc");
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m;
	struct wm_band b;

	p.ref_latency[WM_AT_L1] = (struct wm_band){ 1, 2 };
	p.ref_latency[WM_AT_L2] = (struct wm_band){ 10, 20 };
	p.ref_latency[WM_AT_L3] = (struct wm_band){ 100, 200 };
	p.ref_latency[WM_AT_MEM] = (struct wm_band){ 1000, 2000 };
	p.l2_tlb_hit = (struct wm_band){ 7, 9 };
	m = new_model(&p);

	/* The sequential stream of test 1 (same geometry): 56 reads from L1 and 12 from
	 * memory (8 PTE lines + 4 upper levels). lo = 56*1 + 12*1000 = 12056,
	 * hi = 56*2 + 12*2000 = 24112. No kernel accesses: 0. No L2 hits: 0. */
	begin();
	seq_stream(m, &t, 64);
	b = wm_walk_cycles(m, WM_USER);
	DEQ("walk cycles lo", b.lo, 12056);
	DEQ("walk cycles hi", b.hi, 24112);
	b = wm_walk_cycles(m, WM_KERNEL);
	DEQ("kernel walk cycles", b.lo + b.hi, 0);
	b = wm_l2_hit_cycles(m, WM_USER);
	DEQ("L2 hit cycles", b.lo + b.hi, 0);
	/* The 64 data accesses all came from memory: 64 x [1000, 2000]. */
	b = wm_data_cycles(m, WM_USER);
	DEQ("data cycles lo", b.lo, 64000);
	DEQ("data cycles hi", b.hi, 128000);
	end("wm_walk_cycles and wm_data_cycles on a hand-computed stream");

	/* 72 new pages push page 0 out of the L1 DTLB (72 misses, 72 walks), then page 0:
	 * an L1 miss that hits the L2: one L2 hit, [7, 9] cycles. */
	begin();
	wm_stats_reset(m);
	for (int k = 0; k < 72; k++)
		acc(m, &t, BASE + MB2 + k * PG);
	acc(m, &t, BASE + 0x800);
	EQ("l1_dtlb_misses", ust(m)->l1_dtlb_misses, 73);
	EQ("walks", ust(m)->l2_tlb_misses, 72);
	b = wm_l2_hit_cycles(m, WM_USER);
	DEQ("L2 hit cycles lo", b.lo, 7);
	DEQ("L2 hit cycles hi", b.hi, 9);
	end("wm_l2_hit_cycles counts L1 misses that hit the L2 TLB");
	wm_model_free(m);
}

/* ---- 9: page faults (SDM Vol. 3A §4.10.4.1) -------------------------------------- */

static void fault(struct wm_model *m, struct pt *t, uint64_t va)
{
	wm_page_fault(m, va, walker, t);
}

/* Entries read at one level, user and kernel. */
static uint64_t lvl_all(const struct wm_model *m, int level)
{
	return lvl(&wm_stats(m)->space[WM_USER], level) + lvl(&wm_stats(m)->space[WM_KERNEL], level);
}

static void test_fault_invalidation(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m = new_model(wm_preset_find("splitpsc"));
	const struct wm_space_stats *s = ust(m);

	/*
	 * A: a cold walk, 5 reads; the PSCs now hold A's region at every level.
	 * A fault at B (same 2M region): the walk that faulted hits the PDE cache and reads
	 * B's PTE (1). The fault then drops every PSC entry B's walk would use: all four of
	 * A's region. The retried access to B walks from the root: 5. C, a new page of the
	 * region: the PDE cache holds it again (B's walk refilled it): 1. A: still in the L1
	 * DTLB (a fault drops only its own page's entries): no walk.
	 * Walks: A, the fault, B, C = 4 (one failed: the fault's); reads 5 + 1 + 5 + 1 = 12,
	 * PML5E 2 (A's and B's); accesses 4 (the fault's access never happened).
	 */
	begin();
	acc(m, &t, VA_A);
	fault(m, &t, VA_B);
	EQ("fault: reads of the faulting walk", refs_total(m), 6);
	acc(m, &t, VA_B);
	acc(m, &t, VA_C);
	acc(m, &t, VA_A);
	EQ("walks", s->l2_tlb_misses, 4);
	EQ("walks_failed", s->walks_failed, 1);
	EQ("fault_walks", s->fault_walks, 1);
	EQ("faults", s->faults, 1);
	EQ("refs", refs_total(m), 12);
	EQ("refs[PML5E]", lvl(s, WM_PML5E), 2);
	EQ("refs[PTE]", lvl(s, WM_PTE), 4);
	EQ("psc_hits[PDE]", s->psc_hits[WM_PDE], 2);
	EQ("accesses", s->accesses, 4);
	EQ("l1_dtlb_misses", s->l1_dtlb_misses, 4);
	wm_model_free(m);
	end("fault: the faulting walk charged, the retry walks from the root (splitpsc)");

	/*
	 * Against the flush fixture (PCID 1 current; PSC entries of PCID 1 and 2 for the
	 * region of A..E, of PCID 1 for G's). A fault at D: its faulting walk reads 1 (PDE
	 * hit); PCID 1's entries on D's path go, so the retried D reads 5; PCID 2's stay (E
	 * under PCID 2 reads 1), and so do PCID 1's for G's region (G2 reads 1). Then a fault
	 * at A, which the TLB holds: its entry goes (A walks again).
	 */
	begin();
	m = fixture();
	fault(m, &fx_t, VA_D);
	EQ("faulting walk reads the PTE", refs_total(m), 1);
	EQ("retried D reads 5", walk_len(m, &fx_t, VA_D), 5);
	EQ("PCID 2 keeps its PSC entries (E reads 1)", walk_len_pcid2(m, VA_E), 1);
	EQ("G's region keeps its PSC entries (G2 reads 1)", walk_len(m, &fx_g, VA_G2), 1);
	EQ("B stays in the TLB", walked(m, &fx_t, VA_B), 0);
	fault(m, &fx_t, VA_A);
	EQ("A's TLB entry dropped by its fault", walked(m, &fx_t, VA_A), 1);
	EQ("C (PCID 2) stays", walked_pcid2(m, VA_C), 0);
	wm_model_free(m);
	end("fault: only the current PCID's entries for that address go");
}

/*
 * The pagefault workload's shape: N faults on pages 16 apart in one 2M region, each
 * retried. Per fault after the first, the faulting walk reads 1 (the retry of the fault
 * before refilled the PDE cache, or the L2 TLB's PDE) and the retry reads LEVELS (the
 * fault dropped every cached entry on its path). The first fault: a cold faulting walk
 * of LEVELS, then a retry of LEVELS. N = 8, 5-level: 5 + 5 + 7 x (1 + 5) = 52 reads, of
 * which PML5E 1 + 1 + 7 = 9; 4-level: 4 + 4 + 7 x (1 + 4) = 43: the difference is the
 * PML5E reads, one per fault (two on the first). Without the invalidation (zen4-noinval)
 * a retry reads 1 like its faulting walk: 5 + 5 + 7 x 2 = 24, PML5E 2. No upper-level
 * cache (nopsc): every walk reads LEVELS, 16 x 5 = 80.
 */
static uint64_t fault_stream(const char *preset, int levels, uint64_t *pml5e, uint64_t *walks_out)
{
	struct pt t = { .levels = levels, .leaf = 1, .present = true };
	struct wm_model *m = new_model(wm_preset_find(preset));
	uint64_t n;

	for (int i = 0; i < 8; i++) {
		uint64_t va = BASE + (uint64_t)i * 16 * PG + 0x800;

		fault(m, &t, va);
		acc(m, &t, va);
	}
	n = refs_total(m);
	*pml5e = lvl_all(m, WM_PML5E);
	*walks_out = walks(m);
	wm_model_free(m);
	return n;
}

static void test_fault_stream(void)
{
	uint64_t p5, w;

	begin();
	EQ("splitpsc 5-level reads", fault_stream("splitpsc", 5, &p5, &w), 52);
	EQ("splitpsc 5-level PML5E", p5, 9);
	EQ("splitpsc walks (faulting and retried)", w, 16);
	EQ("splitpsc 4-level reads", fault_stream("splitpsc", 4, &p5, &w), 43);
	EQ("splitpsc 4-level PML5E", p5, 0);
	end("fault stream, stride 16: one PML5E read per fault (splitpsc, 5 vs 4 levels)");

	begin();
	EQ("zen4 5-level reads", fault_stream("zen4", 5, &p5, &w), 52);
	EQ("zen4 5-level PML5E", p5, 9);
	EQ("zen4-noinval 5-level reads", fault_stream("zen4-noinval", 5, &p5, &w), 24);
	EQ("zen4-noinval PML5E", p5, 2);
	EQ("nopsc 5-level reads", fault_stream("nopsc", 5, &p5, &w), 80);
	EQ("nopsc: LEVELS per walk", w * 5, 80);
	end("fault stream: zen4 as the SDM (52), zen4-noinval (24), nopsc LEVELS per walk");
}

/* ---- 10: AMD's design: PDEs in the L2 TLB, a PDC looked up level by level --------- */

static void test_pdc(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m = new_model(wm_preset_find("zen4"));
	const struct wm_space_stats *s = ust(m);
	struct wm_preset p;

	/*
	 * The sequential stream of test 1 on zen4: walk 0 finds no PDE in the L2 TLB and
	 * nothing in the PDC: 5 reads from memory; it fills the PDC (PML5E, PML4E, PDPTE) and
	 * the region's PDE into the L2 TLB. Walks 1..63 find the PDE: read the PTE only, from
	 * the same lines as in test 1 (8 from memory, 56 from L1). No PDC lookup at all.
	 */
	begin();
	seq_stream(m, &t, 64);
	EQ("walks", s->l2_tlb_misses, 64);
	EQ("refs[PTE][MEM]", s->refs[WM_PTE][WM_AT_MEM], 8);
	EQ("refs[PTE][L1]", s->refs[WM_PTE][WM_AT_L1], 56);
	for (int l = WM_PDE; l <= WM_PML5E; l++)
		EQ("refs[upper][MEM]", s->refs[l][WM_AT_MEM], 1);
	EQ("L2-TLB PDE hits", s->l2_pde_hits, 63);
	EQ("the split design's counter untouched", s->psc_hits[WM_PDE], 0);
	for (int l = WM_PDPTE; l <= WM_PML5E; l++)
		EQ("no PDC hit", s->pdc_hits[l], 0);
	wm_model_free(m);
	end("zen4: sequential pages: the PDE in the L2 TLB leaves one read per walk");

	/*
	 * Level by level. v0 = 1G + 0x800 (cold: 5 reads, PDC fills PML5E, PML4E, PDPTE[1]).
	 * v1 = 2G + 0x800: another 1G region, so no PDE in the L2 TLB: the PDC has the PML5E
	 * and PML4E (hits), not PDPTE[2]: read it (same line as PDPTE[1]: L1), then the new
	 * PDE and PTE (memory): 3 reads. v2 = 1G + 2M + 0x800: another 2M region of v0's 1G:
	 * the PDC has PML5E, PML4E and PDPTE[1] (3 hits): read the PDE (the line of v0's PDE:
	 * L1) and a new PTE (memory): 2 reads. Set 0 of the L1D holds every table line (8 of
	 * them, 8 ways); the data lines are in set 32.
	 * Walks 3, reads 10: 8 from memory, PDPTE 1 and PDE 1 from L1; PDC hits PML5E 2,
	 * PML4E 2, PDPTE 1.
	 */
	begin();
	m = new_model(wm_preset_find("zen4"));
	s = ust(m);
	acc(m, &t, GB1 + 0x800);
	acc(m, &t, 2 * GB1 + 0x800);
	EQ("v1 reads 3", refs_total(m), 8);
	acc(m, &t, GB1 + MB2 + 0x800);
	EQ("walks", s->l2_tlb_misses, 3);
	EQ("refs", refs_total(m), 10);
	EQ("refs from memory", s->refs[WM_PML5E][WM_AT_MEM] + s->refs[WM_PML4E][WM_AT_MEM] +
	   s->refs[WM_PDPTE][WM_AT_MEM] + s->refs[WM_PDE][WM_AT_MEM] + s->refs[WM_PTE][WM_AT_MEM], 8);
	EQ("refs[PDPTE][L1]", s->refs[WM_PDPTE][WM_AT_L1], 1);
	EQ("refs[PDE][L1]", s->refs[WM_PDE][WM_AT_L1], 1);
	EQ("pdc_hits[PML5E]", s->pdc_hits[WM_PML5E], 2);
	EQ("pdc_hits[PML4E]", s->pdc_hits[WM_PML4E], 2);
	EQ("pdc_hits[PDPTE]", s->pdc_hits[WM_PDPTE], 1);
	EQ("no L2-TLB PDE hit", s->l2_pde_hits, 0);
	wm_model_free(m);
	end("zen4: the PDC is looked up level by level, each hit saves that level's read");

	/*
	 * Capacity. New 2M regions of one 1G region, one after another: every walk misses the
	 * L2 TLB's PDE and looks the PDC up at PML5E, PML4E, PDPTE. With 2 PDC entries LRU
	 * and each level filled as it is read, the PDC holds {PML4E, PDPTE} after a walk; the
	 * next walk misses PML5E, fills it over PML4E, misses PML4E, fills it over PDPTE,
	 * misses PDPTE: every walk reads 5. With 3 entries every walk after the first hits
	 * all three and reads 2. On 4-level paging 2 entries hold both upper levels: 2 reads.
	 * 5 walks: 5 x 5 = 25; 5 + 4 x 2 = 13; 4 + 4 x 2 = 12.
	 */
	begin();
	for (int levels = 4; levels <= 5; levels++) {
		for (unsigned int n = 2; n <= 3; n++) {
			struct pt tl = { .levels = levels, .leaf = 1, .present = true };
			uint64_t want = levels == 5 && n == 2 ? 25 : levels == 5 ? 13 : 12;

			p = *wm_preset_find("zen4");
			p.pdc_entries = n;
			m = new_model(&p);
			for (int k = 0; k < 5; k++)
				acc(m, &tl, GB1 + (uint64_t)k * MB2 + 0x800);
			printf("#   %d-level, PDC %u: %" PRIu64 " reads\n", levels, n, refs_total(m));
			EQ("reads", refs_total(m), want);
			wm_model_free(m);
		}
	}
	end("zen4: a PDC of 2 thrashes at 5 levels (25 reads), holds 4 levels (12)");

	/*
	 * PDEs share the L2 TLB. One L1 DTLB entry (so every new page looks in the L2) and a
	 * unified L2 of 1 set x 2 ways: P0 (cold, 5 reads; L2 = PDE R0, P0), P1 (R0 hit, 1
	 * read; P1 evicts P0), Q0 in the next 2M region (R1 missing: PDC hits at 3 levels,
	 * PDE and PTE read: 2; R1 evicts R0, Q0 evicts P1), P2 (R0 gone: 2 reads): 10 reads,
	 * one L2-TLB PDE hit. With 8 ways nothing is evicted: P2 finds R0: 9 reads, 2 hits.
	 */
	begin();
	for (unsigned int ways = 2; ways <= 8; ways += 6) {
		p = *wm_preset_find("zen4");
		p.l1_dtlb[WM_4K] = (struct wm_tlb_geometry){ 1, 1 };
		p.l2_tlb[WM_4K] = (struct wm_tlb_geometry){ 1, ways };
		m = new_model(&p);
		s = ust(m);
		acc(m, &t, BASE + 0x800);
		acc(m, &t, BASE + PG + 0x800);
		acc(m, &t, BASE + MB2 + 0x800);
		acc(m, &t, BASE + 2 * PG + 0x800);
		EQ("reads", refs_total(m), ways == 2 ? 10 : 9);
		EQ("L2-TLB PDE hits", s->l2_pde_hits, ways == 2 ? 1 : 2);
		EQ("PDC hits at PDPTE", s->pdc_hits[WM_PDPTE], ways == 2 ? 2 : 1);
		wm_model_free(m);
	}
	end("zen4: PDEs and pages share the L2 TLB (2 ways: a PDE evicted, 8: kept)");

	/*
	 * Flushes. A (cold, 5 reads). A CR3 write with no-flush keeps everything: D reads 1.
	 * A flushing CR3 write drops the L2 TLB's PDEs of the PCID and the whole PDC (tagged
	 * by physical address, not PCID): E reads 5. INVLPG (operand unknown) likewise: a new
	 * page reads 5 again.
	 */
	begin();
	m = new_model(wm_preset_find("zen4"));
	acc(m, &t, VA_A);
	wm_write_cr3(m, 0, true);
	EQ("no-flush CR3 write: D reads 1", walk_len(m, &t, VA_D), 1);
	wm_write_cr3(m, 0, false);
	EQ("CR3 write: E reads 5", walk_len(m, &t, VA_E), 5);
	wm_invlpg(m, false, 0);
	EQ("INVLPG: a new page reads 5", walk_len(m, &t, BASE + 6 * PG), 5);
	wm_model_free(m);
	end("zen4: CR3 writes and INVLPG empty the PDC and the L2 TLB's PDEs");

	/* The PDC's hits are priced: the level-by-level stream above with L1 1-2, memory
	 * 1000-2000 and a PDC hit 2-3 cycles: 8 x 1000 + 2 x 1 + 5 x 2 = 8012 to
	 * 8 x 2000 + 2 x 2 + 5 x 3 = 16019. */
	begin();
	p = *wm_preset_find("zen4");
	p.ref_latency[WM_AT_L1] = (struct wm_band){ 1, 2 };
	p.ref_latency[WM_AT_MEM] = (struct wm_band){ 1000, 2000 };
	p.pdc_hit = (struct wm_band){ 2, 3 };
	m = new_model(&p);
	acc(m, &t, GB1 + 0x800);
	acc(m, &t, 2 * GB1 + 0x800);
	acc(m, &t, GB1 + MB2 + 0x800);
	DEQ("walk cycles lo", wm_walk_cycles(m, WM_USER).lo, 8012);
	DEQ("walk cycles hi", wm_walk_cycles(m, WM_USER).hi, 16019);
	wm_model_free(m);
	end("zen4: PDC hits priced at the preset's pdc_hit band");
}

/* ---- 11: nested paging (two-dimensional walks) ----------------------------------- */

/* Synthetic guest tables whose guest-physical addresses fit a 4-level host (< 2^36):
 * the level-L table for va at (L << 32) + (VA[..:12+9L] mod 2^20) pages; data at 2^35
 * plus the low 32 bits of va. */
static uint64_t small_entry_gpa(uint64_t va, int level)
{
	uint64_t table = ((uint64_t)level << 32) + ((va >> (12 + 9 * level) & 0xfffff) << 12);

	return table + (va >> (12 + 9 * (level - 1)) & 511) * 8;
}

static uint64_t small_data_gpa(uint64_t va)
{
	return (1ULL << 35) + (va & 0xffffffffULL);
}

static bool small_walker(void *ctx, uint64_t va, struct wm_path *p)
{
	const struct pt *t = ctx;

	p->levels = t->levels;
	p->leaf = WM_PTE;
	p->present = true;
	for (int l = t->levels; l >= WM_PTE; l--)
		p->entry_pa[l] = small_entry_gpa(va, l);
	p->page_pa = small_data_gpa(va) & ~(PG - 1);
	return true;
}

static void nacc(struct wm_model *m, struct pt *t, uint64_t va)
{
	wm_access(m, va, small_data_gpa(va), 8, small_walker, t);
}

static uint64_t nrefs_total(const struct wm_model *m)
{
	uint64_t n = 0;

	for (int l = WM_PTE; l <= WM_PML5E; l++)
		for (int w = 0; w < WM_NWHERE; w++)
			n += ust(m)->nrefs[l][w];
	return n;
}

static void test_nested(void)
{
	struct wm_preset p;
	struct wm_model *m;
	struct pt t;

	/*
	 * Every cache off (no TLB, no PSC or PDC, no nested TLB or host-side cache): a walk
	 * of g guest levels reads g guest entries, and each of the g guest tables and the
	 * data page needs a host walk of h entries: g + (g + 1) h = (g + 1)(h + 1) - 1,
	 * 24 (4/4), 29 (4/5 and 5/4), 35 (5/5). Both designs.
	 */
	begin();
	for (int design = 0; design < 2; design++) {
		for (int g = 4; g <= 5; g++) {
			for (int h = 4; h <= 5; h++) {
				p = *wm_preset_find(design ? "zen4-npt4" : "goldencove-ept4");
				memset(p.l1_dtlb, 0, sizeof(p.l1_dtlb));
				memset(p.l2_tlb, 0, sizeof(p.l2_tlb));
				memset(p.psc_entries, 0, sizeof(p.psc_entries));
				memset(p.npsc_entries, 0, sizeof(p.npsc_entries));
				p.pdc_entries = 0;
				p.ntlb_entries = 0;
				p.host_levels = h;
				t = (struct pt){ .levels = g };
				m = new_model(&p);
				nacc(m, &t, BASE + 0x800);
				nacc(m, &t, BASE + 0x808);
				printf("#   %s, guest %d, host %d: %" PRIu64 " + %" PRIu64
				       " reads per walk\n", p.name, g, h, refs_total(m) / 2,
				       nrefs_total(m) / 2);
				EQ("walks", walks(m), 2);
				EQ("guest reads per walk", refs_total(m), 2 * g);
				EQ("host reads per walk", nrefs_total(m), 2 * (g + 1) * h);
				EQ("host walks per walk", ust(m)->nested_walks, 2 * (g + 1));
				EQ("(g+1)(h+1)-1", (refs_total(m) + nrefs_total(m)) / 2,
				   g == 4 && h == 4 ? 24 : g == 5 && h == 5 ? 35 : 29);
				wm_model_free(m);
			}
		}
	}
	end("nested, every cache off: 24, 29, 29, 35 reads per walk (4/4, 4/5, 5/4, 5/5)");

	/*
	 * Intel's design (goldencove-ept4), guest 4, host 4. P0, cold: the guest's root table
	 * needs a host walk of 4 (filling the nested TLB and the host-side PSCs); the next
	 * three guest tables and the data page each find the host-side PML4E cache (their
	 * guest-physical addresses share bits 47:39) and read 3: 4 + 4 x 3 = 16 host reads,
	 * 4 guest reads: 20. P1 and P2, the next pages: the guest's PDE cache holds the
	 * region and, a combined mapping, the page table's host address: read the PTE (1);
	 * the data page misses the nested TLB and hits the host-side PDE cache: 1 host read.
	 * 20 + 2 + 2 = 24. A CR3 write then drops the guest's TLB and PSC entries but not the
	 * guest-physical ones: P3 reads its 4 guest entries, every table's page is in the
	 * nested TLB (4 hits), and its data page reads 1: 5.
	 * Guest 5, host 5: P0 reads 5 guest entries and 5 + 5 x 3 host entries: 25.
	 */
	begin();
	m = new_model(wm_preset_find("goldencove-ept4"));
	t = (struct pt){ .levels = 4 };
	nacc(m, &t, BASE + 0x800);
	EQ("P0 cold: guest reads", refs_total(m), 4);
	EQ("P0 cold: host reads", nrefs_total(m), 16);
	EQ("P0: host PML4E-cache hits", ust(m)->npsc_hits[WM_PML4E], 4);
	nacc(m, &t, BASE + PG + 0x800);
	nacc(m, &t, BASE + 2 * PG + 0x800);
	EQ("P0-P2 reads", refs_total(m) + nrefs_total(m), 24);
	EQ("host walks", ust(m)->nested_walks, 7);
	EQ("host PDE-cache hits", ust(m)->npsc_hits[WM_PDE], 2);
	wm_write_cr3(m, 0, false);
	nacc(m, &t, BASE + 3 * PG + 0x800);
	EQ("P3 after a CR3 write", refs_total(m) + nrefs_total(m), 29);
	EQ("nested TLB hits", ust(m)->ntlb_hits, 4);
	wm_model_free(m);
	m = new_model(wm_preset_find("goldencove-ept5"));
	t = (struct pt){ .levels = 5 };
	nacc(m, &t, BASE + 0x800);
	EQ("5/5 P0 cold", refs_total(m) + nrefs_total(m), 25);
	wm_model_free(m);
	end("nested, Intel's design: combined PSCs, EPT PSCs and nested TLB (hand-worked)");

	/*
	 * AMD's design (zen4-npt4): host entries go into the same PDC, tagged by physical
	 * address. P0 cold: the root table's host walk reads 4 and fills the PDC with its
	 * three upper entries; the guest PML4E misses the PDC (read, filled); each later table
	 * and the data page find their host PML4E in the PDC (the same entry: guest-physical
	 * bits 47:39 are 0 for all) and read 3: 4 + 1 + 3 x (3 + 1) + 3 = 20, as Intel's.
	 * P1: the guest PDE is in the L2 TLB (1 read: the PTE); the data page's host walk
	 * finds its host PML4E, PDPTE and PDE in the PDC and reads 1: 2, with 3 PDC hits.
	 * A CR3 write drops the guest's PDEs and guest PDC entries, not the host's: P3 reads
	 * its 4 guest entries (table pages in the nested TLB) and 1 host entry: 5.
	 */
	begin();
	m = new_model(wm_preset_find("zen4-npt4"));
	t = (struct pt){ .levels = 4 };
	nacc(m, &t, BASE + 0x800);
	EQ("P0 cold", refs_total(m) + nrefs_total(m), 20);
	EQ("P0: host PML4E found in the PDC", ust(m)->npdc_hits[WM_PML4E], 4);
	nacc(m, &t, BASE + PG + 0x800);
	EQ("P1", refs_total(m) + nrefs_total(m), 22);
	EQ("L2-TLB PDE hit", ust(m)->l2_pde_hits, 1);
	EQ("host entries found in the PDC", ust(m)->npdc_hits[WM_PML4E] +
	   ust(m)->npdc_hits[WM_PDPTE] + ust(m)->npdc_hits[WM_PDE], 7);
	EQ("the split design's host counters untouched", ust(m)->npsc_hits[WM_PML4E] +
	   ust(m)->npsc_hits[WM_PDPTE] + ust(m)->npsc_hits[WM_PDE], 0);
	wm_write_cr3(m, 0, false);
	nacc(m, &t, BASE + 3 * PG + 0x800);
	EQ("P3 after a CR3 write", refs_total(m) + nrefs_total(m), 27);
	EQ("nested TLB hits", ust(m)->ntlb_hits, 4);
	wm_model_free(m);
	end("nested, AMD's design: host entries in the PDC, nested TLB (hand-worked)");
}

/* ---- benchmark ------------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* N accesses: `span` bytes of random 8-byte-aligned addresses, or, with run > 1, runs of
 * `run` sequential 8-byte accesses starting at random places. */
static void bench(const struct wm_preset *p, uint64_t n, uint64_t span, int run,
		  const char *what)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_model *m = new_model(p);
	const struct wm_space_stats *s = ust(m);
	uint64_t va = 0;
	double t0, dt;

	rng_state = 0x9e3779b97f4a7c15ULL;
	t0 = now();
	for (uint64_t i = 0; i < n; i++) {
		if (i % run == 0)
			va = 0x7f0000000000ULL + (rnd() % span & ~7ULL);
		else
			va += 8;
		wm_access(m, va, pa_of(&t, va), 8, walker, &t);
	}
	dt = now() - t0;
	printf("%-10s %-44s %6.1f M accesses/s  (%.2f s; walks %.1f%%, L1 DTLB misses %.1f%%)\n",
	       p->name, what, n / dt / 1e6, dt, 100.0 * s->l2_tlb_misses / n,
	       100.0 * s->l1_dtlb_misses / n);
	wm_model_free(m);
}

/* ---- set indexing: the same L2 DTLB entries, two organisations --------------------- */

/*
 * zen4 (128 sets x 24 ways) against zen4-16x192 (16 x 192), on 32 regions 256 TiB apart
 * (k << 48, k = 0..31), 5-level walks of 4K pages.
 * Pass 1 touches page BASE of each region: 32 walks, each filling the L2 DTLB with the
 * region's PDE (tag VA >> 21) and its 4K page (VA >> 12). The set index takes the tag's low
 * bits, which are the same in every region: with 128 sets both go to set 0 (0x40000 & 127
 * and 0x200 & 127), which keeps the last 24 of the 64: PDE and page of regions 20..31.
 * Pass 2 touches page BASE + 4K of each region: a new page (L1 and L2 miss), whose walk
 * looks its region's PDE up in set 0. In region order under LRU each fill evicts an entry
 * a later lookup needed: the 32 lookups all miss, l2_pde_hits = 0. With 16 sets, set 0
 * (0x40000 & 15, 0x200 & 15) has 192 ways and keeps all 64: the 32 lookups all hit.
 */
static void test_set_indexing(void)
{
	static const char *const preset[] = { "zen4", "zen4-16x192" };
	static const uint64_t want[] = { 0, 32 };

	for (int i = 0; i < 2; i++) {
		struct pt t = { .levels = 5, .leaf = 1, .present = true };
		struct wm_model *m = new_model(wm_preset_find(preset[i]));
		const struct wm_space_stats *s = ust(m);
		uint64_t before;

		begin();
		for (uint64_t k = 0; k < 32; k++)
			acc(m, &t, k << 48 | BASE);
		before = s->l2_pde_hits;
		for (uint64_t k = 0; k < 32; k++)
			acc(m, &t, (k << 48 | BASE) + PG);
		EQ("pass 1: 32 walks, no PDE in the L2 DTLB yet", before, 0);
		EQ("pass 2: 32 more walks", s->l2_tlb_misses, 64);
		EQ("pass 2: L2-DTLB PDE hits", s->l2_pde_hits - before, want[i]);
		end(i ? "set indexing, zen4-16x192: 32 regions' PDEs in one set of 192 (hand-worked)" :
			"set indexing, zen4: 32 regions' PDEs in one set of 24 (hand-worked)");
		wm_model_free(m);
	}
}

/* ---- 13: a model without the PML5E level (the fifth level priced in one boot) ------ */

/* 16 walks over 16 new 2M regions of one 1G region, each page touched once. */
static void region_walks(struct wm_model *m, struct pt *t)
{
	for (int i = 0; i < 16; i++)
		acc(m, t, BASE + i * MB2 + 0x800);
}

static void test_strip_pml5e(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_preset small = *wm_preset_find("zen4");
	const struct wm_preset *preset[] = { wm_preset_find("zen4"), &small };
	/* [preset][stripped]: reads, PML5E reads */
	static const uint64_t want[2][2][2] = { { { 35, 1 }, { 34, 0 } }, { { 80, 16 }, { 34, 0 } } };

	small.pdc_entries = 2;
	/*
	 * Each walk finds no PDE in the L2 TLB (a new 2M region) and looks the upper levels up
	 * in the PDC. zen4's 64 entries: walk 1 reads all 5 and caches PML5E, PML4E, PDPTE;
	 * walks 2-16 hit all three and read PDE and PTE: 5 + 15 x 2 = 35, one PML5E read.
	 * Without the PML5E level: 4 + 15 x 2 = 34: the difference is that one read.
	 * A 2-entry PDC (LRU): the three upper entries of every walk evict one another, so
	 * every walk misses all three and reads 5: 80, 16 PML5E reads. Without the level, the
	 * two left fit: 4 + 15 x 2 = 34. The fifth level costs 46 reads, of which 30 are the
	 * PML4Es and PDPTEs its PML5E crowds out, not its own.
	 */
	for (int i = 0; i < 2; i++) {
		begin();
		for (int stripped = 0; stripped < 2; stripped++) {
			struct wm_model *m = new_model(preset[i]);

			if (stripped)
				wm_model_strip_pml5e(m);
			region_walks(m, &t);
			EQ("walks", walks(m), 16);
			EQ("reads", refs_total(m), want[i][stripped][0]);
			EQ("PML5E reads", lvl_all(m, WM_PML5E), want[i][stripped][1]);
			EQ("PML5E PDC hits", ust(m)->pdc_hits[WM_PML5E], stripped ? 0 : 15 * !i);
			EQ("PML4E PDC hits", ust(m)->pdc_hits[WM_PML4E], i && !stripped ? 0 : 15);
			wm_model_free(m);
		}
		end(i ? "without the PML5E level, zen4 with a 2-entry PDC: 80 reads against 34, "
			"the crowding priced" :
			"without the PML5E level, zen4: 35 reads against 34, one PML5E");
	}

	/*
	 * The split design tags by all 57 bits even without the level: regions 1 << 48 apart
	 * share VA[47:0] but not their PSC entries. Two regions, one access each, then a new
	 * page of each: the second pass hits the PDE cache of each region (1 read each), not
	 * the other region's. 4-level paging: the model is unchanged (same counts as without
	 * stripping).
	 */
	begin();
	{
		struct wm_model *m = new_model(wm_preset_find("splitpsc"));

		wm_model_strip_pml5e(m);
		acc(m, &t, BASE);
		acc(m, &t, 1ULL << 48 | BASE);
		EQ("two cold walks without the PML5E: 4 reads each", refs_total(m), 8);
		acc(m, &t, BASE + PG);
		acc(m, &t, (1ULL << 48 | BASE) + PG);
		EQ("each region's own PDE entry: 1 read each", refs_total(m), 10);
		EQ("psc_hits[PDE]", ust(m)->psc_hits[WM_PDE], 2);
		wm_model_free(m);

		t.levels = 4;
		m = new_model(wm_preset_find("splitpsc"));
		wm_model_strip_pml5e(m);
		seq_stream(m, &t, 64);
		EQ("4-level stream: the test-1 counts less the PML5E", refs_total(m), 67);
		wm_model_free(m);
		t.levels = 5;
	}
	end("without the PML5E level, splitpsc: tags keep all 57 bits; 4-level walks unchanged");

	/*
	 * Faulting walks that stop above the PDPTE (the plugin's pre-handler path: the
	 * PML4E was not present, or the PML5E). 5-level: 2 reads, then 1; without the level,
	 * 1 and 1 (a walk that failed at the PML5E fails at the PML4E).
	 */
	begin();
	for (int stripped = 0; stripped < 2; stripped++) {
		struct wm_model *m = new_model(wm_preset_find("splitpsc"));

		if (stripped)
			wm_model_strip_pml5e(m);
		t.present = false;
		t.leaf = WM_PML4E;
		fault(m, &t, BASE);
		EQ("non-present PML4E: reads", refs_total(m), stripped ? 1 : 2);
		t.leaf = WM_PML5E;
		fault(m, &t, 1ULL << 50);
		EQ("non-present PML5E: reads", refs_total(m), stripped ? 2 : 3);
		EQ("fault walks", ust(m)->fault_walks, 2);
		EQ("failed walks", ust(m)->walks_failed, 2);
		wm_model_free(m);
	}
	t.present = true;
	t.leaf = WM_PTE;
	end("faulting walks that stop at the PML4E or PML5E are charged, with and without it");
}

/* ---- 14: a fault's handler held back (hold.c) ---------------------------------- */

struct fed {
	int n;
	struct wm_held e[8];
};

static void record_fed(const struct wm_held *e, void *ctx)
{
	struct fed *f = ctx;

	if (f->n < 8)
		f->e[f->n] = *e;
	f->n++;
}

static void hold_store(struct wm_hold *h, uint64_t pa, unsigned int size)
{
	wm_hold_event(h, &(struct wm_held){ .va = 1ULL << 63, .pa = pa, .size = size,
					    .flush = WM_HELD_ACCESS }, true);
}

static void test_hold(void)
{
	struct pt t = { .levels = 5, .leaf = 1, .present = true };
	struct wm_hold h = { .on = true };
	struct wm_path now, before;
	struct fed fed = { 0 };
	struct wm_model *m;

	/*
	 * The faulting walk's path: the handler stored 4 bytes over the PML4E (not a whole
	 * entry: ignored), 8 bytes at the PTE and at the PDE. Cut at the first entry from the
	 * top that it wrote: the PDE, not present then. A 16-byte store 8 bytes below the
	 * PDPTE covers it too: cut there. No store on the path: the path as it is.
	 */
	begin();
	walker(&t, BASE, &now);
	before = now;
	wm_hold_cut(&h, &before);
	EQ("no store: leaf", before.leaf, WM_PTE);
	EQ("no store: present", before.present, 1);
	hold_store(&h, entry_pa(BASE, WM_PML4E, 5), 4);
	hold_store(&h, entry_pa(BASE, WM_PTE, 5), 8);
	hold_store(&h, entry_pa(BASE, WM_PDE, 5), 8);
	before = now;
	wm_hold_cut(&h, &before);
	EQ("PDE written: leaf", before.leaf, WM_PDE);
	EQ("PDE written: not present", before.present, 0);
	EQ("a 4-byte store writes no entry", wm_hold_wrote(&h, entry_pa(BASE, WM_PML4E, 5)), 0);
	hold_store(&h, entry_pa(BASE, WM_PDPTE, 5) - 8, 16);
	before = now;
	wm_hold_cut(&h, &before);
	EQ("PDPTE covered by a 16-byte store: leaf", before.leaf, WM_PDPTE);
	end("hold: the faulting walk's path cut at the first entry the handler wrote");

	/* Released in the order held, then empty and off; a full hold takes nothing more. */
	begin();
	wm_hold_event(&h, &(struct wm_held){ .flush = 3 }, false);
	EQ("released", wm_hold_release(&h, record_fed, &fed), 5);
	EQ("fed", fed.n, 5);
	EQ("first: the PML4E store", fed.e[0].pa, entry_pa(BASE, WM_PML4E, 5));
	EQ("then the PTE's", fed.e[1].pa, entry_pa(BASE, WM_PTE, 5));
	EQ("last: the flush", fed.e[4].flush, 3);
	EQ("empty", h.n + h.nstored, 0);
	EQ("off", h.on, 0);
	EQ("the stores are forgotten", wm_hold_wrote(&h, entry_pa(BASE, WM_PDE, 5)), 0);
	h.max = 2;
	EQ("1 of 2", wm_hold_event(&h, &(struct wm_held){ .flush = 1 }, false), 1);
	EQ("2 of 2", wm_hold_event(&h, &(struct wm_held){ .flush = 2 }, false), 1);
	EQ("a third is refused", wm_hold_event(&h, &(struct wm_held){ .flush = 3 }, false), 0);
	EQ("two held", h.n, 2);
	wm_hold_free(&h);
	end("hold: released in order, emptied; a full hold refuses");

	/*
	 * What it changes (splitpsc, cold): a fault at BASE whose handler made the PDE present
	 * (a new page table). Charged before the handler, the faulting walk reads PML5E..PDE,
	 * 4; the retry, after the fault dropped what it would use, walks all 5: 9 in all.
	 * Charged on the tables the handler left, the faulting walk read down to the PTE: 10.
	 */
	begin();
	hold_store(&h, entry_pa(BASE, WM_PDE, 5), 8);
	before = now;
	wm_hold_cut(&h, &before);
	m = new_model(wm_preset_find("splitpsc"));
	wm_page_fault(m, BASE, wm_given_path, &before);
	acc(m, &t, BASE);
	EQ("before the handler: 4 + 5 reads", refs_total(m), 9);
	wm_model_free(m);
	m = new_model(wm_preset_find("splitpsc"));
	wm_page_fault(m, BASE, walker, &t);
	acc(m, &t, BASE);
	EQ("on the handler's tables: 5 + 5", refs_total(m), 10);
	wm_model_free(m);
	wm_hold_free(&h);
	end("hold: a faulting walk charged before its handler reads down to the missing entry");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 50000000;
		const struct wm_preset *p = wm_preset_find(argc > 3 ? argv[3] : "splitpsc");

		if (!p) {
			fprintf(stderr, "test-model: unknown preset %s\n", argv[3]);
			return 2;
		}
		bench(p, n, 1ULL << 36, 1, "uniform random over 64 GiB");
		bench(p, n, 1ULL << 26, 1, "uniform random over 64 MiB");
		bench(p, n, 1ULL << 30, 16, "runs of 16 x 8 bytes over 1 GiB");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: test-model [--bench [N] [PRESET]]\n");
		return 2;
	}

	test_sequential();
	test_psc_round_robin();
	test_levels();
	test_flushes();
	test_stale();
	test_cache_levels();
	test_1g();
	test_failed();
	test_presets();
	test_cycles();
	test_fault_invalidation();
	test_fault_stream();
	test_pdc();
	test_nested();
	test_set_indexing();
	test_strip_pml5e();
	test_hold();

	printf("1..%d\n", n_tests);
	return n_failed ? 1 : 0;
}
