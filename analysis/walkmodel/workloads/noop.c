// SPDX-License-Identifier: GPL-2.0
/*
 * wl-noop: what wl-forkexec's children exec. No libc, no startup code (-nostdlib): the
 * entry point makes one system call, exit_group(0), so an exec of it costs the kernel's
 * work and almost nothing of its own.
 */
#include <asm/unistd.h>

void _start(void);

void _start(void)
{
	__asm__ __volatile__("syscall" : : "a"(__NR_exit_group), "D"(0) : "rcx", "r11", "memory");
	__builtin_unreachable();
}
