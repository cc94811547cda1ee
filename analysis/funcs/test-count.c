// SPDX-License-Identifier: GPL-2.0
/*
 * test-count: TAP tests of funcs.so's counting (count.c) on a synthetic symbol table and
 * instruction stream, with the answers worked out by hand next to each test. The stream
 * is executed the way the plugin's generated code would: each instruction's plan is made
 * once (translation) and then applied at every execution.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "funcmark.h"

static int n_tests, n_failed;

static void result(const char *name, bool ok, const char *why)
{
	n_tests++;
	n_failed += !ok;
	printf("%sok %d %s\n", ok ? "" : "not ", n_tests, name);
	if (!ok && why)
		printf("# %s\n", why);
}

/*
 * nm -n -S format. alpha_label lies inside alpha (a label, not a function); beta_alias
 * is beta under a second name; delta has no size; user_sym is not a kernel address and
 * data_sym not text: both ignored. So the functions are alpha [..00, ..10), beta|beta_alias
 * [..10, ..30), gamma [..40, ..48) and delta from ..100 on.
 */
static const char symbols[] =
	"0000000000001000 0000000000000010 T user_sym\n"
	"ffffffff81000000 0000000000000010 T alpha\n"
	"ffffffff81000004 T alpha_label\n"
	"ffffffff81000010 0000000000000020 t beta_alias\n"
	"ffffffff81000010 0000000000000020 T beta\n"
	"ffffffff81000040 0000000000000008 W gamma\n"
	"ffffffff81000100 T delta\n"
	"ffffffff82000000 0000000000000100 D data_sym\n";

#define K(off) (0xffffffff81000000ull + (off))

static const uint8_t plain[3] = { 0x48, 0x89, 0xc0 };	/* mov %rax,%rax */
static const uint8_t mark_start[7] = { 0x0f, 0x1f, 0x80, FUNCMARK_CMD_START, 0x46, 0x4e, 0x50 };
static const uint8_t mark_stop[7] = { 0x0f, 0x1f, 0x80, FUNCMARK_CMD_STOP, 0x46, 0x4e, 0x50 };
static const uint8_t mark_next[7] = { 0x0f, 0x1f, 0x80, FUNCMARK_CMD_NEXT, 0x46, 0x4e, 0x50 };
/* The walk model's start mark: a NOP like any other here. */
static const uint8_t walkmark[7] = { 0x0f, 0x1f, 0x80, 0x00, 0x57, 0x4d, 0x50 };

/* Run one instruction: plan it (as at translation), then do what the plan says. */
static void run(struct fc_table *t, FILE *out, uint64_t va, const uint8_t *bytes, size_t len)
{
	struct fc_plan p = fc_plan(t, va, bytes, len);

	if (p.kind != FC_COUNT) {
		fc_mark(t, p.kind, out);
		return;
	}
	(*p.insns)++;
	if (p.entries)
		(*p.entries)++;
}

#define INSN(va) run(&t, out, (va), plain, sizeof(plain))
#define MARK(m) run(&t, out, 0x401000, (m), sizeof(m))

int main(void)
{
	struct fc_table t;
	char err[256], *text = NULL;
	size_t textlen = 0;
	FILE *in = fmemopen((void *)symbols, sizeof(symbols) - 1, "r"), *out;
	bool loaded = fc_load(&t, in, err, sizeof(err));

	fclose(in);
	printf("1..9\n");
	result("the symbol file loads", loaded, err);
	if (!loaded)
		return 1;

	/* 2 special slots + alpha, beta|beta_alias, gamma, delta. */
	result("labels inside a function and non-text symbols make no function",
	       t.nslots == FC_FIRST_FUNCTION + 4, NULL);
	result("aliases at one address are one function, named by both",
	       !strcmp(t.name[fc_slot(&t, K(0x10))], "beta|beta_alias"), t.name[fc_slot(&t, K(0x10))]);
	result("slots: user, a label's address, past a sized end, below the first, no size",
	       fc_slot(&t, 0x401000) == FC_SLOT_USER &&
	       !strcmp(t.name[fc_slot(&t, K(0x04))], "alpha") &&
	       fc_slot(&t, K(0x48)) == FC_SLOT_NOSYM &&
	       fc_slot(&t, 0xffffffff80000000ull) == FC_SLOT_NOSYM &&
	       !strcmp(t.name[fc_slot(&t, K(0x150))], "delta"), NULL);

	out = open_memstream(&text, &textlen);
	fc_write_header(out);
	INSN(K(0x00)); INSN(K(0x04)); INSN(K(0x10));	/* before any mark: not counted */
	MARK(mark_start);
	INSN(0x401004); INSN(0x401008);			/* [user] 2 */
	INSN(K(0x00)); INSN(K(0x04));			/* alpha 2, entered once */
	INSN(K(0x10)); INSN(K(0x14));			/* beta 2, entered once */
	INSN(K(0x40));					/* gamma 1, entered once */
	INSN(K(0x48)); INSN(0xffffffff80000000ull);	/* no symbol 2 */
	INSN(K(0x100)); INSN(K(0x150));			/* delta 2, entered once */
	run(&t, out, K(0x44), walkmark, sizeof(walkmark));	/* gamma +1 */
	MARK(mark_stop);
	INSN(K(0x10)); INSN(K(0x10));			/* between pairs: not counted */
	MARK(mark_start);
	INSN(K(0x10));					/* beta +1, entered again */
	MARK(mark_stop);
	MARK(mark_next);				/* section 0: 2 pairs */
	MARK(mark_start);
	MARK(mark_start);				/* misplaced: ignored */
	INSN(K(0x00));					/* alpha 1 */
	MARK(mark_stop);
	MARK(mark_stop);				/* misplaced */
	MARK(mark_next);				/* section 1: 1 pair */
	MARK(mark_next);				/* section 2: nothing */
	MARK(mark_start);
	INSN(K(0x00));					/* a pair never closed: dropped */
	fc_finish(&t, out);				/* misplaced, nothing written */
	fclose(out);

	/* Section 0: 2 + 2 + 3 + 2 + 2 + 2 = 13 instructions; 1 + 2 + 1 + 1 = 5 entries. */
	static const char want[] =
		"section,pairs,function,insns,entries\n"
		"0,2,[user],2,0\n"
		"0,2,[kernel-no-symbol],2,0\n"
		"0,2,alpha,2,1\n"
		"0,2,beta|beta_alias,3,2\n"
		"0,2,gamma,2,1\n"
		"0,2,delta,2,1\n"
		"0,2,[total],13,5\n"
		"1,1,alpha,1,1\n"
		"1,1,[total],1,1\n"
		"2,0,[total],0,0\n";
	result("per-function counts, entries and totals of each section, by hand",
	       !strcmp(text, want), text);
	result("only the parts between START and STOP count; NEXT closes a section",
	       t.sections == 3, NULL);
	result("marks out of order are counted, not obeyed (3)", t.misplaced == 3, NULL);

	/* The rows of a section add up to its total: summed here from the written text. */
	{
		uint64_t sum = 0, total = 0;
		char *line, *save = NULL;

		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			unsigned long long sec, pairs, insns, entries;
			char name[64];

			if (sscanf(line, "%llu,%llu,%63[^,],%llu,%llu", &sec, &pairs, name, &insns,
				   &entries) != 5 || sec != 0)
				continue;
			if (!strcmp(name, "[total]"))
				total = insns;
			else
				sum += insns;
		}
		result("the functions of a section sum to its total", sum == total && total == 13,
		       NULL);
	}
	free(text);
	fc_free(&t);

	in = fmemopen((void *)"ffffffff82000000 D only_data\n", 29, "r");
	result("a symbol file without kernel text is refused, saying why",
	       !fc_load(&t, in, err, sizeof(err)) && strstr(err, "no kernel text symbols"), err);
	fclose(in);
	return n_failed ? 1 : 0;
}
