// SPDX-License-Identifier: GPL-2.0
/*
 * walkmodel presets: sizes and latencies of real cores, each number with where it is from.
 *
 * The presets, and what each is for:
 *   zen4        AMD Zen 4 as AMD documents its translation hardware: PDEs in the L2 DTLB,
 *               a page directory cache (PDC) for the levels above, looked up level by level.
 *   goldencove  Intel Golden Cove with Intel's split paging-structure caches.
 *   splitpsc    Zen 4's TLBs and caches with Intel's split paging-structure caches instead
 *               of AMD's design (not a real core): sets the two designs side by side on the
 *               same TLBs and caches, and is the base of the per-level sweeps.
 *   nopsc       Zen 4's TLBs and caches with no upper-level cache at all: every walk reads
 *               every level (a bound, not a real core).
 *   zen4-noinval  zen4 without the page-fault invalidation (see fault_invalidates below).
 *   zen4-16x192   zen4 with its L2 DTLB organised as 16 x 192 instead of 128 x 24: the
 *               sensitivity of a result to the assumed set indexing.
 *   zen4-npt4, zen4-npt5, goldencove-ept4, goldencove-ept5
 *               the same cores running a virtual machine whose memory the host maps with
 *               4- or 5-level nested tables (AMD NPT, Intel EPT): two-dimensional walks.
 *
 * How the model's shape maps the hardware:
 *   - TLBs. Zen 4's L2 DTLB is one structure for 4K and 2M pages (1G pages smashed into 2M
 *     entries) and PDEs: the Zen 4 presets model it as one array that all of them share
 *     (l2_tlb_unified). Golden Cove's STLB is shared by 4K and 2M pages with 2M pages
 *     limited to half of it: modelled as one array per size, each with its geometry, so a
 *     workload mixing sizes sees up to the sum (more than the hardware has). Set counts must
 *     be powers of two, so a fully associative structure is 1 set of N ways.
 *   - Latency bands are load-to-use cycles at the stated clock (clock_ghz); nanosecond
 *     figures are converted at that clock. A band with lo == hi has one source figure.
 *   - Upper-level caches. Intel documents what its paging-structure caches hold and how
 *     they are tagged (SDM Vol. 3A §4.10.3), never their sizes: goldencove and splitpsc use
 *     the per-level sizes ChampSim gives its page-table walker by default
 *     (github.com/ChampSim/ChampSim inc/defaults.hpp, default_ptw: add_pscl(5,1,2),
 *     (4,1,4), (3,2,4), (2,4,8): PML5E 2, PML4E 4, PDPTE 8, PDE 32 entries), a simulator's
 *     default, not a measurement: an ASSUMPTION, swept per level in the report. AMD
 *     documents for Family 17h that the L2 DTLB also holds page-directory entries and that
 *     the table walker has a 64-entry Page Directory Cache holding PML4Es and PDPEs
 *     (Software Optimization Guide for AMD Family 17h, pub. 55723, and for Family 17h
 *     Models 30h+ (Zen 2), pub. 56305, "L2 Translation Lookaside Buffers" and "Hardware
 *     Page Table Walker"; read here as quoted by WikiChip and Chips and Cheese): assumed
 *     unchanged in Zen 4 (ASSUMPTION), with PML5Es kept in the same PDC (ASSUMPTION: AMD
 *     says nothing of them). How the PDC is tagged AMD does not say; Barr, Cox and Rixner
 *     (ISCA 2010, "Translation caching: skip, don't walk (the page table)") describe AMD's
 *     page walk cache as a unified page table cache, entries tagged by physical address,
 *     which is what the model does. The older Family 16h guide (pub. 52128, §2.6.3) gives a
 *     16-entry PDC; the sweep covers both sizes.
 *   - Page faults. SDM Vol. 3A §4.10.4.1: a page fault invalidates the TLB entries for the
 *     faulting address's page and the paging-structure-cache entries that would be used
 *     for it (fault_invalidates, all Intel-style presets). AMD's manuals say nothing we
 *     found about faults and the PDC: zen4 does the same as the SDM (ASSUMPTION: Linux
 *     relies on a fault's retry seeing the tables as they are now without a flush,
 *     flush_tlb_fix_spurious_fault() is empty on x86 in 6.1), and zen4-noinval keeps the
 *     caches, the other end of the choice.
 *   - The L2-TLB-hit band and the PDC-hit band are ASSUMPTIONs: ChampSim's STLB latency,
 *     7 cycles in inc/defaults.hpp (default_stlb) and 8 in champsim_config.json; a PDC
 *     lookup, 1 to 3 cycles (no source gives it).
 *   - Nested paging. The host maps guest memory with 4K pages (the most it can cost; a
 *     host backing its guests with 2M pages walks one level less): ASSUMPTION. Guest and
 *     host tables are read through the same caches. Intel: the guest's TLB and PSC entries
 *     are combined mappings, linear to host-physical; guest-physical mappings are cached
 *     apart (an EPT TLB and EPT paging-structure caches), and the guest's CR3 writes and
 *     INVLPGs leave them (SDM Vol. 3C §28.3, "Caching Translation Information"). AMD: host
 *     entries go into the same PDC, and a nested TLB caches guest-physical pages (the
 *     design space of Bhargava, Serebrin, Spadini and Manne, ASPLOS 2008, "Accelerating
 *     two-dimensional page walks for virtualized systems"). Sizes of the nested TLB (16)
 *     and of the EPT paging-structure caches (the guest's ChampSim sizes): ASSUMPTION.
 */
#include <stddef.h>
#include <string.h>

#include "model.h"

#define ZEN4_SOURCE \
	"AMD Software Optimization Guide for the Zen 4 microarchitecture (pub. 57647): " \
	"TLB sizes, L1D/L2/L3 geometry, L1D and L2 load-to-use cycles; " \
	"AMD SOG Family 17h (pub. 55723, 56305) as quoted by WikiChip and Chips and Cheese: " \
	"L2 DTLB keeps 1G pages smashed into 2M entries and holds PDEs, 64-entry Page " \
	"Directory Cache of PML4Es and PDPEs (assumed unchanged in Zen 4); " \
	"L3 latency: AIDA64 10.1-10.5 ns on Ryzen 9 7900X (appuals.com, HXL's leak); " \
	"DRAM latency: AIDA64 63.6 ns, DDR5-6000 at FCLK 2000 MHz (silverflick.com, " \
	"from @harukaze5719's chart); ns converted at 5.0 GHz; " \
	"ASSUMPTION: L2 DTLB associativity (24 ways), L2-TLB-hit latency (ChampSim " \
	"defaults), PDC hit latency, PML5Es in the PDC, PDC tagged by physical address " \
	"(Barr, Cox and Rixner, ISCA 2010)"

#define CHAMPSIM_PSC \
	"ASSUMPTION: PSC sizes and L2-TLB-hit latency from ChampSim defaults " \
	"(inc/defaults.hpp, champsim_config.json)"

#define NESTED_SOURCE \
	"; nested: host tables of 4K pages (ASSUMPTION), nested TLB 16 entries (ASSUMPTION), " \
	"design after Bhargava et al., ASPLOS 2008, and SDM Vol. 3C §28.3"

/*
 * AMD Zen 4 (Ryzen 7000 "Raphael", EPYC 9004 "Genoa"), everything but the upper-level
 * caches, which differ between the presets built on it.
 *   L1 DTLB: 72 entries, fully associative, 4K/2M/1G pages (SOG 57647, "L1 Translation
 *     Lookaside Buffers").
 *   L2 DTLB: 3072 entries holding 4K and 2M pages and page-directory entries; 1G pages are
 *     "smashed" into 2M entries and go back to the L1 as 1G (SOG 57647; the smashing and
 *     PDE text is verified here in AMD's Family 17h guides as quoted by WikiChip, and
 *     assumed to hold for Zen 4). Modelled as one array of 128 sets x 24 ways (3072 =
 *     24 x 128): the associativity is a modelling choice (ASSUMPTION), the real array is
 *     skewed.
 *   L1D 32 KiB 8-way, L2 1 MiB 8-way private, L3 32 MiB 16-way per CCD (SOG 57647).
 *   L1D 4-5 cycles load-to-use for integer loads, L2 14 cycles (SOG 57647).
 *   L3 10.1-10.5 ns (AIDA64, Ryzen 9 7900X, appuals.com) x 5.0 GHz = 50.5-52.5 cycles.
 *   DRAM 63.6 ns (AIDA64, DDR5-6000, FCLK 2000 MHz, silverflick.com) x 5.0 GHz = 318.
 */
#define ZEN4_CPU "AMD Zen 4 (Ryzen 7000, EPYC 9004)"
#define ZEN4_COMMON \
	.l1_dtlb = { [WM_4K] = { 1, 72 }, [WM_2M] = { 1, 72 }, [WM_1G] = { 1, 72 } }, \
	.l2_tlb_unified = true, \
	.l2_tlb_smash_1g = true, \
	.l1d = { 32, 8 }, \
	.l2 = { 1024, 8 }, \
	.l3 = { 32768, 16 }, \
	.ref_latency = { \
		[WM_AT_L1] = { 4, 5 }, \
		[WM_AT_L2] = { 14, 14 }, \
		[WM_AT_L3] = { 50.5, 52.5 }, \
		[WM_AT_MEM] = { 318, 318 }, \
	}, \
	.l2_tlb_hit = { 7, 8 }, /* ASSUMPTION: ChampSim STLB latency, see the top */ \
	.clock_ghz = 5.0

/* The L2 DTLB's 3072 entries as 128 sets x 24 ways (an ASSUMPTION, see above). */
#define ZEN4_L2_TLB .l2_tlb = { [WM_4K] = { 128, 24 } }

/* AMD's design: PDEs in the L2 DTLB, a 64-entry PDC looked up level by level. */
#define ZEN4_PDC \
	.psc_design = WM_PSC_PDC, \
	.pdc_entries = 64, \
	.pdc_hit = { 1, 3 }	/* ASSUMPTION: no source gives it */

/* Intel's split PSCs at ChampSim's sizes (ASSUMPTION, see the top). */
#define CHAMPSIM_PSC_SIZES \
	{ [WM_PDE] = 32, [WM_PDPTE] = 8, [WM_PML4E] = 4, [WM_PML5E] = 2 }

static const struct wm_preset zen4 = {
	.cpu = ZEN4_CPU,
	.name = "zen4",
	.source = ZEN4_SOURCE,
	ZEN4_COMMON,
	ZEN4_L2_TLB,
	ZEN4_PDC,
	.fault_invalidates = true,	/* ASSUMPTION, see the top */
};

static const struct wm_preset zen4_noinval = {
	.cpu = ZEN4_CPU,
	.name = "zen4-noinval",
	.source = ZEN4_SOURCE "; zen4-noinval: a page fault invalidates nothing (the other "
		  "end of the assumption about faults)",
	ZEN4_COMMON,
	ZEN4_L2_TLB,
	ZEN4_PDC,
	.fault_invalidates = false,
};

/*
 * zen4 with the same 3072 L2 DTLB entries organised as 16 sets x 192 ways: how much of
 * a result hangs on the assumed set indexing. With 128 sets a set is picked by VA[18:12]
 * for a page and VA[27:21] for a PDE, so regions k << 48 apart put their entries for the
 * same offset in one set of 24 ways; 16 sets of 192 take eight times as many before they
 * conflict. A sensitivity run, not a core.
 */
static const struct wm_preset zen4_16x192 = {
	.cpu = ZEN4_CPU,
	.name = "zen4-16x192",
	.source = ZEN4_SOURCE "; zen4-16x192: the L2 DTLB as 16 sets x 192 ways instead of "
		  "128 x 24 (the set indexing's sensitivity, not a core)",
	ZEN4_COMMON,
	.l2_tlb = { [WM_4K] = { 16, 192 } },
	ZEN4_PDC,
	.fault_invalidates = true,
};

static const struct wm_preset splitpsc = {
	.name = "splitpsc",
	.source = ZEN4_SOURCE "; splitpsc: Zen 4's TLBs and caches with Intel's split "
		  "paging-structure caches (SDM Vol. 3A §4.10.3), not a real core; "
		  CHAMPSIM_PSC,
	ZEN4_COMMON,
	ZEN4_L2_TLB,
	.cpu = "Zen 4 TLBs and caches, Intel-style split PSCs (not a real core)",
	.psc_design = WM_PSC_SPLIT,
	.psc_entries = CHAMPSIM_PSC_SIZES,
	.fault_invalidates = true,	/* SDM Vol. 3A §4.10.4.1 */
};

static const struct wm_preset nopsc = {
	.name = "nopsc",
	.source = ZEN4_SOURCE "; nopsc: Zen 4's TLBs and caches with no cache of upper-level "
		  "entries at all (a bound, not a real core)",
	ZEN4_COMMON,
	ZEN4_L2_TLB,
	.cpu = "Zen 4 TLBs and caches, no upper-level caches (a bound)",
	.psc_design = WM_PSC_SPLIT,
	.fault_invalidates = true,
};

/*
 * Intel Golden Cove P-core (Alder Lake-S, e.g. Core i9-12900K; the same core is in
 * Sapphire Rapids with a 2 MiB L2).
 *   L1 DTLB (loads): 4K 96 entries 6-way, 2M/4M 32 entries 4-way, 1G 8 entries fully
 *     associative (Intel 64 and IA-32 Architectures Optimization Reference Manual, Golden
 *     Cove TLB parameters; the 96 and 32 are also in D. Bakhvalov, "Performance Analysis
 *     and Tuning on Modern CPUs", "Modern CPU Design", which cites that manual).
 *   STLB: 2048 entries 16-way shared by 4K and 2M pages, of which 2M pages can use only
 *     1024 (Bakhvalov, as above; modelled as 1024 = 128 x 8 for 2M); 1G pages 1024
 *     entries 8-way (Optimization Reference Manual).
 *   L1D 48 KiB 12-way, 5 cycles (Optimization Reference Manual; Chips and Cheese, "Going
 *     Armchair Quarterback on Golden Cove's Caches", whose baseline is 64 sets x 12 ways,
 *     5 cycles). L2 1.25 MiB 10-way, 15 cycles (Optimization Reference Manual, client
 *     part). L3 30 MiB 12-way shared (Core i9-12900K; 30 MB per Guru3D's review).
 *   L3 15.5 ns (AIDA64, Core i9-12900K, appuals.com) x 5.0 GHz = 77.5 cycles.
 *   DRAM 87 ns (DDR5-4800, UserBenchmark result reported by followthistrendingworld.com)
 *     to 92.5 ns (AIDA64, DDR5-6400 in Gear 4, TechPowerUp/thefpsreview.com) x 5.0 GHz.
 */
#define GOLDENCOVE_SOURCE \
	"Intel 64 and IA-32 Architectures Optimization Reference Manual (Golden Cove " \
	"TLB and cache parameters, L1D 5 and L2 15 cycles); D. Bakhvalov, Performance " \
	"Analysis and Tuning on Modern CPUs, 'Modern CPU Design' (L1 DTLB 96/32, STLB " \
	"2048, 2M pages 1024 of it); Chips and Cheese, 'Going Armchair Quarterback on " \
	"Golden Cove's Caches' (L1D 64 sets x 12 ways, 5 cycles); Guru3D i9-12900K " \
	"review (30 MB L3); L3 latency: AIDA64 15.5 ns on i9-12900K (appuals.com); " \
	"DRAM latency: 87 ns DDR5-4800 (UserBenchmark via followthistrendingworld.com) " \
	"to 92.5 ns DDR5-6400 Gear 4 (AIDA64 via thefpsreview.com); ns converted at " \
	"5.0 GHz; split PSCs as SDM Vol. 3A §4.10.3 describes them; " CHAMPSIM_PSC

#define GOLDENCOVE_COMMON \
	.cpu = "Intel Golden Cove P-core (Alder Lake-S, e.g. Core i9-12900K)", \
	.l1_dtlb = { [WM_4K] = { 16, 6 }, [WM_2M] = { 8, 4 }, [WM_1G] = { 1, 8 } }, \
	.l2_tlb = { [WM_4K] = { 128, 16 }, [WM_2M] = { 128, 8 }, [WM_1G] = { 128, 8 } }, \
	.psc_design = WM_PSC_SPLIT, \
	.psc_entries = CHAMPSIM_PSC_SIZES, \
	.l1d = { 48, 12 }, \
	.l2 = { 1280, 10 }, \
	.l3 = { 30720, 12 }, \
	.ref_latency = { \
		[WM_AT_L1] = { 5, 5 }, \
		[WM_AT_L2] = { 15, 15 }, \
		[WM_AT_L3] = { 77.5, 77.5 }, \
		[WM_AT_MEM] = { 435, 462.5 }, \
	}, \
	.l2_tlb_hit = { 7, 8 },	/* ASSUMPTION: ChampSim STLB latency, see the top */ \
	.l2_tlb_smash_1g = false, \
	.fault_invalidates = true,	/* SDM Vol. 3A §4.10.4.1 */ \
	.clock_ghz = 5.0

static const struct wm_preset goldencove = {
	.name = "goldencove",
	.source = GOLDENCOVE_SOURCE,
	GOLDENCOVE_COMMON,
};

/* Virtualised: the same cores, the host's nested tables of 4 or 5 levels behind. */
#define NESTED(h) \
	.host_levels = h, \
	.ntlb_entries = 16,		/* ASSUMPTION, see the top */ \
	.npsc_entries = CHAMPSIM_PSC_SIZES	/* split design only; ASSUMPTION */

static const struct wm_preset zen4_npt4 = {
	.cpu = ZEN4_CPU,
	.name = "zen4-npt4",
	.source = ZEN4_SOURCE NESTED_SOURCE,
	ZEN4_COMMON, ZEN4_L2_TLB, ZEN4_PDC, NESTED(4),
	.fault_invalidates = true,
};

static const struct wm_preset zen4_npt5 = {
	.cpu = ZEN4_CPU,
	.name = "zen4-npt5",
	.source = ZEN4_SOURCE NESTED_SOURCE,
	ZEN4_COMMON, ZEN4_L2_TLB, ZEN4_PDC, NESTED(5),
	.fault_invalidates = true,
};

static const struct wm_preset goldencove_ept4 = {
	.name = "goldencove-ept4",
	.source = GOLDENCOVE_SOURCE NESTED_SOURCE,
	GOLDENCOVE_COMMON, NESTED(4),
};

static const struct wm_preset goldencove_ept5 = {
	.name = "goldencove-ept5",
	.source = GOLDENCOVE_SOURCE NESTED_SOURCE,
	GOLDENCOVE_COMMON, NESTED(5),
};

const struct wm_preset *const wm_presets[] = {
	&zen4, &goldencove, &splitpsc, &nopsc, &zen4_noinval, &zen4_16x192,
	&zen4_npt4, &zen4_npt5, &goldencove_ept4, &goldencove_ept5, NULL,
};

const struct wm_preset *wm_preset_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; wm_presets[i]; i++) {
		if (!strcmp(wm_presets[i]->name, name))
			return wm_presets[i];
	}
	return NULL;
}
