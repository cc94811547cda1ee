/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for p4dscope's C checkers (kselftest style, as tests/lib/tap.sh):
 * "ok N name", "not ok N name" with "#   " diagnostics, "ok N name # SKIP reason",
 * the plan at the end; exit 0 (all passed), 1 (a failure) or 4 (all skipped).
 */
#ifndef P4D_TAP_H
#define P4D_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed, tap_skipped;

/* tap_result(pass, fmt, ...): one result; returns pass so callers can chain diagnostics. */
static inline int __attribute__((format(printf, 2, 3))) tap_result(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return pass;
}

/* A diagnostic line under the last result. */
static inline void __attribute__((format(printf, 1, 2))) tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline void tap_skip(const char *name, const char *reason)
{
	tap_n++;
	tap_skipped++;
	printf("ok %d %s # SKIP %s\n", tap_n, name, reason);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		return 1;
	return tap_n && tap_skipped == tap_n ? 4 : 0;
}

#endif /* P4D_TAP_H */
