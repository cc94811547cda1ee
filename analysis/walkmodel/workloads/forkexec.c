// SPDX-License-Identifier: GPL-2.0
/*
 * forkexec: process creation, fork then execve of a tiny static program, then waitpid.
 *
 *   wl-forkexec [--count N] [--warmup W] [--exec PATH]
 *
 * Each iteration forks (a copy of this process's page tables, torn down again at the
 * execve), the child execs PATH with no arguments and an empty environment (a new mm:
 * fresh page tables, the ELF's mappings, stack, vdso), and the parent waits for it. PATH
 * defaults to wl-noop next to this binary (built with it from noop.c: _start calls
 * exit_group(0), nothing else), so the cost is the kernel's, not the child's.
 *
 * Verification: every child must exit with status 0 (failed counts the others; a child
 * whose execve fails exits 127). A fork that fails ends the run with an error.
 * --warmup W (default 10) iterations come first, after WALKMARK_WARMUP() and not
 * counted, so that the plugin's TLBs and caches start warm; they are verified too.
 *
 *   workload=forkexec count=N warmup=W exec=PATH failed=F ns=T
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

enum { OPT_COUNT = 256, OPT_WARMUP, OPT_EXEC };

static const struct option options[] = {
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "exec", required_argument, NULL, OPT_EXEC },
	{ NULL, 0, NULL, 0 },
};

static const char details[] =
	"  --count N     fork + execve + waitpid iterations to time (default 200)\n"
	"  --warmup W    iterations before them, not counted (default 10)\n"
	"  --exec PATH   the program the children run (default: wl-noop beside this one)\n";

/* PATH of wl-noop in the directory this binary was run from. */
static void default_exec(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);
	char *slash;

	if (n < 0)
		wl_die("cannot read /proc/self/exe: %s (pass --exec PATH)", strerror(errno));
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + sizeof("/wl-noop") > len)
		wl_die("cannot place wl-noop beside '%s' (pass --exec PATH)", path);
	strcpy(slash, "/wl-noop");
}

/* One fork + execve + waitpid: 0 the child exited 0, 1 it did not, -1 fork failed. */
static int one_child(const char *path, char **child_argv, char **child_envp)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execve(path, child_argv, child_envp);
		_exit(127);
	}
	return waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	       WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
	uint64_t count = 200, failed = 0, done = 0, t0, t1, warmup = 10, warmup_failed = 0;
	char noop[PATH_MAX], *child_argv[2], *child_envp[1] = { NULL };
	const char *path = NULL;
	int c, fork_errno = 0;

	wl_init("wl-forkexec", "[--count N] [--warmup W] [--exec PATH]");
	while ((c = wl_getopt(argc, argv, options)) != -1) {
		switch (c) {
		case OPT_COUNT: count = wl_number("count", optarg, 1, 1ULL << 32); break;
		case OPT_WARMUP: warmup = wl_number("warmup", optarg, 0, 1ULL << 32); break;
		case OPT_EXEC: path = optarg; break;
		default: wl_help(details);
		}
	}
	if (!path) {
		default_exec(noop, sizeof(noop));
		if (access(noop, X_OK))
			wl_die("cannot execute %s: %s (build it: make -C analysis/walkmodel/"
			       "workloads, or pass --exec PATH)", noop, strerror(errno));
		path = noop;
	} else if (access(path, X_OK)) {
		wl_die("cannot execute %s: %s (pass --exec an executable program)", path,
		       strerror(errno));
	}
	child_argv[0] = (char *)path;
	child_argv[1] = NULL;
	fflush(stdout);		/* nothing buffered for the children to inherit */

	wl_warmup();
	for (uint64_t w = 0; w < warmup && !fork_errno; w++) {
		int r = one_child(path, child_argv, child_envp);

		fork_errno = r < 0 ? errno : 0;
		warmup_failed += r > 0;
	}
	t0 = wl_now_ns();
	wl_start();
	for (; done < count && !fork_errno; done++) {
		int r = one_child(path, child_argv, child_envp);

		if (r < 0)
			fork_errno = errno;
		else
			failed += r;
	}
	wl_stop();
	t1 = wl_now_ns();
	if (fork_errno)
		wl_die("fork failed: %s (lower --count or raise the process limit)",
		       strerror(fork_errno));

	printf("workload=forkexec count=%" PRIu64 " warmup=%" PRIu64 " exec=%s failed=%" PRIu64
	       " warmup_failed=%" PRIu64 " ns=%" PRIu64 "\n", count, warmup, path, failed,
	       warmup_failed, t1 - t0);
	if (failed || warmup_failed)
		wl_die("verification failed: %" PRIu64 " of %" PRIu64 " children did not exit 0",
		       failed + warmup_failed, count + warmup);
	return 0;
}
