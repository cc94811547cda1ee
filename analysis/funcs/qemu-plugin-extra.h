/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two functions of QEMU's TCG plugin API (version 1, QEMU 7.2) that funcs.so uses
 * beyond what analysis/walkmodel/qemu-plugin-api.h declares, declared from the API
 * documentation (docs/devel/tcg-plugins.rst, "API"): Debian packages no header for it.
 * qemu-system-x86_64 exports both (nm -D shows them).
 */
#ifndef FUNCS_QEMU_PLUGIN_EXTRA_H
#define FUNCS_QEMU_PLUGIN_EXTRA_H

#include "qemu-plugin-api.h"

/* The guest virtual address of an instruction. */
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

/* Add imm to *ptr each time the instruction executes, in the generated code itself. */
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op, void *ptr,
						uint64_t imm);

#endif
