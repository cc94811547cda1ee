/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attach and detach one consumer of p4dscope's four trace events from inside a benchmark,
 * between samples, with raw system calls (the benchmark is static; no libbpf):
 *   tracefs:INSTANCE   enable/disable the events in a tracefs instance (its ring buffer)
 *   tp_btf:DIR         the tp_btf programs tpcount pinned in DIR (BPF_RAW_TRACEPOINT_OPEN)
 *   raw_tp:DIR         the raw_tp programs, the same way, by tracepoint name
 *   tp:DIR             the classic tracepoint programs: a perf event per CPU with the
 *                      program set (PERF_EVENT_IOC_SET_BPF)
 */
#ifndef P4DBENCH_CONSUMER_H
#define P4DBENCH_CONSUMER_H

struct consumer;

/* Parse KIND:PATH and check it can be used; dies with a message if not. */
struct consumer *consumer_open(const char *spec);
void consumer_attach(struct consumer *c);
void consumer_detach(struct consumer *c);

#endif /* P4DBENCH_CONSUMER_H */
