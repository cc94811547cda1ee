// SPDX-License-Identifier: GPL-2.0
/*
 * swpath: time one kernel software path, batch by batch, for run-guest --icount, where
 * one guest ns is one guest instruction.
 *
 *   swpath [-r REPS] [-w WARMUP] [-b BATCH] [-s MS] [-c COUNTERS] [-t CONSUMER] [-x NOOP]
 *          [-H] OP
 *
 * OP (the default batch, operations per timed batch, in brackets):
 *   syscall           getppid(), a control: no paging work at all [2000]
 *   fault4k           first write to a 4K page of anonymous memory, THP off [512]
 *   fault-file        first read of a page of a file in the page cache, mapped
 *                     read-only and shared: one read fault each, nothing zeroed
 *                     (lmbench lat_pagefault's operation, fault-around defeated) [512]
 *   lat-pagefault     lmbench lat_pagefault's shape: every page of a file in the page
 *                     cache, mapped read-only and shared, read once in a random order,
 *                     with the default fault-around (one fault maps 16 pages); the
 *                     figure is per page [16384: a 64 MiB file]
 *   lat-pagefault-unmap
 *                     lmbench 3's measure of the same: the read loop, then munmap() of
 *                     the populated mapping and mmap() + msync(MS_INVALIDATE) of the
 *                     next, less the same three calls on an untouched mapping; per
 *                     page [16384]
 *   faultthp          first write to a 2M-aligned region, a THP each (THP "always") [4]
 *   mmap              mmap() + munmap() of one anonymous page, never touched [200]
 *   mmap-high         the same at hint 1 << 48, touched: on 5-level a P4D table each [200]
 *   mmap-newpud       the same at hint 1 << 46, touched: an empty 512 GiB region on either
 *                     paging depth, so a new PUD, PMD and PTE table each and no P4D table:
 *                     mmap-high's new chain of tables without the fifth level [200]
 *   clear4k           rep stosq over one 4K page, as the kernel's clear_page_rep (the
 *                     variant an x86 CPU with REP_GOOD uses): what --icount charges for
 *                     clearing a page, to take page clearing out of the fault rows [512]
 *   fork              fork() + _exit(0) in the child + waitpid() [4]
 *   exec              vfork() + execve(NOOP) + exit + waitpid() [4]
 *   munmap-sparse-low  munmap() of a 64G mapping with 64 touched pages 1G apart [8]
 *   munmap-sparse-high the same mapping placed at 1 << 48 (above 47 bits) [8]
 *
 * Each batch runs the operation BATCH times between two clock readings, then an empty
 * loop of the same shape: a loop without the operation, for faults the same stores to
 * the pages now present, for munmap two clock readings with nothing between them. One
 * CSV row per batch (after WARMUP unprinted ones), -H prints the header first:
 *   op,rep,ops,op_ns,empty_ns,intr,aux,ev_p4d_alloc,ev_p4d_free,ev_pgd_sync,ev_gua,
 *   alloc_p4d,alloc_pud,alloc_pmd,alloc_pte,free_p4d,free_pud,free_pmd,free_pte,
 *   page_clear,on
 * intr counts interrupts taken while the batch ran (its setup included): a batch with
 * intr=0 was not disturbed by the timer tick. aux: for faultthp the THPs the batch mapped
 * (AnonHugePages), for munmap-sparse-* the mappings placed above 47 bits, for fault-file
 * the minor faults taken in the timed part (getrusage: one per page; for lat-pagefault one
 * per fault-around window), for mmap-newpud the
 * mappings placed at the hint, for clear4k the pages that read back zero, else 0.
 * ev_*: events counted by the tpcount programs pinned at COUNTERS, read around the
 * timed part only (0 without -c); alloc_*, free_* and page_clear: page-table pages
 * allocated and freed per level and 4K pages cleared, counted the same way when the
 * counters are tpcount's "tables" kind (0 otherwise). The cost per operation is
 * (op_ns - empty_ns) / ops.
 * With -t, CONSUMER (consumer.h: tracefs:INSTANCE, tp_btf:DIR, raw_tp:DIR or tp:DIR) is
 * attached for the odd batches and detached for the even ones, so that the batches with
 * and without it interleave; on says which (always 0 without -t).
 * -s sleeps MS ms before each batch: the work a batch or a toggle leaves to kworkers and
 * RCU callbacks then runs in the pause, not in the next batch.
 * NOOP (default /tmp/p4dbench-noop) is the static binary exec runs.
 * The timed part of every printed batch is also marked for funcs.so (FUNCMARK_START()
 * and FUNCMARK_STOP(), analysis/funcs/funcmark.h), outside the two clock readings, so
 * that the per-function counts cover what the timing covers; elsewhere the marks are
 * NOPs that no timing sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "consumer.h"
#include "funcmark.h"
#include "p4d_layout.h"

#define HUGE_SIZE	(2UL << 20)
#define SPARSE_LEN	(64UL << 30)	/* 64 GiB: 64 PMD tables' worth, within one PUD table */
#define SPARSE_PAGES	64		/* touched, one per GiB: a PTE and a PMD table each */

struct sample {
	long long op_ns, empty_ns;
	long aux;
	struct tpcount_counts ev;
};

struct span {
	long long t;
	struct tpcount_counts c;
};

static int counters_fd = -1;
static const char *noop_path = "/tmp/p4dbench-noop";
/* The batch is printed (not a warm-up): mark its timed part for funcs.so. */
static bool marking;

/* The counters are read outside the two clock readings, so they cost nothing timed. */
static void op_begin(struct span *sp)
{
	counters_read(counters_fd, &sp->c);
	if (marking)
		FUNCMARK_START();
	sp->t = now_ns();
}

static void op_end(struct span *sp, struct sample *s)
{
	long long t = now_ns();
	struct tpcount_counts c;

	if (marking)
		FUNCMARK_STOP();
	counters_read(counters_fd, &c);
	s->op_ns += t - sp->t;
	counters_sub(&c, &sp->c);
	for (int i = 0; i < TPC_NR_COUNTERS; i++)
		s->ev.hits[i] += c.hits[i];
}

static void empty_begin(struct span *sp)
{
	sp->t = now_ns();
}

static void empty_end(struct span *sp, struct sample *s)
{
	s->empty_ns += now_ns() - sp->t;
}

/* Keeps the compiler from folding or removing an empty loop body. */
#define EMPTY_BODY()	__asm__ __volatile__("" ::: "memory")

/* The control of most operations: n turns of an empty loop, timed as empty_ns. */
static void time_empty_loop(long n, struct sample *s)
{
	struct span sp;

	empty_begin(&sp);
	for (long i = 0; i < n; i++)
		EMPTY_BODY();
	empty_end(&sp, s);
}

static void *map_anon(void *hint, size_t len, int extra_flags)
{
	void *p = mmap(hint, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);

	if (p == MAP_FAILED)
		die("mmap of %zu bytes: %s", len, strerror(errno));
	return p;
}

static char *align_up(char *p, unsigned long align)
{
	return (char *)(((unsigned long)p + align - 1) & ~(align - 1));
}

static void op_syscall(long n, struct sample *s)
{
	struct span sp;

	op_begin(&sp);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	op_end(&sp, s);
	time_empty_loop(n, s);
}

/* n pages from a 2M boundary: whole batches of 512 fill exactly one PTE table each. */
static void op_fault4k(long n, struct sample *s)
{
	size_t len = n * P4D_PAGE_SIZE + HUGE_SIZE;
	char *map = map_anon(NULL, len, 0);
	volatile char *p = align_up(map, HUGE_SIZE);
	struct span sp;

	/* The guest kernel has no madvise() (tinyconfig) and THP "always": turn THP off. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE): %s", strerror(errno));
	op_begin(&sp);
	for (long i = 0; i < n; i++)
		p[i * P4D_PAGE_SIZE] = 1;
	op_end(&sp, s);
	empty_begin(&sp);
	for (long i = 0; i < n; i++)
		p[i * P4D_PAGE_SIZE] = 2;
	empty_end(&sp, s);
	munmap(map, len);
	prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
}

/* AnonHugePages of this process, in huge pages. */
static long anon_huge_pages(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / (long)(HUGE_SIZE >> 10);
}

/*
 * fault-file: one read fault per page of a file, lmbench lat_pagefault's operation without
 * its fault-around (lat-pagefault, below, keeps it). A file whose pages are all in the page
 * cache (here tmpfs, where the page cache is the file) is mapped PROT_READ, MAP_SHARED,
 * and a first read of each page takes one read fault that finds the page and maps it: no
 * page is allocated or cleared, no copy-on-write can happen (unlike a MAP_PRIVATE write).
 *
 * Fault-around: on a read fault of a file mapping, do_read_fault() first maps every page
 * of the file that is already in the page cache within the aligned fault_around_bytes
 * window (default 64 KiB, 16 pages) of virtual addresses around the fault (->map_pages,
 * filemap_map_pages, tmpfs included). lat_pagefault's dense file therefore takes one
 * fault per 16 pages. The knob is global and root's, madvise() cannot turn it off, so the
 * file is laid out sparsely instead: data page i is file page 16 i and the pages between
 * are holes, never in the page cache. Any 16 consecutive pages of the mapping, aligned or
 * not, hold exactly one data page, so fault-around finds nothing more to map and each
 * touch is exactly one fault, served by the fault-around path (aux counts them). What is
 * left besides the faults: one PTE table per 32 data pages (2 MiB of mapping), allocated
 * and cleared inside the timed part, as lat_pagefault's loop allocates its own.
 *
 * The file is made once per process, its data pages written with pwrite() (so in the
 * page cache), and unlinked; every batch reads one byte of each data page in ascending
 * order (page_file_read).
 */
#define FILE_STRIDE	(16 * P4D_PAGE_SIZE)

/* A file in the page cache, read one byte per page: fault-file's and lat-pagefault's. */
struct page_file {
	const char *op;
	int fd;
	long pages;		/* pages read per batch */
	size_t len;		/* bytes mapped */
	size_t *at;		/* file offset of each page read, in reading order */
	unsigned long sum;	/* of the bytes read */
};

/* An unlinked file of len bytes in /tmp (tmpfs: the page cache is the file). */
static void page_file_open(struct page_file *f, long n, size_t len)
{
	char path[] = "/tmp/p4dbench-page-file.XXXXXX";

	f->fd = mkstemp(path);
	if (f->fd < 0)
		die("%s: cannot create %s: %s", f->op, path, strerror(errno));
	unlink(path);
	if (ftruncate(f->fd, len))
		die("%s: cannot size a file of %zu bytes: %s", f->op, len, strerror(errno));
	f->at = malloc(n * sizeof(*f->at));
	if (!f->at)
		die("%s: no memory for %ld pages", f->op, n);
	f->pages = n;
	f->len = len;
}

/* Write one page at off, read as the i-th page of every batch. */
static void page_file_put(struct page_file *f, long i, size_t off, const unsigned char *page)
{
	if (pwrite(f->fd, page, P4D_PAGE_SIZE, off) != (ssize_t)P4D_PAGE_SIZE)
		die("%s: cannot write the page at %zu: %s", f->op, off, strerror(errno));
	f->at[i] = off;
	f->sum += page[0];
}

static long minor_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage: %s", strerror(errno));
	return ru.ru_minflt;
}

/*
 * One batch: map the file, read one byte of each page in order (timed; aux: the faults
 * it took), read them again (the empty loop: the same loads, now without faults), check
 * the bytes, unmap.
 */
static void page_file_read(struct page_file *f, long n, struct sample *s)
{
	const volatile unsigned char *m;
	unsigned long sum = 0;
	struct span sp;
	long faults;

	if (n != f->pages)
		die("%s: batch %ld, but the file has %ld pages", f->op, n, f->pages);
	m = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (m == MAP_FAILED)
		die("%s: mmap of %zu bytes: %s", f->op, f->len, strerror(errno));
	faults = minor_faults();
	op_begin(&sp);
	for (long i = 0; i < n; i++)
		sum += m[f->at[i]];
	op_end(&sp, s);
	s->aux = minor_faults() - faults;
	empty_begin(&sp);
	for (long i = 0; i < n; i++)
		sum += m[f->at[i]];
	empty_end(&sp, s);
	if (sum != 2 * f->sum)
		die("%s: the bytes read are not the bytes written", f->op);
	munmap((void *)m, f->len);
}

static void op_fault_file(long n, struct sample *s)
{
	static struct page_file f = { .op = "fault-file", .fd = -1 };
	unsigned char page[P4D_PAGE_SIZE];

	if (f.fd < 0) {
		page_file_open(&f, n, n * FILE_STRIDE);
		for (long i = 0; i < n; i++) {
			/* Never 0: a hole read by mistake shows. */
			memset(page, i % 251 + 1, sizeof(page));
			page_file_put(&f, i, i * FILE_STRIDE, page);
		}
	}
	page_file_read(&f, n, s);
}

/*
 * lat-pagefault: the shape of lmbench's lat_pagefault as its documentation and AMD's
 * reproducer describe it (docs/costs.md: "lat_pagefault -N 100" on a 1 GB file, the
 * figure per page): a file whose pages are all in the page cache, mapped whole,
 * PROT_READ and MAP_SHARED, each page read once, in a random order. The first read in
 * each aligned fault_around_bytes window (default 64 KiB) faults, and do_fault_around()
 * maps every page of the window that is in the page cache: 16 pages per fault, whatever
 * the order. The figure is per page read: a sixteenth of a fault and its fault-around,
 * the PTE tables the faults allocate (one per 512 pages), and nothing of the mmap() and
 * munmap() around them. aux counts the faults.
 *
 * The file is filled with bytes from a fixed-seed generator; the order is a permutation
 * of the pages from the same generator, so that every kernel and boot reads them in the
 * same order.
 */
/* xorshift64: a fixed sequence, the same in every run. */
static unsigned long lat_random(void)
{
	static unsigned long x = 0x5deece66dUL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* The file of n pages lat_pagefault reads, and the order it reads them in. */
static void lat_file_make(struct page_file *f, long n)
{
	unsigned char page[P4D_PAGE_SIZE];

	page_file_open(f, n, n * P4D_PAGE_SIZE);
	for (long i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof(page); k += sizeof(unsigned long)) {
			unsigned long r = lat_random();

			memcpy(page + k, &r, sizeof(r));
		}
		page_file_put(f, i, i * P4D_PAGE_SIZE, page);
	}
	for (long i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		long j = lat_random() % (i + 1);
		size_t t = f->at[i];

		f->at[i] = f->at[j];
		f->at[j] = t;
	}
}

static void op_lat_pagefault(long n, struct sample *s)
{
	static struct page_file f = { .op = "lat-pagefault", .fd = -1 };

	if (f.fd < 0)
		lat_file_make(&f, n);
	page_file_read(&f, n, s);
}

/*
 * Unmap m (NULL: nothing mapped yet) and map the whole file again, as lmbench 3's
 * lat_pagefault does between two passes (src/lat_pagefault.c, benchmark() and
 * benchmark_mmap()): munmap(), mmap() PROT_READ and MAP_SHARED, msync(MS_INVALIDATE).
 */
static const volatile unsigned char *lat_remap(struct page_file *f,
					       const volatile unsigned char *m)
{
	if (m && munmap((void *)m, f->len))
		die("%s: munmap: %s", f->op, strerror(errno));
	m = mmap(NULL, f->len, PROT_READ, MAP_SHARED, f->fd, 0);
	if (m == MAP_FAILED)
		die("%s: mmap of %zu bytes: %s", f->op, f->len, strerror(errno));
	if (msync((void *)m, f->len, MS_INVALIDATE))
		die("%s: msync: %s", f->op, strerror(errno));
	return m;
}

/*
 * lat-pagefault-unmap: lmbench 3's lat_pagefault measure, where lat-pagefault keeps the
 * read loop alone. lmbench 3 times passes of the read loop, each followed by munmap() of
 * the mapping it populated and mmap() + msync() of the next, and subtracts passes of
 * munmap() + mmap() + msync() alone on mappings nothing touched; the difference per page
 * read is its figure. So it adds to lat-pagefault the zap of what the loop mapped (the
 * PTEs and the PTE tables freed) and the difference of an unmap of a populated mapping.
 * Here the timed part is a pass, the empty part one remap of the untouched mapping it
 * left; the mapping lives from batch to batch as lmbench's does. aux counts the faults.
 */
static void op_lat_pagefault_unmap(long n, struct sample *s)
{
	static struct page_file f = { .op = "lat-pagefault-unmap", .fd = -1 };
	static const volatile unsigned char *m;
	unsigned long sum = 0;
	struct span sp;
	long faults;

	if (f.fd < 0) {
		lat_file_make(&f, n);
		m = lat_remap(&f, NULL);
	}
	faults = minor_faults();
	op_begin(&sp);
	for (long i = 0; i < n; i++)
		sum += m[f.at[i]];
	m = lat_remap(&f, m);
	op_end(&sp, s);
	s->aux = minor_faults() - faults;
	empty_begin(&sp);
	m = lat_remap(&f, m);
	empty_end(&sp, s);
	if (sum != f.sum)
		die("%s: the bytes read are not the bytes written", f.op);
}

static void op_faultthp(long n, struct sample *s)
{
	size_t len = n * HUGE_SIZE + HUGE_SIZE;
	char *map = map_anon(NULL, len, 0);
	volatile char *p = align_up(map, HUGE_SIZE);
	struct span sp;

	op_begin(&sp);
	for (long i = 0; i < n; i++)
		p[i * HUGE_SIZE] = 1;
	op_end(&sp, s);
	empty_begin(&sp);
	for (long i = 0; i < n; i++)
		p[i * HUGE_SIZE] = 2;
	empty_end(&sp, s);
	s->aux = anon_huge_pages();
	munmap(map, len);
}

static void op_mmap(long n, struct sample *s)
{
	struct span sp;

	op_begin(&sp);
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, P4D_PAGE_SIZE))
			die("mmap/munmap: %s", strerror(errno));
	}
	op_end(&sp, s);
	time_empty_loop(n, s);
}

/*
 * mmap() at hint, touch, munmap(), n times. at_hint (a constant, so each caller gets its
 * own copy of the loop) counts the mappings placed at the hint into aux.
 */
static inline void map_touch_unmap(long n, struct sample *s, unsigned long hint,
				   bool at_hint)
{
	struct span sp;

	op_begin(&sp);
	for (long i = 0; i < n; i++) {
		volatile char *p = mmap((void *)hint, P4D_PAGE_SIZE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		if (at_hint)
			s->aux += (unsigned long)p == hint;
		p[0] = 1;
		if (munmap((void *)p, P4D_PAGE_SIZE))
			die("munmap: %s", strerror(errno));
	}
	op_end(&sp, s);
	time_empty_loop(n, s);
}

/* Region 1 of the 5-level address space: a P4D table allocated and freed each time. */
static void op_mmap_high(long n, struct sample *s)
{
	map_touch_unmap(n, s, 1UL << P4D_PGDIR_SHIFT_L5, false);
}

/*
 * An empty 512 GiB region below 47 bits: one PGD entry's span on 4-level paging, one P4D
 * entry's on 5-level. Nothing of a process lives there (the executable is at the bottom,
 * the heap right above it, the mmap area and the stack under 1 << 47), so a mapping there
 * needs a new PUD table, whose address range munmap() then frees whole.
 */
#define NEWPUD_HINT	(1UL << 46)

static void op_mmap_newpud(long n, struct sample *s)
{
	map_touch_unmap(n, s, NEWPUD_HINT, true);
}

/*
 * The instruction sequence of clear_page_rep (arch/x86/lib/clear_page_64.S) in user space.
 * TCG executes each iteration of a rep-prefixed instruction as one instruction, so under
 * --icount this is what one cleared page costs there. aux: the pages that read back zero.
 */
static void op_clear4k(long n, struct sample *s)
{
	size_t len = n * P4D_PAGE_SIZE;
	char *buf = map_anon(NULL, len, 0);
	struct span sp;

	memset(buf, 0xa5, len);		/* every page present before the timed part */
	op_begin(&sp);
	for (long i = 0; i < n; i++) {
		void *dst = buf + i * P4D_PAGE_SIZE;
		unsigned long words = P4D_PAGE_SIZE / 8;

		__asm__ __volatile__("rep stosq"
				     : "+D"(dst), "+c"(words)
				     : "a"(0UL)
				     : "memory");
	}
	op_end(&sp, s);
	time_empty_loop(n, s);
	for (long i = 0; i < n; i++) {
		const unsigned long *w = (const unsigned long *)(buf + i * P4D_PAGE_SIZE);
		unsigned long any = 0;

		for (size_t k = 0; k < P4D_PAGE_SIZE / 8; k++)
			any |= w[k];
		s->aux += !any;
	}
	munmap(buf, len);
}

static void reap(pid_t pid)
{
	int status;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("child %d did not exit 0 (status %#x)", pid, status);
}

static void op_fork(long n, struct sample *s)
{
	struct span sp;

	op_begin(&sp);
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		reap(pid);
	}
	op_end(&sp, s);
	time_empty_loop(n, s);
}

/*
 * n execs of the noop binary, each from a child that vfork() borrows the parent's mm for
 * (exec) or fork() copies it into (forkexec: what a shell does). The child only calls
 * execve() or _exit() in this frame, as vfork requires.
 */
static void spawn_noop(long n, struct sample *s, bool copy_mm)
{
	char *argv[] = { (char *)noop_path, NULL }, *envp[] = { NULL };
	struct span sp;

	op_begin(&sp);
	for (long i = 0; i < n; i++) {
		pid_t pid = copy_mm ? fork() : vfork();

		if (pid == 0) {
			execve(noop_path, argv, envp);
			_exit(127);
		}
		reap(pid);
	}
	op_end(&sp, s);
	time_empty_loop(n, s);
}

static void op_exec(long n, struct sample *s)
{
	spawn_noop(n, s, false);
}

static void op_forkexec(long n, struct sample *s)
{
	spawn_noop(n, s, true);
}

static void munmap_sparse(long n, struct sample *s, void *hint)
{
	const unsigned long stride = SPARSE_LEN / SPARSE_PAGES;
	struct span sp;

	/* Page tables down to the PTE level, not THPs (see op_fault4k). */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE): %s", strerror(errno));
	for (long i = 0; i < n; i++) {
		char *p = map_anon(hint, SPARSE_LEN, MAP_NORESERVE);

		s->aux += (unsigned long)p >= P4D_DEFAULT_MAP_WINDOW;
		for (int k = 0; k < SPARSE_PAGES; k++)
			p[k * stride] = 1;
		op_begin(&sp);
		if (munmap(p, SPARSE_LEN))
			die("munmap: %s", strerror(errno));
		op_end(&sp, s);
		empty_begin(&sp);
		empty_end(&sp, s);
	}
}

static void op_munmap_sparse_low(long n, struct sample *s)
{
	munmap_sparse(n, s, NULL);
}

/* Region 1 of the 5-level address space; a 4-level kernel ignores the hint. */
static void op_munmap_sparse_high(long n, struct sample *s)
{
	munmap_sparse(n, s, (void *)(1UL << P4D_PGDIR_SHIFT_L5));
}

static const struct op {
	const char *name;
	void (*run)(long n, struct sample *s);
	long batch;
} ops[] = {
	{ "syscall", op_syscall, 2000 },
	{ "fault4k", op_fault4k, 512 },
	{ "fault-file", op_fault_file, 512 },
	{ "lat-pagefault", op_lat_pagefault, 16384 },
	{ "lat-pagefault-unmap", op_lat_pagefault_unmap, 16384 },
	{ "faultthp", op_faultthp, 4 },
	{ "mmap", op_mmap, 200 },
	{ "mmap-high", op_mmap_high, 200 },
	{ "mmap-newpud", op_mmap_newpud, 200 },
	{ "clear4k", op_clear4k, 512 },
	{ "fork", op_fork, 4 },
	{ "exec", op_exec, 4 },
	{ "forkexec", op_forkexec, 4 },
	{ "munmap-sparse-low", op_munmap_sparse_low, 8 },
	{ "munmap-sparse-high", op_munmap_sparse_high, 8 },
};

static noreturn void usage(void)
{
	fprintf(stderr, "usage: swpath [-r REPS] [-w WARMUP] [-b BATCH] [-s MS] [-c COUNTERS]"
		" [-t CONSUMER] [-x NOOP] [-H] OP\nOP:");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		fprintf(stderr, " %s", ops[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long reps = 20, warmup = 1, batch = 0, settle_ms = 0;
	const char *counters = NULL;
	struct consumer *consumer = NULL;
	const struct op *op = NULL;
	int c, header = 0;

	while ((c = getopt(argc, argv, "r:w:b:s:c:t:x:H")) != -1) {
		switch (c) {
		case 'r': reps = parse_size(optarg, "REPS"); break;
		case 'w': warmup = parse_size(optarg, "WARMUP"); break;
		case 'b': batch = parse_size(optarg, "BATCH"); break;
		case 's': settle_ms = parse_size(optarg, "MS"); break;
		case 'c': counters = optarg; break;
		case 't': consumer = consumer_open(optarg); break;
		case 'x': noop_path = optarg; break;
		case 'H': header = 1; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || reps < 1)
		usage();
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(argv[optind], ops[i].name))
			op = &ops[i];
	if (!op)
		usage();
	if (!batch)
		batch = op->batch;
	if ((op->run == op_exec || op->run == op_forkexec) && access(noop_path, X_OK))
		die("no executable %s for exec (-x NOOP)", noop_path);
	counters_fd = counters_open(counters);

	if (header)
		printf("op,rep,ops,op_ns,empty_ns,intr,aux,"
		       "ev_p4d_alloc,ev_p4d_free,ev_pgd_sync,ev_gua,"
		       "alloc_p4d,alloc_pud,alloc_pmd,alloc_pte,"
		       "free_p4d,free_pud,free_pmd,free_pte,page_clear,on\n");
	for (long rep = -warmup; rep < reps; rep++) {
		struct sample s = { 0 };
		int on = consumer && (rep & 1);
		unsigned long long intr;

		if (on)
			consumer_attach(consumer);
		else if (consumer)
			consumer_detach(consumer);
		if (settle_ms) {
			struct timespec pause = { settle_ms / 1000, settle_ms % 1000 * 1000000 };

			nanosleep(&pause, NULL);
		}
		intr = interrupts_total();

		marking = rep >= 0;
		op->run(batch, &s);
		intr = interrupts_total() - intr;
		if (rep < 0)
			continue;
		printf("%s,%ld,%ld,%lld,%lld,%llu,%ld", op->name, rep, batch, s.op_ns,
		       s.empty_ns, intr, s.aux);
		for (int i = 0; i < TPC_NR_COUNTERS; i++)
			printf(",%llu", s.ev.hits[i]);
		printf(",%d\n", on);
		fflush(stdout);
	}
	if (consumer)
		consumer_detach(consumer);
	return 0;
}
