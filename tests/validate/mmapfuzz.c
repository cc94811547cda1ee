// SPDX-License-Identifier: GPL-2.0
/*
 * mmapfuzz: random mmap/mremap/munmap calls with hints over the whole 64-bit range, each
 * checked against what mmap(2), mremap(2), munmap(2) and
 * Documentation/x86/x86_64/5level-paging.rst say it may do.
 *
 *   mmapfuzz -m 5|4|no5lvl [-n CALLS] [-s SEED] [-l topdown|legacy] [-a] [-q] [-v] [-c N]
 *            [-r FILE] [-S] [-F] [-O]
 *
 *   -m  the paging mode the guest was booted in (no5lvl behaves as 4-level)
 *   -n  number of calls (default 100000)
 *   -s  seed (default: from the clock); printed first, with the line that replays a failure
 *   -l  address-space layout: topdown (default) or legacy (bottom-up, ADDR_COMPAT_LAYOUT)
 *   -a  keep address-space randomization (default off, so that a seed replays exactly)
 *   -q  no trace of the last calls on failure
 *   -v  print every call and its result (for replays)
 *   -c  compare with /proc/self/maps every N calls (default 500; 1 pins a replayed failure)
 *   -r  make the calls listed in FILE (one "mmap|munmap|mremap ARG..." a line, as a shrunk
 *       failure prints them) instead of random ones
 *   -S  do not shrink a failure
 *   -F  plant a fault (a munmap that succeeds after a 3-page mapping fails), to test the
 *       shrinker
 *   -O  plant a fault in the oracle (it takes an occupied hint for a free one), to test
 *       that a wrong prediction is reported
 *
 * After every call:
 *   - success: page aligned (2 MiB for hugetlb), inside [mmap_min_addr, TASK_SIZE_MAX),
 *     at or above 1 << 47 only when the hint asked for it (hint >= 1 << 47) or MAP_FIXED
 *     put it there, MAP_FIXED exact, a free and valid hint honoured, MAP_32BIT below
 *     2 GiB, nothing mapped before overlapped unless MAP_FIXED / MREMAP_FIXED replaced it,
 *     a fresh page reads zero, moved pages keep their contents, unmapped pages fault;
 *   - failure: the errno is one the man page documents for the call, and one that the
 *     arguments can cause (exactly the one they determine where they determine one:
 *     EINVAL for a zero length, ENOMEM for MAP_FIXED beyond the address space, EEXIST for
 *     MAP_FIXED_NOREPLACE over a mapping, EPERM below mmap_min_addr, ...).
 * Every 500 calls (-c) /proc/self/maps must match the model of what the calls mapped, and
 * every page the fuzzer wrote must still hold its value. Where this kernel departs from the
 * documentation, the departure is predicted exactly, counted and named in the summary
 * ("known deviations"), so that anything else still fails.
 *
 * It drops root (to uid 65534) so that mmap_min_addr and RLIMIT_MEMLOCK apply, and never
 * maps over, unmaps or moves anything it did not map itself.
 * A failure prints the seed's replay line, then replays shorter call sequences in fresh
 * processes until it finds a short one that fails the same way (delta debugging) and
 * prints that.
 * Exit status: 0 when every call behaved as documented, 1 at the first that did not (with
 * the seed and the last calls), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "p4d_layout.h"

#define PAGE		P4D_PAGE_SIZE
#define WINDOW		P4D_DEFAULT_MAP_WINDOW		/* 1 << 47 */
/* The kernel's DEFAULT_MAP_WINDOW: what nobody asked to be high ends at or below it. */
#define LOW_END		(WINDOW - PAGE)
#define HUGE_2M		(2UL << 20)
#define GB2		(1UL << 31)
#define STACK_GUARD_GAP	(256 * PAGE)	/* the kernel's default stack_guard_gap */
#define MEMLOCK_LIMIT	(8UL << 20)
#define MAX_REGIONS	8192
#define KEEP_REGIONS	1500		/* above this, calls lean to munmap */
#define MAX_CUT		512		/* regions one call may remove or move */
#define HISTORY		24

#ifndef MAP_HUGE_2MB	/* linux/mman.h, which clashes with sys/mman.h */
#define MAP_HUGE_2MB	(21 << MAP_HUGE_SHIFT)
#define MAP_HUGE_1GB	(30 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_UNINITIALIZED
#define MAP_UNINITIALIZED 0x4000000	/* asm-generic/mman-common.h; glibc leaves it out */
#endif
/* The flags MAP_SHARED_VALIDATE accepts for a file without mmap_supported_flags (mman.h). */
#define LEGACY_MAP_MASK (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | \
			 MAP_DENYWRITE | MAP_EXECUTABLE | MAP_UNINITIALIZED | MAP_GROWSDOWN | \
			 MAP_LOCKED | MAP_NORESERVE | MAP_POPULATE | MAP_NONBLOCK | MAP_STACK | \
			 MAP_HUGETLB | MAP_32BIT | MAP_HUGE_2MB | MAP_HUGE_1GB)

enum { R_FOREIGN = 1, R_HUGE = 2, R_SHARED = 4, R_GROWSDOWN = 8, R_LOCKED = 16, R_RW = 32 };

/* A mapped range of the model: the fuzzer's own, or foreign (mapped before it started). */
struct region {
	unsigned long start, end;
	unsigned int attr;
	unsigned long touched;		/* a page holding mark; 0 when none */
	unsigned long mark;
};

/* Sorted by address, never overlapping. */
static struct region regions[MAX_REGIONS];
static int nregions;

static unsigned long task_size, mmap_min_addr, totalram_pages;
static int level5, legacy, quiet, verbose, keep_aslr, no_shrink;
static const char *mode;	/* as given: a replay runs on the same kind of boot */
static const char *replay_file;	/* -r: the calls to make, instead of random ones */
/*
 * -F, the shrinker's own test: a planted fault, "a munmap that succeeds once a mapping of
 * exactly 3 pages was made", so that the shortest failing sequence is known: 2 calls.
 */
static int plant_fault, plant_armed;
/* -O, the oracle's own test: hint_free() forgets the mappings already there. */
static int plant_oracle;
/*
 * A MAP_FIXED that must split a hugetlb mapping off its 2 MiB grid fails. Up to 6.11
 * mmap_region() turned any failure to unmap into ENOMEM; since 6.12 the split's own error
 * (EINVAL from hugetlb's may_split) comes through vms_gather_munmap_vmas().
 */
static int fixed_split_err = ENOMEM;
/*
 * The overcommit heuristic of a MAP_FIXED that replaces mappings: up to 6.11 it charged
 * the whole length after unmapping; since 6.12 mmap_region() charges only what the
 * replaced mappings had not, so a length above RAM may pass.
 */
static int fixed_charges_net;
/*
 * hugetlb placement: up to 6.12, x86's own hugetlb_get_unmapped_area() rounded a hint
 * down to 2 MiB and returned it when free, even when it became 0, and ignored MAP_32BIT.
 * Since commit cc92882ee218 ("mm: drop hugetlb_get_unmapped_area{_*} functions") the
 * generic one hands the rounded hint to the arch code like any other: a hint rounded to 0
 * is no hint, and MAP_32BIT holds. (7.3 rounds up where the project's fix is missing:
 * tests/guest/hint-boundary.t; the fuzzer runs on the fixed kernel.)
 */
static int huge_generic;
/*
 * mremap: 7.3's check_mremap_params() refuses a new length beyond TASK_SIZE, a bad or
 * overlapping new address, before it looks the source up (EINVAL, not EFAULT, for a
 * source that is not mapped); 6.12 checks them in mremap_to(), after the lookup.
 */
static int mremap_params_first;
static unsigned long check_every = 500;
static unsigned long long seed;

static unsigned long n_mmap, n_munmap, n_mremap, n_ok, n_high, n_checks, n_probes;
static unsigned long n_lost;	/* failed MAP_FIXED / MREMAP_FIXED calls that unmapped the target */
static unsigned long n_err[160];

/* Behaviour of this kernel that departs from the documentation, predicted and counted. */
enum { Q_HUGE_LOW_HINT, Q_HUGE_32BIT, Q_FIXED_ERRVALUE, NQUIRKS };
static unsigned long n_quirk[NQUIRKS];
static const char *const quirk_names[NQUIRKS] = {
	/*
	 * x86 hugetlb_get_unmapped_area() (up to 6.12: huge_generic) rounds a hint down to
	 * 2 MiB: a hint below 2 MiB becomes address 0, which then fails mmap_min_addr with
	 * EPERM instead of being placed at or above it as mmap(2) says (root, with
	 * CAP_SYS_RAWIO, gets address 0).
	 */
	"hugetlb-hint-below-2M-fails-EPERM",
	/* x86 hugetlb_get_unmapped_area() ignores MAP_32BIT: the mapping may land above 2 GiB. */
	"hugetlb-ignores-MAP_32BIT",
	/*
	 * MAP_FIXED at an address in the last 4095 bytes of the 64-bit space: the arch code
	 * returns the address unchecked and get_unmapped_area() takes it for an error
	 * (IS_ERR_VALUE), so mmap fails with errno -addr (EPERM for -1) instead of ENOMEM.
	 */
	"MAP_FIXED-at-top-4095-bytes-returns-errno-minus-addr",
};

/* ---- random numbers: splitmix64, so one 64-bit seed replays the whole run ---- */

static unsigned long long rng_state;

static unsigned long rnd(void)
{
	unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned long below(unsigned long n)
{
	return n ? rnd() % n : 0;
}

static int chance(int percent)
{
	return (int)below(100) < percent;
}

static unsigned long page_up(unsigned long x)
{
	return (x + PAGE - 1) & ~(PAGE - 1);	/* wraps to 0 as PAGE_ALIGN() does */
}

static unsigned long huge_up(unsigned long x)
{
	return (x + HUGE_2M - 1) & ~(HUGE_2M - 1);
}

/*
 * The system calls themselves: glibc's mremap() passes new_address only with
 * MREMAP_FIXED, and the ABI under test is the kernel's.
 */
static unsigned long sys_mmap(unsigned long addr, unsigned long len, int prot, int flags)
{
	return syscall(SYS_mmap, addr, len, prot, flags, -1, 0);
}

static unsigned long sys_mremap(unsigned long old, unsigned long old_len, unsigned long new_len,
				int flags, unsigned long new_addr)
{
	return syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

static int sys_munmap(unsigned long addr, unsigned long len)
{
	return syscall(SYS_munmap, addr, len);
}

/* ---- failure reports ---- */

/* System calls issued so far: -n counts these, failures and the history name them. */
static unsigned long issued(void)
{
	return n_mmap + n_munmap + n_mremap;
}

static char history[HISTORY][200];
static unsigned long ncalls;	/* iterations: some make no call (see fuzz_munmap) */

static void __attribute__((format(printf, 1, 2))) record(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(history[(issued() - 1) % HISTORY], sizeof(history[0]), fmt, ap);
	va_end(ap);
	if (verbose && strstr(history[(issued() - 1) % HISTORY], " = "))
		printf("mmapfuzz: call %lu: %s\n", issued() - 1, history[(issued() - 1) % HISTORY]);
}

static void replay_line(void)
{
	printf("mmapfuzz: replay with: mmapfuzz -m %s -l %s -s %llu -n %lu\n",
	       mode, legacy ? "legacy" : "topdown", seed, issued());
}

static void shrink_failure(unsigned int kind);

/* The kind of a failure, the same in every run: a hash of the check's message format. */
static unsigned int failure_kind(const char *fmt)
{
	unsigned int h = 2166136261u;

	while (*fmt)
		h = (h ^ (unsigned char)*fmt++) * 16777619u;
	return h;
}

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	unsigned long last = issued() - 1;	/* the call just made */

	printf("mmapfuzz: FAIL kind=%08x at call %lu: ", failure_kind(fmt), last);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!quiet)
		for (unsigned long i = last >= HISTORY ? last - HISTORY + 1 : 0; i <= last; i++)
			printf("mmapfuzz:   call %lu: %s\n", i, history[i % HISTORY]);
	replay_line();
	fflush(stdout);
	if (!replay_file && !no_shrink)
		shrink_failure(failure_kind(fmt));
	exit(1);
}

static const char *errname(int err)
{
	static char unknown[24];
	const char *name = err ? strerrorname_np(err) : "success";

	if (name)
		return name;
	snprintf(unknown, sizeof(unknown), "errno %d", err);
	return unknown;
}

/* ---- the model ---- */

/* The first region that ends above addr (find_vma()), nregions when none. */
static int find(unsigned long addr)
{
	int lo = 0, hi = nregions;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (regions[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Does [start, end) meet a region (with any of attr, when attr is nonzero)? */
static int overlaps(unsigned long start, unsigned long end, unsigned int attr)
{
	if (end <= start)
		end = -1UL;	/* a range that wraps reaches the top */
	for (int i = find(start); i < nregions && regions[i].start < end; i++)
		if (!attr || (regions[i].attr & attr))
			return 1;
	return 0;
}

static struct region *containing(unsigned long addr)
{
	int i = find(addr);

	return i < nregions && regions[i].start <= addr ? &regions[i] : NULL;
}

static struct region *insert(struct region r)
{
	int i = find(r.start);

	if (nregions == MAX_REGIONS)
		fail("model full (%d regions)", MAX_REGIONS);
	if (r.touched < r.start || r.touched >= r.end)
		r.touched = 0;
	memmove(&regions[i + 1], &regions[i], (nregions - i) * sizeof(regions[0]));
	regions[i] = r;
	nregions++;
	return &regions[i];
}

/*
 * Remove [start, end) from the fuzzer's regions, splitting those it cuts. The removed
 * pieces go to out (up to max of them), in address order; returns their number.
 */
static int carve(unsigned long start, unsigned long end, struct region *out, int max)
{
	int n = 0, i = find(start);

	while (i < nregions && regions[i].start < end) {
		struct region r = regions[i], piece = r;

		if (r.attr & R_FOREIGN)
			fail("model: [%#lx, %#lx) would remove the foreign [%#lx, %#lx)", start, end,
			     r.start, r.end);
		memmove(&regions[i], &regions[i + 1], (nregions - i - 1) * sizeof(regions[0]));
		nregions--;
		if (r.start < start) {
			struct region left = r;

			left.end = piece.start = start;
			insert(left);
			i++;
		}
		if (r.end > end) {
			struct region right = r;

			right.start = piece.end = end;
			insert(right);	/* starts at end: the loop stops here */
		}
		if (piece.touched < piece.start || piece.touched >= piece.end)
			piece.touched = 0;
		if (out && n < max)
			out[n] = piece;
		n++;
	}
	return n < max ? n : max;
}

/* ---- pages: fresh ones read zero, written ones keep their mark, unmapped ones fault ---- */

static sigjmp_buf probe_env;
static volatile sig_atomic_t probing;

static void on_fault(int sig)
{
	if (probing)
		siglongjmp(probe_env, 1);
	signal(sig, SIG_DFL);
	printf("mmapfuzz: unexpected %s at call %lu\n", strsignal(sig), issued() - 1);
	replay_line();
	fflush(stdout);
	raise(sig);
}

/* Read a word; 0 when the access faults. */
static int probe(unsigned long addr, unsigned long *value)
{
	int ok = 0;

	probing = 1;
	if (!sigsetjmp(probe_env, 1)) {
		*value = *(volatile unsigned long *)addr;
		ok = 1;
	}
	probing = 0;
	n_probes++;
	return ok;
}

/*
 * A new private or new shared-object mapping of ours: a random page of it must read zero;
 * write a mark there. Half of them, to keep the page-fault cost under TCG in check; never
 * hugetlb ones (a page may be missing from the pool).
 */
static void touch_fresh(struct region *r)
{
	unsigned long page = r->start + below((r->end - r->start) / PAGE) * PAGE, v;

	if (!(r->attr & R_RW) || (r->attr & R_HUGE) || chance(50))
		return;
	if (!probe(page, &v))
		fail("fresh mapping [%#lx, %#lx): reading %#lx faults", r->start, r->end, page);
	if (v)
		fail("fresh mapping [%#lx, %#lx): %#lx reads %#lx, not zero", r->start, r->end,
		     page, v);
	r->mark = rnd() | 1;
	*(volatile unsigned long *)page = r->mark;
	r->touched = page;
}

static void check_mark(const struct region *r, unsigned long at, const char *what)
{
	unsigned long v;

	if (!probe(at, &v))
		fail("%s: page %#lx faults, it holds a mark", what, at);
	if (v != r->mark)
		fail("%s: page %#lx holds %#lx, wrote %#lx", what, at, v, r->mark);
}

static void check_marks(void)
{
	for (int i = 0; i < nregions; i++)
		if (regions[i].touched)
			check_mark(&regions[i], regions[i].touched, "mark check");
}

/*
 * Written pages that left the model fault, unless another mapping covers them now. Not
 * probed below a mapping that grows down: the fault would legitimately grow it there.
 */
static void check_gone(const struct region *gone, int n)
{
	unsigned long v, t;
	int next;

	for (int i = 0; i < n; i++) {
		t = gone[i].touched;
		next = find(t);
		if (!t || (next < nregions && (regions[next].start <= t ||
					       (regions[next].attr & R_GROWSDOWN))))
			continue;
		if (probe(t, &v))
			fail("unmapped page %#lx still reads %#lx", t, v);
	}
}

/* ---- /proc/self/maps against the model ---- */

static char maps_buf[4 << 20];

/* Read /proc/self/maps without stdio (stdio would allocate, and change the maps). */
static void read_maps(void)
{
	int fd = open("/proc/self/maps", O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		fail("/proc/self/maps: %s", strerror(errno));
	while ((n = read(fd, maps_buf + len, sizeof(maps_buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (len >= sizeof(maps_buf) - 1)
		fail("/proc/self/maps is larger than %zu bytes", sizeof(maps_buf));
	maps_buf[len] = 0;
}

/* The next line of maps_buf from *pos: its range, and whether it names "[stack]". */
static int next_line(char **pos, unsigned long *start, unsigned long *end, int *stack)
{
	char *p = *pos, *nl;

	if (!*p)
		return 0;
	*start = strtoul(p, &p, 16);
	*end = strtoul(p + 1, &p, 16);
	nl = strchr(p, '\n');
	if (!nl)
		nl = p + strlen(p);
	*stack = nl - p >= 7 && !memcmp(nl - 7, "[stack]", 7);
	*pos = *nl ? nl + 1 : nl;
	return 1;
}

/* The next range of maps_buf, adjacent lines merged; 0 at the end. */
static int next_merged(char **pos, unsigned long *start, unsigned long *end)
{
	unsigned long s, e;
	char *save;
	int stack;

	if (!next_line(pos, start, end, &stack))
		return 0;
	for (save = *pos; next_line(pos, &s, &e, &stack) && s == *end; save = *pos)
		*end = e;
	*pos = save;
	return 1;
}

/* The kernel's mappings must cover exactly what the model says, adjacent ones merged. */
static void check_maps(void)
{
	char *pos = maps_buf;
	unsigned long ks, ke, ms, me;
	int i = 0, more;

	read_maps();
	n_checks++;
	while ((more = next_merged(&pos, &ks, &ke)) || i < nregions) {
		ms = me = 0;
		if (i < nregions) {
			ms = regions[i].start;
			me = regions[i].end;
			while (++i < nregions && regions[i].start == me)
				me = regions[i].end;
		}
		if (!more || !me || ks != ms || ke != me)
			fail("/proc/self/maps has [%#lx, %#lx) where the calls made [%#lx, %#lx)",
			     more ? ks : 0, more ? ke : 0, ms, me);
	}
}

/* Everything mapped before the first call is foreign: never remapped or unmapped. */
static void snapshot_foreign(void)
{
	char *pos = maps_buf;
	unsigned long s, e;
	int stack;

	read_maps();
	while (next_line(&pos, &s, &e, &stack)) {
		/* [stack] grows down: hints below it keep its guard gap. */
		struct region r = { s, e, R_FOREIGN | (stack ? R_GROWSDOWN : 0), 0, 0 };

		insert(r);
	}
}

/* ---- expectations ---- */

/* Sets of errnos: EOPNOTSUPP is 95. */
typedef unsigned __int128 errset;
#define ERRBIT(e) ((errset)1 << (e))
/* The ERRORS sections of mmap(2) (with EOPNOTSUPP of MAP_SHARED_VALIDATE), mremap(2), munmap(2). */
#define MMAP_ERRORS (ERRBIT(EACCES) | ERRBIT(EAGAIN) | ERRBIT(EBADF) | ERRBIT(EEXIST) | \
		     ERRBIT(EINVAL) | ERRBIT(ENFILE) | ERRBIT(ENODEV) | ERRBIT(ENOMEM) | \
		     ERRBIT(EOVERFLOW) | ERRBIT(EPERM) | ERRBIT(ETXTBSY) | ERRBIT(EOPNOTSUPP))
#define MREMAP_ERRORS (ERRBIT(EAGAIN) | ERRBIT(EFAULT) | ERRBIT(EINVAL) | ERRBIT(ENOMEM) | \
		       ERRBIT(EPERM))
#define MUNMAP_ERRORS (ERRBIT(EINVAL) | ERRBIT(ENOMEM))

/*
 * What a call may do. The kernel checks in stages; the first check that must fail
 * decides the errno (want_err), and the checks before it that may fail (placement,
 * resources) add theirs (may_err). Built in the kernel's order with want() and may().
 */
struct expect {
	int want_err;
	errset may_err;
	int want_addr;		/* success must return addr */
	unsigned long addr;
	int quirk;		/* want_err is a known deviation (index + 1) */
};

static void want(struct expect *x, int err)
{
	if (!x->want_err)
		x->want_err = err;
}

static void may(struct expect *x, int err)
{
	if (!x->want_err)
		x->may_err |= ERRBIT(err);
}

static void check_error(const struct expect *x, int err, errset documented, const char *call)
{
	if ((err >= 128 || !(documented & ERRBIT(err))) && !(x->quirk && err == x->want_err))
		fail("%s failed with %s, not a documented error of the call", call, errname(err));
	if (err != x->want_err && !(x->may_err & ERRBIT(err))) {
		if (x->want_err)
			fail("%s failed with %s, the arguments call for %s", call, errname(err),
			     errname(x->want_err));
		fail("%s failed with %s, which these arguments cannot cause", call, errname(err));
	}
	if (x->quirk && err == x->want_err)
		n_quirk[x->quirk - 1]++;
	if (err < (int)(sizeof(n_err) / sizeof(n_err[0])))
		n_err[err]++;
}

/* round_hint_to_min() of mm/mmap.c: what an mmap hint becomes before placement. */
static unsigned long effective_hint(unsigned long hint)
{
	hint &= ~(PAGE - 1);
	if (hint && hint < mmap_min_addr)
		return page_up(mmap_min_addr);
	return hint;
}

/*
 * The rule as documented, not as the kernel codes it. 5level-paging.rst: "we are not
 * going to allocate virtual address space above 47-bit by default. But userspace can ask
 * for allocation from full address space by specifying hint address (with or without
 * MAP_FIXED) above 47-bits." mmap(2) lets the kernel take a hint to "a nearby page
 * boundary", so the hint asks when it, or the page boundary above it, is at or above
 * 1 << 47.
 */
static int asks_high(unsigned long hint)
{
	return hint >= WINDOW || page_up(hint) >= WINDOW;
}

/* Whether [addr, addr + len) allocates address space above 47 bits (at or above 1 << 47). */
static int reaches_high(unsigned long addr, unsigned long len)
{
	return addr + len > WINDOW;
}

/*
 * Is this (aligned) hint honoured? [hint, hint + len) must fit below end_limit, stay on
 * one side of the 47-bit boundary (5level-paging.rst; mmap_address_hint_valid()), and end
 * before the next mapping, or before its stack guard gap when that one grows down.
 */
static int hint_free(unsigned long hint, unsigned long len, unsigned long end_limit)
{
	unsigned long next;
	int i;

	if (len > end_limit || hint > end_limit - len)
		return 0;
	if ((hint > LOW_END) != (hint + len > LOW_END))
		return 0;
	i = find(hint);
	if (i == nregions || plant_oracle)
		return 1;
	next = regions[i].start;
	if (regions[i].attr & R_GROWSDOWN)	/* vm_start_gap(): the gap, clamped at 0 */
		next = next > STACK_GUARD_GAP ? next - STACK_GUARD_GAP : 0;
	return hint + len <= next;
}

/*
 * The checks every successful placement gets; window: apply the 47-bit rule to hint, the
 * address the caller gave.
 */
static void check_placement(unsigned long addr, unsigned long len, unsigned long hint,
			    int window, int huge, const char *call)
{
	if (addr & (PAGE - 1))
		fail("%s returned %#lx, not page aligned", call, addr);
	if (huge && (addr & (HUGE_2M - 1)))
		fail("%s returned %#lx for hugetlb, not 2 MiB aligned", call, addr);
	if (addr < mmap_min_addr || addr + len > task_size || addr + len < addr)
		fail("%s gave [%#lx, %#lx), outside [mmap_min_addr %#lx, TASK_SIZE_MAX %#lx)",
		     call, addr, addr + len, mmap_min_addr, task_size);
	if (window && reaches_high(addr, len) && !asks_high(hint))
		fail("%s gave [%#lx, %#lx), above 47 bits; hint %#lx did not ask",
		     call, addr, addr + len, hint);
	if (reaches_high(addr, len))
		n_high++;
}

/* ---- the calls made, as data: replayed (-r) and shrunk after a failure ---- */

enum { OP_MMAP, OP_MUNMAP, OP_MREMAP };
static const char *const op_names[] = { "mmap", "munmap", "mremap" };
static const int op_args[] = { 4, 2, 5 };

struct call {
	int op;
	unsigned long arg[5];
};

/*
 * Allocated once, before the address space is snapshotted: a mapping that appeared later
 * would be one the model does not know. Calls past its end are not logged (no shrinking).
 * Its size is the same whatever -n says: a log sized by -n sat in the heap for a short
 * run and in a mapping of its own for a long one, so the replay line of a failing run
 * (a shorter -n) placed the calls in another layout and could pass.
 */
#define CALL_LOG_BYTES (8ul << 20)	/* 174762 calls: -n 100000 logs at most 150064 */
static struct call *calls_made;
static size_t ncalls_made, calls_cap;
static int log_full;

static void alloc_call_log(void)
{
	calls_made = mmap(NULL, CALL_LOG_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (calls_made == MAP_FAILED) {
		printf("mmapfuzz: no memory for a log of %lu bytes\n", CALL_LOG_BYTES);
		exit(1);
	}
	calls_cap = CALL_LOG_BYTES / sizeof(*calls_made);
}

static void log_call(struct call c)
{
	if (ncalls_made < calls_cap)
		calls_made[ncalls_made++] = c;
	else
		log_full = 1;
}

static void print_call(FILE *f, const char *prefix, const struct call *c)
{
	fprintf(f, "%s%s", prefix, op_names[c->op]);
	for (int i = 0; i < op_args[c->op]; i++)
		fprintf(f, " %#lx", c->arg[i]);
	fprintf(f, "\n");
}

/* ---- arguments ---- */

/* At, after or inside an existing mapping, or just below one. */
static unsigned long near_region(void)
{
	struct region *r = &regions[below(nregions)];

	switch (below(4)) {
	case 0: return r->start;
	case 1: return r->end;
	case 2: return r->start + below((r->end - r->start) / PAGE) * PAGE;
	default: return r->start - PAGE * (1 + below(16));
	}
}

/* A hint or address: the paging modes' edges, random values, near existing mappings. */
static unsigned long pick_addr(void)
{
	static const unsigned long edges[] = {
		0, 1, PAGE - 1, PAGE, 2 * PAGE, HUGE_2M - PAGE, HUGE_2M, GB2 - PAGE, GB2,
		1UL << 32, WINDOW - 2 * PAGE, WINDOW - PAGE, WINDOW - 1, WINDOW, WINDOW + 1,
		WINDOW + PAGE, WINDOW + HUGE_2M, 1UL << 48, (1UL << 56) - 2 * PAGE,
		(1UL << 56) - PAGE, (1UL << 56) - 1, 1UL << 56, (1UL << 56) + PAGE, 1UL << 57,
		(1UL << 63) - PAGE, 1UL << 63, 0xff00000000000000UL, 0xffff800000000000UL,
		-HUGE_2M, -PAGE, -1UL,
	};
	unsigned long a;

	switch (below(20)) {
	case 0 ... 4:	/* no hint */
		return 0;
	case 5 ... 9:	/* an edge, sometimes a few pages off */
		a = edges[below(sizeof(edges) / sizeof(edges[0]))];
		if (chance(30))
			a += (below(9) - 4) * PAGE;
		return a;
	case 10 ... 11:	/* any 64-bit value: mostly non-canonical */
		return rnd();
	case 12 ... 15:	/* log-uniform over [2^12, 2^64) */
		a = 1UL << (12 + below(52));
		a += below(a);
		return chance(80) ? a & ~(PAGE - 1) : a;
	default:
		return near_region();
	}
}

static unsigned long pick_len(void)
{
	static const unsigned long edges[] = {
		0, 1, PAGE - 1, PAGE + 1, HUGE_2M, HUGE_2M + PAGE, WINDOW - PAGE, WINDOW,
		(1UL << 56) - PAGE, 1UL << 56, 1UL << 63, -PAGE, -1UL,
	};
	unsigned long l;

	switch (below(20)) {
	case 0 ... 10:
		return PAGE * (1 + below(16));
	case 11 ... 16:	/* 4 KiB .. 512 TiB, log-uniform */
		l = 1UL << (12 + below(37));
		return (l + below(l)) & ~(PAGE - 1);
	case 17:
		return 1 + below(64 * PAGE);	/* unaligned */
	default:
		return edges[below(sizeof(edges) / sizeof(edges[0]))];
	}
}

/* mm->locked_vm: the pages of VM_LOCKED mappings (hugetlb ones are never counted). */
static unsigned long locked_bytes(void)
{
	unsigned long n = 0;

	for (int i = 0; i < nregions; i++)
		if (regions[i].attr & R_LOCKED)
			n += regions[i].end - regions[i].start;
	return n;
}

/* Does [start, end) cut a hugetlb region where it cannot be split (not 2 MiB aligned)? */
static int cuts_huge(unsigned long start, unsigned long end)
{
	for (int i = find(start); i < nregions && regions[i].start < end; i++) {
		struct region *r = &regions[i];

		if ((r->attr & R_HUGE) &&
		    ((start > r->start && (start & (HUGE_2M - 1))) ||
		     (end < r->end && (end & (HUGE_2M - 1)))))
			return 1;
	}
	return 0;
}

/*
 * After a failed call that may have unmapped part of what it was to replace (MAP_FIXED
 * and MREMAP_FIXED unmap the target before the steps that can still fail, a shrinking
 * move the source tail), take the kernel's word for [start, end).
 */
static void resync(unsigned long start, unsigned long end)
{
	char *pos = maps_buf;
	unsigned long s, e, cur = start;
	int stack;

	int lost = 0;

	if (end <= start)
		end = -1UL;
	read_maps();
	while (cur < end && next_line(&pos, &s, &e, &stack)) {
		if (e <= cur)
			continue;
		if (s > cur)
			lost += carve(cur, s < end ? s : end, NULL, 0);
		cur = e;
	}
	if (cur < end)
		lost += carve(cur, end, NULL, 0);
	n_lost += lost > 0;
}

/* Whether a line of /proc/self/maps (as read_maps() last read it) meets [start, end). */
static int maps_meet(unsigned long start, unsigned long end)
{
	char *pos = maps_buf;
	unsigned long s, e;
	int stack;

	while (next_line(&pos, &s, &e, &stack))
		if (s < end && e > start)
			return 1;
	return 0;
}

/*
 * What /proc/self/maps holds in [start, end) becomes foreign, left alone from then on:
 * hugetlb regions whole, so that no boundary lands off their 2 MiB grid, and growing down
 * when a region there was, so that its guard gap stays.
 */
static void adopt_foreign(unsigned long start, unsigned long end)
{
	unsigned int growsdown = 0;
	char *pos = maps_buf;
	unsigned long s, e;
	int stack;

	for (int i = find(start); i < nregions && regions[i].start < end; i++) {
		growsdown |= regions[i].attr & R_GROWSDOWN;
		if (!(regions[i].attr & R_HUGE))
			continue;
		if (regions[i].start < start)
			start = regions[i].start;
		if (regions[i].end > end)
			end = regions[i].end;
	}
	carve(start, end, NULL, 0);
	read_maps();
	while (next_line(&pos, &s, &e, &stack))
		if (s < end && e > start)
			insert((struct region){ s > start ? s : start, e < end ? e : end,
						R_FOREIGN | growsdown, 0, 0 });
}

/*
 * After a vma-by-vma move (moves_by_vma()) that failed: the vmas before the one that
 * failed have moved by delta, the rest have not, and the error does not say which. A
 * region whose source is unmapped now has moved (nothing else maps there meanwhile).
 * With MREMAP_DONTUNMAP the sources stay mapped and cannot tell: both ranges are adopted.
 */
static void model_failed_move(unsigned long old, unsigned long ol, unsigned long new_addr,
			      unsigned long nl, int flags)
{
	static struct region src[MAX_CUT];
	unsigned long delta = new_addr - old;
	int n;

	n_lost++;
	if (flags & MREMAP_DONTUNMAP) {
		adopt_foreign(old, old + ol);
		adopt_foreign(new_addr, new_addr + nl);
		return;
	}
	/* The moved parts first, then the model: carving what stayed could split a hugetlb one. */
	read_maps();
	n = 0;
	for (int i = find(old); i < nregions && regions[i].start < old + ol && n < MAX_CUT; i++) {
		unsigned long start = regions[i].start > old ? regions[i].start : old;
		unsigned long end = regions[i].end < old + ol ? regions[i].end : old + ol;

		if (!maps_meet(start, end))
			src[n++] = (struct region){ start, end, 0, 0, 0 };
	}
	for (int i = 0; i < n; i++) {
		struct region r;

		if (carve(src[i].start, src[i].end, &r, 1) != 1)
			continue;
		r.start += delta;
		r.end += delta;
		if (r.touched)
			r.touched += delta;
		carve(r.start, r.end, NULL, 0);
		insert(r);
	}
	resync(new_addr, new_addr + nl);	/* targets unmapped before the failure */
}

/* ---- mmap ---- */

static int pick_mmap_flags(unsigned long len)
{
	int flags = MAP_ANONYMOUS;

	/* Mostly private, some shared, a few invalid types (0, MAP_SHARED_VALIDATE). */
	flags |= chance(70) ? MAP_PRIVATE : chance(85) ? MAP_SHARED :
		 chance(50) ? 0 : MAP_SHARED_VALIDATE;
	if (chance(15))
		flags |= MAP_FIXED;
	if (chance(10))
		flags |= MAP_FIXED_NOREPLACE;
	if (chance(30))
		flags |= MAP_NORESERVE;
	if (chance(6))
		flags |= MAP_HUGETLB;
	if (chance(4))
		flags |= MAP_32BIT;
	if (chance(2))
		flags |= MAP_GROWSDOWN;
	if (chance(5))
		flags |= MAP_STACK;
	if (chance(5) && len <= 16 * PAGE)
		flags |= MAP_POPULATE;		/* populating a big mapping would eat the guest */
	if (chance(3) && len <= 64 * PAGE)
		flags |= MAP_LOCKED;
	return flags;
}

/* One mmap with these arguments, checked. */
static void call_mmap(unsigned long hint, unsigned long len, int prot, int flags)
{
	unsigned long lenh, alen, ehint, addr;
	int type = flags & MAP_SHARED_VALIDATE;
	int huge = flags & MAP_HUGETLB, fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE), err;
	struct expect x = { 0 };
	char call[200];

	log_call((struct call){ OP_MMAP, { hint, len, prot, flags } });
	/* ksys_mmap_pgoff() rounds a hugetlb length up to 2 MiB, do_mmap() any to a page. */
	lenh = huge ? huge_up(len) : len;
	alen = page_up(lenh);
	ehint = fixed ? hint : effective_hint(hint);

	/* MAP_FIXED never replaces what the fuzzer did not map: ask NOREPLACE instead. */
	if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE) && alen &&
	    overlaps(hint, hint + alen, R_FOREIGN))
		flags = (flags & ~MAP_FIXED) | MAP_FIXED_NOREPLACE;
	snprintf(call, sizeof(call), "mmap(%#lx, %#lx, %d, %#x)", hint, len, prot, flags);
	n_mmap++;
	record("%s", call);

	/* do_mmap() and get_unmapped_area(), in the kernel's order. */
	if (!lenh)
		want(&x, EINVAL);
	if (!alen || alen > task_size)
		want(&x, ENOMEM);
	if (fixed) {
		if (huge && (hint & (HUGE_2M - 1)))
			want(&x, EINVAL);	/* prepare_hugepage_range() */
		if (hint >= -4095UL && !x.want_err) {
			want(&x, (int)-hint);
			x.quirk = Q_FIXED_ERRVALUE + 1;
		}
		if (hint > task_size - alen)
			want(&x, ENOMEM);	/* beyond the address space */
		if (hint & (PAGE - 1))
			want(&x, EINVAL);
		if (hint < mmap_min_addr)
			want(&x, EPERM);	/* security_mmap_addr() */
		x.want_addr = 1;
		x.addr = hint;
	} else {
		/* The hint path: hugetlb rounds it down to 2 MiB; MAP_32BIT searches below 2 GiB. */
		unsigned long h = huge ? ehint & ~(HUGE_2M - 1) : ehint;
		unsigned long end = (!huge || huge_generic) && (flags & MAP_32BIT) ? GB2 : task_size;

		if (ehint && (h || !huge_generic) && hint_free(h, alen, end)) {
			if (h < mmap_min_addr) {
				want(&x, EPERM);
				x.quirk = Q_HUGE_LOW_HINT + 1;
			}
			x.want_addr = 1;
			x.addr = h;
		} else {
			may(&x, ENOMEM);	/* no free range of that size */
		}
	}
	if ((flags & MAP_FIXED_NOREPLACE) && overlaps(hint, hint + alen, 0))
		want(&x, EEXIST);
	/* mlock_future_check(): RLIMIT_MEMLOCK, counted before MAP_FIXED unmaps anything. */
	if ((flags & MAP_LOCKED) && locked_bytes() + alen > MEMLOCK_LIMIT)
		want(&x, EAGAIN);
	/* The mapping type. */
	if (huge && type == MAP_SHARED_VALIDATE && (flags & ~LEGACY_MAP_MASK))
		want(&x, EOPNOTSUPP);
	if (type == 0 || (!huge && type == MAP_SHARED_VALIDATE))
		want(&x, EINVAL);
	if ((flags & MAP_GROWSDOWN) && (huge || type != MAP_PRIVATE))
		want(&x, EINVAL);
	/* mmap_region(): unmapping under MAP_FIXED, then commit accounting. */
	if ((flags & MAP_FIXED) && cuts_huge(hint, hint + alen))
		may(&x, fixed_split_err);	/* a hugetlb mapping splits only at 2 MiB */
	if (!huge && !(flags & MAP_NORESERVE) && (type != MAP_PRIVATE || (prot & PROT_WRITE)) &&
	    alen / PAGE > totalram_pages) {
		/* overcommit heuristic: no mapping larger than RAM */
		if (fixed_charges_net && (flags & MAP_FIXED) && overlaps(hint, hint + alen, 0))
			may(&x, ENOMEM);
		else
			want(&x, ENOMEM);
	}
	if (huge && !(flags & MAP_NORESERVE))
		may(&x, ENOMEM);	/* the huge page pool is short */

	addr = sys_mmap(hint, len, prot, flags);
	err = addr == (unsigned long)MAP_FAILED ? errno : 0;
	if (err) {
		record("%s = %s", call, errname(err));
		check_error(&x, err, MMAP_ERRORS, call);
		if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE) && err == ENOMEM &&
		    alen && hint + alen > hint)
			resync(hint, hint + alen);
		return;
	}
	record("%s = %#lx", call, addr);
	if (x.want_err)
		fail("%s returned %#lx; the arguments call for %s", call, addr, errname(x.want_err));
	check_placement(addr, alen, hint, !fixed, huge, call);
	if (x.want_addr && addr != x.addr)
		fail("%s returned %#lx; %s %#lx", call, addr,
		     fixed ? "MAP_FIXED asked for" : "the free, valid hint was", x.addr);
	if (!fixed && overlaps(addr, addr + alen, 0))
		fail("%s returned [%#lx, %#lx), over an existing mapping", call, addr, addr + alen);
	if ((flags & MAP_32BIT) && !fixed && addr + alen > GB2) {
		if (!huge || huge_generic)
			fail("%s returned [%#lx, %#lx): MAP_32BIT, above 2 GiB", call, addr,
			     addr + alen);
		n_quirk[Q_HUGE_32BIT]++;
	}
	n_ok++;
	plant_armed |= plant_fault && alen == 3 * PAGE;

	struct region gone[MAX_CUT], r = { addr, addr + alen, 0, 0, 0 };
	int ngone = carve(addr, addr + alen, gone, MAX_CUT);

	r.attr = (huge ? R_HUGE : 0) | (type & MAP_SHARED ? R_SHARED : 0) |
		 (flags & MAP_GROWSDOWN ? R_GROWSDOWN : 0) |
		 (flags & MAP_LOCKED && !huge ? R_LOCKED : 0) |
		 ((prot & (PROT_READ | PROT_WRITE)) == (PROT_READ | PROT_WRITE) ? R_RW : 0);
	touch_fresh(insert(r));
	check_gone(gone, ngone);
}

static void fuzz_mmap(void)
{
	unsigned long hint = pick_addr(), len = pick_len();
	int prot = below(8);

	call_mmap(hint, len, prot, pick_mmap_flags(len));
}

/* ---- munmap ---- */

/* One munmap with these arguments, checked; none when it would unmap what is not ours. */
static void call_munmap(unsigned long addr, unsigned long len)
{
	unsigned long end = addr + page_up(len);
	struct expect x = { 0 };
	struct region gone[MAX_CUT];
	char call[120];
	int err, ngone;

	log_call((struct call){ OP_MUNMAP, { addr, len } });
	/* do_mas_munmap(): alignment and range, then splitting. */
	if ((addr & (PAGE - 1)) || addr > task_size || len > task_size - addr || end == addr)
		want(&x, EINVAL);
	else if (overlaps(addr, end, R_FOREIGN))
		return;		/* it would unmap what is not ours */
	else if (cuts_huge(addr, end))
		want(&x, EINVAL);	/* hugetlb vmas split only at 2 MiB */

	snprintf(call, sizeof(call), "munmap(%#lx, %#lx)", addr, len);
	n_munmap++;
	record("%s", call);
	err = sys_munmap(addr, len) ? errno : 0;
	record("%s = %s", call, errname(err));
	if (err) {
		check_error(&x, err, MUNMAP_ERRORS, call);
		return;
	}
	if (x.want_err)
		fail("%s succeeded; the arguments call for %s", call, errname(x.want_err));
	if (plant_armed)
		fail("%s succeeded after a 3-page mapping (the planted fault of -F)", call);
	n_ok++;
	ngone = carve(addr, end, gone, MAX_CUT);
	check_gone(gone, ngone);
}

static void fuzz_munmap(void)
{
	unsigned long addr, len;

	if (chance(75)) {
		/* One of ours: whole, part of it, or on into the next ones. */
		struct region *r = &regions[below(nregions)];

		if (r->attr & R_FOREIGN)
			return;
		addr = r->start + (chance(60) ? 0 : below((r->end - r->start) / PAGE) * PAGE);
		len = chance(60) ? r->end - addr : PAGE * (1 + below(64));
		if (chance(10))
			len = pick_len();
	} else {
		addr = pick_addr();
		len = pick_len();
	}
	call_munmap(addr, len);
}

/* ---- mremap ---- */

static int pick_mremap_flags(void)
{
	switch (below(20)) {
	case 0 ... 5: return 0;
	case 6 ... 12: return MREMAP_MAYMOVE;
	case 13 ... 16: return MREMAP_MAYMOVE | MREMAP_FIXED;
	case 17 ... 18: return MREMAP_MAYMOVE | MREMAP_DONTUNMAP;
	default: return below(16);	/* with invalid bits or combinations */
	}
}

/*
 * 7.3 moves an MREMAP_FIXED mremap of unchanged (page-aligned) length vma by vma
 * (remap_move()): every vma in the source range, the gaps between them kept, each one
 * unmapping only its own target. 6.12 moves one vma and unmaps the whole target.
 */
static int moves_by_vma(unsigned long old_len, unsigned long new_len, int flags)
{
	return mremap_params_first && (flags & MREMAP_FIXED) && page_up(old_len) == page_up(new_len);
}

/*
 * A vma-by-vma move unmaps each source vma's slice of the target before it places that
 * vma (7.3's mremap_to(), mm/mremap.c:1518, before vrm_set_new_addr() asks
 * get_unmapped_area(), :970): a slice boundary inside a hugetlb region of the target
 * fails the whole call with EINVAL, before any error the whole target would get. The
 * model's boundaries include every vma's (the kernel may have merged some: a possible
 * EINVAL, no more).
 */
static int slices_cut_huge(unsigned long old, unsigned long ol, unsigned long new_addr)
{
	for (int i = find(old); i < nregions && regions[i].start < old + ol; i++) {
		unsigned long from = regions[i].start, to = regions[i].end;

		if (from > old && cuts_huge(new_addr + (from - old), new_addr + (from - old)))
			return 1;
		if (to < old + ol && cuts_huge(new_addr + (to - old), new_addr + (to - old)))
			return 1;
	}
	return 0;
}

/* The model after a successful mremap that moved [old, old + ol) to ret. */
static void model_move(unsigned long old, unsigned long ol, unsigned long nl,
		       unsigned long ret, int flags, const char *call)
{
	static struct region moved[MAX_CUT], gone[MAX_CUT];
	unsigned long keep = nl < ol ? nl : ol, delta = ret - old;
	unsigned int last_attr = 0;
	int n, ngone = 0;

	if ((flags & MREMAP_FIXED) && !moves_by_vma(ol, nl, flags))
		ngone = carve(ret, ret + nl, gone, MAX_CUT);
	if (ol > keep)
		ngone += carve(old + keep, old + ol, gone + ngone, MAX_CUT - ngone);
	n = carve(old, old + keep, moved, MAX_CUT);
	for (int i = 0; i < n && moves_by_vma(ol, nl, flags); i++)
		ngone += carve(moved[i].start + delta, moved[i].end + delta, gone + ngone,
			       MAX_CUT - ngone);
	for (int i = 0; i < n; i++) {
		struct region r = moved[i];

		if (flags & MREMAP_DONTUNMAP) {
			/* The old range stays mapped, unlocked; private pages left it. */
			struct region stay = r;

			stay.attr &= ~R_LOCKED;
			if (!(stay.attr & R_SHARED))
				stay.touched = 0;
			insert(stay);
		}
		last_attr = r.attr;
		r.start += delta;
		r.end += delta;
		if (r.touched)
			r.touched += delta;
		if (overlaps(r.start, r.end, 0))
			fail("%s: the moved [%#lx, %#lx) lands on a mapping", call, r.start, r.end);
		if (r.touched)
			check_mark(insert(r), r.touched, call);
		else
			insert(r);
	}
	/* Their old addresses are unmapped now (DONTUNMAP aside: those stay mapped). */
	if (!(flags & MREMAP_DONTUNMAP))
		check_gone(moved, n);
	if (nl > keep) {
		/* Growth: the extension is new. A shared one lies beyond the object: not touched. */
		struct region *r = insert((struct region){ ret + keep, ret + nl, last_attr, 0, 0 });

		if (!(r->attr & R_SHARED))
			touch_fresh(r);
	}
	check_gone(gone, ngone);
}

/* One mremap with these arguments, checked. */
static void call_mremap(unsigned long old, unsigned long old_len, unsigned long new_len,
			int flags, unsigned long new_addr)
{
	unsigned long ol, nl, ret;
	struct region *src;
	int err, huge, moved, foreign;
	struct expect x = { 0 };
	char call[200];

	log_call((struct call){ OP_MREMAP, { old, old_len, new_len, flags, new_addr } });
	src = containing(old);
	huge = src && (src->attr & R_HUGE);
	ol = huge ? huge_up(page_up(old_len)) : page_up(old_len);
	nl = huge ? huge_up(page_up(new_len)) : page_up(new_len);
	foreign = overlaps(old, old + ol, R_FOREIGN) ||
		  ((flags & MREMAP_FIXED) && overlaps(new_addr, new_addr + nl, R_FOREIGN));

	/* sys_mremap(): the arguments, then the source vma. */
	if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		want(&x, EINVAL);
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		want(&x, EINVAL);
	/* 7.3 compares the lengths page-aligned, 6.12 as passed. */
	if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) ||
	    (mremap_params_first ? page_up(old_len) != page_up(new_len) : old_len != new_len)))
		want(&x, EINVAL);
	if (old & (PAGE - 1))
		want(&x, EINVAL);
	if (!page_up(new_len))
		want(&x, EINVAL);
	if (mremap_params_first) {
		unsigned long pl = page_up(new_len);

		if (pl > task_size)
			want(&x, EINVAL);
		if ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) &&
		    (new_addr > task_size - pl || (new_addr & (PAGE - 1)) ||
		     (old + page_up(old_len) > new_addr && new_addr + pl > old)))
			want(&x, EINVAL);
	}
	if (!x.want_err && foreign)
		return;		/* it could move or unmap what is not ours */
	if (!src)
		want(&x, EFAULT);
	if (huge && ((old & (HUGE_2M - 1)) || (new_addr & (HUGE_2M - 1)) || nl > ol))
		want(&x, EINVAL);	/* hugetlb: aligned, and never grown */
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		/* mremap_to() */
		if ((new_addr & (PAGE - 1)) || nl > task_size || new_addr > task_size - nl)
			want(&x, EINVAL);	/* new_address invalid: beyond the address space */
		if (old + ol > new_addr && new_addr + nl > old)
			want(&x, EINVAL);	/* the ranges overlap */
		if (flags & MREMAP_FIXED) {
			if (cuts_huge(new_addr, new_addr + nl) ||
			    (moves_by_vma(old_len, new_len, flags) && slices_cut_huge(old, ol, new_addr)))
				may(&x, EINVAL);
			x.want_addr = 1;
			x.addr = new_addr;
		}
		if (ol > nl && (old + ol > task_size || old + ol < old || cuts_huge(old + nl, old + ol)))
			may(&x, EINVAL);	/* unmapping the source tail */
		may(&x, EFAULT);	/* the source range spans more than one vma */
		if (!old_len)
			may(&x, EINVAL);	/* duplicating a private mapping */
		if (huge && (flags & MREMAP_DONTUNMAP))
			want(&x, EINVAL);	/* hugetlb vmas are VM_DONTEXPAND */
		if (src && (src->attr & R_LOCKED))
			may(&x, EAGAIN);
		if ((flags & MREMAP_FIXED) && new_addr < mmap_min_addr)
			want(&x, EPERM);	/* security_mmap_addr() */
		if (moves_by_vma(old_len, new_len, flags) && src && src->end < old + ol)
			may(&x, EINVAL);	/* a later vma refuses its target (hugetlb: 2 MiB) */
		may(&x, ENOMEM);	/* placement, the map count, the move */
	} else if (ol >= nl) {
		if (ol > nl && (old + ol > task_size || old + ol < old || cuts_huge(old + nl, old + ol)))
			may(&x, EINVAL);	/* unmapping the tail */
	} else {
		may(&x, EFAULT);	/* the source range spans more than one vma */
		may(&x, EINVAL);	/* duplicating a private mapping */
		if (src && (src->attr & R_LOCKED))
			may(&x, EAGAIN);
		may(&x, ENOMEM);	/* cannot grow in place, no room to move, accounting */
	}

	snprintf(call, sizeof(call), "mremap(%#lx, %#lx, %#lx, %d, %#lx)", old, old_len, new_len,
		 flags, new_addr);
	n_mremap++;
	record("%s", call);
	ret = sys_mremap(old, old_len, new_len, flags, new_addr);
	err = ret == (unsigned long)MAP_FAILED ? errno : 0;
	if (err) {
		record("%s = %s", call, errname(err));
		check_error(&x, err, MREMAP_ERRORS, call);
		/*
		 * mremap_to() unmaps the target, and the source tail of a shrinking move,
		 * before the checks that can still fail (even EPERM for new_address 0).
		 */
		if (moves_by_vma(old_len, new_len, flags) && !x.want_err)
			model_failed_move(old, ol, new_addr, nl, flags);	/* maybe part way */
		else if (flags & MREMAP_FIXED) {
			resync(new_addr, new_addr + nl);
			if (ol > nl)
				resync(old + nl, old + ol);
		}
		return;
	}
	record("%s = %#lx", call, ret);
	if (x.want_err)
		fail("%s returned %#lx; the arguments call for %s", call, ret, errname(x.want_err));
	n_ok++;

	if (x.want_addr && ret != x.addr)
		fail("%s returned %#lx; MREMAP_FIXED asked for %#lx", call, ret, x.addr);
	if (ret != old && !(flags & MREMAP_MAYMOVE))
		fail("%s moved the mapping to %#lx without MREMAP_MAYMOVE", call, ret);
	/*
	 * A move places the new range through get_unmapped_area(): at new_address with
	 * MREMAP_FIXED, with new_address as the hint for MREMAP_DONTUNMAP, with no hint
	 * otherwise (so below 47 bits). Growing in place keeps the address.
	 */
	moved = ret != old || (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) || !old_len;
	if (moved || nl > ol)	/* equal or smaller in place is a no-op or an unmap */
		check_placement(ret, nl, flags & MREMAP_DONTUNMAP ? new_addr : 0,
				moved && !(flags & MREMAP_FIXED), huge, call);
	if (moved && !(flags & MREMAP_FIXED) && overlaps(ret, ret + nl, 0) &&
	    !(ret < old + ol && ret + nl > old))
		fail("%s moved to [%#lx, %#lx), over an existing mapping", call, ret, ret + nl);

	if (!old_len) {
		/* A shared mapping duplicated from old's offset: both stay, sharing pages. */
		struct region r = { ret, ret + nl, src->attr & ~R_LOCKED, 0, src->mark };

		if (src->touched >= old && src->touched < old + nl)
			r.touched = ret + (src->touched - old);
		if (overlaps(r.start, r.end, 0))
			fail("%s: the duplicate [%#lx, %#lx) lands on a mapping", call, r.start, r.end);
		if (r.touched)
			check_mark(insert(r), r.touched, call);
		else
			insert(r);
	} else if (moved) {
		model_move(old, ol, nl, ret, flags, call);
	} else if (nl < ol) {
		struct region gone[MAX_CUT];

		check_gone(gone, carve(old + nl, old + ol, gone, MAX_CUT));
	} else if (nl > ol) {
		/* Grown in place: the extension continues the vma that ends at old + ol. */
		struct region *last = containing(old + ol - 1), *r;

		if (!last || overlaps(old + ol, old + nl, 0))
			fail("%s grew in place over [%#lx, %#lx), not free", call, old + ol, old + nl);
		r = insert((struct region){ old + ol, old + nl, last->attr, 0, 0 });
		if (!(r->attr & R_SHARED))
			touch_fresh(r);
	}
}

static void fuzz_mremap(void)
{
	struct region *src = &regions[below(nregions)];
	int flags = pick_mremap_flags();
	unsigned long old, old_len, new_len, new_addr = 0;

	if ((src->attr & R_FOREIGN) && chance(90))
		return;
	old = chance(70) ? src->start :
	      chance(70) ? src->start + below((src->end - src->start) / PAGE) * PAGE : pick_addr();
	switch (below(10)) {
	case 0 ... 5: old_len = src->end > old ? src->end - old : PAGE; break;
	case 6 ... 7: old_len = PAGE * (1 + below(32)); break;
	case 8: old_len = 0; break;
	default: old_len = pick_len();
	}
	switch (below(10)) {
	case 0 ... 2: new_len = old_len; break;
	case 3 ... 5: new_len = old_len + PAGE * (1 + below(64)); break;
	case 6 ... 7: new_len = old_len / 2; break;
	default: new_len = pick_len();
	}
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP) || chance(10))
		new_addr = pick_addr();
	call_mremap(old, old_len, new_len, flags, new_addr);
}

/* ---- setup ---- */

/* A line of a call file that holds no call: blank, or a comment (#). */
static int no_call(const char *line)
{
	line += strspn(line, " \t");
	return *line == '#' || *line == '\n' || !*line;
}

/*
 * -r FILE: read the calls of FILE, one a line as print_call() writes them; blank lines
 * and # comments (a committed regression's why) are skipped.
 */
static struct call *load_calls(size_t *n)
{
	char line[512], name[16];
	size_t lines = 0, ncalls = 0, lineno = 0;
	struct call *list;
	FILE *f = fopen(replay_file, "r");

	if (!f) {
		printf("mmapfuzz: %s: %s\n", replay_file, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		lines++;
	list = calloc(lines + 1, sizeof(*list));
	rewind(f);
	while (list && fgets(line, sizeof(line), f)) {
		struct call *c = &list[ncalls];
		int got;

		lineno++;
		if (no_call(line))
			continue;
		ncalls++;
		got = sscanf(line, "%15s %lx %lx %lx %lx %lx", name, &c->arg[0], &c->arg[1],
			     &c->arg[2], &c->arg[3], &c->arg[4]);

		for (c->op = OP_MMAP; c->op <= OP_MREMAP; c->op++)
			if (got > 0 && !strcmp(name, op_names[c->op]))
				break;
		if (c->op > OP_MREMAP || got - 1 != op_args[c->op]) {
			printf("mmapfuzz: %s:%zu: not a call: %s", replay_file, lineno, line);
			exit(2);
		}
	}
	fclose(f);
	if (!list) {
		printf("mmapfuzz: no memory for %zu calls\n", lines);
		exit(1);
	}
	*n = ncalls;
	return list;
}

/* Make the calls of a list, checked, comparing maps every check_every calls. */
static void replay_calls(const struct call *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct call *c = &list[i];

		if (c->op == OP_MMAP)
			call_mmap(c->arg[0], c->arg[1], (int)c->arg[2], (int)c->arg[3]);
		else if (c->op == OP_MUNMAP)
			call_munmap(c->arg[0], c->arg[1]);
		else
			call_mremap(c->arg[0], c->arg[1], c->arg[2], (int)c->arg[3], c->arg[4]);
		if ((i + 1) % check_every == 0) {
			check_maps();
			check_marks();
		}
	}
}

/* ---- shrinking a failure: the fewest calls that still fail the same way ---- */

#define SHRINK_MAX_TAIL		8192	/* longer histories are left to the seed's replay */
#define SHRINK_MAX_RUNS		120

/*
 * Replay the kept calls in a fresh process (same mode, layout and randomization); true
 * when it fails with a failure of this kind. Maps are compared after every call once the
 * set is small, so the failure shows at its call.
 */
static int replay_fails(const char *dir, const unsigned char *keep, unsigned int kind,
			size_t kept)
{
	char path[256], out[256], line[512], want[32], every[16];
	int status;
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/calls", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(every, sizeof(every), "%d", kept <= 512 ? 1 : 64);
	f = fopen(path, "w");
	if (!f)
		return 0;
	for (size_t i = 0; i < ncalls_made; i++)
		if (keep[i])
			print_call(f, "", &calls_made[i]);
	fclose(f);

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[16] = { "mmapfuzz", "-m", (char *)mode, "-l", legacy ? "legacy" : "topdown",
				   "-r", path, "-c", every, "-q" };
		int argc = 10;

		if (keep_aslr)
			argv[argc++] = "-a";
		if (plant_fault)
			argv[argc++] = "-F";
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 1)
		return 0;
	f = fopen(out, "r");
	if (!f)
		return 0;
	snprintf(want, sizeof(want), "kind=%08x ", kind);
	status = 0;
	while (!status && fgets(line, sizeof(line), f))
		status = !strncmp(line, "mmapfuzz: FAIL ", 15) && strstr(line, want);
	fclose(f);
	return status;
}

/*
 * First the shortest tail of the run that fails so (the last 1, 2, 4, ... calls), then
 * delta debugging: drop chunks of the kept calls, halving the chunks when none can go.
 */
static void shrink_failure(unsigned int kind)
{
	char dir[] = "/tmp/mmapfuzz.XXXXXX", path[256];
	size_t n = ncalls_made, kept = 0, chunks = 2, tail;
	unsigned char *keep = calloc(n + 1, 1), *trial = calloc(n + 1, 1);
	int runs = 0, found = 0;

	if (log_full || !n || !keep || !trial || !mkdtemp(dir)) {
		printf("mmapfuzz: not shrunk: %s\n", log_full ? "the call log is full" : "no room for it");
		goto out;
	}
	for (tail = 1; !found && runs < SHRINK_MAX_RUNS; tail = tail * 2 > n ? n : tail * 2) {
		if (tail > SHRINK_MAX_TAIL)
			break;
		memset(keep, 0, n);
		memset(keep + n - tail, 1, tail);
		kept = tail;
		runs++;
		found = replay_fails(dir, keep, kind, kept);
		if (tail == n)
			break;
	}
	if (!found) {
		printf("mmapfuzz: not shrunk: no replay of the last %zu calls fails so "
		       "(replay the seed)\n", tail);
		goto out;
	}
	while (kept >= 2 && runs < SHRINK_MAX_RUNS) {
		size_t size = (kept + chunks - 1) / chunks, removed = 0;
		int shrunk = 0;

		for (size_t c = 0; c < chunks && !shrunk && runs < SHRINK_MAX_RUNS; c++) {
			size_t seen = 0;

			memcpy(trial, keep, n);
			removed = 0;
			for (size_t i = 0; i < n; i++)
				if (keep[i] && seen++ / size == c) {
					trial[i] = 0;
					removed++;
				}
			if (!removed || removed == kept)
				continue;
			runs++;
			shrunk = replay_fails(dir, trial, kind, kept - removed);
		}
		if (shrunk) {
			memcpy(keep, trial, n);
			kept -= removed;
			chunks = chunks > 2 ? chunks - 1 : 2;
		} else if (chunks >= kept) {
			break;
		} else {
			chunks = chunks * 2 > kept ? kept : chunks * 2;
		}
	}
	printf("mmapfuzz: shrunk to %zu calls (of %zu, %d replays) that fail the same way; "
	       "save them, without the prefix, and replay with: mmapfuzz -m %s -l %s -r FILE\n",
	       kept, n, runs, mode, legacy ? "legacy" : "topdown");
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			print_call(stdout, "mmapfuzz: shrunk: ", &calls_made[i]);
out:
	snprintf(path, sizeof(path), "%s/calls", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out", dir);
	unlink(path);
	rmdir(dir);
	free(keep);
	free(trial);
	fflush(stdout);
}

static unsigned long read_number(const char *path, const char *key)
{
	char line[256];
	unsigned long v = 0;
	size_t klen = key ? strlen(key) : 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("mmapfuzz: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f))
		if (!key || !strncmp(line, key, klen)) {
			v = strtoul(line + klen, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * Grow the stack now to a fixed extent below its top, so that it keeps the extent the
 * foreign snapshot records, and the same one in a run and in its replay: argv and the
 * environment sit at the top and differ in size between the two, so growing it by a
 * fixed amount below the current frame moved its start with them. Without randomization
 * its top is the same in every run. One write at the lowest address grows it (x86-64
 * faults below the stack pointer extend the stack since Linux 4.20).
 */
#define STACK_EXTENT (512ul << 10)
static void prefault_stack(void)
{
	char *pos = maps_buf;
	unsigned long s, e, top = 0;
	int stack;

	read_maps();
	while (next_line(&pos, &s, &e, &stack))
		if (stack)
			top = e;
	if (!top) {
		printf("mmapfuzz: no [stack] in /proc/self/maps\n");
		exit(1);
	}
	*(volatile char *)(top - STACK_EXTENT) = 0;
}

static void drop_root(void)
{
	struct rlimit memlock = { MEMLOCK_LIMIT, MEMLOCK_LIMIT };

	if (geteuid() != 0)
		return;
	/* Without CAP_SYS_RAWIO and CAP_IPC_LOCK, mmap_min_addr and RLIMIT_MEMLOCK apply. */
	if (setrlimit(RLIMIT_MEMLOCK, &memlock) || setgroups(0, NULL) || setgid(65534) ||
	    setuid(65534)) {
		perror("mmapfuzz: dropping root");
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: mmapfuzz -m 5|4|no5lvl [-n CALLS] [-s SEED] [-l topdown|legacy] [-a] [-q] [-v] [-c N] [-r FILE] [-S] [-F] [-O]\n");
	exit(2);
}

/* Whether the running kernel's release is at least MAJOR.MINOR. */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int got_major = 0, got_minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &got_major, &got_minor) != 2) {
		fprintf(stderr, "mmapfuzz: cannot read the kernel release\n");
		exit(2);
	}
	return got_major > major || (got_major == major && got_minor >= minor);
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	unsigned long calls = 100000;
	int opt, persona, want_persona;
	struct call *replay = NULL;
	size_t nreplay = 0;

	seed = (unsigned long long)time(NULL) * 2654435761ULL ^ (unsigned long long)getpid();
	while ((opt = getopt(argc, argv, "m:n:s:l:aqvc:r:SFO")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': calls = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'l':
			if (strcmp(optarg, "topdown") && strcmp(optarg, "legacy"))
				usage();
			legacy = !strcmp(optarg, "legacy");
			break;
		case 'a': keep_aslr = 1; break;
		case 'q': quiet = 1; break;
		case 'v': verbose = 1; break;
		case 'c': check_every = strtoul(optarg, NULL, 0); break;
		case 'r': replay_file = optarg; break;
		case 'S': no_shrink = 1; break;
		case 'F': plant_fault = 1; break;
		case 'O': plant_oracle = 1; break;
		default: usage();
		}
	}
	if (!mode || (strcmp(mode, "5") && strcmp(mode, "4") && strcmp(mode, "no5lvl")) ||
	    optind != argc || !calls || !check_every)
		usage();

	/* Layout and randomization are chosen at exec: set the personality, exec again. */
	persona = personality(0xffffffff);
	want_persona = (persona & ~(ADDR_COMPAT_LAYOUT | ADDR_NO_RANDOMIZE)) |
		       (legacy ? ADDR_COMPAT_LAYOUT : 0) | (keep_aslr ? 0 : ADDR_NO_RANDOMIZE);
	if (persona != want_persona) {
		personality(want_persona);
		execv("/proc/self/exe", argv);
		perror("mmapfuzz: execv");
		return 1;
	}

	level5 = !strcmp(mode, "5");
	if (kernel_at_least(6, 12)) {
		fixed_split_err = EINVAL;
		fixed_charges_net = 1;
	}
	huge_generic = kernel_at_least(6, 13);
	mremap_params_first = kernel_at_least(7, 0);
	task_size = level5 ? P4D_TASK_SIZE_MAX_L5 : P4D_TASK_SIZE_MAX_L4;
	mmap_min_addr = read_number("/proc/sys/vm/mmap_min_addr", NULL);
	totalram_pages = read_number("/proc/meminfo", "MemTotal:") * 1024 / PAGE;
	rng_state = seed;
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	printf("mmapfuzz: seed=%llu mode=%s layout=%s calls=%lu mmap_min_addr=%#lx "
	       "task_size=%#lx\n", seed, mode, legacy ? "legacy" : "topdown", calls,
	       mmap_min_addr, task_size);
	fflush(stdout);

	/* Allocations before the snapshot: the model knows them as not the fuzzer's. */
	if (replay_file)
		replay = load_calls(&nreplay);
	alloc_call_log();
	drop_root();
	prefault_stack();
	snapshot_foreign();
	check_maps();

	if (replay_file)
		replay_calls(replay, nreplay);
	for (ncalls = 0; !replay_file && issued() < calls; ncalls++) {
		int pick = below(100);

		if (nregions > KEEP_REGIONS && pick < 50)
			pick = 60;	/* lean to munmap */
		if (pick < 55)
			fuzz_mmap();
		else if (pick < 80)
			fuzz_munmap();
		else
			fuzz_mremap();
		if ((ncalls + 1) % check_every == 0) {
			check_maps();
			check_marks();
		}
	}
	check_maps();
	check_marks();

	printf("mmapfuzz: PASS calls=%lu mmap=%lu munmap=%lu mremap=%lu succeeded=%lu "
	       "above47=%lu maps-checks=%lu probes=%lu regions=%d failed-fixed-unmapped=%lu\n",
	       issued(), n_mmap, n_munmap, n_mremap, n_ok, n_high, n_checks, n_probes, nregions,
	       n_lost);
	printf("mmapfuzz: errors:");
	for (int e = 1; e < 160; e++)
		if (n_err[e])
			printf(" %s=%lu", errname(e), n_err[e]);
	printf("\nmmapfuzz: known deviations:");
	for (int q = 0; q < NQUIRKS; q++)
		printf(" %s=%lu", quirk_names[q], n_quirk[q]);
	printf("\n");
	return 0;
}
