// SPDX-License-Identifier: GPL-2.0
/*
 * gups: random read-modify-write updates over one big table, the method of the HPCC
 * RandomAccess benchmark (written here from its published description).
 *
 *   wl-gups [--size BYTES] [--updates N] [--warmup W] [--seed N] [--thp system|on|off]
 *
 * The table is --size bytes of 64-bit words, table[i] = i to start with. One update takes
 * the next 64-bit value v of a seeded stream and does table[index(v)] ^= v, where index(v)
 * maps v evenly onto [0, words). The updates do not depend on each other, so a CPU can
 * overlap their misses; with a table far larger than the TLB reach nearly every update is
 * a TLB miss and a page walk. Default --updates is 4 x words, RandomAccess's rule.
 * --warmup W (default: updates / 8) updates of the same stream come first, after
 * WALKMARK_WARMUP() and not timed, so that the plugin's TLBs and caches start warm.
 *
 * Verification (outside the marks): XOR is its own inverse, so running the same stream a
 * second time must give back table[i] = i for every i; and the XOR of the whole table
 * after the measured run must be the XOR of its start values and of every v (warm-up
 * included). Each word
 * that differs, and the XOR identity failing, count as one error.
 *
 * --thp: transparent huge pages as the system says (default), on or off (4K pages).
 *
 *   workload=gups size=B words=W updates=N warmup=W seed=S thp=MODE checksum=0x... errors=E
 *     ns=T
 */
#include <inttypes.h>
#include <stdio.h>

#include "wl.h"

enum { OPT_SIZE = 256, OPT_UPDATES, OPT_WARMUP, OPT_SEED, OPT_THP };

static const struct option options[] = {
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "updates", required_argument, NULL, OPT_UPDATES },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "thp", required_argument, NULL, OPT_THP },
	{ NULL, 0, NULL, 0 },
};

static const char details[] =
	"  --size BYTES   the table, a multiple of 8 (default 64M)\n"
	"  --updates N    updates to time (default 4 x the table's words)\n"
	"  --warmup W     updates before them, not timed (default: updates / 8)\n"
	"  --seed N       the update stream's seed (default 1)\n"
	WL_THP_HELP;

/* One update: the next value of the stream, XORed into the word it picks. */
static inline void update(uint64_t *table, uint64_t words, uint64_t *state)
{
	uint64_t v = wl_rand(state);

	table[wl_below(v, words)] ^= v;
}

int main(int argc, char **argv)
{
	uint64_t size = 64ULL << 20, updates = 0, seed = 1, words, state, sum = 0, xv = 0, x0 = 0;
	uint64_t errors = 0, t0, t1, warmup = UINT64_MAX;
	enum wl_thp thp = WL_THP_SYSTEM;
	uint64_t *table;
	int c;

	wl_init("wl-gups", "[--size BYTES] [--updates N] [--warmup W] [--seed N] " WL_THP_USAGE);
	while ((c = wl_getopt(argc, argv, options)) != -1) {
		switch (c) {
		case OPT_SIZE: size = wl_number("size", optarg, 16, 1ULL << 46); break;
		case OPT_UPDATES: updates = wl_number("updates", optarg, 1, UINT64_MAX); break;
		case OPT_WARMUP: warmup = wl_number("warmup", optarg, 0, UINT64_MAX); break;
		case OPT_SEED: seed = wl_number("seed", optarg, 0, UINT64_MAX); break;
		case OPT_THP: thp = wl_thp_arg(optarg); break;
		default: wl_help(details);
		}
	}
	if (size % 8)
		wl_usage_error("bad --size '%" PRIu64 "': want a multiple of 8", size);
	words = size / 8;
	if (!updates)
		updates = 4 * words;
	if (warmup == UINT64_MAX)
		warmup = updates / 8;

	/* Setup: every page written, so no first-touch fault falls between the marks. */
	table = wl_alloc(NULL, size, thp);
	for (uint64_t i = 0; i < words; i++) {
		table[i] = i;
		x0 ^= i;
	}

	state = seed;
	wl_warmup();
	for (uint64_t n = 0; n < warmup; n++)
		update(table, words, &state);
	t0 = wl_now_ns();
	wl_start();
	for (uint64_t n = 0; n < updates; n++)
		update(table, words, &state);
	wl_stop();
	t1 = wl_now_ns();

	for (uint64_t i = 0; i < words; i++)
		sum ^= table[i];
	/* The same stream again undoes every update. */
	state = seed;
	for (uint64_t n = 0; n < warmup + updates; n++) {
		uint64_t v = wl_rand(&state);

		xv ^= v;
		table[wl_below(v, words)] ^= v;
	}
	for (uint64_t i = 0; i < words; i++)
		errors += table[i] != i;
	errors += sum != (x0 ^ xv);

	printf("workload=gups size=%" PRIu64 " words=%" PRIu64 " updates=%" PRIu64
	       " warmup=%" PRIu64 " seed=%" PRIu64 " thp=%s checksum=0x%016" PRIx64
	       " errors=%" PRIu64 " ns=%" PRIu64 "\n", size, words, updates, warmup, seed,
	       wl_thp_name(thp), sum, errors, t1 - t0);
	if (errors)
		wl_die("verification failed: %" PRIu64 " errors", errors);
	return 0;
}
