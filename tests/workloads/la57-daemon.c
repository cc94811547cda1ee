// SPDX-License-Identifier: GPL-2.0
/*
 * la57-daemon: leaves a child running in a session of its own and exits at once, as a
 * program that starts a service does.
 *
 *   la57-daemon PIDFILE
 *
 * The child appends its pid to PIDFILE and sleeps for an hour. la57-check's known
 * answer: survived, given when la57-daemon exits, with the child named and ended.
 * Exit status: 0; 1 when it cannot fork, 2 on a usage error.
 */
#include <stdio.h>
#include <unistd.h>

#define CHILD_SLEEP_S	3600

int main(int argc, char **argv)
{
	int ready[2];
	char byte;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: la57-daemon PIDFILE\n");
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
