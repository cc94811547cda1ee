/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting of funcs.so, apart from QEMU so that a host test can drive it with a
 * synthetic stream (test-count.c): the kernel's functions from its symbol table, which
 * counter each executed instruction adds to, the marks, and the sections written out.
 *
 * Every guest instruction adds one to the instruction counter of its slot: the kernel
 * function whose address range holds it, [user] for user space (the bit 63 of the address
 * clear), or [kernel-no-symbol] for kernel code outside every function (BPF programs,
 * trampolines). The first instruction of a function also adds one to its entry counter
 * (calls, and tail calls that jump there). The plugin turns each decision into inline
 * code at translation time (fc_plan); the test does the additions itself.
 */
#ifndef FUNCS_COUNT_H
#define FUNCS_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { FC_SLOT_USER, FC_SLOT_NOSYM, FC_FIRST_FUNCTION };

struct fc_counter {
	uint64_t insns, entries;
};

struct fc_table {
	size_t nslots;			/* FC_FIRST_FUNCTION + functions */
	uint64_t *start, *end;		/* per slot; end == start: size unknown */
	char **name;			/* aliases at one address joined by '|' */
	struct fc_counter *live;	/* added to by every executed instruction */
	struct fc_counter *at_start;	/* live at the last START */
	struct fc_counter *sum;		/* START..STOP differences of this section */
	bool measuring;
	uint64_t pairs;			/* START..STOP pairs in this section */
	uint64_t sections;		/* sections written */
	uint64_t misplaced;		/* marks out of order (START while counting...) */
};

enum fc_kind { FC_COUNT, FC_START, FC_STOP, FC_NEXT };

/* What one instruction does when it executes. */
struct fc_plan {
	enum fc_kind kind;
	uint64_t *insns;	/* FC_COUNT: add 1 here */
	uint64_t *entries;	/* FC_COUNT: and here, when not NULL (a function's entry) */
};

/*
 * Read `nm -n -S` output of the kernel (text symbols: t, T, w, W). A symbol that lies
 * inside the previous one (a label within a function) is not a function of its own;
 * symbols at one address are one function. false with a reason in err.
 */
bool fc_load(struct fc_table *t, FILE *nm_output, char *err, size_t errlen);
void fc_free(struct fc_table *t);

/* The slot of an address. */
size_t fc_slot(const struct fc_table *t, uint64_t vaddr);

/* What the instruction at vaddr (its bytes) does when executed. */
struct fc_plan fc_plan(struct fc_table *t, uint64_t vaddr, const uint8_t *bytes, size_t len);

/* A mark executed; FC_NEXT writes the section to out (CSV rows, see fc_write_header). */
void fc_mark(struct fc_table *t, enum fc_kind kind, FILE *out);

/* At the end: the last section, if it counted anything. */
void fc_finish(struct fc_table *t, FILE *out);

/* The CSV header: section,pairs,function,insns,entries */
void fc_write_header(FILE *out);

#endif
