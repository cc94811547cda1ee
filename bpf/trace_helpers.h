/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers to attach to, asked before a BPF object is loaded, so a
 * tool can autoload only programs that will attach (libbpf loads all or nothing).
 */
#ifndef TRACE_HELPERS_H
#define TRACE_HELPERS_H

#include <stdbool.h>

struct btf;

/* tracefs's mount point in use: /sys/kernel/tracing or /sys/kernel/debug/tracing. */
const char *tracefs_path(void);

/* A classic tracepoint CATEGORY:EVENT exists (its tracefs directory). */
bool tracepoint_exists(const char *category, const char *event);

/* A tp_btf program can attach to EVENT: the kernel BTF has btf_trace_EVENT. */
bool btf_tracepoint_exists(const struct btf *vmlinux_btf, const char *event);

/*
 * A fentry/fexit program can attach to FUNC: it is a function in the kernel BTF and a
 * trampoline attaches to it (tried with an empty program, detached at once).
 */
bool fentry_can_attach(const struct btf *vmlinux_btf, const char *func);

/* A kprobe can attach to FUNC: ftrace lists it (available_filter_functions). */
bool kprobe_exists(const char *func);

#endif /* TRACE_HELPERS_H */
