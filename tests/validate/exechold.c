// SPDX-License-Identifier: GPL-2.0
/*
 * exechold: runs COMMAND while its BPF side (exechold.bpf.c) forces the race of
 * tests/workloads/la57-thread-exec: in every process that makes the marked mmap calls
 * of exechold.h, the leader is held inside its mmap until execve() from the other thread
 * kills it, and that thread is held until the leader is. COMMAND may start such processes
 * at any depth (la57-check starts one per run).
 *
 *   exechold --report FILE -- COMMAND [ARG...]
 *
 * FILE gets "deadline_s=N", then one line per process that made a marked mmap:
 *   pid=PID leader=STATE leader_tid=TID leader_ms=N execer=STATE execer_tid=TID execer_ms=N
 * STATE: unseen (no marked mmap), holding (still: the process died holding), released
 * (what it waited for came: for the leader a fatal signal, for the other thread the
 * leader's hold), timed_out (the deadline, EXECHOLD_DEADLINE_S, came first).
 * Exit status: COMMAND's (128 + the signal that ended it); 125 when the holds cannot be
 * set up (the reason on stderr); 2 on a usage error. Needs root and BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "exechold.h"
#include "exechold.skel.h"

#define EXIT_SETUP_FAILED	125
#define EXIT_USAGE		2
#define MAX_PROCS		256	/* the BPF map's size */

struct proc {
	int pid;
	struct exechold_proc v;
};

static const char *state_name(int s)
{
	static const char * const names[] = { "unseen", "holding", "released", "timed_out" };

	return s >= 0 && s <= EXECHOLD_TIMED_OUT ? names[s] : "?";
}

static int by_pid(const void *a, const void *b)
{
	return ((const struct proc *)a)->pid - ((const struct proc *)b)->pid;
}

/* Every process the BPF side saw, by PID, one line each. */
static int write_report(FILE *f, int map_fd)
{
	static struct proc procs[MAX_PROCS];
	int n = 0, key, last, *prev = NULL;

	while (n < MAX_PROCS && bpf_map_get_next_key(map_fd, prev, &key) == 0) {
		if (bpf_map_lookup_elem(map_fd, &key, &procs[n].v) == 0)
			procs[n++].pid = key;
		last = key;
		prev = &last;
	}
	qsort(procs, n, sizeof(procs[0]), by_pid);
	fprintf(f, "deadline_s=%d\n", EXECHOLD_DEADLINE_S);
	for (int i = 0; i < n; i++) {
		const struct exechold_proc *v = &procs[i].v;

		fprintf(f, "pid=%d leader=%s leader_tid=%d leader_ms=%llu ", procs[i].pid,
			state_name(v->leader), v->leader_tid, v->leader_waited_ns / 1000000);
		fprintf(f, "execer=%s execer_tid=%d execer_ms=%llu\n", state_name(v->execer),
			v->execer_tid, v->execer_waited_ns / 1000000);
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct exechold_bpf *skel;
	const char *report;
	int status, err;
	FILE *out;
	pid_t pid;

	if (argc < 5 || strcmp(argv[1], "--report") || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: exechold --report FILE -- COMMAND [ARG...]\n");
		return EXIT_USAGE;
	}
	report = argv[2];
	/* Open it first: a run whose holds nobody can read proves nothing. */
	out = fopen(report, "we");
	if (!out) {
		fprintf(stderr, "exechold: cannot write %s: %s\n", report, strerror(errno));
		return EXIT_SETUP_FAILED;
	}
	skel = exechold_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "exechold: loading the BPF program failed: %s (root? BTF?)\n",
			strerror(errno));
		return EXIT_SETUP_FAILED;
	}
	skel->bss->max_wait_ns = EXECHOLD_DEADLINE_S * 1000000000UL;
	err = exechold_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "exechold: attaching to ksys_mmap_pgoff() failed: %s\n",
			strerror(-err));
		exechold_bpf__destroy(skel);
		return EXIT_SETUP_FAILED;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("exechold: fork");
		exechold_bpf__destroy(skel);
		return EXIT_SETUP_FAILED;
	}
	if (pid == 0) {
		execvp(argv[4], argv + 4);
		fprintf(stderr, "exechold: cannot run %s: %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("exechold: waitpid");
			exechold_bpf__destroy(skel);
			return EXIT_SETUP_FAILED;
		}
	if (write_report(out, bpf_map__fd(skel->maps.procs))) {
		fprintf(stderr, "exechold: cannot write %s\n", report);
		exechold_bpf__destroy(skel);
		return EXIT_SETUP_FAILED;
	}
	exechold_bpf__destroy(skel);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
