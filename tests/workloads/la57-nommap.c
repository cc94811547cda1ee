// SPDX-License-Identifier: GPL-2.0
/*
 * la57-nommap: a static program without libc that makes no mmap at all: it writes one
 * line and exits 0. Nothing of it can be placed above 47 bits. la57-check's known
 * answer: not exercised ("it made no mmap that could be moved"), never survived.
 *
 *   la57-nommap
 */
#include <sys/syscall.h>

static long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

void _start(void)
{
	static const char line[] = "la57-nommap: no mmap here\n";

	raw_syscall3(SYS_write, 1, (long)line, sizeof(line) - 1);
	raw_syscall3(SYS_exit_group, 0, 0, 0);
	for (;;)
		;
}
