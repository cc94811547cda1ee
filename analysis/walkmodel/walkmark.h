/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measured part of a walk-model workload, marked for the plugin (walkmodel.so).
 *
 * Each mark is a 7-byte NOP, "nopl disp32(%rax)", with a displacement no compiler emits:
 * the plugin recognises it from the instruction bytes when it translates the code and
 * counts only between WALKMARK_START() and WALKMARK_STOP(). WALKMARK_WARMUP(), before
 * START, has the plugin feed the accesses to its models without counting them, so that
 * the counted part does not begin with cold TLBs and caches. Run natively, or under QEMU
 * without the plugin, the marks do nothing.
 */
#ifndef WALKMODEL_WALKMARK_H
#define WALKMODEL_WALKMARK_H

/* Displacements: "WM" then the command byte, little-endian in the instruction. */
#define WALKMARK_MAGIC		0x504d5700u
#define WALKMARK_CMD_START	0x00
#define WALKMARK_CMD_STOP	0x01
#define WALKMARK_CMD_WARMUP	0x02

#define WALKMARK_START() \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x00, 0x57, 0x4d, 0x50" ::: "memory")
#define WALKMARK_STOP() \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x01, 0x57, 0x4d, 0x50" ::: "memory")
#define WALKMARK_WARMUP() \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x02, 0x57, 0x4d, 0x50" ::: "memory")

#endif
