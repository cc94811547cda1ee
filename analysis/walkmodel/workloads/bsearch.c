// SPDX-License-Identifier: GPL-2.0
/*
 * bsearch: random binary searches over one big sorted table of doubles, the shape of
 * XSBench's lookups into its unionized energy grid (written here from its published
 * description; the cross-section arithmetic after each search is left out).
 *
 *   wl-bsearch [--size BYTES] [--lookups N] [--warmup W] [--seed N] [--thp system|on|off]
 *
 * The table is --size bytes of doubles, table[i] = i x STEP, built outside the marks. A
 * lookup draws a key uniformly from [table[0], table[n-1]) and searches the whole table
 * for the interval holding it: the largest i <= n - 2 with table[i] <= key, as XSBench's
 * grid search returns the grid point below the energy. Each search makes about log2(n)
 * loads, each depending on the one before; the first few hit the same lines every time,
 * the last ones land on pages no other recent lookup touched: TLB misses and walks.
 * --warmup W (default: lookups / 8) lookups of the same key stream come first, after
 * WALKMARK_WARMUP() and not timed, so that the plugin's TLBs and caches start warm.
 *
 * Verification (outside the marks): STEP is a power of two, so the expected index is
 * floor(key / STEP) exactly (capped at n - 2). The keys are drawn again from the seed
 * (past the warm-up's): the sum of the expected indices must equal the measured lookups' sum, and every 64th key is
 * searched again and checked on its own. Each mismatch counts as one error.
 *
 * --thp: transparent huge pages as the system says (default), on or off (4K pages).
 *
 *   workload=bsearch size=B entries=E lookups=N warmup=W seed=S thp=MODE checksum=C
 *     checked=K errors=0 ns=T
 */
#include <inttypes.h>
#include <stdio.h>

#include "wl.h"

#define STEP		0.25	/* a power of two: i x STEP and key / STEP are exact */
#define CHECK_EVERY	64

enum { OPT_SIZE = 256, OPT_LOOKUPS, OPT_WARMUP, OPT_SEED, OPT_THP };

static const struct option options[] = {
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "lookups", required_argument, NULL, OPT_LOOKUPS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "thp", required_argument, NULL, OPT_THP },
	{ NULL, 0, NULL, 0 },
};

static const char details[] =
	"  --size BYTES   the table, a multiple of 8, 16 or more (default 64M)\n"
	"  --lookups N    searches to time (default 1M)\n"
	"  --warmup W     searches before them, not timed (default: lookups / 8)\n"
	"  --seed N       the keys' seed (default 1)\n"
	WL_THP_HELP;

/* The next key: uniform in [0, (n - 1) x STEP), from the top 53 bits of the stream. */
static inline double next_key(uint64_t *state, uint64_t n)
{
	return (double)(wl_rand(state) >> 11) * 0x1p-53 * (double)(n - 1) * STEP;
}

/* The largest i in [0, n - 2] with table[i] <= key; table[0] <= key holds for every key. */
static inline uint64_t search(const double *table, uint64_t n, double key)
{
	uint64_t lo = 0, hi = n - 1;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (table[mid] > key)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

static inline uint64_t expected(uint64_t n, double key)
{
	uint64_t i = (uint64_t)(key / STEP);

	return i > n - 2 ? n - 2 : i;
}

int main(int argc, char **argv)
{
	uint64_t size = 64ULL << 20, lookups = 1ULL << 20, seed = 1, n, state, t0, t1;
	uint64_t sum = 0, want = 0, checked = 0, errors = 0, warmup = UINT64_MAX, skip = 0;
	enum wl_thp thp = WL_THP_SYSTEM;
	double *table;
	int c;

	wl_init("wl-bsearch", "[--size BYTES] [--lookups N] [--warmup W] [--seed N] "
		WL_THP_USAGE);
	while ((c = wl_getopt(argc, argv, options)) != -1) {
		switch (c) {
		case OPT_SIZE: size = wl_number("size", optarg, 16, 1ULL << 46); break;
		case OPT_LOOKUPS: lookups = wl_number("lookups", optarg, 1, UINT64_MAX); break;
		case OPT_WARMUP: warmup = wl_number("warmup", optarg, 0, UINT64_MAX); break;
		case OPT_SEED: seed = wl_number("seed", optarg, 0, UINT64_MAX); break;
		case OPT_THP: thp = wl_thp_arg(optarg); break;
		default: wl_help(details);
		}
	}
	if (size % sizeof(double))
		wl_usage_error("bad --size '%" PRIu64 "': want a multiple of 8", size);
	n = size / sizeof(double);
	if (warmup == UINT64_MAX)
		warmup = lookups / 8;

	/* Built in order: every page written, so no first-touch fault between the marks. */
	table = wl_alloc(NULL, size, thp);
	for (uint64_t i = 0; i < n; i++)
		table[i] = (double)i * STEP;

	state = seed;
	wl_warmup();
	for (uint64_t k = 0; k < warmup; k++)
		skip += search(table, n, next_key(&state, n));
	t0 = wl_now_ns();
	wl_start();
	for (uint64_t k = 0; k < lookups; k++)
		sum += search(table, n, next_key(&state, n));
	wl_stop();
	t1 = wl_now_ns();

	state = seed;
	for (uint64_t k = 0; k < warmup; k++)
		skip -= expected(n, next_key(&state, n));
	for (uint64_t k = 0; k < lookups; k++) {
		double key = next_key(&state, n);

		want += expected(n, key);
		if (k % CHECK_EVERY == 0) {
			checked++;
			errors += search(table, n, key) != expected(n, key);
		}
	}
	errors += sum != want;
	errors += skip != 0;	/* the warm-up's searches were right too */

	printf("workload=bsearch size=%" PRIu64 " entries=%" PRIu64 " lookups=%" PRIu64
	       " warmup=%" PRIu64 " seed=%" PRIu64 " thp=%s checksum=%" PRIu64 " checked=%"
	       PRIu64 " errors=%" PRIu64 " ns=%" PRIu64 "\n", size, n, lookups, warmup, seed,
	       wl_thp_name(thp), sum, checked, errors, t1 - t0);
	if (errors)
		wl_die("verification failed: %" PRIu64 " errors", errors);
	return 0;
}
