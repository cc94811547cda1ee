// SPDX-License-Identifier: GPL-2.0
/*
 * tpcount: attach counting programs to p4dscope's four trace events and pin them, so they
 * stay attached after this program exits and benchmarks read the counters as they go.
 *
 *   tpcount [-v] attach tp_btf|raw_tp|tp|tables [DIR]   load, attach, pin the links
 *   tpcount [-v] load tp_btf|raw_tp|tp [DIR]     load and pin the programs, unattached:
 *                            swpath -t attaches and detaches them sample by sample
 *   tpcount show [DIR]       print every counter as NAME=N (tpcount.h: TPCOUNT_NAMES)
 *   tpcount detach [DIR]     unpin everything: the programs detach and go away
 *
 * "tables" counts page-table pages per level and cleared pages (tpcount.bpf.c); a
 * function the kernel does not have (__p4d_alloc when the P4D level is folded at build
 * time) is left out with a note on stderr, and its counter stays 0. Whether the kernel
 * clears every allocation (init_on_alloc) is read from its boot log.
 *
 * DIR defaults to /sys/fs/bpf/p4dbench; the counters map is pinned as DIR/counts, a link
 * or program as DIR/KIND_EVENT (tpcount.h). Exit status 0, 1 on a runtime error, 2 on a usage
 * error. Meant for the benchmark guest (analysis/icount/guest.sh), never for the host.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "tpcount.h"
#include "tpcount.skel.h"

static const char *const counter_names[TPC_NR_COUNTERS] = TPCOUNT_NAMES;

/*
 * Section prefix of the event-counting programs of each kind; the "tables" programs are
 * those named pt_* (tpcount.bpf.c), whatever their section.
 */
static const struct program_kind {
	const char *name, *section;
} kinds[] = {
	{ "tp_btf", "tp_btf/" },
	{ "raw_tp", "raw_tp/" },
	{ "tp", "tracepoint/" },
	{ "tables", NULL },
};

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool of_kind(const struct bpf_program *prog, const char *section)
{
	bool tables = has_prefix(bpf_program__name(prog), "pt_");

	return section ? !tables && has_prefix(bpf_program__section_name(prog), section)
		       : tables;
}

/*
 * Does the running kernel have what a program attaches to? An fentry program needs the
 * function; the three tracepoint kinds need the event, which every kernel with BPF
 * events describes in its BTF as the typedef btf_trace_<event>. The P4D events exist
 * only where CONFIG_PGTABLE_LEVELS > 4, and the level's functions likewise.
 */
static bool kernel_has_target(const struct btf *vmlinux, const char *section)
{
	const char *name = strrchr(section, '/') + 1;
	char typedef_name[128];

	if (!vmlinux)
		return false;
	if (has_prefix(section, "fentry/"))
		return btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
	snprintf(typedef_name, sizeof(typedef_name), "btf_trace_%s", name);
	return btf__find_by_name_kind(vmlinux, typedef_name, BTF_KIND_TYPEDEF) > 0;
}

static int verbose;

static void usage(void)
{
	fprintf(stderr, "usage: tpcount [-v] attach|load tp_btf|raw_tp|tp|tables [DIR]\n"
			"       tpcount show [DIR]\n"
			"       tpcount detach [DIR]\n");
	exit(2);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && verbose < 2)
		return 0;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* Remove the pins in dir and dir itself; a missing dir is not an error. */
static int unpin_all(const char *dir)
{
	struct dirent *de;
	char path[512];
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path))
			fprintf(stderr, "tpcount: cannot unpin %s: %s\n", path, strerror(errno));
	}
	closedir(d);
	return rmdir(dir) ? -errno : 0;
}

/*
 * Does the kernel clear every page it allocates? mm_init's report_meminit() says so at
 * boot ("mem auto-init: ..., heap alloc:on, ..."); init_on_alloc has no other interface.
 */
static bool init_on_alloc(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log, *line;
	bool on = false;

	if (size <= 0 || !(log = calloc(1, size + 1)))
		return false;
	size = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size);
	line = size > 0 ? strstr(log, "mem auto-init:") : NULL;
	if (line) {
		line[strcspn(line, "\n")] = '\0';
		on = strstr(line, "heap alloc:on");
	} else {
		fprintf(stderr, "tpcount: no \"mem auto-init\" line in the kernel log: taking"
			" init_on_alloc as off\n");
	}
	free(log);
	return on;
}

/* Load the programs of one kind; pin their links (attach) or the programs (!attach). */
static int setup(const char *kind, const char *dir, bool attach)
{
	const struct program_kind *k = NULL;
	struct btf *vmlinux = NULL;
	struct tpcount_bpf *skel;
	struct bpf_program *prog;
	char path[512];
	int err, attached = 0, wanted = 0;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].name))
			k = &kinds[i];
	if (!k)
		usage();

	skel = tpcount_bpf__open();
	if (!skel) {
		fprintf(stderr, "tpcount: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	if (!k->section && init_on_alloc()) {
		skel->rodata->clear_every_alloc = 1;
		fprintf(stderr, "tpcount: init_on_alloc is on: every page allocated counts as"
			" cleared\n");
	}
	vmlinux = btf__load_vmlinux_btf();
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool mine = of_kind(prog, k->section);

		if (mine && !kernel_has_target(vmlinux, sec)) {
			fprintf(stderr, "tpcount: this kernel has no %s (a level folded at"
				" build time%s?): its counter stays 0\n", strrchr(sec, '/') + 1,
				has_prefix(sec, "fentry/") ? ", or a function of another version"
							   : ", or not the patched kernel");
			mine = false;
		}
		bpf_program__set_autoload(prog, mine);
		wanted += mine;
	}
	btf__free(vmlinux);
	if (!wanted) {
		fprintf(stderr, "tpcount: this kernel has none of the %s programs' targets: is"
			" this the patched kernel?\n", kind);
		err = -ENOENT;
		goto cleanup;
	}
	err = tpcount_bpf__load(skel);
	if (err) {
		fprintf(stderr, "tpcount: cannot load the %s programs (%s): is this the patched"
			" kernel? -v shows libbpf's log\n", kind, strerror(-err));
		goto cleanup;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "tpcount: cannot create %s: %s\n", dir, strerror(errno));
		goto cleanup;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_program__name(prog));
		if (!attach) {
			err = bpf_program__pin(prog, path);
			if (err) {
				fprintf(stderr, "tpcount: cannot pin %s: %s\n", path, strerror(-err));
				goto cleanup;
			}
			attached++;
			continue;
		}
		link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			fprintf(stderr, "tpcount: cannot attach %s: %s\n",
				bpf_program__name(prog), strerror(errno));
			goto cleanup;
		}
		err = bpf_link__pin(link, path);
		bpf_link__destroy(link);	/* the pin keeps it attached */
		if (err) {
			fprintf(stderr, "tpcount: cannot pin %s: %s\n", path, strerror(-err));
			goto cleanup;
		}
		attached++;
	}
	snprintf(path, sizeof(path), "%s/counts", dir);
	err = bpf_map__pin(skel->maps.bss, path);
	if (err)
		fprintf(stderr, "tpcount: cannot pin %s: %s\n", path, strerror(-err));
	else
		printf("tpcount: %d %s programs %s, counters pinned at %s\n",
		       attached, kind, attach ? "attached" : "loaded", path);
cleanup:
	tpcount_bpf__destroy(skel);
	if (err)
		unpin_all(dir);
	return err ? 1 : 0;
}

static int show(const char *dir)
{
	struct tpcount_counts c;
	char path[512];
	__u32 key = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/counts", dir);
	fd = bpf_obj_get(path);
	if (fd < 0 || bpf_map_lookup_elem(fd, &key, &c)) {
		fprintf(stderr, "tpcount: cannot read %s: %s (attach first)\n", path,
			strerror(errno));
		return 1;
	}
	for (int i = 0; i < TPC_NR_COUNTERS; i++)
		printf("%s%s=%llu", i ? " " : "", counter_names[i], c.hits[i]);
	printf("\n");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = TPCOUNT_PIN_DIR;
	int err;

	while (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose++;
		argv++, argc--;
	}
	if (argc < 2)
		usage();
	libbpf_set_print(libbpf_print);
	if (!strcmp(argv[1], "attach") || !strcmp(argv[1], "load")) {
		if (argc < 3 || argc > 4)
			usage();
		return setup(argv[2], argc > 3 ? argv[3] : dir, !strcmp(argv[1], "attach"));
	}
	if (argc > 3)
		usage();
	if (argc > 2)
		dir = argv[2];
	if (!strcmp(argv[1], "show"))
		return show(dir);
	if (!strcmp(argv[1], "detach")) {
		err = unpin_all(dir);
		if (err)
			fprintf(stderr, "tpcount: cannot remove %s: %s\n", dir, strerror(-err));
		return err ? 1 : 0;
	}
	usage();
	return 2;
}
