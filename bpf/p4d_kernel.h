/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types p4dstat.bpf.c uses, declared by hand in place of a vmlinux.h dumped
 * from one kernel's BTF: p4dstat builds without a kernel tree and without a kernel
 * build, and one object loads on every kernel it supports (6.1, 6.12, 7.3, with the
 * series or without).
 *
 * Each struct names only the members the programs read. They are records with
 * preserve_access_index: clang emits a CO-RE relocation for every access, and libbpf
 * rewrites the offset (the bit position, the size) from the running kernel's BTF at
 * load time, so neither the order nor the offsets written here matter. A member that a
 * kernel lacks fails only that kernel's relocation; a program that must run there
 * tests it first with bpf_core_field_exists(). A member renamed between kernels would
 * be declared twice, as "struct NAME___v1" with the old name and "struct NAME" with
 * the new (libbpf ignores the ___suffix when it matches types); none of those read
 * here was renamed between 6.1, 6.12 and 7.3 (their sources, and the vmlinux.h of each
 * that p4dstat was built against before, have them all).
 *
 * The series' own types are the series' only (p4dstat.bpf.c declares them next to the
 * programs that take them), and the uapi constants below are ABI, fixed for all kernels.
 */
#ifndef P4D_KERNEL_H
#define P4D_KERNEL_H

/*
 * libbpf's bpf_tracing.h names the x86 pt_regs members as the kernel does (di, si: the
 * struct below) when this is defined, and uapi's (rdi, rsi) otherwise. A vmlinux.h
 * defines it; so does this header, which stands in for one.
 */
#define __VMLINUX_H__

/* The integer types of uapi's asm-generic/int-ll64.h, which libbpf's headers use. */
typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;			/* bpf_helper_defs.h: network byte order */
typedef __u32 __be32;
typedef __u32 __wsum;			/* bpf_helper_defs.h: checksums */

typedef _Bool bool;
enum { false = 0, true = 1 };

/* uapi linux/bpf.h: the map types and update flags p4dstat's maps use. */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

enum {
	BPF_F_NO_PREALLOC = 1,	/* map_flags: local storage must not preallocate */
};

enum {
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1,	/* bpf_task_storage_get(): create if absent */
};

enum {
	BPF_ANY = 0,		/* create or update */
	BPF_NOEXIST = 1,	/* create only */
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* include/linux/mm_types.h */
struct mm_struct {
	unsigned long total_vm;		/* pages mapped */
	unsigned long stack_vm;		/* pages of VM_STACK mappings */
};

/* include/linux/sched.h */
struct task_struct {
	unsigned int in_execve:1;	/* between execve()'s start and its point of no return */
	struct mm_struct *mm;
	int pid;			/* pid_t: the thread's id */
	int tgid;			/* pid_t: the process's, its group leader's pid */
};

/* include/asm-generic/tlb.h */
struct mmu_gather {
	struct mm_struct *mm;
};

/* include/linux/fs.h */
struct file {
	unsigned int f_flags;
};

/*
 * arch/x86/include/asm/ptrace.h, x86-64: the registers as the entry code saves them.
 * bpf_tracing.h reads a kprobe's arguments and return value from di, si, dx, cx, r8
 * and ax; orig_ax is the system call number.
 */
struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};

/*
 * The record of raw_syscalls:sys_exit (include/trace/events/syscalls.h), whose ret lies
 * where it lies in the record of every syscalls:sys_exit_* event (struct
 * syscall_trace_exit, kernel/trace/trace.h, which only CONFIG_FTRACE_SYSCALLS builds):
 * a classic tracepoint program on sys_exit_mmap reads its context through it.
 */
struct trace_event_raw_sys_exit {
	long ret;
};

#pragma clang attribute pop

#endif /* P4D_KERNEL_H */
