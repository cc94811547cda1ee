// SPDX-License-Identifier: GPL-2.0
/*
 * walkmodel: the address-translation cost model behind model.h.
 *
 * One struct wm_model per modelled CPU:
 *
 *   - an L1 DTLB and an L2 TLB, one set-associative array per page size (4K, 2M, 1G) as the
 *     preset gives them, LRU. An entry is tagged by the virtual page number at its size, the
 *     PCID it was filled under and the global bit, and holds the physical base of the page.
 *   - a paging-structure cache (PSC) per upper level, PDE (2) .. PML5E (5), fully associative
 *     and LRU, tagged by PCID and by the linear-address bits Intel SDM Vol. 3A §4.10.3.1 uses
 *     for each (PML5E: VA[56:48]; PML4E: VA[56:39] with 5-level paging, VA[47:39] with
 *     4-level; PDPTE: VA[..:30]; PDE: VA[..:21]). An entry at level L holds the address of
 *     the level L-1 table, so a hit at L lets a walk start reading at level L-1.
 *   - an L1D/L2/L3 hierarchy of 64-byte lines, LRU, filled into every level on a miss
 *     (inclusive fill; evictions do not back-invalidate). Page-walk references and the data
 *     accesses themselves share it, which is the point of modelling it at all.
 *
 * The model never decodes page tables: on a miss it asks the walker for the entries a walk
 * reads (struct wm_path) and charges each read to the cache level that served it.
 *
 * Speed: wm_access runs for every guest load and store. Nothing allocates after
 * wm_model_new. TLBs keep their tags in one contiguous array (a lookup scans 8-byte tags
 * only) and exact LRU as a per-set permutation of 8-bit ages (0 = most recent; one small
 * row instead of a row of 64-bit stamps); an array holding nothing is not scanned. The
 * PSCs, small, use a per-model counter stamp. The data caches keep each set as a row of
 * tags in most-recently-used-first order (exact LRU without stamps: a set of an 8-way cache
 * is one 64-byte host line, which matters because the modelled L3 is far bigger than the
 * host's caches). Set indexing is a mask (the L3 may have a non-power-of-two number of
 * sets, e.g. 30 MB 12-way, and then uses a modulo, only reached on an L2 miss). A
 * one-entry "last L1 DTLB hit" shortcut skips the L1 DTLB scan when an access stays in the
 * page of the previous one; it is exact (see wm_access).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define LINE_SHIFT	6
#define TAG_NONE	UINT64_MAX	/* no virtual page number or line address is this */

static const unsigned int page_shift[WM_NPAGES] = { 12, 21, 30 };

/* What a TLB entry holds besides its tag and LRU age. */
struct tlb_ent {
	uint64_t base;		/* physical base of the page the translation maps */
	uint16_t pcid;
	uint8_t global;
	uint8_t size;		/* enum wm_page of the translation (differs only when smashed) */
};

/* sets * ways entries, set-major, as three parallel arrays. */
struct tlb {
	uint64_t *tag;		/* virtual page number at the array's page size; TAG_NONE: empty */
	uint8_t *age;		/* per set a permutation of 0..ways-1: 0 most, ways-1 least
				 * recently used; every empty way is older than every full one */
	struct tlb_ent *e;
	unsigned int sets, ways;
	uint64_t mask;		/* sets - 1 */
	size_t used;		/* non-empty entries */
};

struct psc_ent {
	uint64_t key;		/* linear-address bits above the level's index; TAG_NONE: empty */
	uint64_t stamp;
	uint16_t pcid;
	uint8_t levels;		/* paging mode the key was made under (4 or 5) */
};

struct psc {
	struct psc_ent *e;
	unsigned int n;
};

struct cache {
	uint64_t *tag;		/* per set, line addresses most recently used first; TAG_NONE: empty */
	unsigned int sets, ways;
	uint64_t mask;		/* sets - 1 when sets is a power of two */
	bool pow2;
};

struct wm_model {
	const struct wm_preset *p;
	uint64_t clock;		/* PSC LRU stamp source */
	uint16_t pcid;		/* current PCID (000H until a CR3 write says otherwise) */
	struct tlb l1[WM_NPAGES], l2[WM_NPAGES];
	struct psc psc[WM_NLEVELS];
	struct cache cache[3];	/* L1D, L2, L3: index = enum wm_where */
	/* The L1 DTLB entry the last access hit (array, index), or last_t NULL; see wm_access. */
	struct tlb *last_t;
	size_t last_i;
	struct wm_stats stats;
};

static inline bool pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* ---- TLBs ------------------------------------------------------------------------ */

static bool tlb_init(struct tlb *t, const struct wm_tlb_geometry *g)
{
	size_t n = (size_t)g->sets * g->ways;

	memset(t, 0, sizeof(*t));
	if (!g->sets || !g->ways)
		return true;
	if (!pow2(g->sets) || g->ways > 256)
		return false;
	t->tag = malloc(n * sizeof(*t->tag));
	t->age = malloc(n);
	t->e = calloc(n, sizeof(*t->e));
	if (!t->tag || !t->age || !t->e)
		return false;
	for (size_t i = 0; i < n; i++) {
		t->tag[i] = TAG_NONE;
		t->age[i] = (uint8_t)(i % g->ways);
	}
	t->sets = g->sets;
	t->ways = g->ways;
	t->mask = g->sets - 1;
	return true;
}

static inline bool tlb_match(const struct tlb *t, size_t i, uint64_t vpn, uint16_t pcid)
{
	return t->tag[i] == vpn && (t->e[i].global || t->e[i].pcid == pcid);
}

/* Make way w of the set starting at `first` the most recently used. */
static inline void tlb_touch(struct tlb *t, size_t first, unsigned int w)
{
	uint8_t *age = t->age + first, a = age[w];
	unsigned int n = t->ways;	/* a local: stores through age may alias *t */

	for (unsigned int k = 0; k < n; k++)
		age[k] += age[k] < a;
	age[w] = 0;
}

/* The index of the entry translating vpn under the current PCID, made the most recently
 * used, or -1. */
static inline ptrdiff_t tlb_find(struct wm_model *m, struct tlb *t, uint64_t vpn)
{
	size_t first = (vpn & t->mask) * t->ways;
	const uint64_t *tag = t->tag + first;

	if (!t->used)
		return -1;
	for (unsigned int w = 0; w < t->ways; w++) {
		if (tag[w] == vpn && tlb_match(t, first + w, vpn, m->pcid)) {
			tlb_touch(t, first, w);
			return (ptrdiff_t)(first + w);
		}
	}
	return -1;
}

/* Install a translation and make it the set's most recently used entry; its index. */
static ptrdiff_t tlb_fill(struct wm_model *m, struct tlb *t, uint64_t vpn, uint64_t base,
			  bool global, enum wm_page size)
{
	unsigned int victim = 0, w, n = t->ways;
	size_t first;

	if (!t->sets)
		return -1;
	first = (vpn & t->mask) * n;
	/* Over the entry already translating vpn if there is one, else the least recently
	 * used way (age ways-1; an empty one if the set has any). */
	for (w = 0; w < n; w++) {
		if (t->tag[first + w] == vpn && tlb_match(t, first + w, vpn, m->pcid))
			break;
	}
	if (w < n) {
		victim = w;
	} else {
		const uint8_t *age = t->age + first;

		for (w = 0; w < n; w++)
			victim = age[w] == n - 1 ? w : victim;
	}
	if (t->tag[first + victim] == TAG_NONE)
		t->used++;
	t->tag[first + victim] = vpn;
	t->e[first + victim] = (struct tlb_ent){
		.base = base, .pcid = m->pcid, .global = global, .size = size,
	};
	tlb_touch(t, first, victim);
	return (ptrdiff_t)(first + victim);
}

/* Empty entry i and make it the least recently used of its set. */
static inline void tlb_drop(struct tlb *t, size_t i)
{
	unsigned int n = t->ways;
	size_t first = i - i % n;
	uint8_t *age = t->age + first, a = t->age[i];

	if (t->tag[i] == TAG_NONE)
		return;
	t->tag[i] = TAG_NONE;
	t->used--;
	for (unsigned int k = 0; k < n; k++)
		age[k] -= age[k] > a;
	t->age[i] = (uint8_t)(n - 1);
}

static inline bool holds(const struct tlb_ent *e, uint64_t pa)
{
	return pa - e->base < (1ULL << page_shift[e->size]);
}

/* ---- paging-structure caches ----------------------------------------------------- */

/* Linear-address bits naming the level-L entry (SDM §4.10.3.1): VA[top:12+9*(L-1)], top
 * being 56 with 5-level paging and 47 with 4-level paging. */
static inline uint64_t psc_key(uint64_t va, int level, int levels)
{
	unsigned int top = levels == 5 ? 57 : 48;

	return (va & ((1ULL << top) - 1)) >> (12 + 9 * (level - 1));
}

static inline bool psc_match(const struct psc_ent *e, uint64_t key, uint16_t pcid, int levels)
{
	return e->key == key && e->pcid == pcid && e->levels == levels;
}

static struct psc_ent *psc_find(struct wm_model *m, int level, int levels, uint64_t key)
{
	struct psc *c = &m->psc[level];

	for (unsigned int i = 0; i < c->n; i++) {
		if (psc_match(&c->e[i], key, m->pcid, levels)) {
			c->e[i].stamp = ++m->clock;
			return &c->e[i];
		}
	}
	return NULL;
}

static void psc_fill(struct wm_model *m, int level, int levels, uint64_t key)
{
	struct psc *c = &m->psc[level];
	struct psc_ent *victim;
	uint64_t oldest = UINT64_MAX;

	if (!c->n)
		return;
	victim = &c->e[0];
	for (unsigned int i = 0; i < c->n; i++) {
		if (psc_match(&c->e[i], key, m->pcid, levels)) {
			victim = &c->e[i];
			break;
		}
		if (c->e[i].stamp < oldest) {
			oldest = c->e[i].stamp;
			victim = &c->e[i];
		}
	}
	*victim = (struct psc_ent){
		.key = key, .stamp = ++m->clock, .pcid = m->pcid, .levels = levels,
	};
}

/* ---- data caches ----------------------------------------------------------------- */

static bool cache_init(struct cache *c, const struct wm_cache_geometry *g)
{
	uint64_t lines;

	memset(c, 0, sizeof(*c));
	if (!g->size_kib)
		return true;
	if (!g->ways)
		return false;
	lines = (uint64_t)g->size_kib * 1024 >> LINE_SHIFT;
	if (lines % g->ways)
		return false;
	c->sets = lines / g->ways;
	c->ways = g->ways;
	c->pow2 = pow2(c->sets);
	c->mask = c->sets - 1;
	/* 64-byte aligned so that a set of 8 ways is one host cache line. */
	c->tag = aligned_alloc(64, (lines * sizeof(*c->tag) + 63) & ~(size_t)63);
	if (!c->tag)
		return false;
	for (uint64_t i = 0; i < lines; i++)
		c->tag[i] = TAG_NONE;
	return true;
}

/* Look line up in one level and make it the set's most recently used line; on a miss
 * that pushes the least recently used one (the last) out. True on a hit. */
static inline bool cache_ref(struct cache *c, uint64_t line)
{
	uint64_t set = c->pow2 ? line & c->mask : line % c->sets;
	uint64_t *row = c->tag + set * c->ways;
	unsigned int w;
	bool hit;

	if (row[0] == line)
		return true;
	for (w = 1; w < c->ways && row[w] != line; w++)
		;
	hit = w < c->ways;
	if (!hit)
		w = c->ways - 1;
	for (; w > 0; w--)
		row[w] = row[w - 1];
	row[0] = line;
	return hit;
}

/* One reference to physical address pa: where it was served. Every level it missed in
 * gets the line (inclusive fill); absent levels are skipped. */
static inline enum wm_where mem_ref(struct wm_model *m, uint64_t pa)
{
	uint64_t line = pa >> LINE_SHIFT;

	for (int l = WM_AT_L1; l <= WM_AT_L3; l++) {
		if (m->cache[l].sets && cache_ref(&m->cache[l], line))
			return (enum wm_where)l;
	}
	return WM_AT_MEM;
}

/* ---- model ----------------------------------------------------------------------- */

void wm_model_free(struct wm_model *m)
{
	if (!m)
		return;
	for (int s = 0; s < WM_NPAGES; s++) {
		struct tlb *t[2] = { &m->l1[s], &m->l2[s] };

		for (int k = 0; k < 2; k++) {
			free(t[k]->tag);
			free(t[k]->age);
			free(t[k]->e);
		}
	}
	for (int l = 0; l < WM_NLEVELS; l++)
		free(m->psc[l].e);
	for (int l = 0; l < 3; l++)
		free(m->cache[l].tag);
	free(m);
}

struct wm_model *wm_model_new(const struct wm_preset *preset)
{
	const struct wm_cache_geometry *cg[3];
	struct wm_model *m;

	if (!preset)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->p = preset;
	for (int s = 0; s < WM_NPAGES; s++) {
		if (!tlb_init(&m->l1[s], &preset->l1_dtlb[s]) ||
		    !tlb_init(&m->l2[s], &preset->l2_tlb[s]))
			goto fail;
	}
	for (int l = WM_PDE; l <= WM_PML5E; l++) {
		unsigned int n = preset->psc_entries[l];

		if (!n)
			continue;
		m->psc[l].e = malloc(n * sizeof(*m->psc[l].e));
		if (!m->psc[l].e)
			goto fail;
		for (unsigned int i = 0; i < n; i++)
			m->psc[l].e[i] = (struct psc_ent){ .key = TAG_NONE };
		m->psc[l].n = n;
	}
	cg[0] = &preset->l1d;
	cg[1] = &preset->l2;
	cg[2] = &preset->l3;
	for (int l = 0; l < 3; l++) {
		if (!cache_init(&m->cache[l], cg[l]))
			goto fail;
	}
	return m;
fail:
	wm_model_free(m);
	return NULL;
}

const struct wm_preset *wm_model_preset(const struct wm_model *m)
{
	return m->p;
}

/* Fill the L2 TLB (only walks do). */
static void l2_fill(struct wm_model *m, uint64_t va, uint64_t base, bool global,
		    enum wm_page size)
{
	if (m->l2[size].sets) {
		tlb_fill(m, &m->l2[size], va >> page_shift[size], base, global, size);
	} else if (size == WM_1G && m->p->l2_tlb_smash_1g) {
		/* A smashed 1G page: the 2M array keeps it under the 2M page number of va. */
		tlb_fill(m, &m->l2[WM_2M], va >> page_shift[WM_2M], base, global, WM_1G);
	}
}

/* Fill the L1 DTLB; the new entry is the most recently used TLB entry, so it can be the
 * `last` shortcut (see wm_access) when nothing touches the TLBs after it. */
static inline void l1_fill(struct wm_model *m, uint64_t va, uint64_t base, bool global,
			   enum wm_page size)
{
	ptrdiff_t i = tlb_fill(m, &m->l1[size], va >> page_shift[size], base, global, size);

	m->last_t = i < 0 ? NULL : &m->l1[size];
	m->last_i = (size_t)i;
}

/*
 * The walk after an L2 TLB miss. Returns the page size of the translation, or -1 when the
 * walk failed (the walker knew no root, or the leaf was not present).
 *
 * With the path in hand, find the deepest level L (above the leaf) whose PSC holds the
 * entry for va under the current PCID: the walk then reads the entries of levels L-1 down
 * to the leaf; without a hit it reads path.levels down to the leaf. Every entry read is a
 * reference to the cache hierarchy at entry_pa. A present walk then fills the PSCs of the
 * non-leaf levels it read and the TLBs; a failed one fills nothing.
 */
static int walk(struct wm_model *m, struct wm_space_stats *st, uint64_t va, wm_walker walker,
		void *ctx)
{
	struct wm_path path;
	int start, leaf, levels;
	enum wm_page size;
	uint64_t base;

	memset(&path, 0, sizeof(path));
	if (!walker || !walker(ctx, va, &path)) {
		st->walks_failed++;
		return -1;
	}
	levels = path.levels;
	leaf = path.leaf;
	if ((levels != 4 && levels != 5) || leaf < WM_PTE || leaf > WM_PDPTE) {
		st->walks_failed++;	/* a walker bug; nothing sensible to charge */
		return -1;
	}

	start = levels;
	for (int l = leaf + 1; l <= levels; l++) {
		if (psc_find(m, l, levels, psc_key(va, l, levels))) {
			st->psc_hits[l]++;
			start = l - 1;
			break;
		}
	}
	for (int l = start; l >= leaf; l--)
		st->refs[l][mem_ref(m, path.entry_pa[l])]++;

	if (!path.present) {
		st->walks_failed++;
		return -1;
	}
	for (int l = start; l > leaf; l--)
		psc_fill(m, l, levels, psc_key(va, l, levels));

	size = (enum wm_page)(leaf - 1);
	base = path.page_pa & ~((1ULL << page_shift[size]) - 1);
	l2_fill(m, va, base, path.global, size);
	l1_fill(m, va, base, path.global, size);
	return size;
}

enum lookup { LOOKUP_MISS, LOOKUP_HIT, LOOKUP_STALE };

/*
 * Look va up in one TLB level (an array per page size). A hit whose page no longer holds
 * pa is stale: counted, dropped, and reported as such, so that the caller walks at once.
 */
static enum lookup tlb_level_lookup(struct wm_model *m, struct tlb *level, uint64_t va,
				    uint64_t pa, struct wm_space_stats *st, struct tlb **t,
				    ptrdiff_t *i)
{
	for (int s = 0; s < WM_NPAGES; s++) {
		*t = &level[s];
		if (!(*t)->sets)
			continue;
		*i = tlb_find(m, *t, va >> page_shift[s]);
		if (*i < 0)
			continue;
		if (holds(&(*t)->e[*i], pa))
			return LOOKUP_HIT;
		st->stale_refills++;
		tlb_drop(*t, (size_t)*i);
		return LOOKUP_STALE;
	}
	return LOOKUP_MISS;
}

/*
 * One data access. The translation is looked up in the L1 DTLB (every page size it holds),
 * then the L2 TLB (a hit refills the L1), then walked. A TLB hit whose page no longer
 * contains pa (the guest remapped it without a flush the model saw, e.g. copy-on-write)
 * counts a stale refill, drops that entry and walks as on a miss; it counts as an L1 DTLB
 * miss (and as an L2 TLB miss, the walk it starts). Then the access itself is a reference
 * to the cache hierarchy at pa.
 *
 * An access crossing a cache line or a page is counted once, on its first line and with
 * the translation of its first byte (size is not used): the plugin's accesses are at most
 * a few lines long and crossings are rare enough not to matter to the walk costs.
 *
 * The `last` shortcut: when the previous access hit or filled L1 DTLB entry E and no TLB
 * has been looked up or changed since (every other path below and every flush clears
 * `last`), E is still the most recently used entry of its set, so a hit on E now needs no
 * scan and no LRU update to leave the LRU order exactly as the full lookup would.
 */
void wm_access(struct wm_model *m, uint64_t va, uint64_t pa, unsigned int size,
	       wm_walker walker, void *ctx)
{
	struct wm_space_stats *st = &m->stats.space[va >> 63];
	struct tlb *t = m->last_t;
	const struct tlb_ent *e;
	ptrdiff_t i;
	int psize;

	(void)size;
	st->accesses++;
	if (t) {
		e = &t->e[m->last_i];
		if (t->tag[m->last_i] == va >> page_shift[e->size] && holds(e, pa)) {
			psize = e->size;
			goto data;
		}
		m->last_t = NULL;
	}

	switch (tlb_level_lookup(m, m->l1, va, pa, st, &t, &i)) {
	case LOOKUP_HIT:
		m->last_t = t;
		m->last_i = (size_t)i;
		psize = t->e[i].size;
		goto data;
	case LOOKUP_STALE:
		st->l1_dtlb_misses++;
		break;
	case LOOKUP_MISS:
		st->l1_dtlb_misses++;
		if (tlb_level_lookup(m, m->l2, va, pa, st, &t, &i) == LOOKUP_HIT) {
			e = &t->e[i];
			psize = e->size;
			l1_fill(m, va, e->base, e->global, e->size);
			goto data;
		}
		break;
	}
	st->l2_tlb_misses++;
	psize = walk(m, st, va, walker, ctx);
	if (psize < 0) {
		/* No translation: the access is still charged below (the plugin saw it
		 * happen), but not to a page size. */
		st->data_at[mem_ref(m, pa)]++;
		return;
	}
data:
	st->page_accesses[psize]++;
	st->data_at[mem_ref(m, pa)]++;
}

/* ---- invalidation (Intel SDM Vol. 3A §4.10.4.1) ---------------------------------- */

/* Which TLB entries an operation drops. */
struct inval {
	bool all_pcids;		/* else only entries of `pcid` */
	uint16_t pcid;
	bool globals;		/* global entries go too (regardless of PCID) */
	bool nonglobals;	/* non-global entries (of the PCIDs above) go */
	bool one_page;		/* only entries translating linear address `va` */
	uint64_t va;
};

static bool inval_hits(const struct inval *iv, uint64_t tag, const struct tlb_ent *e,
		       enum wm_page arr)
{
	if (tag == TAG_NONE)
		return false;
	if (iv->one_page) {
		bool covers = tag == iv->va >> page_shift[arr];

		/* A smashed 1G page may sit in several 2M entries: all of them go (the SDM
		 * asks that every TLB entry for a page larger than 4K be invalidated). */
		if (!covers && e->size == WM_1G && arr == WM_2M)
			covers = tag >> 9 == iv->va >> page_shift[WM_1G];
		if (!covers)
			return false;
	}
	if (e->global)
		return iv->globals;
	return iv->nonglobals && (iv->all_pcids || e->pcid == iv->pcid);
}

static void tlb_inval(struct wm_model *m, const struct inval *iv)
{
	for (int s = 0; s < WM_NPAGES; s++) {
		struct tlb *lv[2] = { &m->l1[s], &m->l2[s] };

		for (int k = 0; k < 2; k++) {
			size_t n = (size_t)lv[k]->sets * lv[k]->ways;

			for (size_t i = 0; i < n && lv[k]->used; i++) {
				if (inval_hits(iv, lv[k]->tag[i], &lv[k]->e[i], (enum wm_page)s))
					tlb_drop(lv[k], i);
			}
		}
	}
	m->last_t = NULL;
}

/* Drop PSC entries: of every PCID, or of `pcid` only; with one_va, only the entries that
 * would be used to translate va (in the paging mode each entry was made under). */
static void psc_inval(struct wm_model *m, bool all_pcids, uint16_t pcid, bool one_va,
		      uint64_t va)
{
	for (int l = WM_PDE; l <= WM_PML5E; l++) {
		struct psc *c = &m->psc[l];

		for (unsigned int i = 0; i < c->n; i++) {
			struct psc_ent *e = &c->e[i];

			if (e->key == TAG_NONE || (!all_pcids && e->pcid != pcid))
				continue;
			if (one_va && e->key != psc_key(va, l, e->levels))
				continue;
			*e = (struct psc_ent){ .key = TAG_NONE };
		}
	}
}

/*
 * MOV to CR3 (SDM §4.10.4.1): with CR4.PCIDE = 0 it invalidates the TLB entries of PCID
 * 000H except global ones, and all PSC entries of PCID 000H; with CR4.PCIDE = 1 and bit 63
 * of the source clear, the TLB entries (except global) and PSC entries of the PCID in
 * bits 11:0 of the new value; with bit 63 set it is not required to invalidate anything.
 * PCIDE = 0 is the same rule with the PCID always 000H, so one path serves both.
 */
void wm_write_cr3(struct wm_model *m, uint16_t pcid, bool noflush)
{
	m->pcid = pcid & 0xfff;
	m->last_t = NULL;
	if (noflush)
		return;
	m->stats.flushes_cr3++;
	tlb_inval(m, &(struct inval){ .pcid = m->pcid, .nonglobals = true });
	psc_inval(m, false, m->pcid, false, 0);
}

/*
 * INVLPG (SDM §4.10.4.1): invalidates the TLB entries for the page number of the operand
 * that belong to the current PCID, and global entries for that page number whatever their
 * PCID; and all PSC entries of the current PCID, whatever linear addresses they are for.
 * With the operand unknown to the plugin, only the PSC part is certain; TLB entries stay.
 */
void wm_invlpg(struct wm_model *m, bool va_known, uint64_t va)
{
	m->stats.flushes_invlpg++;
	if (va_known)
		tlb_inval(m, &(struct inval){ .pcid = m->pcid, .globals = true,
					      .nonglobals = true, .one_page = true, .va = va });
	psc_inval(m, false, m->pcid, false, 0);
	m->last_t = NULL;
}

/*
 * INVPCID (SDM §4.10.4.1 and the INVPCID reference):
 *   0 individual-address: mappings, except global translations, of the PCID in the
 *     descriptor that would be used to translate its linear address: the TLB entries for
 *     that page, and the PSC entries that translation would use (those whose VA prefix is
 *     va's). The SDM allows more to go (real processors may drop every PSC entry of the
 *     PCID, as INVLPG must); this is the least it requires.
 *   1 single-context: all mappings of that PCID except global translations (TLB and PSC).
 *   2 all-context including globals: every mapping of every PCID.
 *   3 all-context: every mapping of every PCID except global translations.
 * Other types fault (#GP) and change nothing.
 */
void wm_invpcid(struct wm_model *m, unsigned int type, uint16_t pcid, uint64_t va)
{
	pcid &= 0xfff;
	switch (type) {
	case 0:
		tlb_inval(m, &(struct inval){ .pcid = pcid, .nonglobals = true,
					      .one_page = true, .va = va });
		psc_inval(m, false, pcid, true, va);
		break;
	case 1:
		tlb_inval(m, &(struct inval){ .pcid = pcid, .nonglobals = true });
		psc_inval(m, false, pcid, false, 0);
		break;
	case 2:
		tlb_inval(m, &(struct inval){ .all_pcids = true, .globals = true,
					      .nonglobals = true });
		psc_inval(m, true, 0, false, 0);
		break;
	case 3:
		tlb_inval(m, &(struct inval){ .all_pcids = true, .nonglobals = true });
		psc_inval(m, true, 0, false, 0);
		break;
	default:
		return;
	}
	m->stats.flushes_invpcid++;
}

/* MOV to CR4 changing CR4.PGE (or clearing PCIDE) (SDM §4.10.4.1): all TLB entries,
 * global ones included, and all PSC entries, for all PCIDs. */
void wm_flush_global(struct wm_model *m)
{
	m->stats.flushes_global++;
	tlb_inval(m, &(struct inval){ .all_pcids = true, .globals = true, .nonglobals = true });
	psc_inval(m, true, 0, false, 0);
}

/* ---- statistics ------------------------------------------------------------------ */

const struct wm_stats *wm_stats(const struct wm_model *m)
{
	return &m->stats;
}

void wm_stats_reset(struct wm_model *m)
{
	memset(&m->stats, 0, sizeof(m->stats));
}

/*
 * Cycles spent reading paging-structure entries: sum over levels and places of
 * refs[level][where] * ref_latency[where], lo and hi apart. It covers the walk references
 * only, each as if it were serialised and nothing overlapped it; it does not include the
 * L2 TLB hits (wm_l2_hit_cycles), the PSC lookups themselves, or the data accesses.
 */
struct wm_band wm_walk_cycles(const struct wm_model *m, enum wm_space sp)
{
	const struct wm_space_stats *st = &m->stats.space[sp];
	struct wm_band b = { 0, 0 };

	for (int l = WM_PTE; l <= WM_PML5E; l++) {
		for (int w = 0; w < WM_NWHERE; w++) {
			b.lo += (double)st->refs[l][w] * m->p->ref_latency[w].lo;
			b.hi += (double)st->refs[l][w] * m->p->ref_latency[w].hi;
		}
	}
	return b;
}

struct wm_band wm_l2_hit_cycles(const struct wm_model *m, enum wm_space sp)
{
	const struct wm_space_stats *st = &m->stats.space[sp];
	double hits = (double)(st->l1_dtlb_misses - st->l2_tlb_misses);

	return (struct wm_band){ hits * m->p->l2_tlb_hit.lo, hits * m->p->l2_tlb_hit.hi };
}
