/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by p4dscope's benchmark programs (swpath, chase, ptmem): clock, the
 * interrupt counter that tells a disturbed measurement from a clean one, the pinned
 * tpcount counters, argument parsing and errors.
 */
#ifndef P4DBENCH_BENCH_H
#define P4DBENCH_BENCH_H

#include <stdnoreturn.h>

#include "tpcount.h"

/* CLOCK_MONOTONIC in ns. Under run-guest --icount one guest ns is one guest instruction. */
long long now_ns(void);

/* Interrupts taken since boot, every CPU and kind (the "intr" total of /proc/stat). */
unsigned long long interrupts_total(void);

/* The counters tpcount pinned at path: an fd, or -1 when path is NULL. Dies on error. */
int counters_open(const char *path);
/* Read them (all zero when fd is -1). Dies on error. */
void counters_read(int fd, struct tpcount_counts *c);
/* after - before, event by event, into after. */
void counters_sub(struct tpcount_counts *after, const struct tpcount_counts *before);

/* A whole number from s (0x prefix for hex, k/m/g/t suffixes); dies naming what. */
unsigned long parse_size(const char *s, const char *what);

noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* P4DBENCH_BENCH_H */
