// SPDX-License-Identifier: GPL-2.0
/*
 * la57-exec-target: what la57-thread-exec runs. Built static: static glibc's _start
 * registers the rdx it starts with as an exit hook (ld.so's, in a dynamic program), so
 * a tracer that leaves a stale rdx in a new image makes it fault at exit.
 */
#include <stdio.h>

int main(void)
{
	printf("exec target ran\n");
	return 0;
}
