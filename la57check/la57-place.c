// SPDX-License-Identifier: GPL-2.0
/*
 * la57-place: run PROGRAM under ptrace, with its hint-less mappings placed above 47 bits
 * (--high), with only brk refused (--brk-only: what refusing brk alone changes), or where
 * the kernel puts them (the comparison run), and write what happened to a report of
 * key=value lines for scripts/la57-check.
 *
 * The main executable, the dynamic loader, the vDSO and the initial stack stay low: the
 * kernel maps them in execve(), before the program makes a syscall we could rewrite, and
 * places them below 47 bits whatever the program does later.
 *
 * The run ends when PROGRAM's main process does: descendants still running then are
 * named in the report and killed.
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
	bool main_ended;		/* what still runs now is left over: end it */
	unsigned long left_running;	/* processes still running when main ended */
	char left_names[1024];		/* "comm[pid] ..." of those */
	struct task *tasks;
	size_t ntasks, cap;
	char tids[8192];		/* every traced thread, for the P4D event count */
};

static void usage(FILE *to)
{
	fprintf(to, "usage: la57-place [--high [--keep-brk] [--keep-low-stack] [--move-hinted] |"
		" --brk-only] [--env FILE] --report FILE -- PROGRAM [ARGS]\n");
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

static void count_exited_process(struct tracer *tr, const struct task *t)
{
	tr->processes++;
	tr->at_exit.mappings += t->at_exit.mappings;
	tr->at_exit.high_mappings += t->at_exit.high_mappings;
	tr->at_exit.high_bytes += t->at_exit.high_bytes;
	tr->at_exit.jit_mappings += t->at_exit.jit_mappings;
	tr->at_exit.jit_high += t->at_exit.jit_high;
	if (t->tid == tr->main_pid)
		memcpy(tr->at_exit.low_names, t->at_exit.low_names, sizeof(t->at_exit.low_names));
}

/* TID is gone; a process leader's address space, seen at its exit stop, now counts. */
static void task_died(struct tracer *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->ntasks; i++)
		if (tr->tasks[i].tid == tid && tr->tasks[i].exited)
			count_exited_process(tr, &tr->tasks[i]);
	task_forget(tr, tid);
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

/*
 * A process leader is about to exit: its address space is still there to read. It is
 * counted when it dies: another thread's execve() also stops the leader here, and then
 * the process goes on.
 */
static void on_exit_event(struct task *t)
{
	struct maps m;

	if (!is_process_leader(t->tid) || maps_read(t->tid, &m) < 0)
		return;
	maps_summarize(&m, &t->at_exit);
	maps_free(&m);
	t->exited = true;
}

/*
 * execve() succeeded in TID. When a thread other than the leader called it, the kernel
 * gave it the leader's tid, killed the leader wherever it was (inside a rewritten call,
 * say, which then never stops at its exit) and the caller's own tid is gone.
 */
static void on_exec_event(struct tracer *tr, pid_t tid)
{
	unsigned long former;
	struct task *t;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &former) == 0 && (pid_t)former != tid)
		task_forget(tr, (pid_t)former);
	t = task_get(tr, tid);
	if (placement_forget_pending(t))
		tr->stats.cut_by_exec++;
	t->exited = false;
}

/* The main process ended: name what it left running, and end it. */
static void end_descendants(struct tracer *tr)
{
	tr->main_ended = true;
	for (size_t i = 0; i < tr->ntasks; i++) {
		pid_t tid = tr->tasks[i].tid;
		size_t used = strlen(tr->left_names);
		char path[64], comm[32] = "?";
		FILE *f;

		if (is_process_leader(tid)) {
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
			f = fopen(path, "re");
			if (f) {
				if (fgets(comm, sizeof(comm), f))
					comm[strcspn(comm, "\n")] = '\0';
				fclose(f);
			}
			tr->left_running++;
			if (used + 48 < sizeof(tr->left_names))
				snprintf(tr->left_names + used, sizeof(tr->left_names) - used,
					 "%s%s[%d]", used ? " " : "", comm, (int)tid);
		}
		kill(tid, SIGKILL);
	}
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
			task_died(tr, tid);
			if (tid == tr->main_pid) {
				tr->main_status = status;
				end_descendants(tr);
			}
			continue;
		}
		/* Started by a leftover before it was ended: ends too. */
		if (tr->main_ended)
			kill(tid, SIGKILL);
		t = task_get(tr, tid);
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			t->seen_first_stop = true;
			on_syscall_stop(tr, t);
		} else if (WSTOPSIG(status) == SIGTRAP && status >> 16) {
			t->seen_first_stop = true;
			if (status >> 16 == PTRACE_EVENT_EXIT)
				on_exit_event(t);
			else if (status >> 16 == PTRACE_EVENT_EXEC)
				on_exec_event(tr, tid);
		} else {
			sig = on_signal_stop(tr, t, WSTOPSIG(status));
		}
		ptrace(PTRACE_SYSCALL, tid, 0, sig);
	}
}

static pid_t start(char **argv, char **envp)
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
		if (envp)
			environ = envp;
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

	fprintf(f, "mode=%s\n", tr->opt.high ? "high" : tr->opt.refuse_brk ? "brk" : "normal");
	if (WIFSIGNALED(status))
		fprintf(f, "exit=signal SIG%s\n", sigabbrev_np(WTERMSIG(status)));
	else
		fprintf(f, "exit=status %d\n", WEXITSTATUS(status));
	fprintf(f, "hintless_mmaps=%lu\nhintless_high=%lu\nhinted_mmaps=%lu\nhinted_low=%lu\n"
		"hinted_moved=%lu\nstacks_kept_low=%lu\nbrk_refused=%lu\nmremap_moved=%lu\n"
		"cut_by_exec=%lu\n",
		st->hintless, st->hintless_high, st->hinted, st->hinted_low, st->hinted_moved,
		st->stacks_kept_low, st->brk_refused, st->mremap_moved, st->cut_by_exec);
	fprintf(f, "processes=%lu\nexit_mappings=%lu\nexit_high_mappings=%lu\n"
		"exit_high_bytes=%lu\nexit_jit_mappings=%lu\nexit_jit_high=%lu\n"
		"low_mappings=%s\nleft_running=%lu\nleft_running_names=%s\ntids=%s\nfaults=%lu\n",
		tr->processes, tr->at_exit.mappings, tr->at_exit.high_mappings,
		tr->at_exit.high_bytes, tr->at_exit.jit_mappings, tr->at_exit.jit_high,
		tr->at_exit.low_names, tr->left_running, tr->left_names, tr->tids,
		tr->fault.count);
	if (tr->fault.count)
		fputs(tr->fault.text, f);
}

/* The NUL-separated NAME=VALUE list in PATH (env -0's output), as an environment. */
static char **read_env(const char *path)
{
	size_t len = 0, n = 0, cap = 4096;
	char *buf = malloc(cap), **envp;
	FILE *f = fopen(path, "re");

	if (!f || !buf) {
		fprintf(stderr, "la57-place: cannot read %s: %s\n", path, strerror(errno));
		exit(EXIT_TRACER_FAILED);
	}
	for (size_t got; (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
		len += got;
		if (len + 1 == cap && !(buf = realloc(buf, cap *= 2))) {
			fprintf(stderr, "la57-place: out of memory reading %s\n", path);
			exit(EXIT_TRACER_FAILED);
		}
	}
	fclose(f);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	envp = calloc(n + 2, sizeof(*envp));
	if (!envp) {
		fprintf(stderr, "la57-place: out of memory reading %s\n", path);
		exit(EXIT_TRACER_FAILED);
	}
	n = 0;
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		envp[n++] = buf + i;
	return envp;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "high", no_argument, NULL, 'H' },
		{ "brk-only", no_argument, NULL, 'B' },
		{ "keep-brk", no_argument, NULL, 'K' },
		{ "env", required_argument, NULL, 'e' },
		{ "keep-low-stack", no_argument, NULL, 'S' },
		{ "move-hinted", no_argument, NULL, 'M' },
		{ "report", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct tracer tr;
	const char *report = NULL, *env = NULL;
	bool brk_only = false, keep_brk = false;
	FILE *out;
	int c;

	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'H': tr.opt.high = true; break;
		case 'B': brk_only = true; break;
		case 'K': keep_brk = true; break;
		case 'e': env = optarg; break;
		case 'S': tr.opt.keep_low_stack = true; break;
		case 'M': tr.opt.move_hinted = true; break;
		case 'r': report = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	/* Each option belongs to one kind of run. */
	if (!report || optind >= argc || (brk_only && tr.opt.high) ||
	    (!tr.opt.high && (keep_brk || tr.opt.keep_low_stack || tr.opt.move_hinted))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	tr.opt.refuse_brk = brk_only || (tr.opt.high && !keep_brk);
	/* Open it first: a report that cannot be written makes the run worthless. */
	out = fopen(report, "we");
	if (!out) {
		fprintf(stderr, "la57-place: cannot write %s: %s\n", report, strerror(errno));
		return EXIT_TRACER_FAILED;
	}
	tr.main_pid = start(argv + optind, env ? read_env(env) : NULL);
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
