// SPDX-License-Identifier: GPL-2.0
/*
 * p4dstat -l: which processes have mappings above 47 bits right now, and what they cost
 * at the P4D level. Everything comes from /proc/PID/maps and /proc/PID/comm; no BPF is
 * loaded, so the listing works on any kernel, as any user (for the processes that user
 * may read), and before p4dstat looks for kernel BTF.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "highmaps.h"
#include "p4d_layout.h"

/*
 * 5-level geometry (arch/x86/include/asm/pgtable_64_types.h): a P4D entry maps 2^39
 * bytes (P4D_SHIFT) through one PUD table; a PGD entry maps 2^48 (pgdir_shift, set to 48
 * by arch/x86/kernel/head64.c) through one P4D table.
 */
#define P4D_ENTRY_SHIFT	39

#define COMM_LEN	16	/* TASK_COMM_LEN, with its NUL */

/* One process's mappings at or above P4D_DEFAULT_MAP_WINDOW. */
struct high_maps {
	unsigned long maps;		/* mappings with bytes above the 47-bit window */
	unsigned long long bytes;	/* their bytes above it */
	unsigned long highest;		/* end (exclusive) of the highest one */
	unsigned long puds;		/* distinct 512 GiB regions they touch */
	unsigned long p4ds;		/* distinct 256 TiB regions they touch, bar the first */
	unsigned long next_pud;		/* first 512 GiB region not counted yet */
	unsigned long next_p4d;		/* first 256 TiB region not counted yet */
};

enum read_result { READ_OK, READ_VANISHED, READ_UNREADABLE };

struct tally {
	unsigned long vanished;
	unsigned long unreadable;
	pid_t first_unreadable;		/* the first one, named in the message */
	int first_errno;
};

/*
 * Count the regions of 2^shift bytes that [start, end) touches from *next on. maps lists
 * mappings in address order (fs/proc/task_mmu.c walks the VMA tree), so a region shared
 * with the previous mapping is never counted twice.
 */
static unsigned long new_regions(unsigned long start, unsigned long end, int shift,
				 unsigned long *next)
{
	unsigned long first = start >> shift, last = (end - 1) >> shift;

	if (first < *next)
		first = *next;
	if (last < first)
		return 0;
	*next = last + 1;
	return last - first + 1;
}

static void add_mapping(struct high_maps *h, unsigned long start, unsigned long end)
{
	/* Only the part above the window counts: a mapping can straddle it (MAP_FIXED). */
	if (start < P4D_DEFAULT_MAP_WINDOW)
		start = P4D_DEFAULT_MAP_WINDOW;
	h->maps++;
	h->bytes += end - start;
	if (end > h->highest)
		h->highest = end;
	h->puds += new_regions(start, end, P4D_ENTRY_SHIFT, &h->next_pud);
	h->p4ds += new_regions(start, end, P4D_PGDIR_SHIFT_L5, &h->next_p4d);
}

/* ENOENT when the directory is gone, ESRCH when the task went after the open. */
static enum read_result classify(int err)
{
	return err == ENOENT || err == ESRCH ? READ_VANISHED : READ_UNREADABLE;
}

static FILE *open_proc(const char *proc, pid_t pid, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%d/%s", proc, pid, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(path, "re");
}

static enum read_result read_comm(const char *proc, pid_t pid, char *comm, int *err)
{
	FILE *f = open_proc(proc, pid, "comm");

	if (!f) {
		*err = errno;
		return classify(errno);
	}
	if (!fgets(comm, COMM_LEN, f)) {
		*err = ferror(f) ? errno : ENODATA;
		fclose(f);
		return classify(*err);
	}
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return READ_OK;
}

static enum read_result read_maps(const char *proc, pid_t pid, struct high_maps *h, int *err)
{
	FILE *f = open_proc(proc, pid, "maps");
	enum read_result res = READ_OK;
	char *line = NULL, *end;
	size_t cap = 0;

	if (!f) {
		*err = errno;
		return classify(errno);
	}
	h->next_p4d = 1;	/* the first 256 TiB holds every process's first P4D table */
	errno = 0;
	while (getline(&line, &cap, f) > 0) {
		unsigned long start, stop;

		/* "start-end perms offset dev inode path", addresses in hex. */
		start = strtoul(line, &end, 16);
		if (*end != '-') {
			*err = EINVAL;
			res = READ_UNREADABLE;
			break;
		}
		stop = strtoul(end + 1, &end, 16);
		if (*end != ' ' || stop <= start) {
			*err = EINVAL;
			res = READ_UNREADABLE;
			break;
		}
		/*
		 * The gate VMA (the vsyscall page, far above any user address) is listed
		 * after the process's own mappings (fs/proc/task_mmu.c, proc_get_vma()).
		 */
		if (start >= P4D_TASK_SIZE_MAX_L5)
			continue;
		if (stop > P4D_DEFAULT_MAP_WINDOW)
			add_mapping(h, start, stop);
		errno = 0;
	}
	if (res == READ_OK && ferror(f)) {
		*err = errno;
		res = classify(errno);
	}
	free(line);
	fclose(f);
	return res;
}

static void count_failure(struct tally *t, enum read_result res, pid_t pid, int err)
{
	if (res == READ_VANISHED) {
		t->vanished++;
		return;
	}
	if (!t->unreadable++) {
		t->first_unreadable = pid;
		t->first_errno = err;
	}
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The numeric entries of the proc directory, sorted; NULL with errno set on failure. */
static pid_t *list_pids(const char *proc, size_t *n)
{
	pid_t *pids = NULL, *grown;
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	d = opendir(proc);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || pid < 1)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			grown = realloc(pids, cap * sizeof(*pids));
			if (!grown) {
				free(pids);
				closedir(d);
				errno = ENOMEM;
				return NULL;
			}
			pids = grown;
		}
		pids[(*n)++] = pid;
	}
	closedir(d);
	qsort(pids, *n, sizeof(*pids), cmp_pid);
	return pids ? pids : calloc(1, sizeof(*pids));
}

int highmaps_list(pid_t only)
{
	const char *proc = getenv(HIGHMAPS_PROC_ENV);
	struct tally t = {};
	pid_t *pids;
	size_t n;

	if (!proc || !*proc)
		proc = HIGHMAPS_PROC_DEFAULT;
	if (only > 0) {
		pids = malloc(sizeof(*pids));
		n = 1;
		if (pids)
			pids[0] = only;
	} else {
		pids = list_pids(proc, &n);
	}
	if (!pids) {
		fprintf(stderr, "p4dstat: cannot list the processes in %s: %s\n", proc,
			strerror(errno));
		return 1;
	}

	printf("%7s %-16s %5s %14s %-17s %5s %4s\n", "PID", "COMM", "MAPS", "KB", "HIGHEST",
	       "PUD", "P4D");
	for (size_t i = 0; i < n; i++) {
		struct high_maps h = {};
		char comm[COMM_LEN];
		enum read_result res;
		int err = 0;

		/* comm first: a process gone before its maps is counted, not listed nameless. */
		res = read_comm(proc, pids[i], comm, &err);
		if (res == READ_OK)
			res = read_maps(proc, pids[i], &h, &err);
		if (res != READ_OK) {
			count_failure(&t, res, pids[i], err);
			continue;
		}
		if (!h.maps)
			continue;
		printf("%7d %-16s %5lu %14llu %#-17lx %5lu %4lu\n", pids[i], comm, h.maps,
		       h.bytes / 1024, h.highest, h.puds, h.p4ds);
	}
	fflush(stdout);
	if (t.unreadable)
		fprintf(stderr,
			"p4dstat: %lu process%s not read (PID %d: %s); root can read every process\n",
			t.unreadable, t.unreadable == 1 ? "" : "es", t.first_unreadable,
			strerror(t.first_errno));
	if (t.vanished && only > 0)
		fprintf(stderr, "p4dstat: no process with PID %d\n", only);
	else if (t.vanished)
		fprintf(stderr, "p4dstat: %lu process%s ended while being read\n", t.vanished,
			t.vanished == 1 ? "" : "es");
	free(pids);
	return 0;
}
