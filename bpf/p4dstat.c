// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat: P4D page-table allocations and frees, kernel top-level syncs, TLB flushes and
 * mappings above 47 bits, per interval. Modelled on bcc's libbpf-tools.
 *
 * Counters come from the tracepoints of p4dscope's kernel series where the kernel has
 * them, else from fentry/fexit or kprobes on the functions they live in, else they read
 * n/a; -v says which probe feeds what. The BPF side keeps cumulative per-CPU counters;
 * each row is the difference between two readings, so rows add up to the totals.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "p4dstat.h"
#include "p4dstat.skel.h"
#include "trace_helpers.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"
#define TOP_COMMS	10	/* rows of the -C table printed per interval */

/* Kinds of probe, best first; --probes caps the best one allowed. */
enum probe_kind { KIND_TRACEPOINT, KIND_FENTRY, KIND_KPROBE, KIND_NONE };
static const char *const kind_names[] = { "tracepoint", "fentry", "kprobe", "none" };

static struct env {
	bool timestamp;
	bool json;
	bool per_comm;
	int verbose;		/* -v: sources and libbpf's notes; -vv: libbpf's debug too */
	pid_t pid;
	long interval;
	long count;		/* 0: until Ctrl-C */
	long comm_slots;
	enum probe_kind best_kind;
} env = {
	.interval = 1,
	.comm_slots = P4DSTAT_COMMS_DEFAULT,
	.best_kind = KIND_TRACEPOINT,
};

static volatile sig_atomic_t exiting;

static const char argp_doc[] =
"Count P4D page-table allocations and frees, kernel top-level page-table syncs,\n"
"TLB flushes and mappings above 47 bits (x86-64 five-level paging).\n"
"\n"
"USAGE: p4dstat [-T] [-j] [-p PID] [-C] [-v] [interval [count]]\n"
"\n"
"EXAMPLES:\n"
"    p4dstat            # a row every second; totals on Ctrl-C\n"
"    p4dstat 5 3        # three 5-second rows, then the totals\n"
"    p4dstat -T -C      # timestamps, and the busiest commands after each row\n"
"    p4dstat -p 181     # only process 181 (its threads, not its children)\n"
"    p4dstat -j 1 10    # ten rows as JSON, one object per line\n"
"    p4dstat -v         # say which probe feeds each counter\n"
"\v"
"Row columns: P4D tables allocated for processes (USER) and for the\n"
"kernel (KERN), lost to a race (RACE), failed (NOMEM), freed (FREED),\n"
"live since start (LIVE); kernel top-level syncs (SYNC) and the entries\n"
"they copied (COPY); TLB flushes (TLB), kernel-range flushes (KTLB);\n"
"placements above 47 bits (MAP47) and their KiB (KB47). n/a: this kernel\n"
"offers no probe for that counter (-v says which probe feeds which).\n"
"Exit status: 0, 1 for a runtime error, 2 for a usage error.";

enum { OPT_COMMS = 256, OPT_PROBES };

static const struct argp_option argp_opts[] = {
	{ "timestamp", 'T', NULL, 0, "Start each row with the time", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per interval, then the totals", 0 },
	{ "pid", 'p', "PID", 0, "Count only what process PID does", 0 },
	{ "comm", 'C', NULL, 0, "Per-command table after each row", 0 },
	{ "comms", OPT_COMMS, "N", 0, "Commands the -C table holds (default 256)", 0 },
	{ "probes", OPT_PROBES, "KIND", 0,
	  "Best probe kind to use: tracepoint (default), fentry or kprobe", 0 },
	{ "verbose", 'v', NULL, 0,
	  "Say which probe feeds each counter, show libbpf's messages (-vv: debug too)", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{},
};

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "p4dstat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see p4dstat --help)\n");
	exit(EXIT_USAGE);
}

static long parse_positive(const char *arg, const char *what, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max) {
		if (max < INT_MAX)
			usage_error("bad %s '%s': want a whole number from 1 to %ld", what, arg, max);
		usage_error("bad %s '%s': want a whole number, 1 or more", what, arg);
	}
	return v;
}

/* Which option argv[index - 1], the one argp stopped at, is: unknown, or lacks a value. */
static void option_error(const char *arg)
{
	const char *name = arg + (arg[0] == '-' && arg[1] == '-' ? 2 : 1);

	for (const struct argp_option *o = argp_opts; o->name || o->key; o++) {
		if (!o->arg)
			continue;
		if ((arg[1] == '-' && o->name && !strcmp(name, o->name)) ||
		    (arg[1] != '-' && o->key < 128 && arg[strlen(arg) - 1] == o->key))
			usage_error("option '%s' needs a value", arg);
	}
	usage_error("unknown option '%s'", arg);
}

static const struct argp argp;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'T':
		env.timestamp = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'C':
		env.per_comm = true;
		break;
	case 'v':
		env.verbose++;
		break;
	case 'p':
		env.pid = parse_positive(arg, "PID", INT_MAX);
		break;
	case OPT_COMMS:
		env.comm_slots = parse_positive(arg, "--comms", 65536);
		break;
	case OPT_PROBES:
		for (env.best_kind = KIND_TRACEPOINT; env.best_kind < KIND_NONE; env.best_kind++)
			if (!strcmp(arg, kind_names[env.best_kind]))
				break;
		if (env.best_kind == KIND_NONE)
			usage_error("bad --probes '%s': want tracepoint, fentry or kprobe", arg);
		break;
	case 'h':
		argp_help(&argp, stdout, ARGP_HELP_STD_HELP, "p4dstat");
		exit(0);
	case ARGP_KEY_ARG:
		if (state->arg_num == 0)
			env.interval = parse_positive(arg, "interval", INT_MAX);
		else if (state->arg_num == 1)
			env.count = parse_positive(arg, "count", LONG_MAX);
		else
			usage_error("unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_ERROR:
		/* ARGP_NO_ERRS: argp says nothing; name the option it stopped at, on one line. */
		if (state->next > 0 && state->next <= state->argc)
			option_error(state->argv[state->next - 1]);
		usage_error("bad arguments");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = argp_opts,
	.parser = parse_arg,
	.doc = argp_doc,
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (!env.verbose || (level == LIBBPF_DEBUG && env.verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

/* ---- what each counter is, and whether this kernel can feed it ---- */

enum field {
	F_P4D_USER, F_P4D_KERNEL, F_P4D_RACED, F_P4D_NOMEM, F_P4D_FREED, F_P4D_LIVE,
	F_SYNC_CALLS, F_SYNC_COPIED, F_SYNC_VISITED,
	F_TLB_TASK_SWITCH, F_TLB_REMOTE_SHOOTDOWN, F_TLB_LOCAL_SHOOTDOWN,
	F_TLB_LOCAL_MM_SHOOTDOWN, F_TLB_REMOTE_SEND_IPI, F_TLB_TOTAL,
	F_TLB_KERNEL_RANGE, F_TLB_ALL,
	F_GUA_DEFAULT, F_GUA_FULL,
	F_GUA_FIXED, F_GUA_HINT, F_GUA_SEARCH, F_GUA_FALLBACK, F_GUA_ENOMEM, F_GUA_EINVAL,
	F_GUA_ABOVE47, F_GUA_ABOVE47_BYTES, F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES,
	NR_FIELDS
};

/* JSON key and summary label of each field; the README's JSON schema lists the same. */
static const struct {
	const char *key;
	const char *label;
} fields[NR_FIELDS] = {
	[F_P4D_USER] = { "p4d_alloc_user", "P4D tables allocated, user" },
	[F_P4D_KERNEL] = { "p4d_alloc_kernel", "P4D tables allocated, kernel" },
	[F_P4D_RACED] = { "p4d_raced", "P4D tables lost to a race" },
	[F_P4D_NOMEM] = { "p4d_nomem", "P4D allocations failed" },
	[F_P4D_FREED] = { "p4d_freed", "P4D tables freed" },
	[F_P4D_LIVE] = { "p4d_live", "P4D tables live (allocated - freed)" },
	[F_SYNC_CALLS] = { "sync_calls", "kernel top-level syncs" },
	[F_SYNC_COPIED] = { "sync_copied", "kernel top-level entries copied" },
	[F_SYNC_VISITED] = { "sync_visited", "page tables visited by syncs" },
	[F_TLB_TASK_SWITCH] = { "tlb_task_switch", "TLB flushes, task switch" },
	[F_TLB_REMOTE_SHOOTDOWN] = { "tlb_remote_shootdown", "TLB flushes, remote shootdown" },
	[F_TLB_LOCAL_SHOOTDOWN] = { "tlb_local_shootdown", "TLB flushes, local shootdown" },
	[F_TLB_LOCAL_MM_SHOOTDOWN] = { "tlb_local_mm_shootdown",
				       "TLB flushes, local mm shootdown" },
	[F_TLB_REMOTE_SEND_IPI] = { "tlb_remote_send_ipi", "TLB flushes, remote send IPI" },
	[F_TLB_TOTAL] = { "tlb_total", "TLB flushes, all reasons" },
	[F_TLB_KERNEL_RANGE] = { "tlb_kernel_range", "kernel-range flushes" },
	[F_TLB_ALL] = { "tlb_all", "flush_tlb_all calls" },
	[F_GUA_DEFAULT] = { "gua_window_default", "placements, 47-bit window" },
	[F_GUA_FULL] = { "gua_window_full", "placements, full window" },
	[F_GUA_FIXED] = { "gua_fixed", "placements, MAP_FIXED" },
	[F_GUA_HINT] = { "gua_hint", "placements, hint honoured" },
	[F_GUA_SEARCH] = { "gua_search", "placements, searched" },
	[F_GUA_FALLBACK] = { "gua_fallback", "placements, bottom-up fallback" },
	[F_GUA_ENOMEM] = { "gua_enomem", "placements failed, ENOMEM" },
	[F_GUA_EINVAL] = { "gua_einval", "placements failed, EINVAL" },
	[F_GUA_ABOVE47] = { "gua_above47", "placements above 47 bits" },
	[F_GUA_ABOVE47_BYTES] = { "gua_above47_bytes", "bytes placed above 47 bits" },
	[F_MMAP_ABOVE47] = { "mmap_above47", "mmap() results above 47 bits" },
	[F_MMAP_ABOVE47_BYTES] = { "mmap_above47_bytes", "mmap() bytes above 47 bits" },
};

static bool available[NR_FIELDS];

/* Counter groups: each is fed by one probe choice. */
enum group {
	G_P4D_ALLOC, G_P4D_FREE, G_SYNC, G_GUA, G_TLB, G_TLB_KERNEL_RANGE, G_TLB_ALL, G_MMAP,
	NR_GROUPS
};

static const char *const group_names[NR_GROUPS] = {
	[G_P4D_ALLOC] = "P4D allocations",
	[G_P4D_FREE] = "P4D frees",
	[G_SYNC] = "kernel top-level syncs",
	[G_GUA] = "get_unmapped_area",
	[G_TLB] = "TLB flushes by reason",
	[G_TLB_KERNEL_RANGE] = "kernel-range flushes",
	[G_TLB_ALL] = "flush_tlb_all",
	[G_MMAP] = "mmap() cross-check",
};

static struct {
	enum probe_kind kind;
	char source[160];	/* what -v prints */
} sources[NR_GROUPS];

#define MAX_PROGS	32	/* more than p4dstat.bpf.c has */
static struct bpf_program *chosen[MAX_PROGS];
static int nr_chosen;

static void use(enum group g, enum probe_kind kind, const char *source,
		struct bpf_program *prog, struct bpf_program *prog2)
{
	sources[g].kind = kind;
	snprintf(sources[g].source, sizeof(sources[g].source), "%s", source);
	bpf_program__set_autoload(prog, true);
	chosen[nr_chosen++] = prog;
	if (prog2) {
		bpf_program__set_autoload(prog2, true);
		chosen[nr_chosen++] = prog2;
	}
}

static void mark(enum field first, enum field last)
{
	for (enum field f = first; f <= last; f++)
		available[f] = true;
}

static bool allowed(enum probe_kind kind)
{
	return kind >= env.best_kind;
}

/*
 * Decide, before load, which program feeds each group: libbpf loads all autoloaded
 * programs or none, so a program whose probe this kernel lacks must stay unloaded.
 */
static void choose_sources(struct p4dstat_bpf *skel, const struct btf *btf)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	for (int g = 0; g < NR_GROUPS; g++) {
		sources[g].kind = KIND_NONE;
		snprintf(sources[g].source, sizeof(sources[g].source), "n/a: no probe");
	}

	/* pgtable:p4d_alloc: patch 1 of p4dscope's series. */
	if (allowed(KIND_TRACEPOINT) && btf_tracepoint_exists(btf, "p4d_alloc")) {
		use(G_P4D_ALLOC, KIND_TRACEPOINT, "tp_btf pgtable:p4d_alloc",
		    skel->progs.p4d_alloc_tp, NULL);
		mark(F_P4D_USER, F_P4D_NOMEM);
	/* __p4d_alloc(): mm/memory.c since the P4D level (4.11); fexit since 5.5. */
	} else if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "__p4d_alloc")) {
		use(G_P4D_ALLOC, KIND_FENTRY,
		    "fexit __p4d_alloc (a table lost to a race counts as allocated; raced n/a)",
		    skel->progs.p4d_alloc_fexit, NULL);
		mark(F_P4D_USER, F_P4D_KERNEL);
		available[F_P4D_NOMEM] = true;
	} else if (allowed(KIND_KPROBE) && kprobe_exists("__p4d_alloc")) {
		use(G_P4D_ALLOC, KIND_KPROBE,
		    "kprobe+kretprobe __p4d_alloc (user/kernel count calls; raced n/a)",
		    skel->progs.p4d_alloc_kprobe, skel->progs.p4d_alloc_kretprobe);
		mark(F_P4D_USER, F_P4D_KERNEL);
		available[F_P4D_NOMEM] = true;
	}

	/* pgtable:p4d_free: patch 1. */
	if (allowed(KIND_TRACEPOINT) && btf_tracepoint_exists(btf, "p4d_free")) {
		use(G_P4D_FREE, KIND_TRACEPOINT, "tp_btf pgtable:p4d_free",
		    skel->progs.p4d_free_tp, NULL);
		available[F_P4D_FREED] = true;
	/* ___p4d_free_tlb(): arch/x86/mm/pgtable.c, out of line when CONFIG_PGTABLE_LEVELS > 4. */
	} else if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "___p4d_free_tlb")) {
		use(G_P4D_FREE, KIND_FENTRY, "fentry ___p4d_free_tlb",
		    skel->progs.p4d_free_fentry, NULL);
		available[F_P4D_FREED] = true;
	} else if (allowed(KIND_KPROBE) && kprobe_exists("___p4d_free_tlb")) {
		use(G_P4D_FREE, KIND_KPROBE, "kprobe ___p4d_free_tlb",
		    skel->progs.p4d_free_kprobe, NULL);
		available[F_P4D_FREED] = true;
	}
	available[F_P4D_LIVE] = available[F_P4D_USER] && available[F_P4D_FREED];

	/* pgtable:kernel_pgd_sync: patch 2. */
	if (allowed(KIND_TRACEPOINT) && btf_tracepoint_exists(btf, "kernel_pgd_sync")) {
		use(G_SYNC, KIND_TRACEPOINT, "tp_btf pgtable:kernel_pgd_sync",
		    skel->progs.kernel_pgd_sync_tp, NULL);
		mark(F_SYNC_CALLS, F_SYNC_VISITED);
	/* sync_global_pgds(): arch/x86/mm/init_64.c; calls only, copied/visited n/a. */
	} else if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "sync_global_pgds")) {
		use(G_SYNC, KIND_FENTRY, "fentry sync_global_pgds (calls; copied, visited n/a)",
		    skel->progs.sync_fentry, NULL);
		available[F_SYNC_CALLS] = true;
	} else if (allowed(KIND_KPROBE) && kprobe_exists("sync_global_pgds")) {
		use(G_SYNC, KIND_KPROBE, "kprobe sync_global_pgds (calls; copied, visited n/a)",
		    skel->progs.sync_kprobe, NULL);
		available[F_SYNC_CALLS] = true;
	}

	/* mmap:x86_get_unmapped_area: patches 4 and 5. */
	if (allowed(KIND_TRACEPOINT) && btf_tracepoint_exists(btf, "x86_get_unmapped_area")) {
		use(G_GUA, KIND_TRACEPOINT, "tp_btf mmap:x86_get_unmapped_area",
		    skel->progs.gua_tp, NULL);
		mark(F_GUA_DEFAULT, F_GUA_ABOVE47_BYTES);
	/* get_unmapped_area(): mm/mmap.c, every placement; window and outcome n/a. */
	} else if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "get_unmapped_area")) {
		use(G_GUA, KIND_FENTRY,
		    "fexit get_unmapped_area (above 47 bits; windows, outcomes n/a)",
		    skel->progs.gua_fexit, NULL);
		mark(F_GUA_ABOVE47, F_GUA_ABOVE47_BYTES);
	/* Since 6.10 the out-of-line function is __get_unmapped_area(), with vm_flags. */
	} else if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "__get_unmapped_area")) {
		use(G_GUA, KIND_FENTRY,
		    "fexit __get_unmapped_area (above 47 bits; windows, outcomes n/a)",
		    skel->progs.gua_vmflags_fexit, NULL);
		mark(F_GUA_ABOVE47, F_GUA_ABOVE47_BYTES);
	}

	/* tlb:tlb_flush: x86 since 3.17, as tp_btf since 5.5. */
	if (allowed(KIND_TRACEPOINT) && btf_tracepoint_exists(btf, "tlb_flush")) {
		use(G_TLB, KIND_TRACEPOINT, "tp_btf tlb:tlb_flush", skel->progs.tlb_flush_tp, NULL);
		mark(F_TLB_TASK_SWITCH, F_TLB_TOTAL);
	}

	/* x86 kernel-range flushes, which tlb:tlb_flush does not report. */
	if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "flush_tlb_kernel_range")) {
		use(G_TLB_KERNEL_RANGE, KIND_FENTRY, "fentry flush_tlb_kernel_range",
		    skel->progs.tlb_kernel_range_fentry, NULL);
		available[F_TLB_KERNEL_RANGE] = true;
	} else if (allowed(KIND_KPROBE) && kprobe_exists("flush_tlb_kernel_range")) {
		use(G_TLB_KERNEL_RANGE, KIND_KPROBE, "kprobe flush_tlb_kernel_range",
		    skel->progs.tlb_kernel_range_kprobe, NULL);
		available[F_TLB_KERNEL_RANGE] = true;
	}
	if (allowed(KIND_FENTRY) && fentry_can_attach(btf, "flush_tlb_all")) {
		use(G_TLB_ALL, KIND_FENTRY, "fentry flush_tlb_all", skel->progs.tlb_all_fentry, NULL);
		available[F_TLB_ALL] = true;
	} else if (allowed(KIND_KPROBE) && kprobe_exists("flush_tlb_all")) {
		use(G_TLB_ALL, KIND_KPROBE, "kprobe flush_tlb_all", skel->progs.tlb_all_kprobe, NULL);
		available[F_TLB_ALL] = true;
	}

	/* syscalls:sys_exit_mmap: CONFIG_FTRACE_SYSCALLS; the task's registers since 5.15. */
	if (allowed(KIND_TRACEPOINT) && tracepoint_exists("syscalls", "sys_exit_mmap")) {
		use(G_MMAP, KIND_TRACEPOINT, "tracepoint syscalls:sys_exit_mmap",
		    skel->progs.mmap_exit, NULL);
		mark(F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES);
	}
}

static void print_sources(void)
{
	fprintf(stderr, "Counter sources:\n");
	for (int g = 0; g < NR_GROUPS; g++)
		fprintf(stderr, "  %-24s %s\n", group_names[g], sources[g].source);
}

/* ---- reading the maps ---- */

struct comm_entry {
	char comm[P4DSTAT_COMM_LEN + 1];
	struct p4dstat_comm_counts total;	/* since start */
	struct p4dstat_comm_counts delta;	/* this interval */
};

struct snapshot {
	struct p4dstat_counts counts;
	struct comm_entry *comms;
	size_t nr_comms;
	__u64 missed;		/* program runs the kernel skipped (recursion) */
	struct timespec when;
};

static int nr_cpus;
/* The counters when tracing began: everything printed is counted from here. */
static struct p4dstat_counts baseline;

static void sum_percpu(const void *percpu, size_t size, void *out)
{
	const __u64 *v = percpu;
	__u64 *sum = out;
	size_t n = size / sizeof(__u64), stride = (size + 7) / 8;

	memset(out, 0, size);
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		for (size_t i = 0; i < n; i++)
			sum[i] += v[cpu * stride + i];
}

static int compare_comm(const void *a, const void *b)
{
	return strcmp(((const struct comm_entry *)a)->comm, ((const struct comm_entry *)b)->comm);
}

static int read_comms(struct p4dstat_bpf *skel, struct snapshot *s)
{
	int fd = bpf_map__fd(skel->maps.comms);
	struct p4dstat_comm_key key, next;
	struct p4dstat_comm_counts *percpu;
	size_t cap = env.comm_slots;
	bool first = true;

	percpu = calloc(nr_cpus, sizeof(*percpu));
	s->comms = calloc(cap, sizeof(*s->comms));
	if (!percpu || !s->comms) {
		free(percpu);
		return -ENOMEM;
	}
	s->nr_comms = 0;
	while (s->nr_comms < cap && !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		struct comm_entry *e = &s->comms[s->nr_comms];

		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, percpu))
			continue;
		memcpy(e->comm, key.comm, P4DSTAT_COMM_LEN);
		e->comm[P4DSTAT_COMM_LEN] = '\0';
		sum_percpu(percpu, sizeof(*percpu), &e->total);
		s->nr_comms++;
	}
	free(percpu);
	qsort(s->comms, s->nr_comms, sizeof(*s->comms), compare_comm);
	return 0;
}

static __u64 missed_runs(void)
{
	__u64 missed = 0;

	for (int i = 0; i < nr_chosen; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(chosen[i]), &info, &len))
			missed += info.recursion_misses;
	}
	return missed;
}

static int take_snapshot(struct p4dstat_bpf *skel, struct snapshot *s)
{
	struct p4dstat_counts *percpu = calloc(nr_cpus, sizeof(*percpu));
	__u32 zero = 0;
	int err;

	if (!percpu)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &s->when);
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &zero, percpu);
	if (!err) {
		sum_percpu(percpu, sizeof(*percpu), &s->counts);
		s->missed = missed_runs();
		if (env.per_comm)
			err = read_comms(skel, s);
	}
	free(percpu);
	return err ? -errno : 0;
}

static int copy_snapshot(struct snapshot *dst, const struct snapshot *src)
{
	*dst = *src;
	dst->comms = calloc(src->nr_comms + 1, sizeof(*dst->comms));
	if (!dst->comms)
		return -ENOMEM;
	memcpy(dst->comms, src->comms, src->nr_comms * sizeof(*dst->comms));
	return 0;
}

static void free_snapshot(struct snapshot *s)
{
	free(s->comms);
	s->comms = NULL;
	s->nr_comms = 0;
}

/* Field values between two snapshots; live is always since tracing began. */
static void compute(const struct snapshot *cur, const struct snapshot *prev, long long *v)
{
	const struct p4dstat_counts *c = &cur->counts, *p = &prev->counts;

#define D(name) ((long long)(c->name - p->name))
	v[F_P4D_USER] = D(p4d_alloc_user);
	v[F_P4D_KERNEL] = D(p4d_alloc_kernel);
	v[F_P4D_RACED] = D(p4d_raced);
	v[F_P4D_NOMEM] = D(p4d_nomem);
	v[F_P4D_FREED] = D(p4d_free);
	v[F_P4D_LIVE] = (long long)(c->p4d_alloc_user - baseline.p4d_alloc_user) +
			(long long)(c->p4d_alloc_kernel - baseline.p4d_alloc_kernel) -
			(long long)(c->p4d_free - baseline.p4d_free);
	v[F_SYNC_CALLS] = D(sync_calls);
	v[F_SYNC_COPIED] = D(sync_copied);
	v[F_SYNC_VISITED] = D(sync_visited);
	v[F_TLB_TOTAL] = 0;
	for (int r = 0; r < P4DSTAT_TLB_REASONS; r++) {
		v[F_TLB_TASK_SWITCH + r] = D(tlb_flush[r]);
		v[F_TLB_TOTAL] += v[F_TLB_TASK_SWITCH + r];
	}
	v[F_TLB_KERNEL_RANGE] = D(tlb_kernel_range);
	v[F_TLB_ALL] = D(tlb_all);
	for (int w = 0; w < P4DSTAT_WINDOWS; w++)
		v[F_GUA_DEFAULT + w] = D(gua_window[w]);
	for (int o = 0; o < P4DSTAT_OUTCOMES; o++)
		v[F_GUA_FIXED + o] = D(gua_outcome[o]);
	v[F_GUA_ABOVE47] = D(gua_above47);
	v[F_GUA_ABOVE47_BYTES] = D(gua_above47_bytes);
	v[F_MMAP_ABOVE47] = D(mmap_above47);
	v[F_MMAP_ABOVE47_BYTES] = D(mmap_above47_bytes);
#undef D
}

/* Per-command deltas against an earlier snapshot. */
static void comm_deltas(struct snapshot *cur, const struct snapshot *prev)
{
	for (size_t i = 0; i < cur->nr_comms; i++) {
		struct comm_entry *e = &cur->comms[i];
		const struct comm_entry *old = NULL;
		const __u64 *t = (const __u64 *)&e->total, *o;
		__u64 *d = (__u64 *)&e->delta;

		if (prev->nr_comms)
			old = bsearch(e, prev->comms, prev->nr_comms, sizeof(*e), compare_comm);
		o = old ? (const __u64 *)&old->total : NULL;
		for (size_t k = 0; k < sizeof(e->total) / sizeof(__u64); k++)
			d[k] = t[k] - (o ? o[k] : 0);
	}
}

static __u64 comm_weight(const struct p4dstat_comm_counts *c)
{
	return c->p4d_alloc + c->p4d_free + c->above47 + c->tlb_flush + c->tlb_kernel;
}

/* Busiest first: P4D tables, then mappings above 47 bits, then TLB flushes. */
static int compare_activity(const void *a, const void *b)
{
	const struct p4dstat_comm_counts *x = &((const struct comm_entry *)a)->delta;
	const struct p4dstat_comm_counts *y = &((const struct comm_entry *)b)->delta;
	__u64 kx[] = { x->p4d_alloc + x->p4d_free, x->above47, x->tlb_flush + x->tlb_kernel };
	__u64 ky[] = { y->p4d_alloc + y->p4d_free, y->above47, y->tlb_flush + y->tlb_kernel };

	for (size_t i = 0; i < sizeof(kx) / sizeof(kx[0]); i++)
		if (kx[i] != ky[i])
			return kx[i] > ky[i] ? -1 : 1;
	return strcmp(((const struct comm_entry *)a)->comm, ((const struct comm_entry *)b)->comm);
}

/* ---- text output ---- */

static void print_value(int width, enum field f, const long long *v)
{
	if (available[f])
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

/* Column widths; with -T a row is 77 columns. */
static void print_header(void)
{
	printf("%s", env.timestamp ? "        " : "");
	print_dashed(33, "P4D tables");
	print_dashed(9, "syncs");
	print_dashed(11, "TLB");
	print_dashed(12, "above 47");
	printf("\n%s", env.timestamp ? "TIME    " : "");
	printf(" %5s %4s %4s %5s %5s %5s %4s %4s %6s %4s %5s %6s\n", "USER", "KERN", "RACE",
	       "NOMEM", "FREED", "LIVE", "SYNC", "COPY", "TLB", "KTLB", "MAP47", "KB47");
}

static void print_row(const long long *v)
{
	if (env.timestamp) {
		char buf[16];
		time_t t = time(NULL);

		strftime(buf, sizeof(buf), "%H:%M:%S", localtime(&t));
		printf("%-8s", buf);
	}
	print_value(5, F_P4D_USER, v);
	print_value(4, F_P4D_KERNEL, v);
	print_value(4, F_P4D_RACED, v);
	print_value(5, F_P4D_NOMEM, v);
	print_value(5, F_P4D_FREED, v);
	print_value(5, F_P4D_LIVE, v);
	print_value(4, F_SYNC_CALLS, v);
	print_value(4, F_SYNC_COPIED, v);
	print_value(6, F_TLB_TOTAL, v);
	if (available[F_TLB_KERNEL_RANGE] && available[F_TLB_ALL])
		printf(" %4lld", v[F_TLB_KERNEL_RANGE] + v[F_TLB_ALL]);
	else
		printf(" %4s", "n/a");
	print_value(5, F_GUA_ABOVE47, v);
	if (available[F_GUA_ABOVE47_BYTES])
		printf(" %6lld\n", v[F_GUA_ABOVE47_BYTES] / 1024);
	else
		printf(" %6s\n", "n/a");
}

static void print_comm_value(__u64 value, int width, bool avail)
{
	if (avail)
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
		print_comm_value(d->p4d_alloc, 5, available[F_P4D_USER]);
		print_comm_value(d->p4d_free, 5, available[F_P4D_FREED]);
		print_comm_value(d->tlb_flush, 6, available[F_TLB_TOTAL]);
		print_comm_value(d->tlb_kernel, 5,
				 available[F_TLB_KERNEL_RANGE] || available[F_TLB_ALL]);
		print_comm_value(d->above47, 5, available[F_GUA_ABOVE47]);
		print_comm_value(d->above47_bytes / 1024, 7, available[F_GUA_ABOVE47]);
		printf("\n");
	}
	if (dropped)
		printf("    dropped: %llu events of commands beyond the table's %ld slots"
		       " (--comms)\n", (unsigned long long)dropped, env.comm_slots);
	/* Back to name order for the next interval's lookups. */
	qsort(cur->comms, cur->nr_comms, sizeof(*cur->comms), compare_comm);
}

static void print_summary_text(const long long *v, __u64 missed, double secs)
{
	printf("\nTotals over %.1f s%s:\n", secs, env.pid ? " (one process)" : "");
	for (int f = 0; f < NR_FIELDS; f++) {
		if (available[f])
			printf("  %-40s %12lld\n", fields[f].label, v[f]);
		else
			printf("  %-40s %12s\n", fields[f].label, "n/a");
	}
	if (missed)
		printf("  %-40s %12llu\n", "events missed (BPF recursion)",
		       (unsigned long long)missed);
}

/* ---- JSON output ---- */

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_comms(struct snapshot *cur, __u64 dropped)
{
	bool first = true;

	printf(",\"comms\":[");
	for (size_t i = 0; i < cur->nr_comms; i++) {
		const struct p4dstat_comm_counts *c = &cur->comms[i].delta;

		if (!comm_weight(c))
			continue;
		printf("%s{\"comm\":", first ? "" : ",");
		first = false;
		json_string(cur->comms[i].comm);
		printf(",\"p4d_alloc\":%llu,\"p4d_freed\":%llu,\"tlb_total\":%llu,"
		       "\"tlb_kernel\":%llu,\"above47\":%llu,\"above47_bytes\":%llu}",
		       (unsigned long long)c->p4d_alloc, (unsigned long long)c->p4d_free,
		       (unsigned long long)c->tlb_flush, (unsigned long long)c->tlb_kernel,
		       (unsigned long long)c->above47, (unsigned long long)c->above47_bytes);
	}
	printf("],\"comms_dropped\":%llu", (unsigned long long)dropped);
}

static void print_json(const char *type, const long long *v, struct snapshot *cur,
		       double secs, __u64 missed, __u64 dropped, bool totals)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	printf("{\"type\":\"%s\",\"ts\":%lld.%03ld,\"%s\":%.3f", type, (long long)now.tv_sec,
	       now.tv_nsec / 1000000, totals ? "duration_s" : "interval_s", secs);
	if (env.pid)
		printf(",\"pid\":%d", env.pid);
	for (int f = 0; f < NR_FIELDS; f++) {
		if (available[f])
			printf(",\"%s\":%lld", fields[f].key, v[f]);
		else
			printf(",\"%s\":null", fields[f].key);
	}
	printf(",\"missed\":%llu", (unsigned long long)missed);
	if (env.per_comm)
		json_comms(cur, dropped);
	printf("}\n");
}

/* ---- setup ---- */

static bool privileged(void)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	int bpf = CAP_BPF, perfmon = CAP_PERFMON, sys_admin = CAP_SYS_ADMIN;

	if (syscall(SYS_capget, &header, data))
		return geteuid() == 0;
#define HAS(cap) (data[(cap) / 32].effective & (1U << ((cap) % 32)))
	return HAS(sys_admin) || (HAS(bpf) && HAS(perfmon));
#undef HAS
}

/* TASK_SIZE_MAX of the running paging mode: the kernel clears la57 when it runs 4-level. */
static __u64 running_task_size_max(void)
{
	char line[4096];
	bool la57 = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !la57 && fgets(line, sizeof(line), f))
		la57 = !strncmp(line, "flags", 5) && strstr(line, " la57");
	if (f)
		fclose(f);
	return la57 ? P4D_TASK_SIZE_MAX_L5 : P4D_TASK_SIZE_MAX_L4;
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	struct snapshot start = {}, prev = {}, cur = {};
	struct p4dstat_bpf *skel = NULL;
	struct bpf_link *links[MAX_PROGS] = {};
	struct btf *btf = NULL;
	long long v[NR_FIELDS];
	int err, nr_links = 0;
	long done = 0;

	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		usage_error("bad arguments");

	if (!privileged()) {
		fprintf(stderr, "p4dstat: needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)\n");
		return EXIT_RUNTIME;
	}
	if (env.pid && kill(env.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "p4dstat: no process with PID %d\n", env.pid);
		return EXIT_RUNTIME;
	}
	btf = btf__parse(VMLINUX_BTF, NULL);
	if (!btf) {
		fprintf(stderr, "p4dstat: no kernel BTF in %s (needs CONFIG_DEBUG_INFO_BTF)\n",
			VMLINUX_BTF);
		return EXIT_RUNTIME;
	}
	libbpf_set_print(libbpf_print);
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus < 0) {
		fprintf(stderr, "p4dstat: cannot count CPUs: %s\n", strerror(-nr_cpus));
		err = 1;
		goto cleanup;
	}

	skel = p4dstat_bpf__open();
	if (!skel) {
		fprintf(stderr, "p4dstat: cannot open the BPF object: %s\n", strerror(errno));
		err = 1;
		goto cleanup;
	}
	skel->rodata->targ_tgid = env.pid;
	skel->rodata->per_comm = env.per_comm;
	skel->rodata->task_size_max = running_task_size_max();
	bpf_map__set_max_entries(skel->maps.comms, env.per_comm ? env.comm_slots : 1);
	choose_sources(skel, btf);
	if (env.verbose)
		print_sources();
	if (!nr_chosen) {
		fprintf(stderr, "p4dstat: this kernel offers nothing to count\n");
		err = 1;
		goto cleanup;
	}

	err = p4dstat_bpf__load(skel);
	if (err) {
		fprintf(stderr, "p4dstat: cannot load the BPF programs: %s%s\n", strerror(-err),
			env.verbose ? "" : " (-v shows why)");
		err = 1;
		goto cleanup;
	}
	for (int i = 0; i < nr_chosen; i++) {
		links[nr_links] = bpf_program__attach(chosen[i]);
		if (!links[nr_links]) {
			fprintf(stderr, "p4dstat: cannot attach %s: %s\n",
				bpf_program__name(chosen[i]), strerror(errno));
			err = 1;
			goto cleanup;
		}
		nr_links++;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = take_snapshot(skel, &start);
	if (!err)
		err = copy_snapshot(&prev, &start);
	if (err)
		goto read_failed;
	baseline = start.counts;
	fprintf(stderr, "Tracing P4D tables, kernel syncs, TLB flushes and mappings above 47 "
		"bits%s... Hit Ctrl-C to end.\n", env.pid ? " of one process" : "");
	if (!env.json)
		print_header();
	fflush(stdout);

	while (!exiting && (!env.count || done < env.count)) {
		struct timespec nap = { env.interval, 0 };

		/* A signal cuts the nap short: that last, partial interval is still printed. */
		nanosleep(&nap, NULL);
		err = take_snapshot(skel, &cur);
		if (err)
			goto read_failed;
		compute(&cur, &prev, v);
		if (env.per_comm)
			comm_deltas(&cur, &prev);
		if (env.json) {
			print_json("interval", v, &cur, seconds_between(&prev.when, &cur.when),
				   cur.missed - prev.missed,
				   cur.counts.comm_dropped - prev.counts.comm_dropped, false);
		} else {
			print_row(v);
			if (env.per_comm)
				print_comms(&cur, cur.counts.comm_dropped - prev.counts.comm_dropped,
					    TOP_COMMS);
		}
		fflush(stdout);
		free_snapshot(&prev);
		prev = cur;
		cur.comms = NULL;
		done++;
	}

	/* The totals: the last reading against the first. */
	compute(&prev, &start, v);
	if (env.per_comm)
		comm_deltas(&prev, &start);
	if (env.json) {
		print_json("summary", v, &prev, seconds_between(&start.when, &prev.when),
			   prev.missed - start.missed,
			   prev.counts.comm_dropped - start.counts.comm_dropped, true);
	} else {
		print_summary_text(v, prev.missed - start.missed,
				   seconds_between(&start.when, &prev.when));
		if (env.per_comm)
			print_comms(&prev, prev.counts.comm_dropped - start.counts.comm_dropped,
				    TOP_COMMS);
	}
	err = 0;
	goto cleanup;

read_failed:
	fprintf(stderr, "p4dstat: cannot read the counters: %s\n", strerror(-err));
	err = 1;
cleanup:
	free_snapshot(&start);
	free_snapshot(&prev);
	free_snapshot(&cur);
	for (int i = 0; i < nr_links; i++)
		bpf_link__destroy(links[i]);
	p4dstat_bpf__destroy(skel);
	btf__free(btf);
	return err ? EXIT_RUNTIME : 0;
}
