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
 * Only mmap, brk and mremap stop the program (a seccomp filter; --no-seccomp, or a
 * kernel that refuses the filter, stops every syscall instead). Every process the
 * program starts is traced too, and how each one ended is recorded. When PROGRAM's main
 * process ends, what it left running (a daemon's work) is followed for --follow seconds
 * more, then ended and named. When the main process has not ended after --run-timeout
 * seconds, the run is ended: exit=hung.
 *
 * Exit status: the program's, or 128 + the signal that killed it; 124 when it hung;
 * 125 when the tracer itself fails (its reason on stderr), 2 for usage.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "la57check.h"

#define EXIT_TRACER_FAILED	125
#define EXIT_HUNG		124
#define EXIT_USAGE		2
#define DEFAULT_FOLLOW_S	10

/* Set by SIGALRM: the run's deadline (or the follow time after main's end) passed. */
static volatile sig_atomic_t deadline_passed;

struct tracer {
	struct placement_options opt;
	struct placement_stats stats;
	struct fault fault;
	struct maps_summary at_exit;	/* summed over every process that exited */
	unsigned long processes;
	pid_t main_pid;
	int main_status;
	bool main_ended;		/* what still runs is followed until the deadline */
	bool hung;			/* main had not ended at the run's deadline */
	bool ending;			/* the deadline passed: everything is being ended */
	bool seccomp;			/* only the placement calls stop (seccomp.c) */
	unsigned int follow_s;
	unsigned long left_running;	/* processes still running at the end */
	char left_names[1024];		/* "comm[pid] ..." of those */
	unsigned long compat_processes;	/* execs of 32-bit programs: nothing of theirs moves */
	struct tally fd_kinds;		/* what the fds of kept mmaps were */
	struct tally ends;		/* "comm: how" of every other process that ended */
	unsigned long child_faults;	/* ... killed by a fault signal */
	struct task *tasks;
	size_t ntasks, cap;
	char tids[8192];		/* every traced thread, for the P4D event count */
};

static void usage(FILE *to)
{
	fprintf(to, "usage: la57-place [--high [--keep-brk] [--keep-low-stack] [--move-hinted] |"
		" --brk-only] [--no-seccomp] [--run-timeout S] [--follow S] [--env FILE]"
		" --report FILE -- PROGRAM [ARGS]\n");
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

static void read_comm(pid_t tid, char *comm, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(comm, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

/* How a process other than main ended, as "comm: exit N" or "comm: SIGSEGV". */
static void record_end(struct tracer *tr, const struct task *t, int status)
{
	char how[sizeof(tr->ends.v[0].name)];

	if (WIFSIGNALED(status)) {
		snprintf(how, sizeof(how), "%s: SIG%s", t->comm, sigabbrev_np(WTERMSIG(status)));
		tr->child_faults += is_fault_signal(WTERMSIG(status));
	} else {
		snprintf(how, sizeof(how), "%s: exit %d", t->comm, WEXITSTATUS(status));
	}
	tally_add(&tr->ends, how);
}

/*
 * TID is gone; a process leader's address space, seen at its exit stop, now counts, and
 * how it ended, unless the tracer ended it.
 */
static void task_died(struct tracer *tr, pid_t tid, int status)
{
	for (size_t i = 0; i < tr->ntasks; i++) {
		const struct task *t = &tr->tasks[i];

		if (t->tid != tid || !t->exited)
			continue;
		count_exited_process(tr, t);
		if (tid != tr->main_pid && !t->ended_by_us)
			record_end(tr, t, status);
	}
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
 * A process leader is about to exit: its address space and name are still there to
 * read. It is counted when it dies: another thread's execve() also stops the leader
 * here, and then the process goes on.
 */
static void on_exit_event(struct task *t)
{
	struct maps m;

	if (!is_process_leader(t->tid))
		return;
	read_comm(t->tid, t->comm, sizeof(t->comm));
	t->exited = true;
	memset(&t->at_exit, 0, sizeof(t->at_exit));
	if (maps_read(t->tid, &m) < 0)
		return;
	maps_summarize(&m, &t->at_exit);
	maps_free(&m);
}

/* A 32-bit program: its syscalls are not rewritten, so nothing of it goes high. */
static bool runs_32bit(pid_t tid)
{
	unsigned char ident[EI_NIDENT];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, ident, sizeof(ident));
	close(fd);
	return n == EI_NIDENT && !memcmp(ident, ELFMAG, SELFMAG) && ident[EI_CLASS] == ELFCLASS32;
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
	tr->compat_processes += runs_32bit(tid);
}

/* End every traced task; name the processes among them. */
static void end_all(struct tracer *tr)
{
	for (size_t i = 0; i < tr->ntasks; i++) {
		struct task *t = &tr->tasks[i];
		size_t used = strlen(tr->left_names);
		char comm[32];

		if (t->ended_by_us)
			continue;
		t->ended_by_us = true;
		if (t->tid != tr->main_pid && is_process_leader(t->tid)) {
			read_comm(t->tid, comm, sizeof(comm));
			tr->left_running++;
			if (used + 48 < sizeof(tr->left_names))
				snprintf(tr->left_names + used, sizeof(tr->left_names) - used,
					 "%s%s[%d]", used ? " " : "", comm, (int)t->tid);
		}
		kill(t->tid, SIGKILL);
	}
}

/* The run's deadline, or the end of the follow time, passed. */
static void on_deadline(struct tracer *tr)
{
	alarm(0);
	deadline_passed = 0;
	if (tr->ending)
		return;
	tr->ending = true;
	tr->hung = !tr->main_ended;
	end_all(tr);
}

/* The main process ended: what it left running is followed for a while, then ended. */
static void on_main_end(struct tracer *tr, int status)
{
	tr->main_status = status;
	tr->main_ended = true;
	if (tr->ending)
		return;
	if (tr->ntasks == 0 || tr->follow_s == 0) {
		on_deadline(tr);
		return;
	}
	alarm(tr->follow_s);
}

/* A syscall stop (entry or exit) or a seccomp stop of T. */
static void on_syscall_stop(struct tracer *tr, struct task *t)
{
	struct __ptrace_syscall_info info;
	struct syscall_entry e;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(info), &info) < 0) {
		/* A kernel older than 5.3: no placement is possible, and the report says so. */
		tr->stats.info_failed++;
		return;
	}
	e.arch = info.arch;
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
		e.nr = info.entry.nr;
		memcpy(e.args, info.entry.args, sizeof(e.args));
		placement_on_entry(t, &e, &tr->opt, &tr->stats, &tr->fd_kinds);
		break;
	case PTRACE_SYSCALL_INFO_SECCOMP:
		e.nr = info.seccomp.nr;
		memcpy(e.args, info.seccomp.args, sizeof(e.args));
		placement_on_entry(t, &e, &tr->opt, &tr->stats, &tr->fd_kinds);
		break;
	case PTRACE_SYSCALL_INFO_EXIT:
		placement_on_exit(t, &info, &tr->stats);
		break;
	}
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

/*
 * Resume T. With the seccomp filter the next stop that matters is the next placement
 * call, unless T waits for the exit of the one it is in.
 */
static void resume(const struct tracer *tr, const struct task *t, int sig)
{
	int request = !tr->seccomp || awaits_syscall_exit(t) ? PTRACE_SYSCALL : PTRACE_CONT;

	ptrace(request, t->tid, 0, sig);
}

static int trace(struct tracer *tr)
{
	for (;;) {
		int status, sig = 0, event;
		pid_t tid;
		struct task *t;

		if (deadline_passed)
			on_deadline(tr);
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				return 0;
			perror("la57-place: waitpid");
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			task_died(tr, tid, status);
			if (tid == tr->main_pid)
				on_main_end(tr, status);
			else if (tr->main_ended && tr->ntasks == 0)
				alarm(0);
			continue;
		}
		t = task_get(tr, tid);
		/* Started by a task that is being ended: ends too. */
		if (tr->ending && !t->ended_by_us) {
			t->ended_by_us = true;
			kill(tid, SIGKILL);
		}
		event = status >> 16;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			t->seen_first_stop = true;
			on_syscall_stop(tr, t);
		} else if (WSTOPSIG(status) == SIGTRAP && event) {
			t->seen_first_stop = true;
			if (event == PTRACE_EVENT_SECCOMP)
				on_syscall_stop(tr, t);
			else if (event == PTRACE_EVENT_EXIT)
				on_exit_event(t);
			else if (event == PTRACE_EVENT_EXEC)
				on_exec_event(tr, tid);
		} else {
			sig = on_signal_stop(tr, t, WSTOPSIG(status));
		}
		resume(tr, t, sig);
	}
}

/*
 * Ends the waitpid() the loop is in. Should the signal come just before that call, the
 * second alarm ends it a second later.
 */
static void on_alarm(int sig)
{
	(void)sig;
	deadline_passed = 1;
	alarm(1);
}

/*
 * Fork PROGRAM stopped and traced. The child installs the seccomp filter before its
 * execve() and tells over a pipe whether the kernel took it.
 */
static pid_t start(struct tracer *tr, char **argv, char **envp, bool want_seccomp)
{
	long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
		       PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |
		       PTRACE_O_EXITKILL;
	char filtered = 0;
	int status, told[2];
	pid_t pid;

	if (pipe2(told, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(told[0]);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			perror("la57-place: PTRACE_TRACEME");
			_exit(EXIT_TRACER_FAILED);
		}
		filtered = want_seccomp && seccomp_stop_only_placement_calls();
		if (write(told[1], &filtered, 1) != 1)
			_exit(EXIT_TRACER_FAILED);
		close(told[1]);
		raise(SIGSTOP);
		if (envp)
			environ = envp;
		execvp(argv[0], argv);
		fprintf(stderr, "la57-place: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(told[1]);
	if (read(told[0], &filtered, 1) != 1)
		filtered = 0;
	close(told[0]);
	tr->seccomp = filtered;
	if (tr->seccomp)
		options |= PTRACE_O_TRACESECCOMP;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, options) < 0 ||
	    ptrace(tr->seccomp ? PTRACE_CONT : PTRACE_SYSCALL, pid, 0, 0) < 0) {
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
	char fd_kinds[1024], ends[1024];

	fprintf(f, "mode=%s\n", tr->opt.high ? "high" : tr->opt.refuse_brk ? "brk" : "normal");
	if (tr->hung)
		fprintf(f, "exit=hung\n");
	else if (WIFSIGNALED(status))
		fprintf(f, "exit=signal SIG%s\n", sigabbrev_np(WTERMSIG(status)));
	else
		fprintf(f, "exit=status %d\n", WEXITSTATUS(status));
	/* compare.sh reads this rather than keep its own list of fault signals. */
	fprintf(f, "main_faulted=%s\n",
		!tr->hung && WIFSIGNALED(status) && is_fault_signal(WTERMSIG(status)) ? "yes" : "no");
	fprintf(f, "hintless_mmaps=%lu\nhintless_high=%lu\nhinted_mmaps=%lu\nhinted_low=%lu\n"
		"hinted_moved=%lu\nstacks_kept_low=%lu\nbrk_refused=%lu\nmremap_moved=%lu\n"
		"cut_by_exec=%lu\n",
		st->hintless, st->hintless_high, st->hinted, st->hinted_low, st->hinted_moved,
		st->stacks_kept_low, st->brk_refused, st->mremap_moved, st->cut_by_exec);
	tally_format(&tr->fd_kinds, fd_kinds, sizeof(fd_kinds));
	tally_format(&tr->ends, ends, sizeof(ends));
	fprintf(f, "fd_mmaps_kept=%lu\nfd_kinds=%s\ncompat_processes=%lu\nsyscall_info_failed=%lu\n"
		"seccomp=%s\nchild_ends=%s\nchild_faults=%lu\n",
		st->fd_kept, fd_kinds, tr->compat_processes, st->info_failed,
		tr->seccomp ? "on" : "off", ends, tr->child_faults);
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

/* A whole number of seconds for OPTION, or exit with the usage. */
static unsigned int seconds(const char *option, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v > 86400) {
		fprintf(stderr, "la57-place: %s wants seconds from 0 to 86400, not '%s'\n", option, arg);
		exit(EXIT_USAGE);
	}
	return (unsigned int)v;
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
		{ "no-seccomp", no_argument, NULL, 'N' },
		{ "run-timeout", required_argument, NULL, 't' },
		{ "follow", required_argument, NULL, 'f' },
		{ "report", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct tracer tr = { .follow_s = DEFAULT_FOLLOW_S };
	const char *report = NULL, *env = NULL;
	bool brk_only = false, keep_brk = false, want_seccomp = true;
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART: waitpid ends */
	unsigned int run_timeout = 0;
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
		case 'N': want_seccomp = false; break;
		case 't': run_timeout = seconds("--run-timeout", optarg); break;
		case 'f': tr.follow_s = seconds("--follow", optarg); break;
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
	sigaction(SIGALRM, &sa, NULL);
	tr.main_pid = start(&tr, argv + optind, env ? read_env(env) : NULL, want_seccomp);
	if (tr.main_pid < 0)
		return EXIT_TRACER_FAILED;
	/* Its start-up SIGSTOP was consumed by start(). */
	task_get(&tr, tr.main_pid)->seen_first_stop = true;
	alarm(run_timeout);
	if (trace(&tr) < 0)
		return EXIT_TRACER_FAILED;
	write_report(out, &tr);
	if (fclose(out)) {
		fprintf(stderr, "la57-place: cannot write %s\n", report);
		return EXIT_TRACER_FAILED;
	}
	if (tr.hung)
		return EXIT_HUNG;
	if (WIFSIGNALED(tr.main_status))
		return 128 + WTERMSIG(tr.main_status);
	return WEXITSTATUS(tr.main_status);
}
