// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat-cause: p4dstat_cause() (bpf/p4dstat.h), the classification the BPF programs
 * give each P4D table, on the cases no guest produces: the guest kernel has neither PTI
 * nor modify_ldt(), so PTI's LDT remap table (a kernel address in a process's mm,
 * p4d_alloc's init_mm=0) never appears there. Addresses are regions as p4d_alloc
 * reports them (PGDIR_SIZE aligned). LDT_BASE_ADDR is LDT_PGD_ENTRY (-240) << PGDIR_SHIFT
 * (arch/x86/include/asm/pgtable_64_types.h): 0xff10000000000000 with 5 levels, the
 * only mode with P4D tables (Documentation/x86/x86_64/mm.rst: "LDT remap for PTI").
 */
#include <string.h>

#include "p4dstat.h"
#include "tap.h"

static const char *const names[P4DSTAT_CAUSES] = {
	[P4DSTAT_CAUSE_FIRST] = "first",
	[P4DSTAT_CAUSE_EXEC_STACK] = "exec_stack",
	[P4DSTAT_CAUSE_HIGH] = "high",
	[P4DSTAT_CAUSE_LDT] = "ldt",
	[P4DSTAT_CAUSE_KERNEL] = "kernel",
};

static const struct {
	const char *what;
	bool init_mm;
	__u64 address;
	bool exec_stack;
	enum p4dstat_cause want;
} cases[] = {
	{ "PTI LDT remap, 5-level (LDT_BASE_ADDR 0xff10000000000000) in a process's mm",
	  false, 0xff10000000000000ULL, false, P4DSTAT_CAUSE_LDT },
	{ "the same kernel address in init_mm", true, 0xff10000000000000ULL, false,
	  P4DSTAT_CAUSE_KERNEL },
	{ "direct map region in init_mm (memory hotplug)", true, 0xff11000000000000ULL, false,
	  P4DSTAT_CAUSE_KERNEL },
	{ "init_mm wins over every user slot", true, 0, false, P4DSTAT_CAUSE_KERNEL },
	{ "PGD slot 0 of a process", false, 0, false, P4DSTAT_CAUSE_FIRST },
	{ "PGD slot 0 while exec builds its stack is still slot 0", false, 0, true,
	  P4DSTAT_CAUSE_FIRST },
	{ "region 1 (hint 1<<48)", false, 1ULL << 48, false, P4DSTAT_CAUSE_HIGH },
	{ "top user slot 0xff000000000000 outside exec", false, 0xff000000000000ULL, false,
	  P4DSTAT_CAUSE_HIGH },
	{ "top user slot during exec: the argument stack", false, 0xff000000000000ULL, true,
	  P4DSTAT_CAUSE_EXEC_STACK },
	{ "kernel address with exec_stack set is still the LDT remap", false,
	  0xff10000000000000ULL, true, P4DSTAT_CAUSE_LDT },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum p4dstat_cause got = p4dstat_cause(cases[i].init_mm, cases[i].address,
						      cases[i].exec_stack);

		if (!tap_result(got == cases[i].want, "p4dstat cause: %s -> %s", cases[i].what,
				names[cases[i].want]))
			tap_diag("got %s", got < P4DSTAT_CAUSES ? names[got] : "out of range");
	}
	return tap_done();
}
