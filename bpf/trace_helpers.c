// SPDX-License-Identifier: GPL-2.0
/* Probing the running kernel before load; see trace_helpers.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "trace_helpers.h"

const char *tracefs_path(void)
{
	static const char *const candidates[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char probe[64];

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/events", candidates[i]);
		if (!access(probe, F_OK))
			return candidates[i];
	}
	return candidates[0];
}

bool tracepoint_exists(const char *category, const char *event)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs_path(), category, event);
	return !access(path, F_OK);
}

bool btf_tracepoint_exists(const struct btf *vmlinux_btf, const char *event)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", event);
	return btf__find_by_name_kind(vmlinux_btf, name, BTF_KIND_TYPEDEF) > 0;
}

bool fentry_can_attach(const struct btf *vmlinux_btf, const char *func)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog_fd, link_fd;

	id = btf__find_by_name_kind(vmlinux_btf, func, BTF_KIND_FUNC);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
				sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog_fd < 0)
		return false;
	link_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	if (link_fd >= 0)
		close(link_fd);
	close(prog_fd);
	return link_fd >= 0;
}

bool kprobe_exists(const char *func)
{
	char path[256], line[512];
	size_t len = strlen(func);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_path());
	f = fopen(path, "r");
	if (!f)
		return false;
	/* Lines are "name" or "name [module]". */
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, func, len) && (line[len] == '\n' || line[len] == ' ');
	fclose(f);
	return found;
}
