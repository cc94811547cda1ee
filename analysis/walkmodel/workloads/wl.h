/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the walk-model workloads (wl-gups, wl-chase, wl-pagefault, wl-bsearch,
 * wl-forkexec): option parsing with one-line usage errors, sizes such as 64M or 1G, a
 * seeded generator, anonymous memory and a clock. Nothing here runs between the marks.
 *
 * Exit status of every workload: 0 the run and its verification passed; 1 a runtime failure
 * (one line on stderr saying what to do) or a failed verification (the result line is still
 * printed); 2 a usage error (one line on stderr).
 */
#ifndef WALKMODEL_WL_H
#define WALKMODEL_WL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>

/*
 * The marks, WALKMARK_START() and WALKMARK_STOP() each in a function of its own, called
 * once around the measured part. Written inline in a workload, GCC may copy a mark into
 * two paths (the loop skipped or left early, and the loop done), and the plugin would
 * then see two STOPs, or two STARTs; out of line, each mark is in the binary exactly once
 * whatever the caller's paths are. They are compiler barriers both ways: calls to another
 * file, and asm with a "memory" clobber, so no load or store of the measured work moves
 * across them. What they add to the count is a call and a ret.
 */
void wl_start(void);
void wl_stop(void);
/*
 * WALKMARK_WARMUP(), called once before the warm-up that precedes wl_start(): from there
 * the plugin feeds the accesses to its models, so that the measured part starts with the
 * TLBs and caches as the workload leaves them, not empty.
 */
void wl_warmup(void);
/*
 * Natively under analysis/hw/run, the environment variable WL_PERF_CTL=CTL,ACK names the
 * file descriptors of `perf stat --control fd:CTL,ACK`: wl_start() enables the counters
 * just before its mark and wl_stop() disables them just after its own, so perf counts the
 * measured part as the plugin does. Unset, nothing of this runs.
 */

/* Set once by wl_init: the program's name ("wl-gups") and its usage arguments. */
void wl_init(const char *name, const char *usage_args);

/* One line "NAME: MSG; usage: NAME ARGS" on stderr, exit 2. */
noreturn void wl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line "NAME: MSG" on stderr, exit 1. */
noreturn void wl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "usage: NAME ARGS" and the option details on stdout, exit 0. */
noreturn void wl_help(const char *details);

/*
 * getopt_long over long options only (plus -h); unknown options, missing values and
 * stray arguments become usage errors. Returns the option's val, -1 at the end, and
 * handles --help itself (the table needs no entry for it).
 */
int wl_getopt(int argc, char **argv, const struct option *longopts);

/*
 * A whole number in [min, max] from the value of option opt: decimal, optionally followed
 * by K, M, G or T (powers of 1024, either case). Anything else is a usage error.
 */
uint64_t wl_number(const char *opt, const char *arg, uint64_t min, uint64_t max);

/* splitmix64: a 64-bit state stepped by a constant, then mixed. Period 2^64. */
static inline uint64_t wl_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A value in [0, n) from 64 random bits, by multiplication instead of division. */
static inline uint64_t wl_below(uint64_t r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

/*
 * Transparent huge pages for the workload's anonymous memory (--thp MODE): as the system's
 * setting says (/sys/kernel/mm/transparent_hugepage/enabled, which the walk-model boots
 * set), or forced on (MADV_HUGEPAGE) or off (MADV_NOHUGEPAGE: 4K pages, full walks).
 */
enum wl_thp { WL_THP_SYSTEM, WL_THP_ON, WL_THP_OFF };
#define WL_THP_USAGE	"[--thp system|on|off]"
#define WL_THP_HELP \
	"  --thp MODE     huge pages: system (default: the system's setting), on, off\n"
enum wl_thp wl_thp_arg(const char *arg);
const char *wl_thp_name(enum wl_thp thp);

/*
 * bytes of private anonymous memory, not yet touched, at hint if the kernel takes it (a
 * plain hint: no MAP_FIXED; NULL for none), advised as thp says. Dies on failure.
 */
void *wl_alloc(void *hint, uint64_t bytes, enum wl_thp thp);

/* CLOCK_MONOTONIC in ns. */
uint64_t wl_now_ns(void);

#endif /* WALKMODEL_WL_H */
