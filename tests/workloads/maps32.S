/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A 32-bit (i386) program with no libc: prints its own /proc/self/maps, so a test can
 * see where a compat task's stack ended up (tests/guest/exec.t). Built with gcc -m32
 * -nostdlib, which needs only binutils' i386 support, not a 32-bit libc.
 * Exit status: 0, or 1 when /proc/self/maps cannot be opened or read.
 */
	.text
	.globl	_start
_start:
	movl	$5, %eax		/* open(path, O_RDONLY) */
	movl	$path, %ebx
	xorl	%ecx, %ecx
	int	$0x80
	testl	%eax, %eax
	js	fail
	movl	%eax, %esi		/* the fd */
copy:
	movl	$3, %eax		/* read(fd, buf, sizeof(buf)) */
	movl	%esi, %ebx
	movl	$buf, %ecx
	movl	$4096, %edx
	int	$0x80
	testl	%eax, %eax
	js	fail
	jz	done
	movl	%eax, %edx		/* write(1, buf, n): a pipe takes it whole */
	movl	$4, %eax
	movl	$1, %ebx
	movl	$buf, %ecx
	int	$0x80
	jmp	copy
done:
	xorl	%ebx, %ebx
	jmp	leave
fail:
	movl	$1, %ebx
leave:
	movl	$1, %eax		/* exit(status) */
	int	$0x80

	.section .rodata
path:	.asciz	"/proc/self/maps"

	.bss
	.lcomm	buf, 4096

	.section .note.GNU-stack, "", @progbits
