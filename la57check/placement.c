// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall rewriting that moves a program's hint-less mappings above 47 bits.
 *
 * The kernel searches the full 56-bit window only when mmap() gets a hint above 47 bits
 * (arch_get_unmapped_area_topdown), so every hint-less mmap gets one: the top of the
 * address space minus the length. brk growth is refused, which sends malloc's main arena
 * to mmap. An mremap that may move the mapping would be placed in the 47-bit window again
 * (the kernel asks get_unmapped_area without a hint), so it is replayed as MREMAP_FIXED
 * onto a high reservation made by an injected mmap.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <unistd.h>

#include "la57check.h"

/* Placement requests that carry their own idea of where to go are left alone. */
#define MAP_FIXED_ANY		(MAP_FIXED | MAP_FIXED_NOREPLACE)

/* The hint that puts a mapping of LEN bytes at the top of the 56-bit user space. */
static uint64_t high_hint(uint64_t len)
{
	uint64_t pages = (len + P4D_PAGE_SIZE - 1) & ~(P4D_PAGE_SIZE - 1);

	if (pages == 0 || pages > P4D_TASK_SIZE_MAX_L5 - P4D_DEFAULT_MAP_WINDOW)
		return 0;
	return P4D_TASK_SIZE_MAX_L5 - pages;
}

/*
 * Registers are the caller's: a libc wrapper may still hold an argument in its register
 * after the syscall (glibc's __brk compares the result with addr in rdi), so every
 * rewritten argument is put back at the syscall's exit.
 */
static bool begin_rewrite(struct task *t, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->saved) < 0)
		return false;
	*r = t->saved;
	return true;
}

static void commit_rewrite(struct task *t, const struct user_regs_struct *r)
{
	/* ESRCH: the thread was killed meanwhile; nothing left to place. */
	if (ptrace(PTRACE_SETREGS, t->tid, 0, r) == 0) {
		t->restore_args = true;
		t->restore_nr = r->orig_rax;
	}
}

/*
 * Only at the exit of the call that saved them: a thread killed inside that call (by
 * another thread's execve, say) never stops at its exit, and its tid may stop next at
 * the exit of a different call, in a new image.
 */
static void restore_args(struct task *t)
{
	struct user_regs_struct r;

	t->restore_args = false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0 || (long)r.orig_rax != t->restore_nr)
		return;
	r.rdi = t->saved.rdi;
	r.rsi = t->saved.rsi;
	r.rdx = t->saved.rdx;
	r.r10 = t->saved.r10;
	r.r8 = t->saved.r8;
	r.r9 = t->saved.r9;
	ptrace(PTRACE_SETREGS, t->tid, 0, &r);
}

/* "socket:[1234]" becomes "socket": the inode number differs from run to run. */
static void drop_inode_number(char *kind)
{
	char *bracket = strstr(kind, ":[");

	if (bracket && strspn(bracket + 2, "0123456789") == strlen(bracket + 2) - 1 &&
	    bracket[strlen(bracket) - 1] == ']')
		*bracket = '\0';
}

/*
 * An mmap of an fd that is not a regular file (a device, an anon inode such as
 * io_uring's, a socket) goes to its driver's get_unmapped_area, which may refuse any
 * address (io_uring does: io_uring_mmu_get_unmapped_area() returns -EINVAL for a hint
 * in 6.1) or place the memory itself. Those are left alone; KIND gets what the fd is.
 */
static bool is_driver_placed(pid_t tid, int fd, char *kind, size_t len)
{
	char path[64];
	struct stat sb;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	if (stat(path, &sb) < 0 || S_ISREG(sb.st_mode))
		return false;
	/* "anon_inode:[io_uring]", "/dev/dri/card0"; "socket:[1234]" without its inode */
	n = readlink(path, kind, len - 1);
	if (n <= 0) {
		snprintf(kind, len, "fd of mode 0%o", (unsigned int)sb.st_mode);
		return true;
	}
	kind[n] = '\0';
	/* Anonymous memory by another name: its get_unmapped_area honours a hint. */
	if (!strcmp(kind, "/dev/zero"))
		return false;
	drop_inode_number(kind);
	return true;
}

static void on_mmap(struct task *t, const uint64_t *a, const struct placement_options *opt,
		    struct placement_stats *st, struct tally *fd_kinds)
{
	struct user_regs_struct r;
	char kind[64];
	uint64_t hint;

	if (a[3] & MAP_FIXED_ANY)
		return;
	if (!(a[3] & MAP_ANONYMOUS) && is_driver_placed(t->tid, (int)a[4], kind, sizeof(kind))) {
		st->fd_kept++;
		tally_add(fd_kinds, kind);
		return;
	}
	/* A hint or MAP_32BIT: counted, to show a runtime that keeps its heap low itself. */
	if (a[0] != 0 || (a[3] & MAP_32BIT)) {
		t->pending = PENDING_MMAP_HINTED;
		/* --move-hinted: does that runtime survive when its own low hints are ignored? */
		if (opt->high && opt->move_hinted && !(a[3] & MAP_32BIT) &&
		    a[0] < P4D_DEFAULT_MAP_WINDOW && high_hint(a[1]) && begin_rewrite(t, &r)) {
			r.rdi = high_hint(a[1]);
			commit_rewrite(t, &r);
			st->hinted_moved++;
		}
		return;
	}
	t->pending = PENDING_MMAP;
	if (!opt->high)
		return;
	if (opt->keep_low_stack && (a[3] & (MAP_STACK | MAP_GROWSDOWN))) {
		st->stacks_kept_low++;
		return;
	}
	hint = high_hint(a[1]);
	if (hint && begin_rewrite(t, &r)) {
		r.rdi = hint;
		commit_rewrite(t, &r);
	}
}

static void on_brk(struct task *t, const uint64_t *a, struct placement_stats *st)
{
	struct user_regs_struct r;

	/* brk(0) answers with the current break: to the caller, a refusal to grow. */
	if (a[0] == 0 || !begin_rewrite(t, &r))
		return;
	r.rdi = 0;
	commit_rewrite(t, &r);
	st->brk_refused++;
}

static void on_mremap(struct task *t, const uint64_t *a)
{
	struct user_regs_struct r;

	if (t->replaying_mremap) {
		/* Our replay: its arguments are put back from the original call at exit. */
		t->replaying_mremap = false;
		t->restore_args = true;
		t->restore_nr = SYS_mremap;
		return;
	}
	/* Only growth can move a mapping; MREMAP_FIXED names its own target. */
	if (!(a[3] & MREMAP_MAYMOVE) || (a[3] & MREMAP_FIXED) || a[2] <= a[1])
		return;
	if (!high_hint(a[2]) || !begin_rewrite(t, &r))
		return;
	r.orig_rax = SYS_mmap;
	r.rdi = high_hint(a[2]);
	r.rsi = a[2];
	r.rdx = PROT_NONE;
	r.r10 = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	r.r8 = (uint64_t)-1;
	r.r9 = 0;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) == 0)
		t->pending = PENDING_MREMAP_RESERVE;
}

void placement_on_entry(struct task *t, const struct syscall_entry *e,
			const struct placement_options *opt, struct placement_stats *st,
			struct tally *fd_kinds)
{
	const uint64_t *args = e->args;

	t->pending = PENDING_NONE;
	t->restore_args = false;
	/* A 32-bit process numbers its syscalls differently and cannot go high anyway. */
	if (e->arch != AUDIT_ARCH_X86_64)
		return;
	switch (e->nr) {
	case SYS_mmap:
		on_mmap(t, args, opt, st, fd_kinds);
		break;
	case SYS_brk:
		if (opt->refuse_brk)
			on_brk(t, args, st);
		break;
	case SYS_mremap:
		if (opt->high)
			on_mremap(t, args);
		break;
	}
}

/* Run the saved mremap again, onto the reservation at TARGET when there is one. */
static void replay_mremap(struct task *t, int64_t target, bool reserved,
			  struct placement_stats *st)
{
	struct user_regs_struct r = t->saved;

	r.rax = r.orig_rax;
	r.rip -= 2;		/* back over the 2-byte syscall instruction */
	if (reserved) {
		r.r10 |= MREMAP_FIXED;
		r.r8 = (uint64_t)target;
		st->mremap_moved++;
	}
	t->replaying_mremap = true;
	ptrace(PTRACE_SETREGS, t->tid, 0, &r);
}

void placement_on_exit(struct task *t, const struct __ptrace_syscall_info *info,
		       struct placement_stats *st)
{
	enum pending_call pending = t->pending;

	t->pending = PENDING_NONE;
	if (t->restore_args)
		restore_args(t);
	switch (pending) {
	case PENDING_MMAP:
		if (info->exit.is_error)
			break;
		st->hintless++;
		if ((uint64_t)info->exit.rval >= P4D_DEFAULT_MAP_WINDOW)
			st->hintless_high++;
		break;
	case PENDING_MMAP_HINTED:
		if (info->exit.is_error)
			break;
		st->hinted++;
		if ((uint64_t)info->exit.rval < P4D_DEFAULT_MAP_WINDOW)
			st->hinted_low++;
		break;
	case PENDING_MREMAP_RESERVE:
		replay_mremap(t, info->exit.rval, !info->exit.is_error, st);
		break;
	case PENDING_NONE:
		break;
	}
}

bool placement_forget_pending(struct task *t)
{
	bool held = t->restore_args || t->replaying_mremap || t->pending == PENDING_MREMAP_RESERVE;

	t->pending = PENDING_NONE;
	t->restore_args = false;
	t->replaying_mremap = false;
	return held;
}
