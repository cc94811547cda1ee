// SPDX-License-Identifier: GPL-2.0
/*
 * forkcycle: N fork/exit cycles, one child at a time; each child maps and touches one page
 * in each of K distinct 256 TiB (PGD-entry) regions above 47 bits (hint i << 48, i = 1..K),
 * then exits. The leak test counts P4D tables allocated and freed over the cycles.
 *
 *   forkcycle N K [TRACEFS_INSTANCE]
 *
 * With a tracefs instance directory (events already enabled, tracing_on 0), it traces
 * exactly the cycles: its own pid goes to set_event_pid with options/event-fork on (so
 * only it and its children are recorded), tracing_on is 1 from the first fork until the
 * last child is reaped.
 * Prints "cycles=N regions=K failed=F high=H": F children that did not exit 0, H pages
 * that landed at or above 1 << 47 (N * K on 5-level, 0 on 4-level).
 * Exit status: 0 when every child exited 0, 1 otherwise, 2 on a usage error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4d_layout.h"

#define MAX_REGIONS 254	/* below 1 << 56; the exit status counts them, 255 is failure */

static int write_file(const char *dir, const char *name, const char *value)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	if (!ok)
		perror(path);
	close(fd);
	return ok ? 0 : -1;
}

/* The child: the exit status is the number of pages that landed above 47 bits. */
static int child(int k)
{
	int high = 0;

	for (int i = 1; i <= k; i++) {
		unsigned long hint = (unsigned long)i << P4D_PGDIR_SHIFT_L5;
		char *p = mmap((void *)hint, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 255;
		p[0] = 1;	/* fault in: page tables down to the PTE now exist */
		high += (unsigned long)p >= P4D_DEFAULT_MAP_WINDOW;
	}
	return high;
}

int main(int argc, char **argv)
{
	const char *inst = argc > 3 ? argv[3] : NULL;
	long n, k, failed = 0, high = 0;
	char pid[32];

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: forkcycle N K [TRACEFS_INSTANCE]\n");
		return 2;
	}
	n = atol(argv[1]);
	k = atol(argv[2]);
	if (n < 1 || k < 0 || k > MAX_REGIONS) {
		fprintf(stderr, "forkcycle: N must be at least 1, K 0..%d\n", MAX_REGIONS);
		return 2;
	}

	snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (inst && (write_file(inst, "set_event_pid", pid) ||
		     write_file(inst, "options/event-fork", "1\n") ||
		     write_file(inst, "tracing_on", "1\n")))
		return 1;
	for (long c = 0; c < n; c++) {
		pid_t p = fork();
		int status;

		if (p < 0) {
			perror("forkcycle: fork");
			return 1;
		}
		if (p == 0)
			_exit(child(k));
		if (waitpid(p, &status, 0) < 0) {
			perror("forkcycle: waitpid");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) > k)
			failed++;
		else
			high += WEXITSTATUS(status);
	}
	if (inst && write_file(inst, "tracing_on", "0\n"))
		return 1;
	printf("cycles=%ld regions=%ld failed=%ld high=%ld\n", n, k, failed, high);
	return failed ? 1 : 0;
}
