// SPDX-License-Identifier: GPL-2.0
/*
 * la57-place: run PROGRAM under ptrace, with its hint-less mappings placed above 47 bits
 * (--high) or where the kernel puts them (the comparison run), and write what happened
 * to a report of key=value lines for scripts/la57-check.
 *
 * The main executable, the dynamic loader, the vDSO and the initial stack stay low: the
 * kernel maps them in execve(), before the program makes a syscall we could rewrite, and
 * places them below 47 bits whatever the program does later.
 *
 * Exit status: the program's, or 128 + the signal that killed it; 125 when the tracer
 * itself fails (its reason on stderr), 2 for usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "la57check.h"

#define EXIT_TRACER_FAILED	125
#define EXIT_USAGE		2

struct tracer {
	struct placement_options opt;
	struct placement_stats stats;
	struct fault fault;
	struct maps_summary at_exit;	/* summed over every process that exited */
	unsigned long processes;
	pid_t main_pid;
	int main_status;
	struct task *tasks;
	size_t ntasks, cap;
	char tids[8192];		/* every traced thread, for the P4D event count */
};

static void usage(FILE *to)
{
	fprintf(to, "usage: la57-place [--high [--keep-low-stack] [--move-hinted]] --report FILE"
		" -- PROGRAM [ARGS]\n");
}

static struct task *task_get(struct tracer *tr, pid_t tid)
{
	size_t used;

	for (size_t i = 0; i < tr->ntasks; i++)
		if (tr->tasks[i].tid == tid)
			return &tr->tasks[i];
	if (tr->ntasks == tr->cap) {
		size_t cap = tr->cap ? tr->cap * 2 : 32;
		struct task *v = realloc(tr->tasks, cap * sizeof(*v));

		if (!v) {
			fprintf(stderr, "la57-place: out of memory tracing task %d\n", (int)tid);
			exit(EXIT_TRACER_FAILED);
		}
		tr->tasks = v;
		tr->cap = cap;
	}
	tr->tasks[tr->ntasks] = (struct task){ .tid = tid };
	used = strlen(tr->tids);
	if (used + 16 < sizeof(tr->tids))
		snprintf(tr->tids + used, sizeof(tr->tids) - used, "%s%d", used ? " " : "", (int)tid);
	return &tr->tasks[tr->ntasks++];
}

static void task_forget(struct tracer *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->ntasks; i++)
		if (tr->tasks[i].tid == tid) {
			tr->tasks[i] = tr->tasks[--tr->ntasks];
			return;
		}
}

static bool is_process_leader(pid_t tid)
{
	char path[64], line[128];
	bool leader = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			leader = atoi(line + 5) == tid;
			break;
		}
	fclose(f);
	return leader;
}

/* A process is about to exit: its address space is still there to count. */
static void on_exit_event(struct tracer *tr, pid_t tid)
{
	struct maps_summary sum;
	struct maps m;

	if (!is_process_leader(tid) || maps_read(tid, &m) < 0)
		return;
	maps_summarize(&m, &sum);
	maps_free(&m);
	tr->processes++;
	tr->at_exit.mappings += sum.mappings;
	tr->at_exit.high_mappings += sum.high_mappings;
	tr->at_exit.high_bytes += sum.high_bytes;
	if (tid == tr->main_pid)
		memcpy(tr->at_exit.low_names, sum.low_names, sizeof(sum.low_names));
}

static void on_syscall_stop(struct tracer *tr, struct task *t)
{
	struct __ptrace_syscall_info info;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info) < 0)
		return;
	if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
		placement_on_entry(t, &info, &tr->opt, &tr->stats);
	else if (info.op == PTRACE_SYSCALL_INFO_EXIT)
		placement_on_exit(t, &info, &tr->stats);
}

/* The signal to deliver on resuming TID after a signal-delivery stop. */
static int on_signal_stop(struct tracer *tr, struct task *t, int sig)
{
	siginfo_t si;

	/* Every auto-attached thread or child starts with a SIGSTOP of ptrace's making. */
	if (sig == SIGSTOP && !t->seen_first_stop) {
		t->seen_first_stop = true;
		return 0;
	}
	/* No siginfo: a group stop. Resuming it is fine for a program under test. */
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return 0;
	if (is_fault_signal(sig))
		fault_record(t->tid, &si, &tr->fault);
	return sig;
}

static int trace(struct tracer *tr)
{
	for (;;) {
		int status, sig = 0;
		pid_t tid = waitpid(-1, &status, __WALL);
		struct task *t;

		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				return 0;
			perror("la57-place: waitpid");
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid == tr->main_pid)
				tr->main_status = status;
			task_forget(tr, tid);
			continue;
		}
		t = task_get(tr, tid);
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			t->seen_first_stop = true;
			on_syscall_stop(tr, t);
		} else if (WSTOPSIG(status) == SIGTRAP && status >> 16) {
			t->seen_first_stop = true;
			if (status >> 16 == PTRACE_EVENT_EXIT)
				on_exit_event(tr, tid);
		} else {
			sig = on_signal_stop(tr, t, WSTOPSIG(status));
		}
		ptrace(PTRACE_SYSCALL, tid, 0, sig);
	}
}

static pid_t start(char **argv)
{
	const long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			     PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
			     PTRACE_O_EXITKILL;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			perror("la57-place: PTRACE_TRACEME");
			_exit(EXIT_TRACER_FAILED);
		}
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "la57-place: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, options) < 0 ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0) < 0) {
		perror("la57-place: cannot trace the program");
		kill(pid, SIGKILL);
		return -1;
	}
	return pid;
}

static void write_report(FILE *f, const struct tracer *tr)
{
	const struct placement_stats *st = &tr->stats;
	int status = tr->main_status;

	fprintf(f, "mode=%s\n", tr->opt.high ? "high" : "normal");
	if (WIFSIGNALED(status))
		fprintf(f, "exit=signal SIG%s\n", sigabbrev_np(WTERMSIG(status)));
	else
		fprintf(f, "exit=status %d\n", WEXITSTATUS(status));
	fprintf(f, "hintless_mmaps=%lu\nhintless_high=%lu\nhinted_mmaps=%lu\nhinted_low=%lu\n"
		"hinted_moved=%lu\nstacks_kept_low=%lu\nbrk_refused=%lu\nmremap_moved=%lu\n",
		st->hintless, st->hintless_high, st->hinted, st->hinted_low, st->hinted_moved,
		st->stacks_kept_low, st->brk_refused, st->mremap_moved);
	fprintf(f, "processes=%lu\nexit_mappings=%lu\nexit_high_mappings=%lu\n"
		"exit_high_bytes=%lu\nlow_mappings=%s\ntids=%s\nfaults=%lu\n",
		tr->processes, tr->at_exit.mappings, tr->at_exit.high_mappings,
		tr->at_exit.high_bytes, tr->at_exit.low_names, tr->tids, tr->fault.count);
	if (tr->fault.count)
		fputs(tr->fault.text, f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "high", no_argument, NULL, 'H' },
		{ "keep-low-stack", no_argument, NULL, 'S' },
		{ "move-hinted", no_argument, NULL, 'M' },
		{ "report", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct tracer tr;
	const char *report = NULL;
	FILE *out;
	int c;

	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': tr.opt.high = true; break;
		case 'S': tr.opt.keep_low_stack = true; break;
		case 'M': tr.opt.move_hinted = true; break;
		case 'r': report = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!report || optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* Open it first: a report that cannot be written makes the run worthless. */
	out = fopen(report, "we");
	if (!out) {
		fprintf(stderr, "la57-place: cannot write %s: %s\n", report, strerror(errno));
		return EXIT_TRACER_FAILED;
	}
	tr.main_pid = start(argv + optind);
	if (tr.main_pid < 0)
		return EXIT_TRACER_FAILED;
	/* Its start-up SIGSTOP was consumed by start(). */
	task_get(&tr, tr.main_pid)->seen_first_stop = true;
	if (trace(&tr) < 0)
		return EXIT_TRACER_FAILED;
	write_report(out, &tr);
	if (fclose(out)) {
		fprintf(stderr, "la57-place: cannot write %s\n", report);
		return EXIT_TRACER_FAILED;
	}
	if (WIFSIGNALED(tr.main_status))
		return 128 + WTERMSIG(tr.main_status);
	return WEXITSTATUS(tr.main_status);
}
