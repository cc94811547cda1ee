// SPDX-License-Identifier: GPL-2.0
/*
 * pagefault: the cost of a minor fault on a file page already in the page cache, the
 * method of lmbench's lat_pagefault (written here from its published description).
 *
 *   wl-pagefault [--size BYTES] [--rounds R] [--warmup W] [--dir DIR] [--stride PAGES]
 *                [--seed N]
 *
 * Setup: a file in DIR (default /tmp; in the guest that is tmpfs), unlinked at once, whose
 * --size bytes of data (pages = size / 4K) are written once and read back once, so they
 * are all in the page cache. Measured, R times: mmap the file PROT_READ, MAP_SHARED; read
 * one byte of every data page, in one fixed random order; munmap. Each read is a read
 * fault (do_read_fault) that finds its page in the page cache and maps it. --warmup W
 * (default 1) such rounds come first, after WALKMARK_WARMUP() and not counted, so that
 * the plugin's TLBs and caches (the kernel's fault path included) start warm.
 *
 * MAP_SHARED, not MAP_PRIVATE: a read fault takes the same path in both, but MAP_SHARED
 * is what a reader of a shared file uses, maps the page-cache page itself and can never
 * turn into a copy-on-write, so the fault is only the file read fault being measured.
 *
 * Fault-around, and why the data pages are --stride pages apart (default 16). On a read
 * fault the kernel maps not just the faulting page but every page of the file that is in
 * the page cache within an aligned window of fault_around_bytes (default 64 KiB, 16
 * pages) of virtual address space around it: do_read_fault -> should_fault_around ->
 * do_fault_around -> ->map_pages (filemap_map_pages, for tmpfs too) in mm/memory.c. In a
 * densely read file only one page in 16 would then fault, and minflt would say little.
 * What turns it off (linux-6.1 and 6.12 should_fault_around): no ->map_pages, a
 * userfaultfd WP or MINOR registration (uffd_disable_fault_around; the guest kernels
 * have CONFIG_USERFAULTFD off), or fault_around_bytes set to one page (a global debugfs
 * knob, root only). MADV_RANDOM does not: VM_RAND_READ is read only by the readahead code
 * in mm/filemap.c. And MAP_POPULATE or a write fault on MAP_PRIVATE (a page copy) would
 * measure something else. So this workload leaves the kernel alone and lays the file out
 * sparsely instead: data page i is file page i x stride, the pages between are holes that
 * are never read, so never in the page cache, and ->map_pages has nothing else to map.
 * Every aligned window of stride pages then holds exactly one data page, and each data
 * page costs exactly one fault per round (served by the fault-around path, which maps
 * the faulting page and returns VM_FAULT_NOPAGE: counted in ru_minflt like any other).
 * That holds while fault_around_bytes <= stride x 4K; --stride 512 makes it hold for any
 * setting (the window never leaves one page table) at one page-table page per data page.
 * --stride 1 is the dense file of lat_pagefault itself, fault-around included.
 *
 *   workload=pagefault size=B pages=N stride=S file_bytes=F rounds=R warmup=W dir=D
 *     mapping=shared faults_per_round=N minflt=M data_ok=1 ns=T
 * faults_per_round is what one fault per data page means; minflt is the minor faults
 * getrusage counted over the measured part, all rounds: N x R when each page faults once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "p4d_layout.h"
#include "wl.h"

#define MAX_STRIDE	512	/* pages in one page table: fault-around never crosses it */

enum { OPT_SIZE = 256, OPT_ROUNDS, OPT_WARMUP, OPT_DIR, OPT_STRIDE, OPT_SEED };

static const struct option options[] = {
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "stride", required_argument, NULL, OPT_STRIDE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ NULL, 0, NULL, 0 },
};

static const char details[] =
	"  --size BYTES    data in the file, a multiple of 4K (default 16M)\n"
	"  --rounds R      mmap, fault every data page, munmap: R times (default 8)\n"
	"  --warmup W      rounds before them, not counted (default 1)\n"
	"  --dir DIR       where the (unlinked) file lives (default /tmp)\n"
	"  --stride PAGES  file pages from one data page to the next, 1-512 (default 16,\n"
	"                  the default fault-around window; 1: a dense file)\n"
	"  --seed N        the page order's seed (default 1)\n";

/* The byte every data page is filled with: never 0, so a hole read by mistake shows. */
static unsigned char fill(uint64_t page)
{
	return (unsigned char)(page * 131 + 7) | 1;
}

/* One round: map the file, read a byte of every data page in the order off[], unmap.
 * Adds the bytes to *sum; 0, or mmap's errno. */
static int one_round(int fd, uint64_t flen, const uint64_t *off, uint64_t pages, uint64_t *sum)
{
	const volatile unsigned char *m = mmap(NULL, flen, PROT_READ, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return errno;
	for (uint64_t i = 0; i < pages; i++)
		*sum += m[off[i]];
	munmap((void *)m, flen);
	return 0;
}

static uint64_t minor_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		wl_die("getrusage: %s", strerror(errno));
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	uint64_t size = 16ULL << 20, rounds = 8, stride = 16, seed = 1, state, pages, flen;
	uint64_t *off, sum = 0, want = 0, f0, f1, t0, t1, done = 0, warmup = 1, skip = 0;
	const char *dir = "/tmp";
	unsigned char *buf;
	char path[PATH_MAX];
	int c, fd, map_errno = 0;

	wl_init("wl-pagefault",
		"[--size BYTES] [--rounds R] [--warmup W] [--dir DIR] [--stride PAGES] [--seed N]");
	while ((c = wl_getopt(argc, argv, options)) != -1) {
		switch (c) {
		case OPT_SIZE: size = wl_number("size", optarg, P4D_PAGE_SIZE, 1ULL << 40); break;
		case OPT_ROUNDS: rounds = wl_number("rounds", optarg, 1, 1ULL << 32); break;
		case OPT_WARMUP: warmup = wl_number("warmup", optarg, 0, 1ULL << 32); break;
		case OPT_DIR: dir = optarg; break;
		case OPT_STRIDE: stride = wl_number("stride", optarg, 1, MAX_STRIDE); break;
		case OPT_SEED: seed = wl_number("seed", optarg, 0, UINT64_MAX); break;
		default: wl_help(details);
		}
	}
	if (size % P4D_PAGE_SIZE)
		wl_usage_error("bad --size '%" PRIu64 "': want a multiple of 4K", size);
	pages = size / P4D_PAGE_SIZE;
	flen = pages * stride * P4D_PAGE_SIZE;

	if ((size_t)snprintf(path, sizeof(path), "%s/wl-pagefault.XXXXXX", dir) >= sizeof(path))
		wl_usage_error("--dir '%s' is too long", dir);
	fd = mkstemp(path);
	if (fd < 0)
		wl_die("cannot create a file in %s: %s (pass --dir a writable directory)", dir,
		       strerror(errno));
	unlink(path);
	if (ftruncate(fd, flen))
		wl_die("cannot size a file of %" PRIu64 " bytes in %s: %s (try another --dir)",
		       flen, dir, strerror(errno));

	/* Written once, read once: the data pages, and only they, are in the page cache. */
	buf = malloc(P4D_PAGE_SIZE);
	off = malloc(pages * sizeof(*off));
	if (!buf || !off)
		wl_die("out of memory for %" PRIu64 " pages' offsets (ask for less)", pages);
	for (uint64_t i = 0; i < pages; i++) {
		memset(buf, fill(i), P4D_PAGE_SIZE);
		ssize_t n = pwrite(fd, buf, P4D_PAGE_SIZE, i * stride * P4D_PAGE_SIZE);

		if (n != (ssize_t)P4D_PAGE_SIZE)
			wl_die("cannot write %" PRIu64 " bytes in %s: %s (free some space or pass "
			       "another --dir)", size, dir, strerror(errno));
	}
	/* No readahead: reading a data page must not bring the holes after it into the cache. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (uint64_t i = 0; i < pages; i++) {
		ssize_t n = pread(fd, buf, P4D_PAGE_SIZE, i * stride * P4D_PAGE_SIZE);

		if (n != (ssize_t)P4D_PAGE_SIZE || buf[0] != fill(i))
			wl_die("reading the file back in %s failed: %s", dir,
			       n < 0 ? strerror(errno) : "not the data written");
		want += buf[0];
	}
	want *= rounds;

	/* The order: every data page once, shuffled (Fisher-Yates), the same every round. */
	state = seed;
	for (uint64_t i = 0; i < pages; i++)
		off[i] = i;
	for (uint64_t i = pages - 1; i > 0; i--) {
		uint64_t j = wl_below(wl_rand(&state), i + 1), t = off[i];

		off[i] = off[j];
		off[j] = t;
	}
	for (uint64_t i = 0; i < pages; i++)
		off[i] *= stride * P4D_PAGE_SIZE;

	wl_warmup();
	for (uint64_t w = 0; w < warmup && !map_errno; w++)
		map_errno = one_round(fd, flen, off, pages, &skip);
	f0 = minor_faults();
	t0 = wl_now_ns();
	wl_start();
	for (; done < rounds && !map_errno; done++)
		map_errno = one_round(fd, flen, off, pages, &sum);
	wl_stop();
	t1 = wl_now_ns();
	f1 = minor_faults();
	if (map_errno)
		wl_die("mmap of %" PRIu64 " bytes failed: %s (ask for less)", flen,
		       strerror(map_errno));

	printf("workload=pagefault size=%" PRIu64 " pages=%" PRIu64 " stride=%" PRIu64
	       " file_bytes=%" PRIu64 " rounds=%" PRIu64 " warmup=%" PRIu64 " dir=%s mapping=shared"
	       " faults_per_round=%" PRIu64 " minflt=%" PRIu64 " data_ok=%d ns=%" PRIu64 "\n",
	       size, pages, stride, flen, rounds, warmup, dir, pages, f1 - f0,
	       sum == want && skip == want / rounds * warmup, t1 - t0);
	if (sum != want || skip != want / rounds * warmup)
		wl_die("verification failed: the bytes read are not the bytes written");
	return 0;
}
