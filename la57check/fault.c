// SPDX-License-Identifier: GPL-2.0
/*
 * What a crash looked like: signal, code, faulting address, instruction, and how the
 * address and the registers relate to the mappings placed above 47 bits. A program that
 * keeps data in the upper bits of a pointer faults on the pointer with those bits changed
 * ("altered") or masked off ("cut"): finding the high mapping it came from names the bug.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>

#include "la57check.h"

#define SI_CODE_KERNEL	0x80	/* SI_KERNEL: #GP, the kernel reports no address */

bool is_fault_signal(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE;
}

/* Canonical with 5-level paging: bits 56-63 all copies of bit 56. */
static bool is_canonical_la57(uint64_t v)
{
	uint64_t top = v >> 56;

	return top == 0 || top == 0xff;
}

/* A user address X in MP that agrees with VALUE in its low BITS bits, or 0. */
static uint64_t same_low_bits(const struct mapping *mp, uint64_t value, int bits)
{
	uint64_t mask = (1ULL << bits) - 1;
	uint64_t span = mp->end - mp->start;
	uint64_t off = ((value & mask) - (mp->start & mask)) & mask;

	return off < span ? mp->start + off : 0;
}

static void describe_origin(const struct mapping *mp, uint64_t value, uint64_t origin,
			    int bits, char *buf, size_t len)
{
	uint64_t diff = value ^ origin;
	int lo = __builtin_ctzll(diff), hi = 63 - __builtin_clzll(diff);

	if (value >> bits == 0)
		snprintf(buf, len, "high pointer 0x%016" PRIx64 " (%s) cut to its low %d bits",
			 origin, mp->name[0] ? mp->name : "[anon]", bits);
	else
		snprintf(buf, len, "high pointer 0x%016" PRIx64 " (%s) with bits %d-%d altered%s",
			 origin, mp->name[0] ? mp->name : "[anon]", lo, hi,
			 is_canonical_la57(value) ? "" : ", non-canonical");
}

void describe_address(const struct maps *m, uint64_t value, char *buf, size_t len)
{
	static const int kept_bits[] = { 48, 47 };
	const struct mapping *in = maps_find(m, value);

	if (in) {
		snprintf(buf, len, "inside %s mapping %s", is_high_user(value) ? "a high" : "a low",
			 in->name[0] ? in->name : "[anon]");
		return;
	}
	for (size_t b = 0; b < sizeof(kept_bits) / sizeof(kept_bits[0]); b++) {
		for (size_t i = 0; i < m->n; i++) {
			uint64_t origin;

			if (!is_high_user(m->v[i].start))
				continue;
			origin = same_low_bits(&m->v[i], value, kept_bits[b]);
			if (origin && origin != value) {
				describe_origin(&m->v[i], value, origin, kept_bits[b], buf, len);
				return;
			}
		}
	}
	snprintf(buf, len, "%s, not derived from a high mapping",
		 is_canonical_la57(value) ? "unmapped" : "non-canonical");
}

static const char *code_name(int signo, int code)
{
	if (code == SI_CODE_KERNEL)
		return "SI_KERNEL (general protection: no address given)";
	if (signo == SIGSEGV && code == SEGV_MAPERR)
		return "SEGV_MAPERR";
	if (signo == SIGSEGV && code == SEGV_ACCERR)
		return "SEGV_ACCERR";
	if (signo == SIGBUS && code == BUS_ADRERR)
		return "BUS_ADRERR";
	if (code <= 0)
		return "sent by a process";
	return "other";
}

/* Registers that hold a pointer derived from a high mapping, or a non-canonical value. */
static size_t describe_registers(const struct maps *m, const struct user_regs_struct *r,
				 char *buf, size_t len)
{
	const struct { const char *name; uint64_t v; } regs[] = {
		{ "rax", r->rax }, { "rbx", r->rbx }, { "rcx", r->rcx }, { "rdx", r->rdx },
		{ "rsi", r->rsi }, { "rdi", r->rdi }, { "rbp", r->rbp }, { "rsp", r->rsp },
		{ "r8", r->r8 }, { "r9", r->r9 }, { "r10", r->r10 }, { "r11", r->r11 },
		{ "r12", r->r12 }, { "r13", r->r13 }, { "r14", r->r14 }, { "r15", r->r15 },
	};
	size_t used = 0;

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]) && used < len; i++) {
		char what[384];

		/* Small integers and plain low pointers say nothing about placement. */
		if (regs[i].v < (1ULL << 32) || maps_find(m, regs[i].v))
			continue;
		describe_address(m, regs[i].v, what, sizeof(what));
		if (!strstr(what, "high pointer") && is_canonical_la57(regs[i].v))
			continue;
		used += snprintf(buf + used, len - used, "%s%s=0x%016" PRIx64 ": %s",
				 used ? "; " : "", regs[i].name, (uint64_t)regs[i].v, what);
	}
	return used;
}

static void read_insn(pid_t tid, uint64_t ip, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int w = 0; w < 2; w++) {
		long word;

		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, tid, ip + 8 * w, 0);
		if (errno)
			break;
		for (int b = 0; b < 8 && used < len; b++)
			used += snprintf(buf + used, len - used, "%s%02x", used ? " " : "",
					 (unsigned)((uint64_t)word >> (8 * b)) & 0xff);
	}
}

void fault_record(pid_t tid, const siginfo_t *si, struct fault *f)
{
	struct user_regs_struct r;
	struct maps m;
	const struct mapping *at;
	char addr_is[384], regs[1024], insn[64];
	uint64_t addr = (uint64_t)si->si_addr;
	size_t used;

	f->count++;
	f->signo = si->si_signo;
	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0 || maps_read(tid, &m) < 0) {
		snprintf(f->text, sizeof(f->text), "fault_signal=SIG%s\n",
			 sigabbrev_np(si->si_signo));
		return;
	}
	describe_address(&m, addr, addr_is, sizeof(addr_is));
	if (!describe_registers(&m, &r, regs, sizeof(regs)))
		snprintf(regs, sizeof(regs), "none derived from a high mapping");
	read_insn(tid, r.rip, insn, sizeof(insn));
	at = maps_find(&m, r.rip);
	used = snprintf(f->text, sizeof(f->text),
			"fault_signal=SIG%s\nfault_code=%s\nfault_addr=0x%016" PRIx64 "\n"
			"fault_addr_is=%s\nfault_ip=0x%016" PRIx64 "\n",
			sigabbrev_np(si->si_signo), code_name(si->si_signo, si->si_code), addr,
			si->si_code == SI_CODE_KERNEL ? "not reported by the kernel" : addr_is,
			(uint64_t)r.rip);
	if (at && used < sizeof(f->text))
		used += snprintf(f->text + used, sizeof(f->text) - used,
				 "fault_ip_in=%s+0x%" PRIx64 "\n", at->name[0] ? at->name : "[anon]",
				 (uint64_t)r.rip - at->start + at->offset);
	if (used < sizeof(f->text))
		snprintf(f->text + used, sizeof(f->text) - used,
			 "fault_insn=%s\nfault_regs=%s\n", insn, regs);
	maps_free(&m);
}
