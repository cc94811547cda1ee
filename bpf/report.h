/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What p4dstat prints: its counters (fields), the readings they come from, and the
 * text rows, totals and JSON objects made of them (report.c).
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>

#include "p4dstat.h"

enum field {
	F_P4D_USER, F_P4D_KERNEL, F_P4D_RACED, F_P4D_NOMEM, F_P4D_FREED, F_P4D_FREED_OLD,
	F_P4D_LIVE, F_P4D_UNTRACKED,
	/* In the order of enum p4dstat_cause. */
	F_CAUSE_FIRST, F_CAUSE_EXEC_STACK, F_CAUSE_HIGH, F_CAUSE_LDT, F_CAUSE_KERNEL,
	F_SYNC_CALLS, F_SYNC_COPIED, F_SYNC_VISITED,
	/* In the order of enum p4dstat_tlb_reason. */
	F_TLB_TASK_SWITCH, F_TLB_RECEIVED, F_TLB_BATCHED, F_TLB_LOCAL_MM, F_TLB_REQUESTS,
	F_TLB_FLUSHES, F_TLB_NOOP, F_TLB_IPIS, F_TLB_KERNEL_RANGE, F_TLB_ALL,
	F_GUA_DEFAULT, F_GUA_FULL,
	F_GUA_FIXED, F_GUA_HINT, F_GUA_SEARCH, F_GUA_FALLBACK, F_GUA_ENOMEM, F_GUA_EINVAL,
	F_GUA_ABOVE47, F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES,
	NR_FIELDS
};

#define BIT(f)		(1ULL << (f))
#define BITS(a, b)	((BIT(b) << 1) - BIT(a))	/* fields a..b */

/* A field's JSON key and its label in the totals. */
struct field_name {
	const char *key;
	const char *label;
};

extern const struct field_name fields[NR_FIELDS];

struct comm_entry {
	char comm[P4DSTAT_COMM_LEN + 1];
	struct p4dstat_comm_counts total;	/* since start */
	struct p4dstat_comm_counts delta;	/* this interval */
};

struct snapshot {
	struct p4dstat_counts counts;
	__s64 live;
	__u64 lifetimes[P4DSTAT_HIST_SLOTS];
	struct comm_entry *comms;
	size_t nr_comms;
	__u64 missed;		/* program runs the kernel skipped (recursion) */
	struct timespec when;
};

/* What to print, and which fields this kernel feeds (BIT(field) set). */
struct report_opts {
	bool timestamp;		/* -T */
	bool json;		/* -j */
	bool causes;		/* -w */
	bool per_comm;		/* -C */
	bool lifetimes;		/* -L */
	pid_t pid;		/* -p, 0 for all */
	long comm_slots;	/* --comms */
	__u64 available;
	bool follow;		/* -- CMD: one command and its descendants */
};

/* One interval, or the totals. */
struct report {
	const long long *v;		/* indexed by enum field */
	struct snapshot *cur;		/* its comms' deltas are computed */
	const __u64 *lifetimes;		/* P4DSTAT_HIST_SLOTS buckets */
	double secs;
	__u64 missed;
	__u64 dropped;
	__u64 mmap_untracked;		/* decisions above 47 bits mmap()'s exit could not see */
	__u64 follow_dropped;		/* -- CMD: children the followed set had no room for */
};

void report_init(const struct report_opts *opts);

/* The two heading lines of the text rows (nothing with -j). */
void report_header(void);

/* A row (with -c and -C lines), or the totals: text or JSON. */
void report_print(const struct report *r, bool totals);

/* Name order of comm_entry, for bsearch and qsort. */
int compare_comm(const void *a, const void *b);

#endif /* REPORT_H */
