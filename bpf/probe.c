// SPDX-License-Identifier: GPL-2.0
/* Load-and-attach trials, one object copy per counter group; see probe.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
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
};

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

/* Load WAY's programs alone in a fresh copy and attach them; 0 or a negative errno. */
static int try_way(struct probe_loader *loader, const struct probe_way *way,
		   struct attached_copy *copy)
{
	struct bpf_program *prog;
	int err;

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
	err = share_maps(copy->obj, loader->maps);
	if (!err)
		err = bpf_object__load(copy->obj);
	for (int i = 0; !err && i < PROBE_WAY_PROGS && way->progs[i]; i++) {
		copy->progs[i] = bpf_object__find_program_by_name(copy->obj, way->progs[i]);
		copy->links[i] = bpf_program__attach(copy->progs[i]);
		if (!copy->links[i])
			err = errno ? -errno : -EINVAL;
	}
	return err;
}

int probe_attach_first(struct probe_loader *loader, const struct probe_way *ways, int n,
		       enum probe_kind best, int *err)
{
	*err = -ENOENT;
	if (loader->nr_copies == MAX_COPIES)
		return -1;
	for (int i = 0; i < n; i++) {
		struct attached_copy *copy = &loader->copies[loader->nr_copies];

		if (ways[i].kind < best)
			continue;
		*err = try_way(loader, &ways[i], copy);
		if (!*err) {
			loader->nr_copies++;
			return i;
		}
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
	free(loader);
}
