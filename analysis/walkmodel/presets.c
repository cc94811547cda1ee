// SPDX-License-Identifier: GPL-2.0
/*
 * walkmodel presets: sizes and latencies of real cores, each number with where it is from.
 *
 * How the model's shape maps the hardware, for every preset:
 *   - The model keeps one TLB array per page size. Where a core's TLB is one structure
 *     shared by several sizes (Zen 4's L1 DTLB and L2 DTLB, Golden Cove's STLB for 4K and
 *     2M), each size gets the whole structure's geometry: a workload mixing page sizes sees
 *     up to the sum of them, more than the hardware has. Set counts must be powers of two,
 *     so a fully associative structure is 1 set of N ways.
 *   - Latency bands are load-to-use cycles at the stated clock (clock_ghz); nanosecond
 *     figures are converted at that clock. A band with lo == hi has one source figure.
 *   - Paging-structure-cache sizes are not published for either core. Both presets use
 *     the per-level sizes ChampSim gives its page-table walker by default
 *     (github.com/ChampSim/ChampSim inc/defaults.hpp, default_ptw: add_pscl(5,1,2),
 *     (4,1,4), (3,2,4), (2,4,8), i.e. PML5E 2, PML4E 4, PDPTE 8, PDE 32 entries). That is a
 *     simulator's default, not a measurement of these cores: an ASSUMPTION. The nearest
 *     AMD-published figure is the 16-entry Page Directory Cache of Family 16h (AMD SOG for
 *     Family 16h, pub. 52128, §2.6.3, one cache for all upper levels); for Family 17h and
 *     later AMD says the L2 DTLB also holds page-directory entries, without a count.
 *     "nopsc" is zen4 with every PSC removed, to bound the PSCs' effect from the other side.
 *   - The L2-TLB-hit band is also an ASSUMPTION for both: ChampSim's STLB latency, 7 cycles
 *     in inc/defaults.hpp (default_stlb) and 8 in champsim_config.json.
 */
#include <stddef.h>
#include <string.h>

#include "model.h"

#define ZEN4_SOURCE \
	"AMD Software Optimization Guide for the Zen 4 microarchitecture (pub. 57647): " \
	"TLB sizes, L1D/L2/L3 geometry, L1D and L2 load-to-use cycles; " \
	"AMD SOG Family 17h (pub. 55723) as quoted by WikiChip (Zen/Zen 2): L2 DTLB " \
	"keeps 1G pages smashed into 2M entries (assumed unchanged in Zen 4); " \
	"L3 latency: AIDA64 10.1-10.5 ns on Ryzen 9 7900X (appuals.com, HXL's leak); " \
	"DRAM latency: AIDA64 63.6 ns, DDR5-6000 at FCLK 2000 MHz (silverflick.com, " \
	"from @harukaze5719's chart); ns converted at 5.0 GHz; " \
	"ASSUMPTION: L2 DTLB associativity (24 ways), PSC sizes and L2-TLB-hit latency " \
	"from ChampSim defaults (inc/defaults.hpp, champsim_config.json), not measured " \
	"on Zen 4"

/*
 * AMD Zen 4 (Ryzen 7000 "Raphael", EPYC 9004 "Genoa"), everything but the PSCs, which
 * differ between "zen4" and "nopsc".
 *   L1 DTLB: 72 entries, fully associative, 4K/2M/1G pages (SOG 57647, "L1 Translation
 *     Lookaside Buffers").
 *   L2 DTLB: 3072 entries holding 4K and 2M pages and page-directory entries; 1G pages are
 *     "smashed" into 2M entries and go back to the L1 as 1G (SOG 57647; the smashing text
 *     is verified here in AMD's Family 17h guide as quoted by WikiChip, and assumed to
 *     hold for Zen 4). Modelled as 128 sets x 24 ways per size (3072 = 24 x 128): the
 *     associativity is a modelling choice (ASSUMPTION), the real array is skewed.
 *   L1D 32 KiB 8-way, L2 1 MiB 8-way private, L3 32 MiB 16-way per CCD (SOG 57647).
 *   L1D 4-5 cycles load-to-use for integer loads, L2 14 cycles (SOG 57647).
 *   L3 10.1-10.5 ns (AIDA64, Ryzen 9 7900X, appuals.com) x 5.0 GHz = 50.5-52.5 cycles.
 *   DRAM 63.6 ns (AIDA64, DDR5-6000, FCLK 2000 MHz, silverflick.com) x 5.0 GHz = 318.
 */
#define ZEN4_COMMON \
	.cpu = "AMD Zen 4 (Ryzen 7000, EPYC 9004)", \
	.l1_dtlb = { [WM_4K] = { 1, 72 }, [WM_2M] = { 1, 72 }, [WM_1G] = { 1, 72 } }, \
	.l2_tlb = { [WM_4K] = { 128, 24 }, [WM_2M] = { 128, 24 }, [WM_1G] = { 0, 0 } }, \
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

static const struct wm_preset zen4 = {
	.name = "zen4",
	.source = ZEN4_SOURCE,
	ZEN4_COMMON,
	/* ASSUMPTION: ChampSim's default PSC sizes (inc/defaults.hpp), see the top. */
	.psc_entries = { [WM_PDE] = 32, [WM_PDPTE] = 8, [WM_PML4E] = 4, [WM_PML5E] = 2 },
};

static const struct wm_preset nopsc = {
	.name = "nopsc",
	.source = ZEN4_SOURCE "; nopsc: zen4 with no paging-structure caches at all "
		  "(a bound, not a real core)",
	ZEN4_COMMON,
	.psc_entries = { 0 },
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
static const struct wm_preset goldencove = {
	.name = "goldencove",
	.cpu = "Intel Golden Cove P-core (Alder Lake-S, e.g. Core i9-12900K)",
	.source = "Intel 64 and IA-32 Architectures Optimization Reference Manual (Golden Cove "
		  "TLB and cache parameters, L1D 5 and L2 15 cycles); D. Bakhvalov, Performance "
		  "Analysis and Tuning on Modern CPUs, 'Modern CPU Design' (L1 DTLB 96/32, STLB "
		  "2048, 2M pages 1024 of it); Chips and Cheese, 'Going Armchair Quarterback on "
		  "Golden Cove's Caches' (L1D 64 sets x 12 ways, 5 cycles); Guru3D i9-12900K "
		  "review (30 MB L3); L3 latency: AIDA64 15.5 ns on i9-12900K (appuals.com); "
		  "DRAM latency: 87 ns DDR5-4800 (UserBenchmark via followthistrendingworld.com) "
		  "to 92.5 ns DDR5-6400 Gear 4 (AIDA64 via thefpsreview.com); ns converted at "
		  "5.0 GHz; ASSUMPTION: PSC sizes and L2-TLB-hit latency from ChampSim defaults "
		  "(inc/defaults.hpp, champsim_config.json), not measured on Golden Cove",
	.l1_dtlb = { [WM_4K] = { 16, 6 }, [WM_2M] = { 8, 4 }, [WM_1G] = { 1, 8 } },
	.l2_tlb = { [WM_4K] = { 128, 16 }, [WM_2M] = { 128, 8 }, [WM_1G] = { 128, 8 } },
	/* ASSUMPTION: ChampSim's default PSC sizes (inc/defaults.hpp), see the top. Intel
	 * documents the PSCs' existence and keys (SDM Vol. 3A §4.10.3), never their sizes. */
	.psc_entries = { [WM_PDE] = 32, [WM_PDPTE] = 8, [WM_PML4E] = 4, [WM_PML5E] = 2 },
	.l1d = { 48, 12 },
	.l2 = { 1280, 10 },
	.l3 = { 30720, 12 },
	.ref_latency = {
		[WM_AT_L1] = { 5, 5 },
		[WM_AT_L2] = { 15, 15 },
		[WM_AT_L3] = { 77.5, 77.5 },
		[WM_AT_MEM] = { 435, 462.5 },
	},
	.l2_tlb_hit = { 7, 8 },	/* ASSUMPTION: ChampSim STLB latency, see the top */
	.l2_tlb_smash_1g = false,
	.clock_ghz = 5.0,
};

const struct wm_preset *const wm_presets[] = { &zen4, &goldencove, &nopsc, NULL };

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
