// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat: P4D page-table allocations and frees and why each table exists, kernel
 * top-level syncs, TLB flushes and mappings above 47 bits, per interval. Modelled on
 * bcc's libbpf-tools.
 *
 * Counters come from the tracepoints of p4dscope's kernel series where the kernel has
 * them, else from fentry/fexit or kprobes on the functions they live in, else they read
 * n/a; probe.c tries each way for real, and -v says which one feeds what. The BPF side
 * keeps cumulative per-CPU counters; each row is the difference between two readings,
 * so rows add up to the totals. LIVE is one shared word: tables allocated since start
 * that are still live, paired by table address in the BPF side.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "p4dstat.h"
#include "p4dstat.skel.h"
#include "probe.h"
#include "report.h"
#include "highmaps.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"
/* Present when the kernel has CONFIG_CGROUPS (kernel/cgroup/cgroup.c, proc_cgroup_show). */
#define PROC_CGROUP	"/proc/self/cgroup"
#define P4DSTAT_VERSION	"4.0"

static struct env {
	bool timestamp;
	bool json;
	bool per_comm;
	bool causes;		/* -w: a cause line after each row */
	bool lifetimes;		/* -L: lifetime histogram with the totals */
	bool high_maps;		/* -l: list mappings above 47 bits from /proc, no BPF */
	int verbose;		/* -v: sources and libbpf's notes; -vv: libbpf's debug too */
	pid_t pid;
	const char *cgroup;	/* -c: the cgroup v2 directory */
	int cgroup_fd;
	long interval;
	long count;		/* 0: until Ctrl-C */
	long comm_slots;
	enum probe_kind best_kind;
	char **cmd;		/* -- CMD [ARG...]: count it and its descendants */
	bool interval_given;	/* with CMD, rows only when an interval is given */
	pid_t child;		/* CMD's process, until reaped */
	int go_fd;		/* CMD waits for a byte here before it execs */
} env = {
	.interval = 1,
	.comm_slots = P4DSTAT_COMMS_DEFAULT,
	.best_kind = PROBE_TRACEPOINT,
	.cgroup_fd = -1,
	.go_fd = -1,
};

static volatile sig_atomic_t exiting;

const char *argp_program_version = "p4dstat " P4DSTAT_VERSION " (p4dscope)";

static const char argp_doc[] =
"Count P4D page-table allocations and frees and why each table exists, kernel\n"
"top-level page-table syncs, TLB flushes and mappings above 47 bits (x86-64\n"
"five-level paging).\n"
"\n"
"USAGE: p4dstat [-T] [-j] [-p PID] [-c CG] [-C] [-w] [-L] [interval [count]]\n"
"       p4dstat [OPTIONS] [interval [count]] -- CMD [ARG...]\n"
"       p4dstat -l [-p PID]\n"
"\n"
"EXAMPLES:\n"
"    p4dstat            # a row every second; totals on Ctrl-C\n"
"    p4dstat 5 3        # three 5-second rows, then the totals\n"
"    p4dstat -w -L      # why each table exists; lifetimes at the end\n"
"    p4dstat -T -C      # timestamps, and the busiest commands after each row\n"
"    p4dstat -p 181     # only process 181's address space and threads\n"
"    p4dstat -c CG      # only tasks in cgroup CG, a cgroup v2 directory\n"
"    p4dstat -j 1 10    # ten rows as JSON, one object per line\n"
"    p4dstat -v         # say which probe feeds each counter\n"
"    p4dstat -- make -j2  # only make and its children; totals when it exits\n"
"    p4dstat -l         # processes with mappings above 47 bits now (no BPF)\n"
"\v"
"Row columns: P4D tables installed in processes' page tables (USER), lost\n"
"to a race (RACE), freed (FREED), freed but allocated before p4dstat started\n"
"(OLD, part of FREED), allocated since start and still live (LIVE); kernel\n"
"top-level syncs (SYNC); TLB flushes a CPU did for itself (FLUSH), shootdown\n"
"requests (REQ), IPIs that ran one (IPI), flushes done for another CPU's\n"
"request (RECV), flush_tlb_kernel_range() and flush_tlb_all() calls (KTLB);\n"
"mmap() placements above 47 bits (MAP47) and their KiB (KB47).\n"
"n/a: this kernel offers no probe for that counter (p4dstat says why).\n"
"With -- CMD, p4dstat runs CMD, counts only its process and every descendant,\n"
"prints the totals when CMD exits (rows too if an interval is given) and exits\n"
"with CMD's status (128 + the signal's number if a signal killed it).\n"
"Exit status: 0, 1 for a runtime error, 2 for a usage error.";

enum { OPT_COMMS = 256, OPT_PROBES };

static const struct argp_option argp_opts[] = {
	{ "timestamp", 'T', NULL, 0, "Start each row with the time", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per interval, then the totals", 0 },
	{ "pid", 'p', "PID", 0, "Count only process PID: its address space and threads", 0 },
	{ "cgroup", 'c', "CG", 0, "Count only tasks in cgroup CG (its cgroup v2 directory)", 0 },
	{ "comm", 'C', NULL, 0, "Per-command table after each row", 0 },
	{ "comms", OPT_COMMS, "N", 0, "Commands the -C table holds (default 256)", 0 },
	{ "causes", 'w', NULL, 0, "After each row, why the tables exist", 0 },
	{ "lifetimes", 'L', NULL, 0, "Histogram of P4D table lifetimes with the totals", 0 },
	{ "high-maps", 'l', NULL, 0,
	  "List the processes with mappings above 47 bits now, from /proc (no BPF)", 0 },
	{ "probes", OPT_PROBES, "KIND", 0,
	  "Best probe kind to use: tracepoint (default), fentry or kprobe", 0 },
	{ "verbose", 'v', NULL, 0,
	  "Say which probe feeds each counter, show libbpf's messages (-vv: debug too)", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{ "version", 'V', NULL, 0, "Show the version", 0 },
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

/*
 * Which option argv[index - 1], the one argp stopped at, is: unknown, lacking a value,
 * or given one it does not take (--name=value).
 */
static void option_error(const char *arg)
{
	const char *name = arg + (arg[0] == '-' && arg[1] == '-' ? 2 : 1);
	size_t len = strcspn(name, "=");

	for (const struct argp_option *o = argp_opts; o->name || o->key; o++) {
		if (arg[1] == '-' && o->name && name[len] == '=' && !o->arg &&
		    strlen(o->name) == len && !strncmp(name, o->name, len))
			usage_error("option '--%s' takes no value", o->name);
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
	case 'w':
		env.causes = true;
		break;
	case 'c':
		if (!*arg)
			usage_error("bad cgroup '': want a cgroup v2 directory");
		env.cgroup = arg;
		break;
	case 'l':
		env.high_maps = true;
		break;
	case 'L':
		env.lifetimes = true;
		break;
	case 'v':
		env.verbose++;
		break;
	case 'V':
		printf("%s\n", argp_program_version);
		exit(0);
	case 'p':
		env.pid = parse_positive(arg, "PID", INT_MAX);
		break;
	case OPT_COMMS:
		env.comm_slots = parse_positive(arg, "--comms", 65536);
		break;
	case OPT_PROBES:
		for (env.best_kind = 0; env.best_kind < PROBE_KINDS; env.best_kind++)
			if (!strcmp(arg, probe_kind_names[env.best_kind]))
				break;
		if (env.best_kind == PROBE_KINDS)
			usage_error("bad --probes '%s': want tracepoint, fentry or kprobe", arg);
		break;
	case 'h':
		argp_help(&argp, stdout, ARGP_HELP_STD_HELP, "p4dstat");
		exit(0);
	case ARGP_KEY_ARG:
		env.interval_given = true;
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

/* libbpf's messages: its warnings are kept to explain a failure (probe.h), shown with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	va_list copy;

	va_copy(copy, args);
	probe_note_libbpf(level, fmt, copy);
	va_end(copy);
	if (!env.verbose || (level == LIBBPF_DEBUG && env.verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

/* ---- which counters this kernel can feed (report.h lists them) ---- */

static __u64 available;		/* BIT(field) set: some probe feeds it */

static bool avail(enum field f)
{
	return available & BIT(f);
}

/* A way of feeding a group, and the fields it feeds. */
struct source {
	struct probe_way way;
	__u64 feeds;
};

#define WAY(k, text, ...)	{ .kind = (k), .progs = { __VA_ARGS__ }, .what = (text) }
#define MAX_WAYS	4

/*
 * Counter groups: each is fed by the first of its ways that attaches. ABSENT is why its
 * best ways fail when the kernel lacks their target (the event, the function): only
 * then, since a way also fails on a kernel that has it (permissions, the verifier).
 */
static const struct group {
	const char *name;
	const char *absent;
	struct source ways[MAX_WAYS];
} groups[] = {
	{ "P4D allocations", "no pgtable:p4d_alloc: kernel without p4dscope's series", {
		/* pgtable:p4d_alloc: patch 1 of p4dscope's series. */
		{ WAY(PROBE_TRACEPOINT, "tp_btf pgtable:p4d_alloc", "p4d_alloc_tp"),
		  BITS(F_P4D_USER, F_P4D_NOMEM) | BITS(F_CAUSE_FIRST, F_CAUSE_KERNEL) },
		/* __p4d_alloc(): mm/memory.c since the P4D level (4.11); fexit since 5.5. */
		{ WAY(PROBE_FENTRY,
		      "fexit __p4d_alloc (a table lost to a race counts as installed)",
		      "p4d_alloc_fexit"),
		  BITS(F_P4D_USER, F_P4D_KERNEL) | BIT(F_P4D_NOMEM) },
		{ WAY(PROBE_KPROBE, "kprobe+kretprobe __p4d_alloc (installed counts calls)",
		      "p4d_alloc_kprobe", "p4d_alloc_kretprobe"),
		  BITS(F_P4D_USER, F_P4D_KERNEL) | BIT(F_P4D_NOMEM) },
	} },
	{ "P4D frees", "no pgtable:p4d_free: kernel without p4dscope's series", {
		/* pgtable:p4d_free: patch 1. */
		{ WAY(PROBE_TRACEPOINT, "tp_btf pgtable:p4d_free", "p4d_free_tp"),
		  BITS(F_P4D_FREED, F_P4D_FREED_OLD) },
		/* ___p4d_free_tlb(): arch/x86/mm/pgtable.c, out of line with 5 levels. */
		{ WAY(PROBE_FENTRY, "fentry ___p4d_free_tlb", "p4d_free_fentry"),
		  BIT(F_P4D_FREED) },
		{ WAY(PROBE_KPROBE, "kprobe ___p4d_free_tlb", "p4d_free_kprobe"),
		  BIT(F_P4D_FREED) },
	} },
	{ "kernel top-level syncs", "no pgtable:kernel_pgd_sync: kernel without the series", {
		/* pgtable:kernel_pgd_sync: patch 3. */
		{ WAY(PROBE_TRACEPOINT, "tp_btf pgtable:kernel_pgd_sync", "kernel_pgd_sync_tp"),
		  BITS(F_SYNC_CALLS, F_SYNC_VISITED) },
		/* sync_global_pgds(): arch/x86/mm/init_64.c; calls only. */
		{ WAY(PROBE_FENTRY, "fentry sync_global_pgds (calls only)", "sync_fentry"),
		  BIT(F_SYNC_CALLS) },
		{ WAY(PROBE_KPROBE, "kprobe sync_global_pgds (calls only)", "sync_kprobe"),
		  BIT(F_SYNC_CALLS) },
	} },
	{ "get_unmapped_area", "no mmap:x86_get_unmapped_area: kernel without the series", {
		/* mmap:x86_get_unmapped_area: series v4 (7.3), then v3's patches 4 and 5. */
		{ WAY(PROBE_TRACEPOINT, "tp_btf mmap:x86_get_unmapped_area (series v4)",
		      "gua_tp_v4"),
		  BITS(F_GUA_DEFAULT, F_GUA_ABOVE47) },
		{ WAY(PROBE_TRACEPOINT, "tp_btf mmap:x86_get_unmapped_area", "gua_tp"),
		  BITS(F_GUA_DEFAULT, F_GUA_ABOVE47) },
		/* get_unmapped_area(): mm/mmap.c, every placement; until 6.9. */
		{ WAY(PROBE_FENTRY, "fexit get_unmapped_area (above 47 bits only)", "gua_fexit"),
		  BIT(F_GUA_ABOVE47) },
		/* Since 6.10 the out-of-line function is __get_unmapped_area(). */
		{ WAY(PROBE_FENTRY, "fexit __get_unmapped_area (above 47 bits only)",
		      "gua_vmflags_fexit"),
		  BIT(F_GUA_ABOVE47) },
	} },
	{ "TLB flushes by reason", "no tlb:tlb_flush or sched:sched_switch in this kernel", {
		/*
		 * tlb:tlb_flush: x86 since 3.17, as tp_btf since 5.5; sched:sched_switch
		 * charges task-switch flushes to the task they were for.
		 */
		{ WAY(PROBE_TRACEPOINT, "tp_btf tlb:tlb_flush, sched:sched_switch",
		      "tlb_flush_tp", "sched_switch_tp"),
		  BITS(F_TLB_TASK_SWITCH, F_TLB_NOOP) },
	} },
	{ "shootdown IPIs", "no irq_vectors:call_function events or flush_tlb_func()", {
		/* x86 irq_vectors events (4.5 on); flush_tlb_func(): its name since 5.19. */
		{ WAY(PROBE_TRACEPOINT,
		      "tp_btf irq_vectors:call_function{,_single}_{entry,exit}, fentry flush_tlb_func",
		      "call_function_entry_tp", "call_function_single_entry_tp",
		      "call_function_exit_tp", "call_function_single_exit_tp",
		      "flush_tlb_func_fentry"),
		  BIT(F_TLB_IPIS) },
	} },
	{ "kernel-range flushes", "no function flush_tlb_kernel_range() in this kernel", {
		/* x86 kernel-range flushes, which tlb:tlb_flush does not report. */
		{ WAY(PROBE_FENTRY, "fentry flush_tlb_kernel_range", "tlb_kernel_range_fentry"),
		  BIT(F_TLB_KERNEL_RANGE) },
		{ WAY(PROBE_KPROBE, "kprobe flush_tlb_kernel_range", "tlb_kernel_range_kprobe"),
		  BIT(F_TLB_KERNEL_RANGE) },
	} },
	{ "flush_tlb_all", "no function flush_tlb_all() in this kernel", {
		{ WAY(PROBE_FENTRY, "fentry flush_tlb_all", "tlb_all_fentry"), BIT(F_TLB_ALL) },
		{ WAY(PROBE_KPROBE, "kprobe flush_tlb_all", "tlb_all_kprobe"), BIT(F_TLB_ALL) },
	} },
	{ "mmap() placements", "no function ksys_mmap_pgoff() in this kernel's BTF", {
		/*
		 * ksys_mmap_pgoff(): mm/mmap.c, x86-64's mmap() returns through it (6.1,
		 * 6.12, 7.3). Not the syscall tracepoint first: enabling it puts every
		 * syscall of every thread on the slow path (TIF_SYSCALL_TRACEPOINT).
		 */
		{ WAY(PROBE_FENTRY, "fexit ksys_mmap_pgoff", "mmap_fexit"),
		  BITS(F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES) },
		/* syscalls:sys_exit_mmap: CONFIG_FTRACE_SYSCALLS; task registers since 5.15. */
		{ WAY(PROBE_TRACEPOINT, "tracepoint syscalls:sys_exit_mmap", "mmap_exit"),
		  BITS(F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES) },
		{ WAY(PROBE_KPROBE, "kretprobe ksys_mmap_pgoff", "mmap_kretprobe"),
		  BITS(F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES) },
	} },
};

#define NR_GROUPS	(int)(sizeof(groups) / sizeof(groups[0]))
/* Indexes into groups[], in its order. */
#define G_P4D_ALLOC	0
#define G_P4D_FREE	1
#define G_GUA		3

static int chosen[NR_GROUPS];	/* index of the way that feeds each group, -1: none */
static struct probe_failure failed[NR_GROUPS][MAX_WAYS];	/* why ways before it failed */

static int nr_ways(const struct group *g)
{
	int n = 0;

	while (n < MAX_WAYS && g->ways[n].way.progs[0])
		n++;
	return n;
}

/* Attach every group's best way; returns how many groups are fed. */
static int attach_groups(struct probe_loader *loader)
{
	struct probe_way ways[MAX_WAYS];
	int fed = 0;

	for (int g = 0; g < NR_GROUPS; g++) {
		int n = nr_ways(&groups[g]);

		for (int w = 0; w < n; w++)
			ways[w] = groups[g].ways[w].way;
		chosen[g] = probe_attach_first(loader, ways, n, env.best_kind, failed[g]);
		if (chosen[g] < 0)
			continue;
		available |= groups[g].ways[chosen[g]].feeds;
		fed++;
	}
	/* Pairing frees with allocations needs both tracepoints. */
	if (chosen[G_P4D_ALLOC] == 0 && chosen[G_P4D_FREE] == 0)
		available |= BIT(F_P4D_LIVE) | BIT(F_P4D_UNTRACKED);
	else
		available &= ~BIT(F_P4D_FREED_OLD);
	/* mmap()'s exit counts what a get_unmapped_area decision placed above 47 bits. */
	if (chosen[G_GUA] < 0)
		available &= ~BITS(F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES);
	if (avail(F_TLB_TASK_SWITCH))
		available |= BIT(F_TLB_FLUSHES);
	return fed;
}

/*
 * Why way W of group G failed, into BUF: the group's ABSENT text when the kernel lacks
 * the target of one of its best ways, the target's name for a worse way, else the step
 * that failed with its errno and libbpf's note ("load failed: Operation not permitted
 * (libbpf: ...)"). WHAT: name the way first.
 */
static void why_failed(int g, int w, bool what, char *buf, size_t len)
{
	const struct probe_failure *f = &failed[g][w];
	int n = 0;

	if (f->absent[0] && groups[g].ways[w].way.kind == groups[g].ways[0].way.kind) {
		snprintf(buf, len, "%s", groups[g].absent);
		return;
	}
	if (what)
		n = snprintf(buf, len, "%s: ", groups[g].ways[w].way.what);
	if (n >= 0 && (size_t)n < len)
		probe_describe(f, buf + n, len - n);
}

/*
 * The way whose failure explains what group G lacks: the last one tried of the best
 * kind tried (series v3's placement event after v4's, say), before the chosen one.
 * -1 when none failed.
 */
static int failed_way(int g)
{
	int end = chosen[g] < 0 ? nr_ways(&groups[g]) : chosen[g], pick = -1;

	for (int w = 0; w < end; w++) {
		if (failed[g][w].stage == PROBE_UNTRIED)
			continue;
		if (pick >= 0 && groups[g].ways[w].way.kind != groups[g].ways[pick].way.kind)
			break;
		pick = w;
	}
	return pick;
}

/* -v: what feeds each group, and why each better way did not. */
static void print_sources(void)
{
	char why[512];

	fprintf(stderr, "Counter sources:\n");
	for (int g = 0; g < NR_GROUPS; g++) {
		int end = chosen[g] < 0 ? nr_ways(&groups[g]) : chosen[g];

		fprintf(stderr, "  %-24s %s\n", groups[g].name,
			chosen[g] < 0 ? "n/a: no probe attached" : groups[g].ways[chosen[g]].way.what);
		for (int w = 0; w < end; w++) {
			if (failed[g][w].stage == PROBE_UNTRIED)
				continue;
			why_failed(g, w, false, why, sizeof(why));
			fprintf(stderr, "  %-24s   not %s: %s\n", "", groups[g].ways[w].way.what, why);
		}
	}
}

/*
 * Why nothing attached: the kernel lacks every target; or the tries on targets it has
 * all failed alike (no BPF in this kernel, permissions, lockdown), and then how; else
 * the first group's last try.
 */
static void why_none(char *buf, size_t len)
{
	const struct probe_failure *first = NULL;
	bool alike = true;
	int w;

	for (int g = 0; g < NR_GROUPS; g++)
		for (w = 0; w < nr_ways(&groups[g]); w++) {
			const struct probe_failure *f = &failed[g][w];

			if (f->stage == PROBE_UNTRIED || f->absent[0])
				continue;
			if (!first)
				first = f;
			alike &= f->stage == first->stage && f->err == first->err;
		}
	if (!first) {
		snprintf(buf, len, "this kernel has none of the events and functions it probes");
		return;
	}
	if (alike) {
		probe_describe(first, buf, len);
		return;
	}
	for (w = nr_ways(&groups[0]) - 1; w > 0 && failed[0][w].stage == PROBE_UNTRIED; w--)
		;
	why_failed(0, w, true, buf, len);
}

/*
 * One line per group fed worse than its best way: which counters are n/a, and why. A
 * counter that needs two groups (LIVE pairs both P4D tracepoints; MAP47 needs a decision
 * and mmap()'s exit) is named once, with the first group that lacks its part.
 */
static void print_missing(void)
{
	__u64 named = 0;

	for (int g = 0; g < NR_GROUPS; g++) {
		__u64 lost = groups[g].ways[0].feeds;
		char list[512] = "", why[512] = "no probe was tried";
		int w = failed_way(g);
		size_t len = 0;

		if (chosen[g] >= 0)
			lost &= ~groups[g].ways[chosen[g]].feeds;
		if ((g == G_P4D_ALLOC || g == G_P4D_FREE) && chosen[g] != 0)
			lost |= BIT(F_P4D_LIVE);
		if (g == G_GUA && chosen[g] < 0)
			lost |= BITS(F_MMAP_ABOVE47, F_MMAP_ABOVE47_BYTES);
		lost &= ~available & ~named;
		named |= lost;
		for (int f = 0; f < NR_FIELDS && len < sizeof(list) - 1; f++)
			if (lost & BIT(f))
				len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
						fields[f].key);
		if (!len)
			continue;
		if (groups[g].ways[0].way.kind < env.best_kind)
			snprintf(why, sizeof(why), "--probes excludes the better probe");
		else if (w >= 0)
			why_failed(g, w, true, why, sizeof(why));
		fprintf(stderr, "p4dstat: n/a: %s (%s)\n", list, why);
	}
}

/*
 * -- CMD: the programs that grow and shrink the followed set. Not a counter group:
 * without them the count would silently miss CMD's children, so p4dstat stops.
 */
static int attach_follow(struct probe_loader *loader)
{
	/* sched:sched_process_fork and sched_process_free: tp_btf since 5.5. */
	static const struct probe_way way = WAY(PROBE_TRACEPOINT,
		"tp_btf sched:sched_process_fork, sched:sched_process_free",
		"follow_fork", "follow_free");
	struct probe_failure why;
	char text[512];

	if (probe_attach_first(loader, &way, 1, PROBE_TRACEPOINT, &why) == 0)
		return 0;
	probe_describe(&why, text, sizeof(text));
	fprintf(stderr, "p4dstat: cannot follow the command's children: %s\n", text);
	return 1;
}

/* ---- the BPF object: one shared copy holds the maps, one copy per group ---- */

/* TASK_SIZE_MAX of the running paging mode. */
static __u64 task_size_max;

static struct p4dstat_bpf *open_object(void)
{
	struct p4dstat_bpf *skel = p4dstat_bpf__open();

	if (!skel)
		return NULL;
	skel->rodata->targ_tgid = env.pid;
	skel->rodata->filter_cgroup = env.cgroup != NULL;
	skel->rodata->per_comm = env.per_comm;
	skel->rodata->follow = env.cmd != NULL;
	/* Without -c a plain array stands in: kernels without cgroups lack the type. */
	if (!env.cgroup)
		bpf_map__set_type(skel->maps.cgroup_filter, BPF_MAP_TYPE_ARRAY);
	skel->rodata->task_size_max = task_size_max;
	bpf_map__set_max_entries(skel->maps.comms, env.per_comm ? env.comm_slots : 1);
	return skel;
}

static struct bpf_object *open_copy(void *ctx, void **handle)
{
	struct p4dstat_bpf *skel = open_object();

	(void)ctx;
	*handle = skel;
	return skel ? skel->obj : NULL;
}

static void close_copy(void *handle)
{
	p4dstat_bpf__destroy(handle);
}

/* ---- reading the maps ---- */

static int nr_cpus;

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

static int read_lifetimes(struct p4dstat_bpf *skel, struct snapshot *s)
{
	int fd = bpf_map__fd(skel->maps.lifetimes);
	__u64 *percpu = calloc(nr_cpus, sizeof(__u64));

	if (!percpu)
		return -ENOMEM;
	for (__u32 slot = 0; slot < P4DSTAT_HIST_SLOTS; slot++) {
		if (bpf_map_lookup_elem(fd, &slot, percpu)) {
			free(percpu);
			return -errno;
		}
		sum_percpu(percpu, sizeof(__u64), &s->lifetimes[slot]);
	}
	free(percpu);
	return 0;
}

static int take_snapshot(struct p4dstat_bpf *skel, const struct probe_loader *loader,
			 struct snapshot *s)
{
	struct p4dstat_counts *percpu = calloc(nr_cpus, sizeof(*percpu));
	__u32 zero = 0;
	int err;

	if (!percpu)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &s->when);
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &zero, percpu);
	if (!err)
		err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.live), &zero, &s->live);
	if (err) {
		err = -errno;
		free(percpu);
		return err;
	}
	sum_percpu(percpu, sizeof(*percpu), &s->counts);
	s->missed = probe_missed(loader);
	free(percpu);
	err = read_lifetimes(skel, s);
	if (!err && env.per_comm)
		err = read_comms(skel, s);
	return err;
}

/* Counting on (1) or off (0): every program checks it before it counts. */
static int set_armed(struct p4dstat_bpf *skel, __u32 on)
{
	__u32 zero = 0;

	return bpf_map_update_elem(bpf_map__fd(skel->maps.armed), &zero, &on, BPF_ANY) ?
	       -errno : 0;
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

/* Field values between two snapshots; LIVE is a level, since tracing began. */
static void compute(const struct snapshot *cur, const struct snapshot *prev, long long *v)
{
	const struct p4dstat_counts *c = &cur->counts, *p = &prev->counts;

#define D(name) ((long long)(c->name - p->name))
	v[F_P4D_USER] = D(p4d_alloc_user);
	v[F_P4D_KERNEL] = D(p4d_alloc_kernel);
	v[F_P4D_RACED] = D(p4d_raced);
	v[F_P4D_NOMEM] = D(p4d_nomem);
	v[F_P4D_FREED] = D(p4d_free);
	v[F_P4D_FREED_OLD] = D(p4d_free_old);
	v[F_P4D_LIVE] = cur->live;
	v[F_P4D_UNTRACKED] = D(p4d_untracked);
	for (int k = 0; k < P4DSTAT_CAUSES; k++)
		v[F_CAUSE_FIRST + k] = D(p4d_cause[k]);
	v[F_SYNC_CALLS] = D(sync_calls);
	v[F_SYNC_COPIED] = D(sync_copied);
	v[F_SYNC_VISITED] = D(sync_visited);
	for (int r = 0; r < P4DSTAT_TLB_REASONS; r++)
		v[F_TLB_TASK_SWITCH + r] = D(tlb_flush[r]);
	/* A sent shootdown is a request; the flushes are the receivers'. */
	v[F_TLB_FLUSHES] = v[F_TLB_TASK_SWITCH] + v[F_TLB_RECEIVED] + v[F_TLB_BATCHED] +
			   v[F_TLB_LOCAL_MM];
	v[F_TLB_NOOP] = D(tlb_noop);
	v[F_TLB_IPIS] = D(tlb_ipis);
	v[F_TLB_KERNEL_RANGE] = D(tlb_kernel_range);
	v[F_TLB_ALL] = D(tlb_all);
	for (int w = 0; w < P4DSTAT_WINDOWS; w++)
		v[F_GUA_DEFAULT + w] = D(gua_window[w]);
	for (int o = 0; o < P4DSTAT_OUTCOMES; o++)
		v[F_GUA_FIXED + o] = D(gua_outcome[o]);
	v[F_GUA_ABOVE47] = D(gua_above47);
	v[F_MMAP_ABOVE47] = D(mmap_above47);
	v[F_MMAP_ABOVE47_BYTES] = D(mmap_above47_bytes);
#undef D
}

static void lifetime_deltas(const struct snapshot *cur, const struct snapshot *prev,
			    __u64 *out)
{
	for (int i = 0; i < P4DSTAT_HIST_SLOTS; i++)
		out[i] = cur->lifetimes[i] - prev->lifetimes[i];
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

/* The running paging mode: the kernel clears la57 in cpuinfo when it runs 4-level. */
static bool five_level(void)
{
	char line[4096];
	bool la57 = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !la57 && fgets(line, sizeof(line), f))
		la57 = !strncmp(line, "flags", 5) && strstr(line, " la57");
	if (f)
		fclose(f);
	return la57;
}

/* A readable kernel BTF, which every program here is relocated against. */
static bool kernel_btf(void)
{
	FILE *f = fopen(VMLINUX_BTF, "r");
	char magic[2];
	bool ok;

	if (!f)
		return false;
	ok = fread(magic, 1, sizeof(magic), f) == sizeof(magic);
	fclose(f);
	/* BTF_MAGIC 0xeB9F, either byte order. */
	return ok && ((magic[0] == (char)0x9f && magic[1] == (char)0xeb) ||
		      (magic[0] == (char)0xeb && magic[1] == (char)0x9f));
}

/* -c: the cgroup's directory, on a kernel that has cgroups; 0, or 1 after one line. */
static int open_cgroup(void)
{
	if (access(PROC_CGROUP, F_OK)) {
		fprintf(stderr, "p4dstat: -c: this kernel has no cgroups (CONFIG_CGROUPS is off)\n");
		return 1;
	}
	env.cgroup_fd = open(env.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (env.cgroup_fd < 0) {
		fprintf(stderr, "p4dstat: cannot open cgroup '%s': %s\n", env.cgroup,
			strerror(errno));
		return 1;
	}
	return 0;
}

/* The kernel takes only a cgroup v2 directory's fd into the filter map. */
static int set_cgroup(struct p4dstat_bpf *skel)
{
	__u32 zero = 0;

	if (!bpf_map_update_elem(bpf_map__fd(skel->maps.cgroup_filter), &zero,
				 &env.cgroup_fd, BPF_ANY))
		return 0;
	fprintf(stderr, "p4dstat: '%s' is not a cgroup v2 directory: %s\n", env.cgroup,
		strerror(errno));
	return 1;
}

/* ---- -- CMD ---- */

/*
 * Fork the process that will exec CMD, parked on a pipe until the filter holds its PID:
 * nothing it does or forks can happen before counting starts. Forked before any BPF
 * object is loaded, so it inherits none. 0, or 1 after one line.
 */
static int start_command(void)
{
	int fds[2];
	char go;

	if (pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, "p4dstat: cannot make a pipe for CMD: %s\n", strerror(errno));
		return 1;
	}
	env.child = fork();
	if (env.child < 0) {
		fprintf(stderr, "p4dstat: cannot fork CMD: %s\n", strerror(errno));
		return 1;
	}
	if (!env.child) {
		close(fds[1]);
		/* EOF without the byte: p4dstat failed before counting; CMD must not run. */
		if (read(fds[0], &go, 1) != 1)
			_exit(EXIT_RUNTIME);
		execvp(env.cmd[0], env.cmd);
		fprintf(stderr, "p4dstat: cannot run '%s': %s\n", env.cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);	/* as shells do */
	}
	close(fds[0]);
	env.go_fd = fds[1];
	return 0;
}

/* Put CMD's PID in the followed set, then let it exec. */
static int release_command(struct p4dstat_bpf *skel)
{
	__u32 tgid = env.child;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.followed), &tgid, &one, BPF_ANY))
		return -errno;
	if (write(env.go_fd, "", 1) != 1)
		return -errno;
	close(env.go_fd);
	env.go_fd = -1;
	return 0;
}

static int child_status;

/* Reap CMD if it has exited (HANG: wait for it); CMD's exit status then in child_status. */
static void reap_command(bool hang)
{
	int status;

	if (env.child <= 0 || waitpid(env.child, &status, hang ? 0 : WNOHANG) <= 0)
		return;
	env.child = 0;
	child_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * Sleep until the interval ends (never without one), CMD exits or SIGINT/SIGTERM ends
 * the count. The three are blocked and taken here, so none can come between the
 * test and the wait.
 */
static void wait_command(const sigset_t *set)
{
	struct timespec now, end, left;
	int sig;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += env.interval;
	while (env.child > 0 && !exiting) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (env.interval_given && left.tv_sec < 0)
			return;
		sig = sigtimedwait(set, NULL, env.interval_given ? &left : NULL);
		if (sig == SIGINT || sig == SIGTERM)
			exiting = 1;
		else if (sig == SIGCHLD)
			reap_command(false);
		else if (sig < 0 && errno == EAGAIN)
			return;
	}
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	struct probe_object_ops ops = { .open = open_copy, .close = close_copy };
	struct snapshot start = {}, prev = {}, cur = {};
	struct probe_loader *loader = NULL;
	struct p4dstat_bpf *skel = NULL;
	__u64 lifetimes[P4DSTAT_HIST_SLOTS];
	long long v[NR_FIELDS];
	struct report r = { .v = v, .lifetimes = lifetimes };
	struct bpf_program *prog;
	bool five, rows;
	sigset_t waited;
	long done = 0;
	int err;

	/* Everything after "--" is the command to count. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (i + 1 == argc)
			usage_error("no command after '--'");
		env.cmd = argv + i + 1;
		argc = i;
		break;
	}
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		usage_error("bad arguments");
	if (env.cmd && env.pid)
		usage_error("-p and a command are exclusive: count one or the other");
	rows = !env.cmd || env.interval_given;
	if (env.cmd && env.high_maps)
		usage_error("--high-maps lists processes; it counts no command");
	/* Before the privilege and BTF checks: the listing reads /proc only. */
	if (env.high_maps)
		return highmaps_list(env.pid);

	if (!privileged()) {
		fprintf(stderr, "p4dstat: needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)\n");
		return EXIT_RUNTIME;
	}
	if (env.pid && kill(env.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "p4dstat: no process with PID %d\n", env.pid);
		return EXIT_RUNTIME;
	}
	if (!kernel_btf()) {
		fprintf(stderr, "p4dstat: no kernel BTF in %s (needs CONFIG_DEBUG_INFO_BTF)\n",
			VMLINUX_BTF);
		return EXIT_RUNTIME;
	}
	if (env.cgroup && open_cgroup())
		return EXIT_RUNTIME;
	if (env.cmd && start_command())
		return EXIT_RUNTIME;
	libbpf_set_print(libbpf_print);
	nr_cpus = libbpf_num_possible_cpus();
	if (nr_cpus < 0) {
		fprintf(stderr, "p4dstat: cannot count CPUs: %s\n", strerror(-nr_cpus));
		return EXIT_RUNTIME;
	}
	five = five_level();
	task_size_max = five ? P4D_TASK_SIZE_MAX_L5 : P4D_TASK_SIZE_MAX_L4;

	/* The shared copy: maps only, every program left out. */
	skel = open_object();
	if (!skel) {
		fprintf(stderr, "p4dstat: cannot open the BPF object: %s\n", strerror(errno));
		err = 1;
		goto cleanup;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	probe_notes_reset();
	err = p4dstat_bpf__load(skel);
	if (err) {
		const char *note = probe_note();

		fprintf(stderr, "p4dstat: cannot create the BPF maps: %s%s%s%s\n", strerror(-err),
			*note ? " (" : "", note, *note ? ")" : "");
		goto cleanup;
	}
	if (env.cgroup && set_cgroup(skel)) {
		err = 1;
		goto cleanup;
	}
	ops.ctx = skel;
	loader = probe_loader_new(&ops, skel->obj);
	if (!loader) {
		err = -ENOMEM;
		fprintf(stderr, "p4dstat: out of memory\n");
		goto cleanup;
	}
	if (!attach_groups(loader)) {
		char why[512];

		if (env.verbose)
			print_sources();
		why_none(why, sizeof(why));
		fprintf(stderr, "p4dstat: no probe attached: %s%s\n", why,
			env.verbose ? "" : " (-v shows every try)");
		err = 1;
		goto cleanup;
	}
	if (env.cmd && attach_follow(loader)) {
		err = 1;
		goto cleanup;
	}
	if (env.verbose)
		print_sources();
	if (!five)
		fprintf(stderr, "p4dstat: 4-level paging: the P4D level is folded into the PGD,"
			" P4D columns stay 0\n");
	print_missing();

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (env.cmd) {
		sigemptyset(&waited);
		sigaddset(&waited, SIGCHLD);
		sigaddset(&waited, SIGINT);
		sigaddset(&waited, SIGTERM);
		sigprocmask(SIG_BLOCK, &waited, NULL);
	}
	/* Counting starts from zero here: the start is an empty reading, not a baseline. */
	start.missed = probe_missed(loader);
	clock_gettime(CLOCK_MONOTONIC, &start.when);
	err = set_armed(skel, 1);
	if (!err)
		err = copy_snapshot(&prev, &start);
	if (!err && env.cmd)
		err = release_command(skel);
	if (err)
		goto read_failed;
	fprintf(stderr, "Tracing P4D tables, kernel syncs, TLB flushes and mappings above 47 "
		"bits%s... %s\n",
		env.cmd ? " of one command" : env.pid ? " of one process" :
		env.cgroup ? " of one cgroup" : "",
		env.cmd ? "Ends when it exits." : "Hit Ctrl-C to end.");
	report_init(&(struct report_opts){
		.timestamp = env.timestamp, .json = env.json, .causes = env.causes,
		.per_comm = env.per_comm, .lifetimes = env.lifetimes, .pid = env.pid,
		.comm_slots = env.comm_slots, .available = available, .follow = env.cmd != NULL,
	});
	if (!env.json && rows)
		report_header();
	fflush(stdout);

	for (bool last = false; !last; ) {
		struct timespec nap = { env.interval, 0 };

		/* A signal cuts the nap short: that last, partial interval is still printed. */
		if (env.cmd)
			wait_command(&waited);
		else if (!exiting)
			nanosleep(&nap, NULL);
		/*
		 * The counters and the -C rows are read one after the other: the last reading,
		 * which the totals are, is taken with counting off so that they agree. A
		 * signal that comes after this test ends the next interval instead.
		 */
		last = exiting || (env.cmd && env.child <= 0) ||
		       (env.count && done + 1 >= env.count);
		if (last)
			err = set_armed(skel, 0);
		if (!err)
			err = take_snapshot(skel, loader, &cur);
		if (err)
			goto read_failed;
		compute(&cur, &prev, v);
		lifetime_deltas(&cur, &prev, lifetimes);
		if (env.per_comm)
			comm_deltas(&cur, &prev);
		r.cur = &cur;
		r.secs = seconds_between(&prev.when, &cur.when);
		r.missed = cur.missed - prev.missed;
		r.dropped = cur.counts.comm_dropped - prev.counts.comm_dropped;
		r.mmap_untracked = cur.counts.mmap_untracked - prev.counts.mmap_untracked;
		r.follow_dropped = cur.counts.follow_dropped - prev.counts.follow_dropped;
		if (rows)
			report_print(&r, false);
		fflush(stdout);
		free_snapshot(&prev);
		prev = cur;
		cur.comms = NULL;
		done++;
	}

	/* The totals: the last reading against the first. */
	compute(&prev, &start, v);
	lifetime_deltas(&prev, &start, lifetimes);
	if (env.per_comm)
		comm_deltas(&prev, &start);
	r.cur = &prev;
	r.secs = seconds_between(&start.when, &prev.when);
	r.missed = prev.missed - start.missed;
	r.dropped = prev.counts.comm_dropped - start.counts.comm_dropped;
	r.mmap_untracked = prev.counts.mmap_untracked - start.counts.mmap_untracked;
	r.follow_dropped = prev.counts.follow_dropped - start.counts.follow_dropped;
	report_print(&r, true);
	fflush(stdout);
	err = 0;
	goto cleanup;

read_failed:
	fprintf(stderr, "p4dstat: cannot read the counters: %s\n", strerror(-err));
	err = 1;
cleanup:
	free_snapshot(&start);
	free_snapshot(&prev);
	free_snapshot(&cur);
	probe_loader_free(loader);
	p4dstat_bpf__destroy(skel);
	if (env.cgroup_fd >= 0)
		close(env.cgroup_fd);
	if (env.go_fd >= 0)
		close(env.go_fd);	/* CMD, still parked, exits without running */
	/* The count ended on a signal or failed: CMD still runs its course, then its status. */
	reap_command(true);
	if (env.cmd && !err)
		return child_status;
	return err ? EXIT_RUNTIME : 0;
}
