// SPDX-License-Identifier: GPL-2.0
/*
 * Under PTRACE_SYSCALL every syscall of every thread stops twice in the tracer. Only
 * mmap, brk and mremap matter to placement: a seccomp filter returning SECCOMP_RET_TRACE
 * for those (x86-64 numbering; an i386 process cannot go high anyway) makes them the
 * only stops (PTRACE_O_TRACESECCOMP), and the tracer asks for a call's exit stop only
 * when it needs the result.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <unistd.h>

#include "la57check.h"

#define LOAD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* Jump to the TRACE return when the number is NR, else fall through. */
#define TRACE_IF(nr, skip)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), (skip), 0)

bool seccomp_stop_only_placement_calls(void)
{
	/* Jump offsets count from the next instruction: 4 from the arch check is ALLOW. */
	struct sock_filter code[] = {
		LOAD(arch),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
		LOAD(nr),
		TRACE_IF(SYS_mmap, 3),
		TRACE_IF(SYS_brk, 2),
		TRACE_IF(SYS_mremap, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	if (!syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return true;
	/*
	 * Without CAP_SYS_ADMIN the kernel wants no_new_privs first. That also stops a
	 * setuid program from gaining privileges, which ptrace already does for a tracer
	 * that is not root.
	 */
	if (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return false;
	return !syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}
