/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measured part of a workload, marked for funcs.so (the per-function instruction
 * counts). Each mark is a 7-byte NOP, "nopl disp32(%rax)", with a displacement no compiler
 * emits and other than the walk model's (walkmark.h): the plugin recognises it from the
 * instruction bytes when it translates the code. Run natively, or under QEMU without the
 * plugin, a mark does nothing.
 *
 *   FUNCMARK_START(), FUNCMARK_STOP()  count between them (any number of pairs)
 *   FUNCMARK_NEXT()                    close the current section: what was counted since
 *                                      the last NEXT is written as one section
 */
#ifndef FUNCS_FUNCMARK_H
#define FUNCS_FUNCMARK_H

/* Displacement: the command byte, then "FNP", little-endian in the instruction. */
#define FUNCMARK_MAGIC		0x504e4600u
#define FUNCMARK_CMD_START	0x00
#define FUNCMARK_CMD_STOP	0x01
#define FUNCMARK_CMD_NEXT	0x02

#define FUNCMARK_START() \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x00, 0x46, 0x4e, 0x50" ::: "memory")
#define FUNCMARK_STOP() \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x01, 0x46, 0x4e, 0x50" ::: "memory")
#define FUNCMARK_NEXT() \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x02, 0x46, 0x4e, 0x50" ::: "memory")

#endif
