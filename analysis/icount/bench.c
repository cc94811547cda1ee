// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the benchmark programs; see bench.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "bench.h"

noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

unsigned long long interrupts_total(void)
{
	/* "intr TOTAL ...": the total comes right after the tag, within the first page. */
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/stat", O_RDONLY);

	if (fd < 0)
		die("cannot open /proc/stat: %s", strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die("cannot read /proc/stat");
	buf[n] = '\0';
	p = strstr(buf, "\nintr ");
	if (!p)
		die("no intr line in the first page of /proc/stat");
	return strtoull(p + 6, NULL, 10);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int counters_open(const char *path)
{
	union bpf_attr attr;
	int fd;

	if (!path)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	fd = sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0)
		die("cannot open the tpcount counters at %s: %s (run tpcount attach first)",
		    path, strerror(errno));
	return fd;
}

void counters_read(int fd, struct tpcount_counts *c)
{
	union bpf_attr attr;
	unsigned int key = 0;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (unsigned long)&key;
	attr.value = (unsigned long)c;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		die("cannot read the tpcount counters: %s", strerror(errno));
}

void counters_sub(struct tpcount_counts *after, const struct tpcount_counts *before)
{
	for (int i = 0; i < TPC_NR_COUNTERS; i++)
		after->hits[i] -= before->hits[i];
}

unsigned long parse_size(const char *s, const char *what)
{
	unsigned long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoul(s, &end, 0);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (errno || end == s || *end || (shift && v > (~0UL >> shift)))
		die("bad %s '%s': want a whole number (0x.. or decimal, k/m/g/t suffix)", what, s);
	return v << shift;
}
