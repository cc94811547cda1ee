// SPDX-License-Identifier: GPL-2.0
/*
 * noop: the smallest static binary, for swpath's execve benchmark. No libc, no data: one
 * text page, whose entry point calls exit(0). What execve costs is then the kernel's work
 * (new mm, stack, ELF mapping, vdso) and this binary's two instructions plus the syscall.
 */
__asm__(".globl _start\n"
	"_start:\n"
	"\tmov $60, %eax\n"	/* __NR_exit */
	"\txor %edi, %edi\n"
	"\tsyscall\n");
