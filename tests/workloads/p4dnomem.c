// SPDX-License-Identifier: GPL-2.0
/*
 * p4dnomem: meet a failed P4D table allocation the two ways a process can.
 *
 *   p4dnomem
 *
 * Maps one page in each of two fresh 256 TiB regions above 47 bits (hints 5 << 48 and
 * 6 << 48) without touching them, prints "ready PID ADDR1 ADDR2" and waits for a line on
 * stdin: meanwhile tests/guest/nomem.t arms a failure of the first P4D table allocation
 * in each region. Then it
 *   - writes to the first page: the fault fails with VM_FAULT_OOM, which an x86 user
 *     fault turns into a retry (pagefault_out_of_memory()), so the write lands;
 *   - mlock()s the second page, which populates it: the failed fault fails the call,
 *     with EAGAIN ("some or all of the range could not be locked", mlock(2));
 *   - writes to the second page: a plain fault, which installs the table.
 * Prints "touch=ok|lost mlock=0|ERRNO-NAME retouch=ok|lost" and exits 0; 1 when a
 * system call it needs failed. On a 4-level kernel the hints fall back below 47 bits
 * and nothing fails: "mlock=0".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "p4d_layout.h"

static volatile char *map_page_at(unsigned long region)
{
	void *p = mmap((void *)(region << P4D_PGDIR_SHIFT_L5), P4D_PAGE_SIZE,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static const char *written(volatile char *page, char value)
{
	page[0] = value;
	return page[0] == value ? "ok" : "lost";
}

int main(void)
{
	volatile char *first = map_page_at(5), *second = map_page_at(6);
	char line[16];
	const char *touch;
	int mlock_err;

	if (!first || !second) {
		perror("p4dnomem: mmap");
		return 1;
	}
	printf("ready %d %p %p\n", (int)getpid(), (void *)first, (void *)second);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "p4dnomem: no go line on stdin\n");
		return 1;
	}

	touch = written(first, 1);
	mlock_err = mlock((void *)second, P4D_PAGE_SIZE) ? errno : 0;
	printf("touch=%s mlock=%s retouch=%s\n", touch,
	       mlock_err ? strerrorname_np(mlock_err) : "0", written(second, 2));
	return 0;
}
