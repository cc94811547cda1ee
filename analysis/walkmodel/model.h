/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walkmodel: what x86-64 address translation costs a stream of data accesses.
 *
 * Per modelled CPU: a first-level DTLB and a second-level TLB, caches of upper-level
 * entries (Intel's paging-structure caches or AMD's page directory cache), an L1D/L2/L3
 * hierarchy that walk references share with data, and for a virtualised CPU the host's
 * tables behind the guest's (a two-dimensional walk, with a nested TLB and host-side
 * caches).
 * The model never decodes page tables itself: on a TLB miss it asks a walker (the QEMU
 * plugin reads the guest's own tables from guest RAM; the tests use synthetic ones) for
 * the entries the walk reads, then charges each entry read to the PSC, a cache level or
 * memory. Sizes and latencies come from a preset (presets.c, each with its source).
 */
#ifndef WALKMODEL_MODEL_H
#define WALKMODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Paging-structure entry levels, named by the entry a walk reads at that level. */
enum wm_level {
	WM_PTE = 1,
	WM_PDE = 2,
	WM_PDPTE = 3,
	WM_PML4E = 4,
	WM_PML5E = 5,
	WM_NLEVELS = 6,		/* index 0 unused */
};

/* Page sizes, by the level of the leaf entry that maps them. */
enum wm_page { WM_4K, WM_2M, WM_1G, WM_NPAGES };

/* Where one walk reference was served. */
enum wm_where { WM_AT_L1, WM_AT_L2, WM_AT_L3, WM_AT_MEM, WM_NWHERE };

/*
 * How a preset caches upper-level entries. WM_PSC_SPLIT: Intel's paging-structure caches,
 * one per level, each entry tagged by the linear-address bits above its level's index
 * (SDM Vol. 3A §4.10.3); the walk starts below the deepest hit. WM_PSC_PDC: AMD's design,
 * PDEs cached in the L2 TLB (tagged by linear address) and a Page Directory Cache of
 * PDPTEs, PML4Es and PML5Es tagged by the entry's physical address, looked up level by
 * level as the walk goes (the "unified page table cache" of Barr, Cox and Rixner, ISCA
 * 2010): a hit saves the read, not the step.
 */
enum wm_psc_design { WM_PSC_SPLIT, WM_PSC_PDC };

/* Which half of the address space an access went to (bit 63 of the linear address). */
enum wm_space { WM_USER, WM_KERNEL, WM_NSPACES };

/* What a walk through the guest's tables found for one linear address. */
struct wm_path {
	int levels;			/* 4 or 5: the paging mode */
	int leaf;			/* level of the last entry read: 1 (4K), 2 (2M), 3 (1G);
					 * not present, any level up to `levels` */
	bool present;			/* false: the entry at `leaf` was not present */
	bool global;			/* the leaf's G bit */
	uint64_t entry_pa[WM_NLEVELS];	/* physical address of the entry read at each level */
	uint64_t page_pa;		/* physical base of the page (valid when present) */
	/* Set by the model, not the walker: the paging mode linear addresses are tagged
	 * under (levels, or 5 where the model leaves the PML5E level out). */
	int key_levels;
};

/* Fills *path for linear address va; false when it cannot walk at all (no root known). */
typedef bool (*wm_walker)(void *ctx, uint64_t va, struct wm_path *path);

struct wm_tlb_geometry {
	unsigned int sets, ways;	/* ways = entries and sets = 1: fully associative */
};

struct wm_cache_geometry {
	unsigned int size_kib, ways;	/* 64-byte lines; size 0: level absent */
};

/* A latency band in core cycles: [lo, hi] as the preset's source gives them. */
struct wm_band {
	double lo, hi;
};

struct wm_preset {
	const char *name;		/* "zen4", "goldencove", "nopsc", ... */
	const char *cpu;		/* the core it describes, in words */
	const char *source;		/* the public documents every number is from */
	/* TLBs per page size (0 sets: that size is not cached at this level). */
	struct wm_tlb_geometry l1_dtlb[WM_NPAGES], l2_tlb[WM_NPAGES];
	/* Entries of each paging-structure cache, by level (PDE..PML5E); 0: none. */
	unsigned int psc_entries[WM_NLEVELS];
	struct wm_cache_geometry l1d, l2, l3;
	/* Cost of one walk reference served at each place, and of an L2 TLB hit. */
	struct wm_band ref_latency[WM_NWHERE];
	struct wm_band l2_tlb_hit;
	/* Added after the first draft of this contract (append-only): */
	/* The L2 TLB keeps a 1G translation as a 2M entry for the 2M part of the page that was
	 * used ("smashing", AMD Family 17h/19h); the L1 TLB gets the whole 1G page back from
	 * it. Only used when l2_tlb[WM_1G] has 0 sets. */
	bool l2_tlb_smash_1g;
	/* Core clock (GHz) at which nanosecond figures were turned into the cycles above. */
	double clock_ghz;
	/* Added for the second version of the model (append-only): */
	/* How the upper levels are cached: psc_entries[] (WM_PSC_SPLIT) or pdc_entries and
	 * PDEs in the L2 TLB (WM_PSC_PDC, which needs l2_tlb_unified). */
	enum wm_psc_design psc_design;
	unsigned int pdc_entries;
	struct wm_band pdc_hit;		/* cycles of a PDC lookup that finds its entry */
	/* One L2 TLB array, l2_tlb[WM_4K]'s geometry, holds every size the L2 keeps (4K,
	 * 2M, 1G smashed to 2M) and, with WM_PSC_PDC, PDEs: they share its capacity. */
	bool l2_tlb_unified;
	/* A page fault drops what the retried access would use (SDM Vol. 3A §4.10.4.1). */
	bool fault_invalidates;
	/* Nested paging: the host's tables (EPT/NPT) have host_levels levels (4 or 5) and
	 * map guest-physical memory with 4K pages; 0: not virtualised. */
	int host_levels;
	unsigned int ntlb_entries;		/* guest-physical 4K page -> host-physical */
	unsigned int npsc_entries[WM_NLEVELS];	/* WM_PSC_SPLIT: host-side PSCs by level */
};

extern const struct wm_preset *const wm_presets[];	/* NULL-terminated */
const struct wm_preset *wm_preset_find(const char *name);

struct wm_space_stats {
	uint64_t accesses;		/* data loads and stores */
	uint64_t page_accesses[WM_NPAGES];	/* accesses by the size of the page they used */
	uint64_t l1_dtlb_misses;
	uint64_t l2_tlb_misses;		/* = walks started */
	uint64_t walks_failed;		/* walker found no root or a non-present entry */
	uint64_t stale_refills;		/* TLB hit whose physical page had changed: re-walked */
	/* Entry reads of all walks, by level and where they were served. Each hit counter
	 * belongs to one design. WM_PSC_SPLIT: psc_hits[L], walks whose deepest PSC hit was
	 * at level L (they skipped the levels above it). WM_PSC_PDC: l2_pde_hits, walks that
	 * started at the PTE because the L2 TLB held their PDE; pdc_hits[L], level-L entries
	 * the PDC held (not read). */
	uint64_t refs[WM_NLEVELS][WM_NWHERE];
	uint64_t psc_hits[WM_NLEVELS];
	uint64_t data_at[WM_NWHERE];	/* the accesses themselves, by where they hit */
	uint64_t pdc_hits[WM_NLEVELS];
	uint64_t l2_pde_hits;
	uint64_t faults;		/* page faults applied (wm_page_fault) */
	uint64_t fault_walks;		/* their faulting walks (also in l2_tlb_misses and
					 * walks_failed) */
	/* Nested paging: the host walks that translate the guest's page-table and data
	 * addresses. nrefs: host entries read; npsc_hits[L] (WM_PSC_SPLIT): host walks whose
	 * deepest host-PSC hit was at L; npdc_hits[L] (WM_PSC_PDC): host level-L entries the
	 * PDC held. */
	uint64_t nrefs[WM_NLEVELS][WM_NWHERE];
	uint64_t npsc_hits[WM_NLEVELS];
	uint64_t npdc_hits[WM_NLEVELS];
	uint64_t ntlb_hits, nested_walks;
};

struct wm_stats {
	struct wm_space_stats space[WM_NSPACES];
	uint64_t flushes_cr3, flushes_invlpg, flushes_invpcid, flushes_global;
};

struct wm_model;

struct wm_model *wm_model_new(const struct wm_preset *preset);
void wm_model_free(struct wm_model *m);

/*
 * One data access of `size` bytes at linear address va, physical pa. On a TLB miss (or a
 * TLB hit whose page no longer contains pa) the model calls walk(ctx, va, &path).
 */
void wm_access(struct wm_model *m, uint64_t va, uint64_t pa, unsigned int size,
	       wm_walker walk, void *ctx);

/* MOV to CR3 loading `pcid`; noflush: bit 63 was set (PCID enabled). */
void wm_write_cr3(struct wm_model *m, uint16_t pcid, bool noflush);
/* INVLPG: va_known false when the operand is not visible (all PSCs go, the TLB entry stays). */
void wm_invlpg(struct wm_model *m, bool va_known, uint64_t va);
/* INVPCID types 0-3 as the SDM defines them. */
void wm_invpcid(struct wm_model *m, unsigned int type, uint16_t pcid, uint64_t va);
/* MOV to CR4 changing PGE (or PCIDE): everything, global entries too. */
void wm_flush_global(struct wm_model *m);

const struct wm_stats *wm_stats(const struct wm_model *m);
void wm_stats_reset(struct wm_model *m);

/* Walk cycles of one space as a band, from the preset's latencies: every entry read
 * (guest and, nested, host) at the latency of where it was served, plus PDC hits. */
struct wm_band wm_walk_cycles(const struct wm_model *m, enum wm_space sp);

/* Added after the first draft of this contract: */
/* Cycles of the L1-DTLB misses that hit the L2 TLB (l1_dtlb_misses - l2_tlb_misses of
 * them) at the preset's l2_tlb_hit band; not part of wm_walk_cycles. */
struct wm_band wm_l2_hit_cycles(const struct wm_model *m, enum wm_space sp);
/* The preset the model was made with. */
const struct wm_preset *wm_model_preset(const struct wm_model *m);

/* Added for the second version of the model: */
/*
 * A page fault on linear address va (the plugin sees the fault's entry, and va when the
 * access is retried). Charges the walk that faulted, with the caches as they are, down to
 * the entry the walker says was not present (the plugin: the first entry on va's path the
 * handler wrote; a protection fault reads to the leaf). Then, when the preset's
 * fault_invalidates says so, drops the TLB entries for va's page (of the current PCID,
 * and global ones) and the cached upper-level entries the walk for va would use.
 */
void wm_page_fault(struct wm_model *m, uint64_t va, wm_walker walk, void *ctx);
/* Cycles of the data accesses themselves at the preset's latencies (data_at). */
struct wm_band wm_data_cycles(const struct wm_model *m, enum wm_space sp);
/* Added for the third version of the model: */
/*
 * From now on leave the PML5E level out of every 5-level walk: the model neither reads
 * nor caches PML5Es, walks start at the PML4E the PML5E points to, and what it caches is
 * still tagged by all 57 bits (no two regions alias). Fed the same stream as a model of
 * the same preset that keeps the level, the difference is what the fifth level costs
 * that stream: its own reads and lookups, and the entries its PML5Es crowd out of the
 * shared caches, within one boot and one layout. 4-level walks are unchanged.
 */
void wm_model_strip_pml5e(struct wm_model *m);
/* Where the model puts the guest's RAM and the host's tables in host-physical memory
 * (nested paging): guest-physical gpa is host-physical gpa + WM_HOST_GUEST_BASE. */
#define WM_HOST_GUEST_BASE	(1ULL << 40)
#define WM_HOST_TABLES_BASE	(1ULL << 50)

#endif
