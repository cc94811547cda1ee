// SPDX-License-Identifier: GPL-2.0
/*
 * chase: a dependent-load pointer chase with one load per 4K page, in one random cycle.
 *
 *   wl-chase [--pages N] [--steps M] [--warmup W] [--regions K] [--spacing BYTES]
 *            [--seed N] [--thp system|on|off]
 *
 * N distinct 4K pages each hold one 64-byte slot: the pointer to the next slot and the
 * page's number. The pages are linked in one random cyclic permutation (Sattolo's shuffle:
 * every page is on the one cycle, so no short loop can keep the chase inside the TLB), and
 * the measured part is M loads, each needing the one before: with more pages than the TLB
 * maps, every step is a TLB miss and a walk that the CPU cannot overlap with the next.
 *
 * Slot placement: page i's slot is line (i mod 64) of the page, at offset (i mod 64) x 64.
 * Consecutive pages so take each of a page's 64 lines in turn and the slots spread evenly
 * over the 64 sets a 4K page spans in a virtually indexed L1D, instead of all N sharing
 * one set (offset 0 everywhere) and thrashing it; sets above bit 11 follow the physical
 * pages, which the kernel scatters.
 *
 * --warmup W (default: N, one full cycle): W steps before the measured M, after
 * WALKMARK_WARMUP(), so that the plugin's TLBs and caches start the measured part warm.
 *
 * --regions 0 (default): the pages are one ordinary mapping. --regions K (1 to 255): K
 * mappings of N/K pages each (the first N mod K one more), mapping k (k = 1..K) with the
 * plain hint k x --spacing (default 256T, 1 << 48: the k-th 256 TiB region, above the
 * 47-bit boundary, the 5-level ABI's way to ask for high addresses, no MAP_FIXED). A
 * 4-level kernel ignores such a hint and maps below 47 bits; a 5-level one maps at the
 * hint unless that range is already in use. --spacing 512G puts the K mappings 512 GiB
 * apart below 47 bits, a sparse layout both paging modes can hold (K x 512G must stay
 * under 128T). Reported: at_hint_regions (mapped at their hint), low_regions (below
 * 1 << 47, not at the hint) and elsewhere_regions (above 47 bits, not at the hint).
 *
 * --thp: transparent huge pages as the system says (default), on or off. Under a huge
 * page 512 of the 4K pages share one TLB entry and the chase misses far less: --thp off
 * keeps 4K pages whatever the system's setting.
 *
 * Verification (outside the marks): from page 0, N steps visit every page exactly once
 * and come back to page 0 (cycle_ok=1); the chase ended where ((W + M) mod N) steps from
 * page 0 end (end_ok=1).
 *
 *   workload=chase pages=N steps=M warmup=W regions=K spacing=B mappings=R at_hint_regions=H
 *     low_regions=L elsewhere_regions=E seed=S thp=MODE end_page=P cycle_ok=1 end_ok=1
 *     ns=T
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "p4d_layout.h"
#include "wl.h"

#define LINE		64
#define LINES_PER_PAGE	(P4D_PAGE_SIZE / LINE)
#define MAX_REGIONS	255	/* 255 << 48 is the last 256 TiB region below 1 << 56 */

struct slot {
	struct slot *next;
	uint64_t page;
};

enum { OPT_PAGES = 256, OPT_STEPS, OPT_WARMUP, OPT_REGIONS, OPT_SPACING, OPT_SEED, OPT_THP };

static const struct option options[] = {
	{ "pages", required_argument, NULL, OPT_PAGES },
	{ "steps", required_argument, NULL, OPT_STEPS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "regions", required_argument, NULL, OPT_REGIONS },
	{ "spacing", required_argument, NULL, OPT_SPACING },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "thp", required_argument, NULL, OPT_THP },
	{ NULL, 0, NULL, 0 },
};

static const char details[] =
	"  --pages N      distinct 4K pages on the cycle (default 8192)\n"
	"  --steps M      loads to time (default 4M)\n"
	"  --warmup W     loads before them, not timed (default: the pages, one cycle)\n"
	"  --regions K    0: one ordinary mapping (default); 1-255: K mappings hinted at\n"
	"                 k x spacing, k = 1..K, the pages shared out between them\n"
	"  --spacing B    a power of two from 2M to 256T (default 256T, 1 << 48)\n"
	"  --seed N       the permutation's seed (default 1)\n"
	WL_THP_HELP;

int main(int argc, char **argv)
{
	uint64_t pages = 8192, steps = 4ULL << 20, regions = 0, seed = 1, state, t0, t1;
	uint64_t warmup = UINT64_MAX, spacing = 1ULL << P4D_PGDIR_SHIFT_L5;
	unsigned at_hint = 0, low = 0, elsewhere = 0, mappings;
	struct slot **slot, *p, *start, *want;
	uint64_t *succ, done = 0;
	enum wl_thp thp = WL_THP_SYSTEM;
	bool cycle_ok = true;
	unsigned char *seen;
	int c;

	wl_init("wl-chase", "[--pages N] [--steps M] [--warmup W] [--regions K] [--spacing B] "
		"[--seed N] " WL_THP_USAGE);
	while ((c = wl_getopt(argc, argv, options)) != -1) {
		switch (c) {
		case OPT_PAGES: pages = wl_number("pages", optarg, 1, 1ULL << 32); break;
		case OPT_STEPS: steps = wl_number("steps", optarg, 1, UINT64_MAX); break;
		case OPT_WARMUP: warmup = wl_number("warmup", optarg, 0, UINT64_MAX); break;
		case OPT_REGIONS: regions = wl_number("regions", optarg, 0, MAX_REGIONS); break;
		case OPT_SPACING: spacing = wl_number("spacing", optarg, 2ULL << 20, 1ULL << 48);
			break;
		case OPT_SEED: seed = wl_number("seed", optarg, 0, UINT64_MAX); break;
		case OPT_THP: thp = wl_thp_arg(optarg); break;
		default: wl_help(details);
		}
	}
	if (pages < regions)
		wl_usage_error("--pages %" PRIu64 " is fewer than --regions %" PRIu64
			       ": every region needs a page", pages, regions);
	if (spacing & (spacing - 1))
		wl_usage_error("bad --spacing '%" PRIu64 "': want a power of two", spacing);
	if (warmup == UINT64_MAX)
		warmup = pages;

	slot = malloc(pages * sizeof(*slot));
	succ = malloc(pages * sizeof(*succ));
	seen = calloc(pages, 1);
	if (!slot || !succ || !seen)
		wl_die("out of memory for %" PRIu64 " pages' bookkeeping (ask for fewer)", pages);

	/* The mappings, and where each page's slot is. */
	mappings = regions ? regions : 1;
	for (uint64_t k = 1, first = 0; k <= mappings; k++) {
		uint64_t n = pages / mappings + (k <= pages % mappings);
		uintptr_t hint = regions ? (uintptr_t)(k * spacing) : 0;
		char *base = wl_alloc((void *)hint, n * P4D_PAGE_SIZE, thp);

		if (hint && (uintptr_t)base == hint)
			at_hint++;
		else if ((uintptr_t)base < P4D_DEFAULT_MAP_WINDOW)
			low++;
		else
			elsewhere++;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t page = first + i;

			slot[page] = (struct slot *)(base + i * P4D_PAGE_SIZE +
						     page % LINES_PER_PAGE * LINE);
		}
		first += n;
	}

	/* Sattolo's shuffle: i -> succ[i] is one cycle through all the pages. */
	state = seed;
	for (uint64_t i = 0; i < pages; i++)
		succ[i] = i;
	for (uint64_t i = pages - 1; i > 0; i--) {
		uint64_t j = wl_below(wl_rand(&state), i), t = succ[i];

		succ[i] = succ[j];
		succ[j] = t;
	}
	/* Writing the links touches every page: no first-touch fault between the marks. */
	for (uint64_t i = 0; i < pages; i++) {
		slot[i]->next = slot[succ[i]];
		slot[i]->page = i;
	}
	free(succ);
	start = slot[0];

	p = start;
	wl_warmup();
	for (uint64_t n = 0; n < warmup; n++)
		p = p->next;
	t0 = wl_now_ns();
	wl_start();
	for (uint64_t n = 0; n < steps; n++)
		p = p->next;
	wl_stop();
	t1 = wl_now_ns();

	/* One full cycle: every page once, then back at the start. */
	for (struct slot *q = start; done < pages; done++, q = q->next) {
		if (seen[q->page]++)
			cycle_ok = false;
		if (done == pages - 1 && q->next != start)
			cycle_ok = false;
	}
	for (uint64_t i = 0; i < pages; i++)
		cycle_ok &= seen[i] == 1;
	want = start;
	for (uint64_t n = 0; n < (warmup % pages + steps % pages) % pages; n++)
		want = want->next;

	printf("workload=chase pages=%" PRIu64 " steps=%" PRIu64 " warmup=%" PRIu64
	       " regions=%" PRIu64 " spacing=%" PRIu64 " mappings=%u at_hint_regions=%u"
	       " low_regions=%u elsewhere_regions=%u seed=%" PRIu64 " thp=%s end_page=%" PRIu64
	       " cycle_ok=%d end_ok=%d ns=%" PRIu64 "\n", pages, steps, warmup, regions, spacing,
	       mappings, at_hint, low, elsewhere, seed, wl_thp_name(thp), p->page, cycle_ok,
	       p == want, t1 - t0);
	if (!cycle_ok || p != want)
		wl_die("verification failed: %s", cycle_ok ? "the chase ended on the wrong page" :
		       "the links are not one cycle through every page");
	return 0;
}
