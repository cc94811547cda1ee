/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Choosing, at run time, which programs of a BPF object feed each group of counters.
 *
 * A group lists its ways, best first (a tracepoint, else fentry/fexit, else a kprobe).
 * Nothing is guessed from the kernel's files: each way is loaded and attached for real,
 * in a copy of the object of its own whose maps are those of one shared copy, and the
 * first way that attaches wins. A way that fails costs one load, and the other groups
 * never notice (libbpf loads an object's programs all or none).
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <bpf/libbpf.h>

enum probe_kind { PROBE_TRACEPOINT, PROBE_FENTRY, PROBE_KPROBE, PROBE_KINDS };

/* "tracepoint", "fentry", "kprobe": the words --probes takes. */
extern const char *const probe_kind_names[PROBE_KINDS];

#define PROBE_WAY_PROGS	5

/* One way to feed a group: these programs, loaded and attached together. */
struct probe_way {
	enum probe_kind kind;
	const char *progs[PROBE_WAY_PROGS];	/* program names; unused ones NULL */
	const char *what;			/* what -v says feeds the group */
};

/* How to get fresh copies of the BPF object: opened, read-only data set, not loaded. */
struct probe_object_ops {
	struct bpf_object *(*open)(void *ctx, void **handle);
	void (*close)(void *handle);
	void *ctx;
};

struct probe_loader;

/* MAPS: the loaded copy whose maps every way shares. NULL on allocation failure. */
struct probe_loader *probe_loader_new(const struct probe_object_ops *ops,
				      struct bpf_object *maps);

/* Where a try stopped. */
enum probe_stage { PROBE_UNTRIED, PROBE_OPEN, PROBE_LOAD, PROBE_ATTACH };

/* Why a way did not attach. */
struct probe_failure {
	enum probe_stage stage;		/* PROBE_UNTRIED: not tried, or it attached */
	int err;			/* the errno it failed with */
	char absent[64];		/* the section of a program whose target (event,
					   function) this kernel lacks, "" if none or unknown */
	char libbpf[240];		/* libbpf's message that says most, "" if none */
};

/*
 * Attach the first of WAYS[0..n) whose kind is BEST or worse. Returns its index, or
 * -1 when none attached. WHY[i] says why WAYS[i] failed, for every way tried before.
 */
int probe_attach_first(struct probe_loader *loader, const struct probe_way *ways, int n,
		       enum probe_kind best, struct probe_failure *why);

/*
 * What failed and how, as one phrase: "no function get_unmapped_area() in this kernel's
 * BTF" for a target the kernel lacks, else "load failed: Invalid argument (libbpf: ...)".
 */
void probe_describe(const struct probe_failure *f, char *buf, size_t len);

/*
 * libbpf's messages, passed on by the program's libbpf_set_print() callback: its
 * warnings are kept, so that a failure can say what libbpf saw without -v.
 * probe_notes_reset() forgets them; probe_note() is the one that says most since then
 * (a CO-RE relocation that failed, the verifier's verdict, else the first warning).
 */
void probe_note_libbpf(enum libbpf_print_level level, const char *fmt, va_list args);
void probe_notes_reset(void);
const char *probe_note(void);

/* Runs of the attached programs the kernel skipped to avoid recursion. */
__u64 probe_missed(const struct probe_loader *loader);

/* Detach and close everything the loader attached. NULL is fine. */
void probe_loader_free(struct probe_loader *loader);

#endif /* PROBE_H */
