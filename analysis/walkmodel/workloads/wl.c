// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the walk-model workloads: see wl.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "walkmark.h"
#include "wl.h"

/* perf stat's control and acknowledgement descriptors (wl.h), -1 when not under it. */
static int perf_ctl = -2, perf_ack = -1;

static void perf_command(const char *cmd)
{
	char c = 0;
	ssize_t n = 1;

	if (perf_ctl == -2) {
		const char *env = getenv("WL_PERF_CTL");

		perf_ctl = -1;
		if (env && sscanf(env, "%d,%d", &perf_ctl, &perf_ack) != 2)
			wl_die("bad WL_PERF_CTL '%s': want CTL,ACK (set by analysis/hw/run)", env);
	}
	if (perf_ctl < 0)
		return;
	if (write(perf_ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		n = -1;
	/* "ack\n", read a byte at a time: the next command's answer stays unread */
	while (n == 1 && c != '\n')
		n = read(perf_ack, &c, 1);
	if (n != 1)
		wl_die("perf stat --control did not answer '%.*s': %s", (int)strlen(cmd) - 1, cmd,
		       n < 0 ? strerror(errno) : "no acknowledgement");
}

__attribute__((noinline, noclone)) void wl_warmup(void)
{
	WALKMARK_WARMUP();
}

__attribute__((noinline, noclone)) void wl_start(void)
{
	perf_command("enable\n");
	WALKMARK_START();
}

__attribute__((noinline, noclone)) void wl_stop(void)
{
	WALKMARK_STOP();
	perf_command("disable\n");
}

static const char *wl_name = "wl";
static const char *wl_args = "";

void wl_init(const char *name, const char *usage_args)
{
	wl_name = name;
	wl_args = usage_args;
}

noreturn void wl_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; usage: %s %s\n", wl_name, wl_args);
	exit(2);
}

noreturn void wl_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

noreturn void wl_help(const char *details)
{
	printf("usage: %s %s\n%s", wl_name, wl_args, details);
	exit(0);
}

/* Option values the caller's table uses are 256 and up: never a short option's letter. */
#define WL_MAX_OPTS 32
#define WL_OPT_HELP 'h'

static const char *long_name(const struct option *opts, int val)
{
	for (; opts->name; opts++)
		if (opts->val == val)
			return opts->name;
	return "?";
}

int wl_getopt(int argc, char **argv, const struct option *longopts)
{
	static struct option all[WL_MAX_OPTS];
	int n, c;

	if (!all[0].name) {
		for (n = 0; longopts[n].name; n++) {
			if (n >= WL_MAX_OPTS - 2)
				wl_die("too many options (raise WL_MAX_OPTS)");
			all[n] = longopts[n];
		}
		all[n] = (struct option){ "help", no_argument, NULL, WL_OPT_HELP };
	}
	opterr = 0;
	c = getopt_long(argc, argv, ":h", all, NULL);
	switch (c) {
	case -1:
		if (optind < argc)
			wl_usage_error("unexpected argument '%s'", argv[optind]);
		return -1;
	case WL_OPT_HELP:
		return WL_OPT_HELP;	/* the caller prints its details with wl_help */
	case ':':
		wl_usage_error("option '--%s' needs a value", long_name(all, optopt));
	case '?':
		if (optopt >= 256)
			wl_usage_error("option '--%s' takes no value", long_name(all, optopt));
		if (optopt)
			wl_usage_error("unknown option '-%c'", optopt);
		wl_usage_error("unknown option '%s'", argv[optind - 1]);
	}
	return c;
}

/* v in buf as the shortest of 123, 4K, 64M, 1G, 64T that is exact. */
static const char *human(uint64_t v, char *buf)
{
	static const char suffix[] = " KMGT";
	int i = 0;

	while (v && i < 4 && !(v & 1023)) {
		v >>= 10;
		i++;
	}
	snprintf(buf, 24, "%llu%.*s", (unsigned long long)v, i > 0, &suffix[i]);
	return buf;
}

uint64_t wl_number(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9')
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno)
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end || (v << shift) >> shift != v)
		goto bad;
	v <<= shift;
	if (v < min || v > max)
		goto bad;
	return v;
bad:
	if (max == UINT64_MAX)
		wl_usage_error("bad --%s '%s': want a whole number, %s or more (K, M, G, T: "
			       "powers of 1024)", opt, arg, human(min, (char[24]){ 0 }));
	wl_usage_error("bad --%s '%s': want a whole number from %s to %s (K, M, G, T: powers "
		       "of 1024)", opt, arg, human(min, (char[24]){ 0 }), human(max, (char[24]){ 0 }));
}

static const char *const thp_names[] = { "system", "on", "off" };

enum wl_thp wl_thp_arg(const char *arg)
{
	for (unsigned i = 0; i < sizeof(thp_names) / sizeof(thp_names[0]); i++)
		if (!strcmp(arg, thp_names[i]))
			return (enum wl_thp)i;
	wl_usage_error("bad --thp '%s': want system, on or off", arg);
}

const char *wl_thp_name(enum wl_thp thp)
{
	return thp_names[thp];
}

void *wl_alloc(void *hint, uint64_t bytes, enum wl_thp thp)
{
	void *p = mmap(hint, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_die("cannot map %llu bytes: %s (ask for less)", (unsigned long long)bytes,
		       strerror(errno));
	/* Without CONFIG_TRANSPARENT_HUGEPAGE both fail with EINVAL: then pages are 4K anyway. */
	if (thp == WL_THP_ON && madvise(p, bytes, MADV_HUGEPAGE))
		wl_die("madvise(MADV_HUGEPAGE): %s (this kernel has no THP: drop --thp on)",
		       strerror(errno));
	if (thp == WL_THP_OFF)
		madvise(p, bytes, MADV_NOHUGEPAGE);
	return p;
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}
