// SPDX-License-Identifier: GPL-2.0
/*
 * funcs.so: a QEMU TCG plugin that counts the guest instructions each kernel function
 * executes between FUNCMARK_START() and FUNCMARK_STOP() (funcmark.h), section by section.
 *
 *   qemu-system-x86_64 ... -plugin funcs.so,syms=FILE,out=PREFIX
 *   scripts/run-guest --icount --plugin build/funcs/funcs.so,syms=FILE,out=PREFIX -- CMD
 *
 * syms=FILE   `nm -n -S` of the booted kernel's vmlinux; the guest must run without
 *             KASLR (run-guest --plugin boots it nokaslr), so that its functions are
 *             where vmlinux says
 * out=PREFIX  results go to PREFIX.csv: section,pairs,function,insns,entries (count.h)
 * run-guest also passes the walk model's arguments (ram=, levels=, the kernel's
 * addresses...): accepted, not used.
 *
 * QEMU 7.2, plugin API 1: each instruction gets an inline "add 1" to its function's
 * counter when it is translated, so counting costs no callback; only the marks call
 * back. An instruction that faults and is restarted (a user load that takes a page fault)
 * is counted at each attempt, while icount counts it once. One vCPU: one set of counters.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count.h"
#include "qemu-plugin-extra.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = WALKMODEL_QEMU_PLUGIN_VERSION;

static struct fc_table table;
static FILE *out;
static char out_path[4096];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("funcs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_mark(unsigned int vcpu, void *kind)
{
	(void)vcpu;
	fc_mark(&table, (enum fc_kind)(uintptr_t)kind, out);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct fc_plan p = fc_plan(&table, qemu_plugin_insn_vaddr(insn),
					   qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn));

		if (p.kind != FC_COUNT) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)p.kind);
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   p.insns, 1);
		if (p.entries)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   p.entries, 1);
	}
}

static void on_exit_qemu(qemu_plugin_id_t id, void *data)
{
	(void)id, (void)data;
	fc_finish(&table, out);
	if (table.misplaced)
		fail("%llu marks out of order (START while counting, STOP or NEXT without"
		     " START): their pairs were dropped", (unsigned long long)table.misplaced);
	if (fclose(out))
		fail("cannot write %s: %s", out_path, strerror(errno));
	else if (!table.sections) {
		fail("no measured part (no FUNCMARK_START/STOP pair): nothing written");
		unlink(out_path);
	}
	fc_free(&table);
}

/* The arguments run-guest --plugin adds for the walk model. */
static bool runner_argument(const char *key)
{
	static const char *const keys[] = { "ram", "ramsize", "lowmem", "levels", "percpu_offset",
					    "tlbstate", "mm_pgd", "page_offset_base", "pf_entry",
					    "mm_ctx_id", "mm_tlb_gen", "switch_mm", "load_cr3" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *syms = NULL, *prefix = NULL;
	char err[256];
	FILE *f;

	if (!info->system_emulation || info->system.smp_vcpus != 1) {
		fail("counts one CPU of a system guest: run with --smp 1");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fail("argument '%s' is not KEY=VALUE", argv[i]);
			return -1;
		}
		*eq = '\0';
		if (!strcmp(argv[i], "syms") && eq[1])
			syms = eq + 1;
		else if (!strcmp(argv[i], "out") && eq[1])
			prefix = eq + 1;
		else if (!runner_argument(argv[i])) {
			fail("bad argument '%s=%s'", argv[i], eq + 1);
			return -1;
		}
	}
	if (!syms || !prefix) {
		fail("needs syms=FILE (nm -n -S of the guest's vmlinux) and out=PREFIX");
		return -1;
	}
	f = fopen(syms, "r");
	if (!f) {
		fail("cannot read %s: %s", syms, strerror(errno));
		return -1;
	}
	if (!fc_load(&table, f, err, sizeof(err))) {
		fclose(f);
		fail("%s: %s", syms, err);
		return -1;
	}
	fclose(f);
	/* Fail now, not after the run, when the results cannot be written. */
	snprintf(out_path, sizeof(out_path), "%s.csv", prefix);
	out = fopen(out_path, "w");
	if (!out) {
		fail("cannot write %s: %s", out_path, strerror(errno));
		fc_free(&table);
		return -1;
	}
	fc_write_header(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_qemu, NULL);
	return 0;
}
