// SPDX-License-Identifier: GPL-2.0
/* Attach and detach a consumer of the trace events between samples; see consumer.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "bench.h"
#include "consumer.h"

#define TRACEFS_DIR	"/sys/kernel/tracing"
#define MAX_CPUS	64

enum consumer_kind { TRACEFS, TP_BTF, RAW_TP, TP };

static const struct {
	const char *system, *name;
} events[TPC_NR_EVENTS] = TPCOUNT_EVENTS;

struct consumer {
	enum consumer_kind kind;
	char path[256];
	int prog_fd[TPC_NR_EVENTS];
	long tp_id[TPC_NR_EVENTS];
	int link_fd[TPC_NR_EVENTS][MAX_CPUS];	/* [i][0] for BPF links, per CPU for tp */
	int ncpus;
	int attached;
};

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("cannot write '%s' to %s: %s", text, path, strerror(errno));
	close(fd);
}

static long read_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		die("cannot read %s: %s", path, strerror(errno));
	close(fd);
	return strtol(buf, NULL, 10);
}

struct consumer *consumer_open(const char *spec)
{
	static const char *const prefixes[] = { "tp_btf", "raw_tp", "tp" };
	struct consumer *c = calloc(1, sizeof(*c));
	const char *colon = strchr(spec, ':');
	char path[512];

	if (!c || !colon)
		die("bad consumer '%s': want tracefs:INSTANCE or tp_btf|raw_tp|tp:DIR", spec);
	snprintf(c->path, sizeof(c->path), "%s", colon + 1);
	if (!strncmp(spec, "tracefs:", 8)) {
		c->kind = TRACEFS;
		return c;
	}
	if (!strncmp(spec, "tp_btf:", 7))
		c->kind = TP_BTF;
	else if (!strncmp(spec, "raw_tp:", 7))
		c->kind = RAW_TP;
	else if (!strncmp(spec, "tp:", 3))
		c->kind = TP;
	else
		die("bad consumer '%s': want tracefs:INSTANCE or tp_btf|raw_tp|tp:DIR", spec);

	for (int i = 0; i < TPC_NR_EVENTS; i++) {
		union bpf_attr attr;

		memset(&attr, 0, sizeof(attr));
		snprintf(path, sizeof(path), "%s/%s_%s", c->path, prefixes[c->kind - TP_BTF],
			 events[i].name);
		attr.pathname = (unsigned long)path;
		c->prog_fd[i] = sys_bpf(BPF_OBJ_GET, &attr);
		if (c->prog_fd[i] < 0)
			die("cannot open the program pinned at %s: %s (tpcount load first)", path,
			    strerror(errno));
		if (c->kind == TP) {
			snprintf(path, sizeof(path), TRACEFS_DIR "/events/%s/%s/id", events[i].system,
				 events[i].name);
			c->tp_id[i] = read_long(path);
		}
	}
	c->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (c->ncpus < 1 || c->ncpus > MAX_CPUS)
		die("%d CPUs online: this consumer handles 1 to %d", c->ncpus, MAX_CPUS);
	return c;
}

static void tracefs_enable(struct consumer *c, const char *on)
{
	char path[512];

	for (int i = 0; i < TPC_NR_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/enable", c->path, events[i].system,
			 events[i].name);
		write_file(path, on);
	}
}

void consumer_attach(struct consumer *c)
{
	if (c->attached)
		return;
	if (c->kind == TRACEFS) {
		tracefs_enable(c, "1");
		c->attached = 1;
		return;
	}
	for (int i = 0; i < TPC_NR_EVENTS; i++) {
		if (c->kind == TP) {
			/* A classic tracepoint program runs from a perf event, one per CPU. */
			struct perf_event_attr pa;

			memset(&pa, 0, sizeof(pa));
			pa.type = PERF_TYPE_TRACEPOINT;
			pa.size = sizeof(pa);
			pa.config = c->tp_id[i];
			pa.sample_period = 1;
			pa.wakeup_events = 1;
			for (int cpu = 0; cpu < c->ncpus; cpu++) {
				int fd = syscall(__NR_perf_event_open, &pa, -1, cpu, -1,
						 PERF_FLAG_FD_CLOEXEC);

				if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_BPF, c->prog_fd[i]) ||
				    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
					die("cannot attach the tp program to %s: %s",
					    events[i].name, strerror(errno));
				c->link_fd[i][cpu] = fd;
			}
		} else {
			/* tp_btf knows its tracepoint from load time; raw_tp is told it. */
			union bpf_attr attr;

			memset(&attr, 0, sizeof(attr));
			attr.raw_tracepoint.prog_fd = c->prog_fd[i];
			if (c->kind == RAW_TP)
				attr.raw_tracepoint.name = (unsigned long)events[i].name;
			c->link_fd[i][0] = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
			if (c->link_fd[i][0] < 0)
				die("cannot attach to %s: %s", events[i].name, strerror(errno));
		}
	}
	c->attached = 1;
}

void consumer_detach(struct consumer *c)
{
	if (!c->attached)
		return;
	if (c->kind == TRACEFS) {
		tracefs_enable(c, "0");
	} else {
		for (int i = 0; i < TPC_NR_EVENTS; i++)
			for (int cpu = 0; cpu < (c->kind == TP ? c->ncpus : 1); cpu++)
				close(c->link_fd[i][cpu]);
	}
	c->attached = 0;
}
