/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 address-space facts shared by p4dscope's C code (tools, workloads, tests).
 * One place for each constant; see Documentation/x86/x86_64/mm.rst in the kernel tree.
 */
#ifndef P4D_LAYOUT_H
#define P4D_LAYOUT_H

/* User space gets addresses at or above this only when an mmap hint asks for them. */
#define P4D_DEFAULT_MAP_WINDOW	(1UL << 47)
/* One PGD entry maps 2^48 bytes (256 TiB) with 5-level paging: one P4D table each. */
#define P4D_PGDIR_SHIFT_L5	48
/* TASK_SIZE_MAX with 5-level paging: 2^56 minus the guard page. */
#define P4D_TASK_SIZE_MAX_L5	((1UL << 56) - 4096)
/* TASK_SIZE_MAX with 4-level paging. */
#define P4D_TASK_SIZE_MAX_L4	((1UL << 47) - 4096)

#define P4D_PAGE_SIZE		4096UL

#endif /* P4D_LAYOUT_H */
