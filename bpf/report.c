// SPDX-License-Identifier: GPL-2.0
/* p4dstat's output: text rows, -c and -C lines, totals, JSON (json-c); see report.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "histogram.h"
#include "report.h"

#define TOP_COMMS	10	/* rows of the -C table printed per interval */

static struct report_opts opts;

/* JSON key and summary label of each field; docs/p4dstat.md lists the same. */
const struct field_name fields[NR_FIELDS] = {
	[F_P4D_USER] = { "p4d_alloc_user", "P4D tables installed, processes' mms" },
	[F_P4D_KERNEL] = { "p4d_alloc_kernel", "P4D tables installed, init_mm" },
	[F_P4D_RACED] = { "p4d_raced", "P4D tables lost to a race" },
	[F_P4D_NOMEM] = { "p4d_nomem", "P4D allocations failed" },
	[F_P4D_FREED] = { "p4d_freed", "P4D tables freed" },
	[F_P4D_FREED_OLD] = { "p4d_freed_old", "... allocated before the trace" },
	[F_P4D_LIVE] = { "p4d_live", "P4D tables live, allocated since start" },
	[F_P4D_UNTRACKED] = { "p4d_untracked", "P4D tables the table map missed" },
	[F_CAUSE_FIRST] = { "cause_first", "cause: first table (PGD slot 0)" },
	[F_CAUSE_EXEC_STACK] = { "cause_exec_stack", "cause: exec stack (top slot)" },
	[F_CAUSE_HIGH] = { "cause_high", "cause: high region (other slot)" },
	[F_CAUSE_LDT] = { "cause_ldt", "cause: LDT remap (PTI, kernel slot)" },
	[F_CAUSE_KERNEL] = { "cause_kernel", "cause: kernel (init_mm)" },
	[F_SYNC_CALLS] = { "sync_calls", "kernel top-level syncs" },
	[F_SYNC_COPIED] = { "sync_copied", "kernel top-level entries copied" },
	[F_SYNC_VISITED] = { "sync_visited", "page tables visited by syncs" },
	[F_TLB_TASK_SWITCH] = { "tlb_task_switch", "TLB flushes, task switch" },
	[F_TLB_RECEIVED] = { "tlb_shootdown_received", "TLB flushes, another CPU's request" },
	[F_TLB_BATCHED] = { "tlb_batched_local", "TLB flushes, batched unmap, own CPU" },
	[F_TLB_LOCAL_MM] = { "tlb_local_mm_shootdown", "TLB flushes, an mm's range, own CPU" },
	[F_TLB_REQUESTS] = { "tlb_shootdown_requests", "TLB shootdown requests" },
	[F_TLB_FLUSHES] = { "tlb_flushes", "TLB flushes done, all CPUs" },
	[F_TLB_NOOP] = { "tlb_noop_events", "tlb_flush events that flushed nothing" },
	[F_TLB_IPIS] = { "tlb_shootdown_ipis", "IPIs that ran a shootdown request" },
	[F_TLB_KERNEL_RANGE] = { "tlb_kernel_range_calls", "flush_tlb_kernel_range() calls" },
	[F_TLB_ALL] = { "tlb_all_calls", "flush_tlb_all() calls" },
	[F_GUA_DEFAULT] = { "gua_window_default", "placement decisions, 47-bit window" },
	[F_GUA_FULL] = { "gua_window_full", "placement decisions, full window" },
	[F_GUA_FIXED] = { "gua_fixed", "placement decisions, MAP_FIXED" },
	[F_GUA_HINT] = { "gua_hint", "placement decisions, hint honoured" },
	[F_GUA_SEARCH] = { "gua_search", "placement decisions, searched" },
	[F_GUA_FALLBACK] = { "gua_fallback", "placement decisions, bottom-up fallback" },
	[F_GUA_ENOMEM] = { "gua_enomem", "placement decisions failed, ENOMEM" },
	[F_GUA_EINVAL] = { "gua_einval", "placement decisions failed, EINVAL" },
	[F_GUA_ABOVE47] = { "gua_above47", "placement decisions above 47 bits" },
	[F_MMAP_ABOVE47] = { "mmap_above47", "mmap() placements above 47 bits" },
	[F_MMAP_ABOVE47_BYTES] = { "mmap_above47_bytes", "bytes mmap() placed above 47 bits" },
};

void report_init(const struct report_opts *o)
{
	opts = *o;
}

static bool avail(enum field f)
{
	return opts.available & BIT(f);
}

int compare_comm(const void *a, const void *b)
{
	return strcmp(((const struct comm_entry *)a)->comm, ((const struct comm_entry *)b)->comm);
}

static __u64 comm_weight(const struct p4dstat_comm_counts *c)
{
	return c->p4d_alloc + c->p4d_free + c->mmap_above47 + c->tlb_flush + c->tlb_kernel;
}

/* Busiest first: P4D tables, then mappings above 47 bits, then TLB flushes. */
static int compare_activity(const void *a, const void *b)
{
	const struct p4dstat_comm_counts *x = &((const struct comm_entry *)a)->delta;
	const struct p4dstat_comm_counts *y = &((const struct comm_entry *)b)->delta;
	__u64 kx[] = { x->p4d_alloc + x->p4d_free, x->mmap_above47, x->tlb_flush + x->tlb_kernel };
	__u64 ky[] = { y->p4d_alloc + y->p4d_free, y->mmap_above47, y->tlb_flush + y->tlb_kernel };

	for (size_t i = 0; i < sizeof(kx) / sizeof(kx[0]); i++)
		if (kx[i] != ky[i])
			return kx[i] > ky[i] ? -1 : 1;
	return strcmp(((const struct comm_entry *)a)->comm, ((const struct comm_entry *)b)->comm);
}

/* ---- text ---- */

static void print_value(int width, enum field f, const long long *v)
{
	if (avail(f))
		printf(" %*lld", width, v[f]);
	else
		printf(" %*s", width, "n/a");
}

static void print_dashed(int width, const char *label)
{
	int len = strlen(label), left = (width - len - 2) / 2, right = width - len - 2 - left;

	printf(" %.*s %s %.*s", left, "----------------------------------------", label,
	       right, "----------------------------------------");
}

/* The row's columns; with -T a row is 79 columns. */
static const struct column {
	const char *head;
	int width;
	enum field field;
} columns[] = {
	{ "USER", 5, F_P4D_USER }, { "RACE", 4, F_P4D_RACED }, { "FREED", 5, F_P4D_FREED },
	{ "OLD", 4, F_P4D_FREED_OLD }, { "LIVE", 4, F_P4D_LIVE },
	{ "SYNC", 4, F_SYNC_CALLS },
	{ "FLUSH", 5, NR_FIELDS }, { "REQ", 4, F_TLB_REQUESTS }, { "IPI", 4, F_TLB_IPIS },
	{ "RECV", 4, F_TLB_RECEIVED }, { "KTLB", 4, NR_FIELDS },
	{ "MAP47", 5, F_MMAP_ABOVE47 }, { "KB47", 6, NR_FIELDS },
};
#define NR_COLUMNS	(int)(sizeof(columns) / sizeof(columns[0]))

void report_header(void)
{
	printf("%s", opts.timestamp ? "        " : "");
	print_dashed(26, "P4D tables");
	printf("     ");
	print_dashed(25, "TLB");
	print_dashed(12, "above 47");
	printf("\n%s", opts.timestamp ? "TIME    " : "");
	for (int i = 0; i < NR_COLUMNS; i++)
		printf(" %*s", columns[i].width, columns[i].head);
	printf("\n");
}

/* Columns that combine fields: n/a when one of them is. */
static void print_combined(int width, bool ok, long long value)
{
	if (ok)
		printf(" %*lld", width, value);
	else
		printf(" %*s", width, "n/a");
}

static void print_row(const long long *v)
{
	if (opts.timestamp) {
		char buf[16];
		time_t t = time(NULL);

		strftime(buf, sizeof(buf), "%H:%M:%S", localtime(&t));
		printf("%-8s", buf);
	}
	for (int i = 0; i < NR_COLUMNS; i++) {
		const struct column *col = &columns[i];

		if (col->field != NR_FIELDS)
			print_value(col->width, col->field, v);
		else if (!strcmp(col->head, "FLUSH"))	/* a CPU's own flushes */
			print_combined(col->width, avail(F_TLB_FLUSHES),
				       v[F_TLB_FLUSHES] - v[F_TLB_RECEIVED]);
		else if (!strcmp(col->head, "KTLB"))
			print_combined(col->width, avail(F_TLB_KERNEL_RANGE) && avail(F_TLB_ALL),
				       v[F_TLB_KERNEL_RANGE] + v[F_TLB_ALL]);
		else
			print_combined(col->width, avail(F_MMAP_ABOVE47_BYTES),
				       v[F_MMAP_ABOVE47_BYTES] / 1024);
	}
	printf("\n");
}

/* -w: why the tables of this interval exist. */
static void print_causes(const long long *v)
{
	printf("    causes:");
	for (int f = F_CAUSE_FIRST; f <= F_CAUSE_KERNEL; f++) {
		const char *name = fields[f].key + strlen("cause_");

		if (avail(f))
			printf(" %s %lld", name, v[f]);
		else
			printf(" %s n/a", name);
	}
	printf("\n");
}

static void print_comm_value(__u64 value, int width, bool ok)
{
	if (ok)
		printf(" %*llu", width, (unsigned long long)value);
	else
		printf(" %*s", width, "n/a");
}

/* The busiest commands of cur (deltas already computed), and the drop counter. */
static void print_comms(struct snapshot *cur, __u64 dropped, size_t max_rows)
{
	size_t shown = 0;

	qsort(cur->comms, cur->nr_comms, sizeof(*cur->comms), compare_activity);
	for (size_t i = 0; i < cur->nr_comms && shown < max_rows; i++) {
		const struct p4dstat_comm_counts *d = &cur->comms[i].delta;

		if (!comm_weight(d))
			break;
		if (!shown++)
			printf("    %-16s %5s %5s %6s %5s %5s %7s\n", "COMM", "P4D+", "P4D-", "TLB",
			       "KTLB", "MAP47", "KB47");
		printf("    %-16s", cur->comms[i].comm);
		print_comm_value(d->p4d_alloc, 5, avail(F_P4D_USER));
		print_comm_value(d->p4d_free, 5, avail(F_P4D_FREED));
		print_comm_value(d->tlb_flush, 6, avail(F_TLB_FLUSHES));
		print_comm_value(d->tlb_kernel, 5, avail(F_TLB_KERNEL_RANGE) || avail(F_TLB_ALL));
		print_comm_value(d->mmap_above47, 5, avail(F_MMAP_ABOVE47));
		print_comm_value(d->mmap_above47_bytes / 1024, 7, avail(F_MMAP_ABOVE47));
		printf("\n");
	}
	if (dropped)
		printf("    dropped: %llu events of commands beyond the table's %ld slots"
		       " (--comms)\n", (unsigned long long)dropped, opts.comm_slots);
	/* Back to name order for the next interval's lookups. */
	qsort(cur->comms, cur->nr_comms, sizeof(*cur->comms), compare_comm);
}

static void print_summary_text(const struct report *r)
{
	const long long *v = r->v;

	printf("\nTotals over %.1f s%s:\n", r->secs, opts.pid ? " (one process)" :
	       opts.follow ? " (one command and its descendants)" : "");
	for (int f = 0; f < NR_FIELDS; f++) {
		if (avail(f))
			printf("  %-40s %12lld\n", fields[f].label, v[f]);
		else
			printf("  %-40s %12s\n", fields[f].label, "n/a");
	}
	/* What a full or busy map could not hold: only when it happened. */
	if (r->missed)
		printf("  %-40s %12llu\n", "events missed (BPF recursion)",
		       (unsigned long long)r->missed);
	if (r->mmap_untracked)
		printf("  %-40s %12llu\n", "decisions above 47 bits not followed",
		       (unsigned long long)r->mmap_untracked);
	if (opts.follow)
		printf("  %-40s %12llu\n", "children not followed (set full)",
		       (unsigned long long)r->follow_dropped);
	if (opts.lifetimes) {
		printf("\nP4D table lifetimes (allocated and freed while tracing):\n");
		if (!avail(F_P4D_LIVE))
			printf("  n/a: needs pgtable:p4d_alloc and pgtable:p4d_free\n");
		else if (!histogram_print_log2(stdout, r->lifetimes, P4DSTAT_HIST_SLOTS, "usecs"))
			printf("  none\n");
	}
}

/* ---- JSON ---- */

static void json_add_u64(struct json_object *obj, const char *key, __u64 value)
{
	json_object_object_add(obj, key, json_object_new_int64((int64_t)value));
}

/* A number with a fixed number of decimals, as written (json-c keeps the text). */
static struct json_object *json_fixed(double value, int decimals)
{
	char text[64];

	snprintf(text, sizeof(text), "%.*f", decimals, value);
	return json_object_new_double_s(value, text);
}

static struct json_object *json_comms(struct snapshot *cur)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < cur->nr_comms; i++) {
		const struct p4dstat_comm_counts *c = &cur->comms[i].delta;
		struct json_object *row;

		if (!comm_weight(c))
			continue;
		row = json_object_new_object();
		json_object_object_add(row, "comm", json_object_new_string(cur->comms[i].comm));
		json_add_u64(row, "p4d_alloc", c->p4d_alloc);
		json_add_u64(row, "p4d_freed", c->p4d_free);
		json_add_u64(row, "tlb_flushes", c->tlb_flush);
		json_add_u64(row, "tlb_kernel_calls", c->tlb_kernel);
		json_add_u64(row, "mmap_above47", c->mmap_above47);
		json_add_u64(row, "mmap_above47_bytes", c->mmap_above47_bytes);
		json_object_array_add(list, row);
	}
	return list;
}

static struct json_object *json_lifetimes(const __u64 *slots)
{
	struct json_object *list = json_object_new_array();

	for (int i = 0; i < P4DSTAT_HIST_SLOTS; i++) {
		struct json_object *bucket;
		__u64 low, high;

		if (!slots[i])
			continue;
		histogram_slot_range(i, &low, &high);
		bucket = json_object_new_object();
		json_add_u64(bucket, "usecs_low", low);
		json_add_u64(bucket, "usecs_high", high);
		json_add_u64(bucket, "count", slots[i]);
		json_object_array_add(list, bucket);
	}
	return list;
}


static void print_json(const char *type, const struct report *r, bool totals)
{
	struct json_object *obj = json_object_new_object();
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	json_object_object_add(obj, "type", json_object_new_string(type));
	json_object_object_add(obj, "ts", json_fixed(now.tv_sec + now.tv_nsec / 1e9, 3));
	json_object_object_add(obj, totals ? "duration_s" : "interval_s", json_fixed(r->secs, 3));
	if (opts.pid)
		json_object_object_add(obj, "pid", json_object_new_int(opts.pid));
	for (int f = 0; f < NR_FIELDS; f++)
		json_object_object_add(obj, fields[f].key,
				       avail(f) ? json_object_new_int64(r->v[f]) : NULL);
	json_add_u64(obj, "missed", r->missed);
	json_add_u64(obj, "mmap_untracked", r->mmap_untracked);
	if (opts.follow)
		json_add_u64(obj, "follow_dropped", r->follow_dropped);
	if (opts.per_comm) {
		json_object_object_add(obj, "comms", json_comms(r->cur));
		json_add_u64(obj, "comms_dropped", r->dropped);
	}
	if (opts.lifetimes)
		json_object_object_add(obj, "lifetimes", avail(F_P4D_LIVE) ?
				       json_lifetimes(r->lifetimes) : NULL);
	puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
}

void report_print(const struct report *r, bool totals)
{
	if (opts.json) {
		print_json(totals ? "summary" : "interval", r, totals);
		return;
	}
	if (totals) {
		print_summary_text(r);
		if (opts.per_comm)
			print_comms(r->cur, r->dropped, TOP_COMMS);
		return;
	}
	print_row(r->v);
	if (opts.causes)
		print_causes(r->v);
	if (opts.per_comm)
		print_comms(r->cur, r->dropped, TOP_COMMS);
}

