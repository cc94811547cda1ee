// SPDX-License-Identifier: GPL-2.0
/* Load-and-attach trials, one object copy per counter group; see probe.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe.h"

const char *const probe_kind_names[PROBE_KINDS] = {
	[PROBE_TRACEPOINT] = "tracepoint",
	[PROBE_FENTRY] = "fentry",
	[PROBE_KPROBE] = "kprobe",
};

#define MAX_COPIES	16	/* one per group that attached */

struct attached_copy {
	void *handle;
	struct bpf_object *obj;
	struct bpf_program *progs[PROBE_WAY_PROGS];
	struct bpf_link *links[PROBE_WAY_PROGS];
};

struct probe_loader {
	struct probe_object_ops ops;
	struct bpf_object *maps;
	struct attached_copy copies[MAX_COPIES];
	int nr_copies;
	struct btf *vmlinux;	/* the kernel's BTF, read at the first failure */
	bool vmlinux_read;
};

/* ---- libbpf's messages ---- */

static char first_warning[240];	/* since the reset: the first warning's first line */
static char detail[240];	/* ... a CO-RE relocation it could not resolve, or what
				   the verifier said last */

/*
 * A verifier log (libbpf prints it between "-- BEGIN PROG LOAD LOG --" and "-- END
 * PROG LOAD LOG --") ends with the verifier's verdict, then its statistics.
 */
static bool verifier_statistics(const char *line)
{
	return !strncmp(line, "processed ", 10) || !strncmp(line, "verification time", 17) ||
	       !strncmp(line, "stack depth", 11);
}

void probe_note_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	bool in_log = false;
	char *msg, *line, *next;
	int len;
	va_list copy;

	if (level != LIBBPF_WARN)
		return;
	va_copy(copy, args);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0 || !(msg = malloc(len + 1)))
		return;
	vsnprintf(msg, len + 1, fmt, args);
	for (line = msg; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		if (!first_warning[0])
			snprintf(first_warning, sizeof(first_warning), "%s", line);
		if (strstr(line, "-- BEGIN PROG LOAD LOG --")) {
			in_log = true;
		} else if (strstr(line, "-- END PROG LOAD LOG --")) {
			in_log = false;
		} else if (strstr(line, "failed to resolve CO-RE relocation") &&
			   strncmp(detail, "libbpf: ", 8)) {
			/* libbpf's own line in the log: the kernel lacks a type or member */
			snprintf(detail, sizeof(detail), "libbpf: %s", line);
		} else if (in_log && !verifier_statistics(line) && strncmp(detail, "libbpf: ", 8)) {
			snprintf(detail, sizeof(detail), "verifier: %s", line);
		}
	}
	free(msg);
}

void probe_notes_reset(void)
{
	first_warning[0] = detail[0] = '\0';
}

const char *probe_note(void)
{
	return detail[0] ? detail : first_warning;
}

void probe_describe(const struct probe_failure *f, char *buf, size_t len)
{
	static const char *const stage[] = {
		[PROBE_UNTRIED] = "nothing", [PROBE_OPEN] = "open", [PROBE_LOAD] = "load",
		[PROBE_ATTACH] = "attach",
	};
	static const struct {
		const char *prefix, *text;
	} absent[] = {
		{ "tp_btf/", "no event %s in this kernel's BTF" },
		{ "fentry/", "no function %s() in this kernel's BTF" },
		{ "fexit/", "no function %s() in this kernel's BTF" },
		{ "kprobe/", "no function %s() in kallsyms" },
		{ "kretprobe/", "no function %s() in kallsyms" },
		{ "tracepoint/", "no event %s in tracefs" },
	};

	for (size_t i = 0; f->absent[0] && i < sizeof(absent) / sizeof(absent[0]); i++) {
		size_t n = strlen(absent[i].prefix);

		if (!strncmp(f->absent, absent[i].prefix, n)) {
			snprintf(buf, len, absent[i].text, f->absent + n);
			return;
		}
	}
	snprintf(buf, len, "%s failed: %s%s%s%s", stage[f->stage], strerror(f->err),
		 f->libbpf[0] ? " (" : "", f->libbpf, f->libbpf[0] ? ")" : "");
}

/* ---- is the target there? ---- */

static const struct btf *kernel_btf(struct probe_loader *loader)
{
	if (!loader->vmlinux_read) {
		loader->vmlinux_read = true;
		loader->vmlinux = btf__load_vmlinux_btf();
		if (libbpf_get_error(loader->vmlinux))
			loader->vmlinux = NULL;
	}
	return loader->vmlinux;
}

/* The kernel's BTF has no NAME of KIND (PREFIX NAME); false when there is no BTF. */
static bool btf_lacks(struct probe_loader *loader, const char *prefix, const char *name,
		      int kind)
{
	const struct btf *btf = kernel_btf(loader);
	char full[128];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	return btf && btf__find_by_name_kind(btf, full, kind) < 0;
}

/* /proc/kallsyms has no symbol NAME (a kprobe's target); false when unreadable. */
static bool kallsyms_lacks(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, name);
	fclose(f);
	return !found;
}

/* tracefs has no event CATEGORY/NAME; false when tracefs is not mounted. */
static bool tracefs_lacks(const char *event)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	char path[256];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (access(roots[i], F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s", roots[i], event);
		return access(path, F_OK) != 0;
	}
	return false;
}

/*
 * Does this kernel lack what the program in section SEC attaches to? tp_btf needs the
 * event's btf_trace_ typedef in BTF, fentry/fexit the function in BTF, a kprobe the
 * symbol, a classic tracepoint the event in tracefs.
 */
static bool target_absent(struct probe_loader *loader, const char *sec)
{
	const char *name = strchr(sec, '/');

	if (!name++)
		return false;
	if (!strncmp(sec, "tp_btf/", 7))
		return btf_lacks(loader, "btf_trace_", name, BTF_KIND_TYPEDEF);
	if (!strncmp(sec, "fentry/", 7) || !strncmp(sec, "fexit/", 6))
		return btf_lacks(loader, "", name, BTF_KIND_FUNC);
	if (!strncmp(sec, "kprobe/", 7) || !strncmp(sec, "kretprobe/", 10))
		return kallsyms_lacks(name);
	if (!strncmp(sec, "tracepoint/", 11))
		return tracefs_lacks(name);
	return false;
}

struct probe_loader *probe_loader_new(const struct probe_object_ops *ops,
				      struct bpf_object *maps)
{
	struct probe_loader *loader = calloc(1, sizeof(*loader));

	if (loader) {
		loader->ops = *ops;
		loader->maps = maps;
	}
	return loader;
}

/* Point every map of OBJ except its own data sections at the shared copy's. */
static int share_maps(struct bpf_object *obj, struct bpf_object *shared)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		struct bpf_map *owner;
		int err;

		if (bpf_map__is_internal(map))
			continue;	/* .rodata, .bss: set per copy, the same everywhere */
		owner = bpf_object__find_map_by_name(shared, bpf_map__name(map));
		if (!owner)
			return -ENOENT;
		err = bpf_map__reuse_fd(map, bpf_map__fd(owner));
		if (err)
			return err;
	}
	return 0;
}

static void release(struct probe_loader *loader, struct attached_copy *copy)
{
	for (int i = 0; i < PROBE_WAY_PROGS; i++)
		bpf_link__destroy(copy->links[i]);
	loader->ops.close(copy->handle);
	memset(copy, 0, sizeof(*copy));
}

/*
 * Load WAY's programs alone in a fresh copy and attach them; 0 or a negative errno,
 * and then the step that failed in *STAGE.
 */
static int try_way(struct probe_loader *loader, const struct probe_way *way,
		   struct attached_copy *copy, enum probe_stage *stage)
{
	struct bpf_program *prog;
	int err;

	*stage = PROBE_OPEN;
	copy->obj = loader->ops.open(loader->ops.ctx, &copy->handle);
	if (!copy->obj)
		return errno ? -errno : -ENOMEM;
	bpf_object__for_each_program(prog, copy->obj)
		bpf_program__set_autoload(prog, false);
	for (int i = 0; i < PROBE_WAY_PROGS && way->progs[i]; i++) {
		prog = bpf_object__find_program_by_name(copy->obj, way->progs[i]);
		if (!prog)
			return -ENOENT;
		bpf_program__set_autoload(prog, true);
	}
	*stage = PROBE_LOAD;
	err = share_maps(copy->obj, loader->maps);
	if (!err)
		err = bpf_object__load(copy->obj);
	if (err)
		return err;
	*stage = PROBE_ATTACH;
	for (int i = 0; !err && i < PROBE_WAY_PROGS && way->progs[i]; i++) {
		copy->progs[i] = bpf_object__find_program_by_name(copy->obj, way->progs[i]);
		copy->links[i] = bpf_program__attach(copy->progs[i]);
		if (!copy->links[i])
			err = errno ? -errno : -EINVAL;
	}
	return err;
}

/* Why WAY failed with ERR at STAGE: a target the kernel lacks, else libbpf's note. */
static void explain(struct probe_loader *loader, const struct probe_way *way,
		    const struct attached_copy *copy, enum probe_stage stage, int err,
		    struct probe_failure *why)
{
	memset(why, 0, sizeof(*why));
	why->stage = stage;
	why->err = -err;
	snprintf(why->libbpf, sizeof(why->libbpf), "%s", probe_note());
	for (int i = 0; copy->obj && i < PROBE_WAY_PROGS && way->progs[i]; i++) {
		const struct bpf_program *prog =
			bpf_object__find_program_by_name(copy->obj, way->progs[i]);
		const char *sec = prog ? bpf_program__section_name(prog) : NULL;

		if (sec && target_absent(loader, sec)) {
			snprintf(why->absent, sizeof(why->absent), "%s", sec);
			return;
		}
	}
}

int probe_attach_first(struct probe_loader *loader, const struct probe_way *ways, int n,
		       enum probe_kind best, struct probe_failure *why)
{
	memset(why, 0, n * sizeof(*why));
	for (int i = 0; i < n; i++) {
		struct attached_copy *copy = &loader->copies[loader->nr_copies];
		enum probe_stage stage;
		int err;

		if (ways[i].kind < best)
			continue;
		if (loader->nr_copies == MAX_COPIES) {
			why[i] = (struct probe_failure){ .stage = PROBE_OPEN, .err = ENOSPC };
			return -1;
		}
		probe_notes_reset();
		err = try_way(loader, &ways[i], copy, &stage);
		if (!err) {
			loader->nr_copies++;
			return i;
		}
		explain(loader, &ways[i], copy, stage, err, &why[i]);
		release(loader, copy);
	}
	return -1;
}

__u64 probe_missed(const struct probe_loader *loader)
{
	__u64 missed = 0;

	for (int c = 0; c < loader->nr_copies; c++) {
		const struct attached_copy *copy = &loader->copies[c];

		for (int i = 0; i < PROBE_WAY_PROGS && copy->progs[i]; i++) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);

			if (!bpf_obj_get_info_by_fd(bpf_program__fd(copy->progs[i]), &info, &len))
				missed += info.recursion_misses;
		}
	}
	return missed;
}

void probe_loader_free(struct probe_loader *loader)
{
	if (!loader)
		return;
	for (int c = 0; c < loader->nr_copies; c++)
		release(loader, &loader->copies[c]);
	btf__free(loader->vmlinux);
	free(loader);
}
