// SPDX-License-Identifier: GPL-2.0
/*
 * walkmodel.so: a QEMU TCG plugin that feeds the guest's own memory accesses to the
 * translation model (model.c) of one or more CPU presets, side by side.
 *
 *   qemu-system-x86_64 ... -plugin walkmodel.so,preset=zen4,out=PREFIX,ram=FILE,...
 *
 * Arguments (scripts/run-guest --plugin adds ram=, ramsize=, lowmem= and levels=; the kernel's
 * symbols come from analysis/walkmodel/kernel-args):
 *   preset=NAME      a preset of presets.c, or "all"; repeatable. On a 5-level boot each
 *                    also runs as "NAME-nopml5e", without the PML5E level (add_twins())
 *   sweep=on         also run the sizes of the upper-level caches one at a time, N = 0, 1,
 *                    2, 4, ... 64 entries: splitpsc with N entries at one level ("splitpsc-
 *                    pdeN", "-pdpteN", "-pml4eN", "-pml5eN") or at every level ("-allN"),
 *                    zen4 with an N-entry PDC ("zen4-pdcN")
 *   out=PREFIX       results go to PREFIX.json and PREFIX.csv
 *   ram=FILE         the guest's RAM (memory-backend-file, share=on), ramsize=BYTES,
 *                    lowmem=BYTES: how much of it sits below 4 GiB (the rest is above)
 *   levels=4|5       the paging mode the guest was booted in
 *   percpu_offset=VA, tlbstate=OFF, mm_pgd=OFF, page_offset_base=VA
 *                    where the kernel keeps the running mm and its page-table root
 *   pf_entry=VA      the page-fault entry (asm_exc_page_fault)
 *   pcid=on          model PCID: each address-space switch with the PCID and flush 6.1
 *                    would choose on a CPU with PCID (pcid_switch()), from mm_ctx_id=,
 *                    mm_tlb_gen= (where an mm keeps them) and switch_mm=, load_cr3=
 *                    (ADDRESS:SIZE of the functions whose CR3 writes are the switch's)
 *
 * What it sees and how (QEMU 7.2, plugin API 1):
 *  - every load and store with its linear and physical address (memory callbacks);
 *  - instructions counted per translation block, user or kernel by bit 63 of the address;
 *  - MOV to CR3/CR4, INVLPG and INVPCID recognised from their bytes at translation time;
 *  - page faults: the fault itself is invisible (QEMU reports an access once it succeeds),
 *    so the plugin marks a fault pending when the guest enters asm_exc_page_fault and
 *    holds back what the handler does from the models until the next access to the user
 *    half, the retried access (the workloads' faults are all on user addresses, from user
 *    mode or from the kernel's user-copy routines). Then, in the order the hardware saw
 *    them: the fault (wm_page_fault: the faulting walk, down to the first entry on the
 *    address's path the handler wrote, and the SDM's invalidation), the handler's
 *    accesses and flushes, the retry. A CR3 write before the retry (a context switch)
 *    drops the pending fault; the JSON counts both;
 *  - the page-table root: API 1 reads no registers, so the plugin reads
 *    cpu_tlbstate.loaded_mm->pgd from the guest's RAM (x86's switch_mm_irqs_off() keeps
 *    it equal to what CR3 holds), and walks the guest's real tables from there. Page sizes
 *    and the physical address of every entry a walk reads are the guest's own.
 * Limits, all stated in the report: one vCPU; the guest CPU has no PCID (qemu64), so every
 * CR3 write flushes; the INVLPG operand is not visible (all paging-structure caches go, the
 * TLB entry stays, and a later access whose physical page changed is re-walked); the
 * kernel must run without KASLR (nokaslr), so that its symbols are where vmlinux says.
 * Only the part between WALKMARK_START() and WALKMARK_STOP() (walkmark.h) is counted; from
 * WALKMARK_WARMUP() on, accesses reach the models without being counted.
 * Memory callbacks stay on outside it: QEMU 7.2 aborts in qemu_plugin_vcpu_mem_cb() when a
 * plugin drops them with qemu_plugin_reset() while the guest runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hold.h"
#include "model.h"
#include "qemu-plugin-api.h"
#include "walkmark.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = WALKMODEL_QEMU_PLUGIN_VERSION;

#define MAX_MODELS 80
#define NR_ASIDS 6				/* TLB_NR_DYN_ASIDS, arch/x86/include/asm/tlbflush.h */
#define KERNEL_IMAGE_BASE 0xffffffff80000000ull	/* __START_KERNEL_map */
#define KERNEL_IMAGE_END 0xffffffffc0000000ull
#define LOADED_MM_SWITCHING 1ull		/* arch/x86/mm/tlb.c */
#define PTE_PRESENT (1ull << 0)
#define PTE_PSE (1ull << 7)
#define PTE_GLOBAL (1ull << 8)
#define PTE_ADDR 0x000ffffffffff000ull	/* bits 51:12 */
/* The direct map's base without KASLR (Documentation/x86/x86_64/mm.rst). */
#define DIRECT_MAP_4LEVEL 0xffff888000000000ull
#define DIRECT_MAP_5LEVEL 0xff11000000000000ull

/* What the translation-time decoder found in an instruction. */
enum insn_kind {
	INSN_CR3, INSN_CR4, INSN_INVLPG, INSN_INVPCID, INSN_FAULT,
	INSN_MARK_START, INSN_MARK_STOP, INSN_MARK_WARMUP,
	INSN_CR3_SWITCH,	/* switch_mm_irqs_off()'s MOV to CR3 (pcid=on) */
	INSN_NKINDS
};

struct guest_ram {
	const uint8_t *base;
	uint64_t size, below_4g;	/* RAM above below_4g starts at 4 GiB (pc, microvm) */
};

static struct {
	struct wm_model *model[MAX_MODELS];
	const struct wm_preset *preset[MAX_MODELS];
	struct wm_preset sweep[MAX_MODELS];	/* storage for sweep variants */
	char sweep_name[MAX_MODELS][32];
	int nmodels;
	const char *out;
	struct guest_ram ram;
	int levels;
	uint64_t percpu_offset_va, tlbstate_off, mm_pgd_off, page_offset_base_va, pf_entry_va;
	/* PCID modelled (pcid=on): pcid_switch() */
	bool pcid;
	uint64_t mm_ctx_id_off, mm_tlb_gen_off;
	uint64_t switch_mm[2], load_cr3[2];	/* [start, end) of the switch's functions */
	bool switch_cr3;		/* the switch wrote CR3; its mm is stored next */
	struct { uint64_t ctx_id, tlb_gen; } ctxs[NR_ASIDS];
	unsigned int next_asid, cur_asid;
	uint16_t cur_pcid;		/* the PCID the models run under: 0 without PCID */
	uint64_t cur_mm;
	uint64_t pcid_switches, pcid_noflush;	/* while measuring */
	/* learnt from the guest */
	uint64_t phys_base;
	bool phys_base_known;
	uint64_t direct_map;	/* value of page_offset_base, once read */
	uint64_t root_pa;	/* last page-table root read */
	uint64_t root_reads_failed;
	/* counted */
	bool measuring, feeding;	/* feeding: the models see accesses (warm-up or measuring) */
	bool fault_pending;
	uint64_t faults_seen, faults_applied, faults_dropped, faults_late, faults_fetch;
	uint64_t marks_warmup;
	uint64_t held_max;	/* most events held back for one fault */
	uint64_t insns[WM_NSPACES];	/* always counting (inline) */
	uint64_t insns_at_start[WM_NSPACES], insns_measured[WM_NSPACES];
	uint64_t marks_start, marks_stop;
	uint64_t insn_seen[INSN_NKINDS];	/* executed while measuring */
	uint64_t io_accesses;
} wm;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("walkmodel: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- guest memory ---- */

static bool ram_read64(uint64_t pa, uint64_t *val)
{
	uint64_t off = pa;

	if (pa >= wm.ram.below_4g) {
		if (pa < (4ull << 30))
			return false;	/* the PCI hole */
		off = pa - (4ull << 30) + wm.ram.below_4g;
	}
	if (off + 8 > wm.ram.size || (pa & 7))
		return false;
	memcpy(val, wm.ram.base + off, 8);
	return true;
}

/* Kernel virtual address to physical: the kernel image or the direct map. */
static bool kernel_pa(uint64_t va, uint64_t *pa)
{
	if (va >= KERNEL_IMAGE_BASE && va < KERNEL_IMAGE_END) {
		if (!wm.phys_base_known)
			return false;
		*pa = va - KERNEL_IMAGE_BASE + wm.phys_base;
		return true;
	}
	if (wm.direct_map && va >= wm.direct_map) {
		*pa = va - wm.direct_map;
		return true;
	}
	return false;
}

static bool kernel_read64(uint64_t va, uint64_t *val)
{
	uint64_t pa;

	return kernel_pa(va, &pa) && ram_read64(pa, val);
}

/*
 * The root of the running address space: cpu_tlbstate.loaded_mm->pgd of CPU 0. While
 * switch_mm_irqs_off() is between the two (loaded_mm reads LOADED_MM_SWITCHING), the
 * previous root is still the one in CR3.
 */
static uint64_t current_root(void)
{
	uint64_t percpu, mm, pgd, pa;

	if (!wm.direct_map) {
		uint64_t base;

		if (!kernel_read64(wm.page_offset_base_va, &base))
			return 0;
		if (base != (wm.levels == 5 ? DIRECT_MAP_5LEVEL : DIRECT_MAP_4LEVEL)) {
			fail("page_offset_base is %#" PRIx64 ", not the %d-level value without"
			     " KASLR: boot the guest with nokaslr and the vmlinux of the running"
			     " kernel", base, wm.levels);
			exit(1);
		}
		wm.direct_map = base;
	}
	if (kernel_read64(wm.percpu_offset_va, &percpu) &&
	    kernel_read64(percpu + wm.tlbstate_off, &mm) && mm > LOADED_MM_SWITCHING &&
	    kernel_read64(mm + wm.mm_pgd_off, &pgd) && kernel_pa(pgd, &pa))
		wm.root_pa = pa;
	else
		wm.root_reads_failed++;
	return wm.root_pa;
}

/* The model's walker: the guest's own tables, read from its RAM. */
static bool guest_walk(void *ctx, uint64_t va, struct wm_path *path)
{
	uint64_t table = current_root(), entry;
	int level;

	(void)ctx;
	if (!table)
		return false;
	path->levels = wm.levels;
	path->present = false;
	path->global = false;
	for (level = wm.levels; level >= 1; level--) {
		unsigned int shift = 12 + 9 * (level - 1);

		path->entry_pa[level] = table + ((va >> shift) & 511) * 8;
		path->leaf = level;
		if (!ram_read64(path->entry_pa[level], &entry))
			return false;
		if (!(entry & PTE_PRESENT))
			return true;
		if (level == 1 || ((level == 2 || level == 3) && (entry & PTE_PSE))) {
			path->present = true;
			path->global = entry & PTE_GLOBAL;
			/* & ~(size - 1) also drops a large page's PAT bit (bit 12) */
			path->page_pa = entry & PTE_ADDR & ~((1ull << shift) - 1);
			return true;
		}
		table = entry & PTE_ADDR;
	}
	return false;
}

/* What the handler of a pending fault does, held back from the models (hold.h). */
static struct wm_hold hold;

static void feed_access(uint64_t va, uint64_t pa, unsigned int size)
{
	for (int i = 0; i < wm.nmodels; i++)
		wm_access(wm.model[i], va, pa, size, guest_walk, NULL);
}

static void feed_flush(enum insn_kind kind)
{
	for (int i = 0; i < wm.nmodels; i++) {
		switch (kind) {
		case INSN_CR3:	/* not a switch: the same PCID (0 without PCID), flushed */
			wm_write_cr3(wm.model[i], wm.cur_pcid, false);
			break;
		case INSN_INVLPG:
			wm_invlpg(wm.model[i], false, 0);
			break;
		case INSN_CR4:		/* the kernel writes CR4 to toggle PGE: a global flush */
		case INSN_INVPCID:	/* type in a register: assume the widest, all contexts */
			wm_flush_global(wm.model[i]);
			break;
		default:
			break;
		}
	}
}

static void feed_event(const struct wm_held *e, void *ctx)
{
	(void)ctx;
	if (e->flush == WM_HELD_ACCESS)
		feed_access(e->va, e->pa, e->size);
	else
		feed_flush((enum insn_kind)e->flush);
}

/* Hand what was held to the models, in order, and stop holding. */
static void release_held(void)
{
	size_t n = wm_hold_release(&hold, feed_event, NULL);

	if (n > wm.held_max)
		wm.held_max = n;
}

/* Hold an event back. Past WM_HOLD_MAX events, or out of memory, what was held goes to
 * the models now, and so does everything up to the retry: that fault is charged late, on
 * the tables as the handler left them. */
static void hold_event(const struct wm_held *e, bool store)
{
	if (wm_hold_event(&hold, e, store))
		return;
	release_held();
	feed_event(e, NULL);
}

/* The path of va as the faulting walk read it. */
static bool path_before_handler(uint64_t va, struct wm_path *path)
{
	if (!guest_walk(NULL, va, path))
		return false;
	wm_hold_cut(&hold, path);
	return true;
}

/* The retried access of a pending fault is at va: the fault, then what the handler did.
 * before: the faulting walk's path when the caller has it, else NULL. */
static void apply_fault(uint64_t va, const struct wm_path *before)
{
	struct wm_path path;
	bool held = hold.on && (before || path_before_handler(va, &path));

	if (held && !before)
		before = &path;
	wm.fault_pending = false;
	wm.faults_applied += wm.measuring;
	wm.faults_late += wm.measuring && !held;
	for (int i = 0; i < wm.nmodels; i++)
		wm_page_fault(wm.model[i], va, held ? wm_given_path : guest_walk,
			      held ? (void *)before : NULL);
	release_held();
}

/*
 * A user translation block about to run while a fault is pending. A fault on an
 * instruction fetch has no data access to retry: when the handler wrote an entry on the
 * path of the block's first address, this is the fetch that faulted, and the fault is
 * applied here (its walk priced like a data walk; the fetch itself walks no modelled
 * TLB: there is no ITLB).
 */
static void on_user_tb(unsigned int vcpu, void *udata)
{
	uint64_t va = (uintptr_t)udata;
	struct wm_path path;

	(void)vcpu;
	if (!wm.fault_pending || !hold.on || !path_before_handler(va, &path) || path.present)
		return;
	wm.faults_fetch += wm.measuring;
	apply_fault(va, &path);
}

/* A pending fault whose retry will not come as a user-half access: what was held goes to
 * the models without it. */
static void drop_fault(void)
{
	wm.faults_dropped += wm.measuring;
	wm.fault_pending = false;
	release_held();
}

/*
 * PCID (pcid=on), modelled: QEMU 7.2's TCG gives a guest CPU no PCID, so the guest kernel
 * flushes on every switch. The models apply each switch as 6.1's switch_mm_irqs_off()
 * would on a CPU with PCID (arch/x86/mm/tlb.c, choose_new_asid()): the mm keeps the ASID
 * whose context still names it (its ctx_id), flushed only if its tlb_gen moved on since;
 * otherwise it takes the next of NR_ASIDS round robin, flushed. The PCID is ASID + 1
 * (kern_pcid()). The mm is read from guest RAM when the switch stores it in
 * cpu_tlbstate.loaded_mm, after its CR3 write; its ctx_id and tlb_gen from the mm.
 */
static void pcid_switch(uint64_t mm)
{
	uint64_t ctx_id, tlb_gen;
	unsigned int asid;
	bool flush = true;

	if (!kernel_read64(mm + wm.mm_ctx_id_off, &ctx_id) ||
	    !kernel_read64(mm + wm.mm_tlb_gen_off, &tlb_gen))
		return;
	for (asid = 0; asid < NR_ASIDS && wm.ctxs[asid].ctx_id != ctx_id; asid++)
		;
	if (asid < NR_ASIDS) {
		flush = wm.ctxs[asid].tlb_gen < tlb_gen;
	} else {
		asid = wm.next_asid;
		wm.next_asid = (wm.next_asid + 1) % NR_ASIDS;
	}
	if (flush)
		wm.ctxs[asid].ctx_id = ctx_id, wm.ctxs[asid].tlb_gen = tlb_gen;
	wm.switch_cr3 = false;
	wm.cur_mm = mm;
	wm.cur_asid = asid;
	wm.cur_pcid = (uint16_t)(asid + 1);
	wm.pcid_switches += wm.measuring;
	wm.pcid_noflush += wm.measuring && !flush;
	for (int i = 0; i < wm.nmodels; i++)
		wm_write_cr3(wm.model[i], wm.cur_pcid, !flush);
}

/* A flush of the running mm outside a switch brings its ASID's context up to date, as
 * flush_tlb_func() does. */
static void pcid_caught_up(void)
{
	uint64_t tlb_gen;

	if (wm.cur_mm && kernel_read64(wm.cur_mm + wm.mm_tlb_gen_off, &tlb_gen))
		wm.ctxs[wm.cur_asid].tlb_gen = tlb_gen;
}

/* A store: is it the switch storing its mm in cpu_tlbstate.loaded_mm? */
static void pcid_store(uint64_t va)
{
	uint64_t percpu, mm;

	if (!wm.switch_cr3 || !kernel_read64(wm.percpu_offset_va, &percpu) ||
	    va != percpu + wm.tlbstate_off || !kernel_read64(va, &mm) ||
	    mm <= LOADED_MM_SWITCHING)
		return;
	pcid_switch(mm);
}

static bool in_range(const uint64_t r[2], uint64_t va)
{
	return va >= r[0] && va < r[1];
}

/* ---- callbacks ---- */

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	unsigned int size;
	uint64_t pa;

	(void)vcpu;
	(void)udata;
	if (wm.pcid && (va >> 63) && qemu_plugin_mem_is_store(info))
		pcid_store(va);
	if (!wm.feeding && wm.phys_base_known)
		return;
	hw = qemu_plugin_get_hwaddr(info, va);
	if (!hw)
		return;
	if (qemu_plugin_hwaddr_is_io(hw)) {
		wm.io_accesses += wm.measuring;
		return;
	}
	/* QEMU 7.2 gives the offset in the RAM block, which for RAM above 4 GiB is not the
	 * guest-physical address the page tables hold. */
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (pa >= wm.ram.below_4g)
		pa += (4ull << 30) - wm.ram.below_4g;
	if (!wm.phys_base_known && va >= KERNEL_IMAGE_BASE && va < KERNEL_IMAGE_END) {
		/* any access to the kernel image tells where the image sits physically */
		wm.phys_base = pa - (va - KERNEL_IMAGE_BASE);
		wm.phys_base_known = true;
	}
	if (!wm.feeding)
		return;
	size = 1u << qemu_plugin_mem_size_shift(info);
	if (wm.fault_pending && !(va >> 63))
		apply_fault(va, NULL);	/* the retried access of the fault the guest just handled */
	if (hold.on)
		hold_event(&(struct wm_held){ .va = va, .pa = pa, .size = size,
					      .flush = WM_HELD_ACCESS },
			   qemu_plugin_mem_is_store(info));
	else
		feed_access(va, pa, size);
}

static void on_insn(unsigned int vcpu, void *udata)
{
	enum insn_kind kind = (enum insn_kind)(uintptr_t)udata;
	int i, s;

	(void)vcpu;
	wm.insn_seen[kind] += wm.measuring;
	/* The workload's marks and a context switch end a pending fault's wait for its
	 * retry: the flush left nothing for the fault to invalidate, and the next user
	 * access is not the retry. */
	if (wm.fault_pending && kind != INSN_INVLPG && kind != INSN_CR4 && kind != INSN_INVPCID)
		drop_fault();
	switch (kind) {
	case INSN_MARK_WARMUP:
		wm.marks_warmup++;
		wm.feeding = true;
		return;
	case INSN_MARK_START:
		wm.marks_start++;
		if (!wm.measuring) {
			for (s = 0; s < WM_NSPACES; s++)
				wm.insns_at_start[s] = wm.insns[s];
			/* what the warm-up did stays in the caches, not in the counts */
			for (i = 0; i < wm.nmodels; i++)
				wm_stats_reset(wm.model[i]);
		}
		wm.measuring = wm.feeding = true;
		return;
	case INSN_MARK_STOP:
		wm.marks_stop++;
		if (wm.measuring)
			for (s = 0; s < WM_NSPACES; s++)
				wm.insns_measured[s] += wm.insns[s] - wm.insns_at_start[s];
		wm.measuring = wm.feeding = false;
		return;
	case INSN_CR3_SWITCH:
		wm.switch_cr3 = true;	/* applied when the switch stores its mm: pcid_store() */
		return;
	case INSN_FAULT:
		if (!wm.feeding)
			return;
		wm.faults_seen += wm.measuring;
		wm.fault_pending = hold.on = true;
		return;
	default:
		break;
	}
	/* Flushes apply whether or not we measure: the model's state stays the guest's. */
	if (wm.pcid && (kind == INSN_CR3 || kind == INSN_INVLPG))
		pcid_caught_up();
	if (hold.on)
		hold_event(&(struct wm_held){ .flush = kind }, false);
	else
		feed_flush(kind);
}

/*
 * The instructions that matter, from their bytes: legacy and REX prefixes, then
 *   0f 22 /3 and /4 (mov to CR3, CR4), 0f 01 /7 with a memory operand (INVLPG; mod 3 is
 *   SWAPGS/RDTSCP), 66 0f 38 82 (INVPCID), 0f 1f 80 disp32 (walkmark.h).
 */
static bool decode(const uint8_t *b, size_t len, enum insn_kind *kind)
{
	size_t i = 0;
	bool opsize = false;

	while (i < len && (b[i] == 0x66 || b[i] == 0xf2 || b[i] == 0xf3 || (b[i] & 0xf0) == 0x40)) {
		opsize |= b[i] == 0x66;
		i++;
	}
	if (len - i < 3 || b[i] != 0x0f)
		return false;
	if (b[i + 1] == 0x22 && (b[i + 2] & 0xc0) == 0xc0) {
		unsigned int cr = (b[i + 2] >> 3) & 7;

		if (cr == 3 || cr == 4) {
			*kind = cr == 3 ? INSN_CR3 : INSN_CR4;
			return true;
		}
		return false;
	}
	if (b[i + 1] == 0x01 && ((b[i + 2] >> 3) & 7) == 7 && (b[i + 2] & 0xc0) != 0xc0) {
		*kind = INSN_INVLPG;
		return true;
	}
	if (opsize && len - i >= 4 && b[i + 1] == 0x38 && b[i + 2] == 0x82) {
		*kind = INSN_INVPCID;
		return true;
	}
	if (len - i == 7 && b[i + 1] == 0x1f && b[i + 2] == 0x80) {
		uint32_t disp;

		memcpy(&disp, b + i + 3, 4);
		if ((disp & ~0xffu) != WALKMARK_MAGIC)
			return false;
		if ((disp & 0xff) == WALKMARK_CMD_START)
			*kind = INSN_MARK_START;
		else if ((disp & 0xff) == WALKMARK_CMD_STOP)
			*kind = INSN_MARK_STOP;
		else if ((disp & 0xff) == WALKMARK_CMD_WARMUP)
			*kind = INSN_MARK_WARMUP;
		else
			return false;
		return true;
	}
	return false;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	enum wm_space space = (qemu_plugin_tb_vaddr(tb) >> 63) ? WM_KERNEL : WM_USER;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &wm.insns[space], n);
	if (space == WM_USER)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_user_tb, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)qemu_plugin_tb_vaddr(tb));
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		enum insn_kind kind;

		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, NULL);
		if (va == wm.pf_entry_va)
			kind = INSN_FAULT;
		else if (!decode(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn), &kind))
			continue;
		if (kind == INSN_CR3 && wm.pcid &&
		    (in_range(wm.switch_mm, va) || in_range(wm.load_cr3, va)))
			kind = INSN_CR3_SWITCH;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)kind);
	}
}

/* ---- results ---- */

static const char *const space_name[WM_NSPACES] = { "user", "kernel" };
static const char *const level_name[WM_NLEVELS] = { "", "PTE", "PDE", "PDPTE", "PML4E", "PML5E" };
static const char *const where_name[WM_NWHERE] = { "L1", "L2", "L3", "mem" };
static const char *const page_name[WM_NPAGES] = { "4K", "2M", "1G" };

/* One "preset,space,metric,value" row per number: the report reads this long form. */
static void write_csv(FILE *f)
{
	int i, s, l, w, p;

	fprintf(f, "preset,space,metric,value\n");
	for (s = 0; s < WM_NSPACES; s++)
		fprintf(f, "-,%s,instructions,%" PRIu64 "\n", space_name[s], wm.insns_measured[s]);
	for (i = 0; i < wm.nmodels; i++) {
		const struct wm_stats *st = wm_stats(wm.model[i]);
		const char *name = wm.preset[i]->name;

		/* the preset's prices, so that the report can price any subset of references */
		for (w = 0; w < WM_NWHERE; w++)
			fprintf(f, "%s,-,latency_%s_lo,%g\n%s,-,latency_%s_hi,%g\n", name,
				where_name[w], wm.preset[i]->ref_latency[w].lo, name, where_name[w],
				wm.preset[i]->ref_latency[w].hi);
		fprintf(f, "%s,-,latency_pdc_hit_lo,%g\n%s,-,latency_pdc_hit_hi,%g\n", name,
			wm.preset[i]->pdc_hit.lo, name, wm.preset[i]->pdc_hit.hi);
		fprintf(f, "%s,-,pdc_design,%d\n%s,-,host_levels,%d\n", name,
			wm.preset[i]->psc_design == WM_PSC_PDC, name, wm.preset[i]->host_levels);

		for (s = 0; s < WM_NSPACES; s++) {
			const struct wm_space_stats *ss = &st->space[s];
			struct wm_band cyc = wm_walk_cycles(wm.model[i], s);
			struct wm_band dat = wm_data_cycles(wm.model[i], s);
			struct wm_band l2h = wm_l2_hit_cycles(wm.model[i], s);

#define ROW(metric, fmt, val) \
	fprintf(f, "%s,%s," metric "," fmt "\n", name, space_name[s], val)
			ROW("accesses", "%" PRIu64, ss->accesses);
			ROW("l1_dtlb_misses", "%" PRIu64, ss->l1_dtlb_misses);
			ROW("walks", "%" PRIu64, ss->l2_tlb_misses);
			ROW("walks_failed", "%" PRIu64, ss->walks_failed);
			ROW("stale_refills", "%" PRIu64, ss->stale_refills);
			ROW("walk_cycles_lo", "%.0f", cyc.lo);
			ROW("walk_cycles_hi", "%.0f", cyc.hi);
			ROW("data_cycles_lo", "%.0f", dat.lo);
			ROW("data_cycles_hi", "%.0f", dat.hi);
			ROW("l2_hit_cycles_lo", "%.0f", l2h.lo);
			ROW("l2_hit_cycles_hi", "%.0f", l2h.hi);
			ROW("faults", "%" PRIu64, ss->faults);
			ROW("fault_walks", "%" PRIu64, ss->fault_walks);
			ROW("nested_walks", "%" PRIu64, ss->nested_walks);
			ROW("ntlb_hits", "%" PRIu64, ss->ntlb_hits);
			ROW("l2_pde_hits", "%" PRIu64, ss->l2_pde_hits);
#undef ROW
			for (p = 0; p < WM_NPAGES; p++)
				fprintf(f, "%s,%s,accesses_%s,%" PRIu64 "\n", name, space_name[s],
					page_name[p], ss->page_accesses[p]);
			for (w = 0; w < WM_NWHERE; w++)
				fprintf(f, "%s,%s,data_%s,%" PRIu64 "\n", name, space_name[s],
					where_name[w], ss->data_at[w]);
			for (l = WM_PTE; l < WM_NLEVELS; l++) {
				if (l > WM_PTE)
					fprintf(f, "%s,%s,psc_hits_%s,%" PRIu64 "\n%s,%s,pdc_hits_%s,%"
						PRIu64 "\n%s,%s,npsc_hits_%s,%" PRIu64 "\n%s,%s,"
						"npdc_hits_%s,%" PRIu64 "\n", name,
						space_name[s], level_name[l], ss->psc_hits[l], name,
						space_name[s], level_name[l], ss->pdc_hits[l], name,
						space_name[s], level_name[l], ss->npsc_hits[l], name,
						space_name[s], level_name[l], ss->npdc_hits[l]);
				for (w = 0; w < WM_NWHERE; w++)
					fprintf(f, "%s,%s,refs_%s_%s,%" PRIu64 "\n%s,%s,nrefs_%s_%s,%"
						PRIu64 "\n", name, space_name[s], level_name[l],
						where_name[w], ss->refs[l][w], name, space_name[s],
						level_name[l], where_name[w], ss->nrefs[l][w]);
			}
		}
	}
}

static void write_json(FILE *f)
{
	int i, s;

	fprintf(f, "{\n  \"levels\": %d,\n  \"marks\": {\"start\": %" PRIu64 ", \"stop\": %" PRIu64
		", \"warmup\": %" PRIu64 "},\n", wm.levels, wm.marks_start, wm.marks_stop,
		wm.marks_warmup);
	fprintf(f, "  \"faults\": {\"seen\": %" PRIu64 ", \"applied\": %" PRIu64 ", \"dropped\": %"
		PRIu64 ", \"late\": %" PRIu64 ", \"fetch\": %" PRIu64 ", \"held_max\": %" PRIu64
		"},\n", wm.faults_seen, wm.faults_applied, wm.faults_dropped, wm.faults_late,
		wm.faults_fetch, wm.held_max);
	fprintf(f, "  \"pcid\": {\"on\": %s, \"switches\": %" PRIu64 ", \"noflush\": %" PRIu64
		"},\n", wm.pcid ? "true" : "false", wm.pcid_switches, wm.pcid_noflush);
	fprintf(f, "  \"instructions\": {\"user\": %" PRIu64 ", \"kernel\": %" PRIu64 "},\n",
		wm.insns_measured[WM_USER], wm.insns_measured[WM_KERNEL]);
	fprintf(f, "  \"executed\": {\"cr3_writes\": %" PRIu64 ", \"cr4_writes\": %" PRIu64
		", \"invlpg\": %" PRIu64 ", \"invpcid\": %" PRIu64 "},\n",
		wm.insn_seen[INSN_CR3] + wm.insn_seen[INSN_CR3_SWITCH], wm.insn_seen[INSN_CR4],
		wm.insn_seen[INSN_INVLPG],
		wm.insn_seen[INSN_INVPCID]);
	fprintf(f, "  \"io_accesses\": %" PRIu64 ",\n  \"root_reads_failed\": %" PRIu64 ",\n",
		wm.io_accesses, wm.root_reads_failed);
	fprintf(f, "  \"presets\": [");
	for (i = 0; i < wm.nmodels; i++) {
		const struct wm_preset *p = wm.preset[i];

		fprintf(f, "%s\n    {\"name\": \"%s\", \"cpu\": \"%s\", \"spaces\": {", i ? "," : "",
			p->name, p->cpu);
		for (s = 0; s < WM_NSPACES; s++) {
			const struct wm_space_stats *ss = &wm_stats(wm.model[i])->space[s];
			struct wm_band cyc = wm_walk_cycles(wm.model[i], s);
			uint64_t refs = 0;
			int l, w;

			for (l = WM_PTE; l < WM_NLEVELS; l++)
				for (w = 0; w < WM_NWHERE; w++)
					refs += ss->refs[l][w];
			fprintf(f, "%s\"%s\": {\"accesses\": %" PRIu64 ", \"walks\": %" PRIu64
				", \"walk_refs\": %" PRIu64 ", \"walk_cycles\": [%.0f, %.0f]}",
				s ? ", " : "", space_name[s], ss->accesses, ss->l2_tlb_misses, refs,
				cyc.lo, cyc.hi);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "\n  ]\n}\n");
}

/* Write PREFIX.EXT through a temporary name: a result file is whole or absent. */
static bool write_result(const char *ext, void (*emit)(FILE *))
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", wm.out, ext);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fail("cannot write %s: %s", tmp, strerror(errno));
		return false;
	}
	emit(f);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fail("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return false;
	}
	return true;
}

static void on_exit_qemu(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (wm.measuring || wm.marks_start == 0 || wm.marks_start != wm.marks_stop) {
		fail("no complete measured part (WALKMARK_START ran %" PRIu64 " times, STOP %"
		     PRIu64 "): no result written", wm.marks_start, wm.marks_stop);
		return;
	}
	if (write_result("csv", write_csv))
		write_result("json", write_json);
}

/* ---- arguments ---- */

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && end != s && *end == '\0';
}

/* "ADDRESS:SIZE" into [start, end) */
static bool parse_extent(const char *s, uint64_t r[2])
{
	char start[32];
	const char *colon = strchr(s, ':');
	uint64_t size;

	if (!colon || (size_t)(colon - s) >= sizeof(start))
		return false;
	memcpy(start, s, colon - s);
	start[colon - s] = '\0';
	if (!parse_u64(start, &r[0]) || !parse_u64(colon + 1, &size))
		return false;
	r[1] = r[0] + size;
	return true;
}

static bool add_model(const struct wm_preset *p)
{
	if (wm.nmodels == MAX_MODELS) {
		fail("at most %d models in one run", MAX_MODELS);
		return false;
	}
	wm.model[wm.nmodels] = wm_model_new(p);
	if (!wm.model[wm.nmodels]) {
		fail("out of memory for preset %s", p->name);
		return false;
	}
	wm.preset[wm.nmodels++] = p;
	return true;
}

static bool add_preset(const char *name)
{
	const struct wm_preset *const *p;

	if (strcmp(name, "all") == 0) {
		for (p = wm_presets; *p; p++)
			if (!add_model(*p))
				return false;
		return true;
	}
	if (!wm_preset_find(name)) {
		char known[256] = "";

		for (p = wm_presets; *p; p++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
				 p == wm_presets ? "" : ", ", (*p)->name);
		fail("unknown preset '%s' (known: %s, all)", name, known);
		return false;
	}
	return add_model(wm_preset_find(name));
}

/* A copy of preset `base` named "BASE-SUFFIX", for the next model; NULL when there is no
 * room. */
static struct wm_preset *variant(const char *base, const char *suffix)
{
	struct wm_preset *v = &wm.sweep[wm.nmodels];

	if (wm.nmodels == MAX_MODELS)
		return NULL;
	*v = *wm_preset_find(base);
	snprintf(wm.sweep_name[wm.nmodels], sizeof(wm.sweep_name[0]), "%s-%s", base, suffix);
	v->name = wm.sweep_name[wm.nmodels];
	return v;
}

/*
 * The sizes of the upper-level caches, one at a time: splitpsc with N entries at one
 * level (the others as the preset has them) or at every level, and zen4 with an N-entry
 * PDC, N = 0, 1, 2, 4, ... 64.
 */
static bool add_sweeps(void)
{
	static const char *const what[] = { "all", "pde", "pdpte", "pml4e", "pml5e" };
	char suffix[16];

	for (unsigned int n = 0; n <= 64; n = n ? 2 * n : 1) {
		struct wm_preset *v;

		for (int k = 0; k < 5; k++) {
			snprintf(suffix, sizeof(suffix), "%s%u", what[k], n);
			v = variant("splitpsc", suffix);
			if (!v)
				break;
			for (int l = WM_PDE; l <= WM_PML5E; l++) {
				if (!k || l == k + 1)
					v->psc_entries[l] = n;
			}
			if (!add_model(v))
				return false;
		}
		snprintf(suffix, sizeof(suffix), "pdc%u", n);
		v = variant("zen4", suffix);
		if (!v || (v->pdc_entries = n, !add_model(v))) {
			fail("at most %d models in one run", MAX_MODELS);
			return false;
		}
	}
	return true;
}

/*
 * Every preset asked for again without the PML5E level, "NAME-nopml5e"
 * (wm_model_strip_pml5e): fed the same accesses, the two differ by what the fifth level
 * costs within this boot, the entries its PML5Es crowd out of shared caches included.
 * 5-level boots only.
 */
static bool add_twins(void)
{
	int n = wm.nmodels;

	for (int i = 0; i < n; i++) {
		struct wm_preset *v = variant(wm.preset[i]->name, "nopml5e");

		if (!v || !add_model(v)) {
			fail("at most %d models in one run", MAX_MODELS);
			return false;
		}
		wm_model_strip_pml5e(wm.model[wm.nmodels - 1]);
	}
	return true;
}

static bool map_ram(const char *path, uint64_t size, uint64_t lowmem)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size < size) {
		fail("cannot read the guest RAM file %s (%s): run through scripts/run-guest"
		     " --plugin", path, fd < 0 ? strerror(errno) : "shorter than ramsize");
		if (fd >= 0)
			close(fd);
		return false;
	}
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fail("cannot map %s: %s", path, strerror(errno));
		return false;
	}
	wm.ram.base = p;
	wm.ram.size = size;
	wm.ram.below_4g = lowmem;
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *ram = NULL;
	uint64_t ramsize = 0, lowmem = 0, v;
	bool sweep = false, have_syms[5] = { false };
	unsigned int have_pcid_syms = 0;
	int i;

	if (!info->system_emulation || info->system.smp_vcpus != 1) {
		fail("models one CPU of a system guest: run with --smp 1");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *key = argv[i], *val = eq ? eq + 1 : "";

		if (!eq) {
			fail("argument '%s' is not KEY=VALUE", argv[i]);
			return -1;
		}
		*eq = '\0';
		if (strcmp(key, "preset") == 0) {
			if (!add_preset(val))
				return -1;
		} else if (strcmp(key, "sweep") == 0 && (!strcmp(val, "on") || !strcmp(val, "off"))) {
			sweep = strcmp(val, "on") == 0;
		} else if (strcmp(key, "out") == 0 && *val) {
			wm.out = val;
		} else if (strcmp(key, "ram") == 0 && *val) {
			ram = val;
		} else if (strcmp(key, "ramsize") == 0 && parse_u64(val, &ramsize) && ramsize) {
		} else if (strcmp(key, "lowmem") == 0 && parse_u64(val, &lowmem) && lowmem) {
		} else if (strcmp(key, "levels") == 0 && (!strcmp(val, "4") || !strcmp(val, "5"))) {
			wm.levels = atoi(val);
		} else if (strcmp(key, "percpu_offset") == 0 && parse_u64(val, &v)) {
			wm.percpu_offset_va = v, have_syms[0] = true;
		} else if (strcmp(key, "tlbstate") == 0 && parse_u64(val, &v)) {
			wm.tlbstate_off = v, have_syms[1] = true;
		} else if (strcmp(key, "mm_pgd") == 0 && parse_u64(val, &v)) {
			wm.mm_pgd_off = v, have_syms[2] = true;
		} else if (strcmp(key, "page_offset_base") == 0 && parse_u64(val, &v)) {
			wm.page_offset_base_va = v, have_syms[3] = true;
		} else if (strcmp(key, "pf_entry") == 0 && parse_u64(val, &v)) {
			wm.pf_entry_va = v, have_syms[4] = true;
		} else if (strcmp(key, "pcid") == 0 && (!strcmp(val, "on") || !strcmp(val, "off"))) {
			wm.pcid = strcmp(val, "on") == 0;
		} else if (strcmp(key, "mm_ctx_id") == 0 && parse_u64(val, &v)) {
			wm.mm_ctx_id_off = v, have_pcid_syms |= 1;
		} else if (strcmp(key, "mm_tlb_gen") == 0 && parse_u64(val, &v)) {
			wm.mm_tlb_gen_off = v, have_pcid_syms |= 2;
		} else if (strcmp(key, "switch_mm") == 0 && parse_extent(val, wm.switch_mm)) {
			have_pcid_syms |= 4;
		} else if (strcmp(key, "load_cr3") == 0 && parse_extent(val, wm.load_cr3)) {
		} else {
			fail("bad argument '%s=%s'", key, val);
			return -1;
		}
	}
	if (!wm.nmodels && !add_preset("all"))
		return -1;
	if (wm.levels == 5 && !add_twins())
		return -1;
	if (sweep && !add_sweeps())
		return -1;
	if (!wm.out || !ram || !ramsize || !lowmem || lowmem > ramsize || !wm.levels) {
		fail("needs out=, ram=, ramsize=, lowmem= (at most ramsize) and levels="
		     " (scripts/run-guest --plugin adds all but out=)");
		return -1;
	}
	if (wm.pcid && have_pcid_syms != 7) {
		fail("pcid=on needs mm_ctx_id=, mm_tlb_gen= and switch_mm= of the guest kernel:"
		     " analysis/walkmodel/kernel-args VMLINUX prints them");
		return -1;
	}
	if (!have_syms[0] || !have_syms[1] || !have_syms[2] || !have_syms[3] || !have_syms[4]) {
		fail("needs percpu_offset=, tlbstate=, mm_pgd=, page_offset_base= and pf_entry="
		     " of the guest kernel: analysis/walkmodel/kernel-args VMLINUX prints them");
		return -1;
	}
	/* Fail now, not after the run, when the results cannot be written. */
	if (!write_result("probe", write_json))
		return -1;
	{
		char probe[4200];

		snprintf(probe, sizeof(probe), "%s.probe", wm.out);
		unlink(probe);
	}
	if (!map_ram(ram, ramsize, lowmem))
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_qemu, NULL);
	return 0;
}
