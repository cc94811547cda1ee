// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat-why: how p4dstat explains a way that failed (bpf/probe.c), from libbpf's
 * messages as libbpf 1.1 prints them when a load or an attach fails, with no BPF
 * loaded: which message says most (a CO-RE relocation libbpf could not resolve, the
 * verifier's verdict, else the first warning), and the phrase a failure becomes.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"
#include "tap.h"

/* A message, as libbpf hands it to its print callback. */
static void __attribute__((format(printf, 2, 3))) say(enum libbpf_print_level level,
						      const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	probe_note_libbpf(level, fmt, args);
	va_end(args);
}

static void note_is(const char *what, const char *want)
{
	if (!tap_result(!strcmp(probe_note(), want), "note: %s", what))
		tap_diag("got '%s', want '%s'", probe_note(), want);
}

/* The verifier's log of a program it rejected, between libbpf's markers. */
static const char rejected_log[] =
	"func#0 @0\n"
	"0: R1=ctx(off=0,imm=0) R10=fp0\n"
	"; int BPF_PROG(gua_tp_v4, struct file *filp, unsigned long hint, unsigned long len,\n"
	"0: (79) r1 = *(u64 *)(r1 +0)\n"
	"func 'btf_trace_x86_get_unmapped_area' arg0 type SCALAR is not a struct\n"
	"1: R1_w=scalar()\n"
	"; unsigned int f_flags = filp ? filp->f_flags : 0;\n"
	"2: (61) r2 = *(u32 *)(r1 +60)\n"
	"R1 invalid mem access 'scalar'\n"
	"processed 3 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
	"peak_states 0 mark_read 0\n";

/* libbpf's rewrite of a poisoned instruction in the log (a member the kernel lacks). */
static const char core_log[] =
	"0: R1=ctx(off=0,imm=0) R10=fp0\n"
	"; if (!bpf_core_field_exists(task->in_execve))\n"
	"4: <invalid CO-RE relocation>\n"
	"failed to resolve CO-RE relocation <byte_off> [73] struct task_struct.in_execve "
	"(0:0 @ offset 0)\n"
	"processed 5 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
	"peak_states 0 mark_read 0\n";

int main(void)
{
	char buf[512];

	probe_notes_reset();
	note_is("none before any message", "");

	say(LIBBPF_WARN, "libbpf: prog '%s': failed to find kernel BTF type ID of '%s': %d\n",
	    "p4d_alloc_tp", "p4d_alloc", -ESRCH);
	say(LIBBPF_WARN, "libbpf: prog '%s': failed to prepare load attributes: %d\n",
	    "p4d_alloc_tp", -ESRCH);
	say(LIBBPF_WARN, "libbpf: failed to load object '%s'\n", "p4dstat_bpf");
	note_is("a missing tp_btf target: the first warning",
		"libbpf: prog 'p4d_alloc_tp': failed to find kernel BTF type ID of 'p4d_alloc': -3");

	probe_notes_reset();
	say(LIBBPF_DEBUG, "libbpf: loaded kernel BTF from '%s'\n", "/sys/kernel/btf/vmlinux");
	say(LIBBPF_INFO, "libbpf: %s\n", "an info line");
	note_is("debug and info messages are not kept", "");

	say(LIBBPF_WARN, "libbpf: prog '%s': BPF program load failed: %s\n", "gua_tp_v4",
	    "Permission denied");
	say(LIBBPF_WARN, "libbpf: prog '%s': -- BEGIN PROG LOAD LOG --\n%s-- END PROG LOAD LOG --\n",
	    "gua_tp_v4", rejected_log);
	say(LIBBPF_WARN, "libbpf: prog '%s': failed to load: %d\n", "gua_tp_v4", -EACCES);
	note_is("a rejected program: the verifier's verdict, not its statistics",
		"verifier: R1 invalid mem access 'scalar'");

	probe_notes_reset();
	say(LIBBPF_WARN, "libbpf: prog '%s': BPF program load failed: %s\n", "p4d_alloc_tp",
	    "Invalid argument");
	say(LIBBPF_WARN, "libbpf: prog '%s': -- BEGIN PROG LOAD LOG --\n%s-- END PROG LOAD LOG --\n",
	    "p4d_alloc_tp", core_log);
	note_is("a CO-RE relocation the kernel cannot satisfy names the member",
		"libbpf: failed to resolve CO-RE relocation <byte_off> [73] "
		"struct task_struct.in_execve (0:0 @ offset 0)");

	probe_notes_reset();
	say(LIBBPF_WARN, "libbpf: prog '%s': failed to create %s '%s+0x%zx' perf event: %s\n",
	    "p4d_alloc_kprobe", "kprobe", "__p4d_alloc", (size_t)0, "No such file or directory");
	note_is("an attach that failed",
		"libbpf: prog 'p4d_alloc_kprobe': failed to create kprobe '__p4d_alloc+0x0' "
		"perf event: No such file or directory");

	probe_describe(&(struct probe_failure){ .stage = PROBE_ATTACH, .err = ENOENT,
						 .libbpf = "libbpf: x" }, buf, sizeof(buf));
	if (!tap_result(!strcmp(buf, "attach failed: No such file or directory (libbpf: x)"),
			"describe: step, errno, libbpf's note"))
		tap_diag("got '%s'", buf);
	probe_describe(&(struct probe_failure){ .stage = PROBE_LOAD, .err = EPERM }, buf,
		       sizeof(buf));
	if (!tap_result(!strcmp(buf, "load failed: Operation not permitted"),
			"describe: no note, no parentheses"))
		tap_diag("got '%s'", buf);
	probe_describe(&(struct probe_failure){ .stage = PROBE_LOAD, .err = ESRCH,
						 .absent = "fexit/get_unmapped_area" }, buf, sizeof(buf));
	if (!tap_result(!strcmp(buf, "no function get_unmapped_area() in this kernel's BTF"),
			"describe: a function the kernel lacks, by name"))
		tap_diag("got '%s'", buf);
	probe_describe(&(struct probe_failure){ .stage = PROBE_ATTACH, .err = ENOENT,
						 .absent = "tracepoint/syscalls/sys_exit_mmap" },
		       buf, sizeof(buf));
	if (!tap_result(!strcmp(buf, "no event syscalls/sys_exit_mmap in tracefs"),
			"describe: an event tracefs lacks, by name"))
		tap_diag("got '%s'", buf);
	return tap_done();
}
