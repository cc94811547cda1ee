// SPDX-License-Identifier: GPL-2.0
/*
 * la57-daemon: leaves a child running in a session of its own and exits at once, as a
 * program that starts a service does.
 *
 *   la57-daemon PIDFILE [--tagged-child]
 *
 * The child appends its pid to PIDFILE and sleeps for an hour. la57-check's known
 * answer: survived, the child followed after la57-daemon exits, then named and ended.
 * With --tagged-child the child instead keeps a tag in bits 48-62 of a heap pointer and
 * writes through the pointer cut back to 48 bits, then exits 0: harmless below 47 bits,
 * a SIGSEGV above. la57-check's known answer: crashed, although the parent exits 0
 * before its child does the work.
 * Exit status: 0; 1 when it cannot fork, 2 on a usage error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHILD_SLEEP_S	3600
#define ADDR_MASK	((1ULL << 48) - 1)

/* The service's work: a pointer packed with a tag, trusted to fit in 48 bits. */
static void tagged_work(void)
{
	char *block = malloc(1 << 20);
	uint64_t packed = ((uint64_t)(uintptr_t)block & ADDR_MASK) | (0x57ULL << 48);

	if (!block)
		_exit(1);
	/* volatile: the block is never read again, and the store must still happen. */
	*(volatile char *)(uintptr_t)(packed & ADDR_MASK) = 1;
	_exit(0);
}

int main(int argc, char **argv)
{
	bool tagged = argc == 3 && !strcmp(argv[2], "--tagged-child");
	int ready[2];
	char byte;
	pid_t pid;

	if (argc != 2 && !tagged) {
		fprintf(stderr, "usage: la57-daemon PIDFILE [--tagged-child]\n");
		return 2;
	}
	if (pipe(ready))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		FILE *f = fopen(argv[1], "a");

		setsid();
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		close(ready[1]);
		if (tagged)
			tagged_work();
		sleep(CHILD_SLEEP_S);
		_exit(0);
	}
	/* Exit only once the child wrote its pid: the file is the test's ground truth. */
	close(ready[1]);
	if (read(ready[0], &byte, 1) < 0)
		return 1;
	printf("la57-daemon: started a child\n");
	return 0;
}
