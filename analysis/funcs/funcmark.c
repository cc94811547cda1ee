// SPDX-License-Identifier: GPL-2.0
/*
 * funcmark next: close the current section of funcs.so (FUNCMARK_NEXT()), so that what
 * ran before it is written as one section. The guest scripts run it between workloads.
 * Outside the plugin it does nothing.
 */
#include <stdio.h>
#include <string.h>

#include "funcmark.h"

int main(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "next")) {
		fprintf(stderr, "usage: funcmark next\n");
		return 2;
	}
	FUNCMARK_NEXT();
	return 0;
}
