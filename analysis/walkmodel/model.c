// SPDX-License-Identifier: GPL-2.0
/*
 * walkmodel: the address-translation cost model behind model.h.
 *
 * One struct wm_model per modelled CPU:
 *
 *   - an L1 DTLB and an L2 TLB, set-associative arrays as the preset gives them, LRU: one
 *     per page size, or for the L2 one array that every size (and, with AMD's design,
 *     PDEs) shares. An entry is tagged by its kind (page size or PDE) and the virtual page
 *     number at that size, the PCID it was filled under and the global bit, and holds the
 *     physical base of the page.
 *   - the caches of upper-level entries, in one of two designs (model.h, wm_psc_design):
 *     Intel's paging-structure caches (PSC), one per level PDE (2) .. PML5E (5), fully
 *     associative and LRU, tagged by PCID and by the linear-address bits Intel SDM Vol. 3A
 *     §4.10.3.1 uses for each (PML5E: VA[56:48]; PML4E: VA[56:39] with 5-level paging,
 *     VA[47:39] with 4-level; PDPTE: VA[..:30]; PDE: VA[..:21]); an entry at level L holds
 *     the address of the level L-1 table, so a hit at L lets a walk start reading at L-1.
 *     Or AMD's: PDEs in the L2 TLB (a hit skips to the PTE) and a page directory cache
 *     (PDC) of PDPTEs, PML4Es and PML5Es tagged by the physical address of the entry,
 *     fully associative and LRU, looked up at each level as the walk reaches it.
 *   - an L1D/L2/L3 hierarchy of 64-byte lines, LRU, filled into every level on a miss
 *     (inclusive fill; evictions do not back-invalidate). Page-walk references and the data
 *     accesses themselves share it, which is the point of modelling it at all.
 *   - virtualised (host_levels 4 or 5): the host's tables, built here for the guest's
 *     physical memory (4K pages; guest RAM at WM_HOST_GUEST_BASE, the tables above
 *     WM_HOST_TABLES_BASE), walked for every guest-physical address a walk needs: each
 *     guest entry's and the data's. A nested TLB caches guest-physical pages; Intel's
 *     design adds host-side PSCs keyed by guest-physical bits and makes the guest's PSCs
 *     and TLBs combined mappings (linear to host-physical, SDM Vol. 3C §28.3, "Caching
 *     Translation Information"); AMD's keeps host entries in the same PDC.
 *
 * The model never decodes page tables: on a miss it asks the walker for the entries a walk
 * reads (struct wm_path) and charges each read to the cache level that served it.
 *
 * Speed: wm_access runs for every guest load and store. Nothing allocates after
 * wm_model_new. TLBs keep their tags in one contiguous array (a lookup scans 8-byte tags
 * only) and exact LRU as a per-set permutation of 8-bit ages (0 = most recent; one small
 * row instead of a row of 64-bit stamps); an array holding nothing is not scanned. The
 * PSCs and the PDC, small, use a per-model counter stamp. The data caches keep each set
 * as a row of tags in most-recently-used-first order (exact LRU without stamps: a set of
 * an 8-way cache is one 64-byte host line, which matters because the modelled L3 is far
 * bigger than the host's caches). Set indexing is a mask (the L3 may have a
 * non-power-of-two number of sets, e.g. 30 MB 12-way, and then uses a modulo, only reached
 * on an L2 miss). A one-entry "last L1 DTLB hit" shortcut skips the L1 DTLB scan when an
 * access stays in the page of the previous one; it is exact (see wm_access).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define LINE_SHIFT	6
#define TAG_NONE	UINT64_MAX	/* no tag or line address is this */

/* What a TLB entry translates: a page of one size, or (AMD) a PDE, the page table of a
 * 2M region. The kind sits in bits 60-61 of the tag, above any virtual page number. */
enum tlb_kind { K_4K = WM_4K, K_2M = WM_2M, K_1G = WM_1G, K_PDE, K_NKINDS };
#define KIND_SHIFT	60

static const unsigned int page_shift[WM_NPAGES] = { 12, 21, 30 };
static const unsigned int kind_shift[K_NKINDS] = { 12, 21, 30, 21 };

static inline uint64_t tlb_tag(enum tlb_kind kind, uint64_t va)
{
	return (va >> kind_shift[kind] & ((1ULL << KIND_SHIFT) - 1)) |
	       (uint64_t)kind << KIND_SHIFT;
}

/* What a TLB entry holds besides its tag and LRU age. */
struct tlb_ent {
	uint64_t base;		/* physical base of the page the translation maps */
	uint16_t pcid;
	uint8_t global;
	uint8_t size;		/* enum wm_page of the translation (differs only when smashed) */
};

/* sets * ways entries, set-major, as three parallel arrays. */
struct tlb {
	uint64_t *tag;		/* tlb_tag(); TAG_NONE: empty */
	uint8_t *age;		/* per set a permutation of 0..ways-1: 0 most, ways-1 least
				 * recently used; every empty way is older than every full one */
	struct tlb_ent *e;
	unsigned int sets, ways;
	uint64_t mask;		/* sets - 1 */
	size_t used;		/* non-empty entries */
};

struct psc_ent {
	uint64_t key;		/* split PSC: linear-address bits above the level's index;
				 * PDC: the entry's physical address; TAG_NONE: empty */
	uint64_t stamp;
	uint16_t pcid;
	uint8_t levels;		/* paging mode the key was made under (4 or 5) */
	uint8_t host;		/* a host-table entry (nested): guest flushes leave it */
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

struct upper_design;
static const struct upper_design *upper_design_for(enum wm_psc_design design);

struct wm_model {
	const struct wm_preset *p;
	const struct upper_design *d;	/* how the preset caches upper-level entries */
	uint64_t clock;		/* PSC LRU stamp source */
	uint16_t pcid;		/* current PCID (000H until a CR3 write says otherwise) */
	struct tlb l1[WM_NPAGES];
	struct tlb l2_store[WM_NPAGES];
	struct tlb *l2[WM_NPAGES];	/* the array each size uses: unified, all are store[0] */
	struct psc psc[WM_NLEVELS];	/* WM_PSC_SPLIT, by level */
	struct psc pdc;			/* WM_PSC_PDC */
	struct psc npsc[WM_NLEVELS];	/* nested, WM_PSC_SPLIT: host-side, by level */
	struct tlb ntlb;		/* nested TLB: guest-physical 4K pages */
	struct cache cache[3];	/* L1D, L2, L3: index = enum wm_where */
	/* The L1 DTLB entry the last access hit (array, index), or last_t NULL; see wm_access. */
	struct tlb *last_t;
	size_t last_i;
	struct wm_stats stats;
	bool strip_pml5e;	/* wm_model_strip_pml5e() */
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

static void tlb_free(struct tlb *t)
{
	free(t->tag);
	free(t->age);
	free(t->e);
}

static inline bool tlb_match(const struct tlb *t, size_t i, uint64_t tag, uint16_t pcid)
{
	return t->tag[i] == tag && (t->e[i].global || t->e[i].pcid == pcid);
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

/* The index of the entry with `tag` under the current PCID, made the most recently used,
 * or -1. The set is chosen by the tag's low bits (the page number's). */
static inline ptrdiff_t tlb_find(struct wm_model *m, struct tlb *t, uint64_t tag)
{
	size_t first = (tag & t->mask) * t->ways;
	const uint64_t *row = t->tag + first;

	if (!t->used)
		return -1;
	for (unsigned int w = 0; w < t->ways; w++) {
		if (row[w] == tag && tlb_match(t, first + w, tag, m->pcid)) {
			tlb_touch(t, first, w);
			return (ptrdiff_t)(first + w);
		}
	}
	return -1;
}

/* Install an entry and make it the set's most recently used; its index, or -1 when the
 * array is absent. */
static ptrdiff_t tlb_fill(struct wm_model *m, struct tlb *t, uint64_t tag, uint64_t base,
			  bool global, enum wm_page size)
{
	unsigned int victim = 0, w, n = t->ways;
	size_t first;

	if (!t->sets)
		return -1;
	first = (tag & t->mask) * n;
	/* Over the entry already holding tag if there is one, else the least recently used
	 * way (age ways-1; an empty one if the set has any). */
	for (w = 0; w < n; w++) {
		if (tlb_match(t, first + w, tag, m->pcid))
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
	t->tag[first + victim] = tag;
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

/* ---- paging-structure caches and the page directory cache ------------------------ */

/* Linear-address bits naming the level-L entry (SDM §4.10.3.1): VA[top:12+9*(L-1)], top
 * being 56 with 5-level paging and 47 with 4-level paging. The same for a guest-physical
 * address and the host's tables (top: 12 + 9 x host levels - 1). */
static inline uint64_t psc_key(uint64_t va, int level, int levels)
{
	unsigned int top = 12 + 9 * levels;

	return (va & ((1ULL << top) - 1)) >> (12 + 9 * (level - 1));
}

static bool psc_init(struct psc *c, unsigned int n)
{
	c->n = 0;
	c->e = NULL;
	if (!n)
		return true;
	c->e = malloc(n * sizeof(*c->e));
	if (!c->e)
		return false;
	for (unsigned int i = 0; i < n; i++)
		c->e[i] = (struct psc_ent){ .key = TAG_NONE };
	c->n = n;
	return true;
}

static inline bool psc_match(const struct psc_ent *e, uint64_t key, uint16_t pcid, int levels)
{
	return e->key == key && e->pcid == pcid && e->levels == levels;
}

/* The entry for key (of that PCID and paging mode), made the most recently used. */
static bool psc_find(struct wm_model *m, struct psc *c, uint64_t key, uint16_t pcid, int levels)
{
	for (unsigned int i = 0; i < c->n; i++) {
		if (psc_match(&c->e[i], key, pcid, levels)) {
			c->e[i].stamp = ++m->clock;
			return true;
		}
	}
	return false;
}

static void psc_fill(struct wm_model *m, struct psc *c, uint64_t key, uint16_t pcid, int levels,
		     bool host)
{
	struct psc_ent *victim;
	uint64_t oldest = UINT64_MAX;

	if (!c->n)
		return;
	victim = &c->e[0];
	for (unsigned int i = 0; i < c->n; i++) {
		if (psc_match(&c->e[i], key, pcid, levels)) {
			victim = &c->e[i];
			break;
		}
		if (c->e[i].stamp < oldest) {
			oldest = c->e[i].stamp;
			victim = &c->e[i];
		}
	}
	*victim = (struct psc_ent){
		.key = key, .stamp = ++m->clock, .pcid = pcid, .levels = (uint8_t)levels,
		.host = host,
	};
}

/* The PDC is tagged by physical address alone: one PCID (0) and mode (0) for every entry. */
static inline bool pdc_find(struct wm_model *m, uint64_t pa)
{
	return psc_find(m, &m->pdc, pa, 0, 0);
}

static inline void pdc_fill(struct wm_model *m, uint64_t pa, bool host)
{
	psc_fill(m, &m->pdc, pa, 0, 0, host);
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
	c->sets = (unsigned int)(lines / g->ways);
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
		tlb_free(&m->l1[s]);
		tlb_free(&m->l2_store[s]);
	}
	tlb_free(&m->ntlb);
	for (int l = 0; l < WM_NLEVELS; l++) {
		free(m->psc[l].e);
		free(m->npsc[l].e);
	}
	free(m->pdc.e);
	for (int l = 0; l < 3; l++)
		free(m->cache[l].tag);
	free(m);
}

struct wm_model *wm_model_new(const struct wm_preset *preset)
{
	const struct wm_cache_geometry *cg[3];
	struct wm_model *m;
	bool pdc;

	if (!preset)
		return NULL;
	pdc = preset->psc_design == WM_PSC_PDC;
	/* The PDC design keeps PDEs in the one L2 array; a host has 4 or 5 levels. */
	if ((pdc && !preset->l2_tlb_unified) ||
	    (preset->host_levels && preset->host_levels != 4 && preset->host_levels != 5))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->p = preset;
	m->d = upper_design_for(preset->psc_design);
	for (int s = 0; s < WM_NPAGES; s++) {
		if (!tlb_init(&m->l1[s], &preset->l1_dtlb[s]))
			goto fail;
		/* Unified: the one array is l2_store[0]; a 1G page has no array of its own. */
		if (!preset->l2_tlb_unified || s == WM_4K) {
			if (!tlb_init(&m->l2_store[s], &preset->l2_tlb[s]))
				goto fail;
		}
		m->l2[s] = preset->l2_tlb_unified && s != WM_1G ? &m->l2_store[WM_4K] :
			   &m->l2_store[s];
	}
	if (!tlb_init(&m->ntlb, &(struct wm_tlb_geometry){ 1, preset->host_levels ?
							   preset->ntlb_entries : 0 }))
		goto fail;
	for (int l = WM_PDE; l <= WM_PML5E; l++) {
		if (!psc_init(&m->psc[l], pdc ? 0 : preset->psc_entries[l]) ||
		    !psc_init(&m->npsc[l], pdc || !preset->host_levels ? 0 :
				preset->npsc_entries[l]))
			goto fail;
	}
	if (!psc_init(&m->pdc, pdc ? preset->pdc_entries : 0))
		goto fail;
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
	if (m->l2[size]->sets) {
		tlb_fill(m, m->l2[size], tlb_tag((enum tlb_kind)size, va), base, global, size);
	} else if (size == WM_1G && m->p->l2_tlb_smash_1g) {
		/* A smashed 1G page: the 2M array keeps it under the 2M page number of va. */
		tlb_fill(m, m->l2[WM_2M], tlb_tag(K_2M, va), base, global, WM_1G);
	}
}

/* Fill the L1 DTLB; the new entry is the most recently used TLB entry, so it can be the
 * `last` shortcut (see wm_access) when nothing touches the TLBs after it. */
static inline void l1_fill(struct wm_model *m, uint64_t va, uint64_t base, bool global,
			   enum wm_page size)
{
	ptrdiff_t i = tlb_fill(m, &m->l1[size], tlb_tag((enum tlb_kind)size, va), base, global,
			       size);

	m->last_t = i < 0 ? NULL : &m->l1[size];
	m->last_i = (size_t)i;
}

/* ---- walks ----------------------------------------------------------------------- */

static inline uint64_t host_pa(uint64_t gpa)
{
	return gpa + WM_HOST_GUEST_BASE;
}

/* Host-physical address of the host-table entry at `level` that translates gpa: one
 * table per level and span of guest-physical memory, at a place made from both. */
static inline uint64_t host_entry_pa(uint64_t gpa, int level)
{
	uint64_t table = WM_HOST_TABLES_BASE | (uint64_t)level << 44 |
			 (gpa >> (12 + 9 * level)) << 12;

	return table + (gpa >> (12 + 9 * (level - 1)) & 511) * 8;
}

/*
 * How a preset caches upper-level entries, one set of functions per design (the preset's
 * psc_design), for the guest's walk and, nested, the host's:
 *   walk_start   the level a walk starts at, below what the design holds for va; *known:
 *                that table's address came from the cache (nested: no translation)
 *   entry_hit    the level-l entry at physical pa is served by the cache, not read; a
 *                filling walk caches a missed entry where the design does so per entry
 *   walk_done    a walk that succeeded from start: cache what the design caches per walk
 *   host_start, host_entry_hit   the same for a host walk translating gpa
 *   inval        drop guest entries (upper_inval()'s arguments)
 * The hit counters are the design's own: psc_hits and npsc_hits the split design's,
 * l2_pde_hits, pdc_hits and npdc_hits the PDC design's.
 */
struct upper_design {
	int (*walk_start)(struct wm_model *m, struct wm_space_stats *st, uint64_t va,
			  const struct wm_path *path, bool *known);
	bool (*entry_hit)(struct wm_model *m, struct wm_space_stats *st,
			  const struct wm_path *path, int l, uint64_t pa, bool fill);
	void (*walk_done)(struct wm_model *m, uint64_t va, const struct wm_path *path, int start);
	int (*host_start)(struct wm_model *m, struct wm_space_stats *st, uint64_t gpa);
	bool (*host_entry_hit)(struct wm_model *m, struct wm_space_stats *st, int l,
			       uint64_t gpa, uint64_t pa, bool fill);
	void (*inval)(struct wm_model *m, bool all_pcids, uint16_t pcid, bool one_va,
		      uint64_t va, const struct wm_path *path);
};

/* Split design (Intel): a cache per level keyed by the linear-address bits above it; the
 * walk starts below the deepest hit and fills every level it read above the leaf. */
static int split_walk_start(struct wm_model *m, struct wm_space_stats *st, uint64_t va,
			    const struct wm_path *path, bool *known)
{
	for (int l = path->leaf + 1; l <= path->levels; l++) {
		if (psc_find(m, &m->psc[l], psc_key(va, l, path->key_levels), m->pcid,
			     path->key_levels)) {
			st->psc_hits[l]++;
			*known = true;
			return l - 1;
		}
	}
	return path->levels;
}

static bool split_entry_hit(struct wm_model *m, struct wm_space_stats *st,
			    const struct wm_path *path, int l, uint64_t pa, bool fill)
{
	(void)m, (void)st, (void)path, (void)l, (void)pa, (void)fill;
	return false;
}

static void split_walk_done(struct wm_model *m, uint64_t va, const struct wm_path *path,
			    int start)
{
	for (int l = start; l > path->leaf; l--)
		psc_fill(m, &m->psc[l], psc_key(va, l, path->key_levels), m->pcid,
			 path->key_levels, false);
}

static int split_host_start(struct wm_model *m, struct wm_space_stats *st, uint64_t gpa)
{
	int h = m->p->host_levels;

	for (int l = WM_PDE; l <= h; l++) {
		if (psc_find(m, &m->npsc[l], psc_key(gpa, l, h), 0, h)) {
			st->npsc_hits[l]++;
			return l - 1;
		}
	}
	return h;
}

static bool split_host_entry_hit(struct wm_model *m, struct wm_space_stats *st, int l,
				 uint64_t gpa, uint64_t pa, bool fill)
{
	int h = m->p->host_levels;

	(void)st, (void)pa;
	if (fill && l > WM_PTE)
		psc_fill(m, &m->npsc[l], psc_key(gpa, l, h), 0, h, true);
	return false;
}

/*
 * Invalidation, split design: the entries of the PCID(s), or those that would translate
 * va (allowed: a processor may always invalidate more).
 */
static void split_inval(struct wm_model *m, bool all_pcids, uint16_t pcid, bool one_va,
			uint64_t va, const struct wm_path *path)
{
	(void)path;
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

/* PDC design (AMD): PDEs in the L2 TLB, and the entries above them in the page directory
 * cache, looked up one by one by physical address as the walk reads down. */
static int pdc_walk_start(struct wm_model *m, struct wm_space_stats *st, uint64_t va,
			  const struct wm_path *path, bool *known)
{
	if (path->leaf < WM_PDE && tlb_find(m, m->l2[WM_4K], tlb_tag(K_PDE, va)) >= 0) {
		st->l2_pde_hits++;
		*known = true;
		return WM_PTE;
	}
	return path->levels;
}

/* Look the entry at pa up in the PDC: a hit counts in *hits; a filling walk's miss caches
 * it (host: a host-table entry, which guest invalidations leave). */
static bool pdc_lookup(struct wm_model *m, uint64_t pa, uint64_t *hits, bool fill, bool host)
{
	if (pdc_find(m, pa)) {
		(*hits)++;
		return true;
	}
	if (fill)
		pdc_fill(m, pa, host);
	return false;
}

/* The PDC holds the levels above the PDE (never a walk's leaf). */
static bool pdc_entry_hit(struct wm_model *m, struct wm_space_stats *st,
			  const struct wm_path *path, int l, uint64_t pa, bool fill)
{
	return l > WM_PDE && l > path->leaf && pdc_lookup(m, pa, &st->pdc_hits[l], fill, false);
}

static void pdc_walk_done(struct wm_model *m, uint64_t va, const struct wm_path *path,
			  int start)
{
	if (path->leaf < WM_PDE && start >= WM_PDE)
		tlb_fill(m, m->l2[WM_4K], tlb_tag(K_PDE, va), 0, false, WM_4K);
}

static int pdc_host_start(struct wm_model *m, struct wm_space_stats *st, uint64_t gpa)
{
	(void)st, (void)gpa;
	return m->p->host_levels;
}

/* Host tables: every level but the PTE (the nested TLB holds the leaf). */
static bool pdc_host_entry_hit(struct wm_model *m, struct wm_space_stats *st, int l,
			       uint64_t gpa, uint64_t pa, bool fill)
{
	(void)gpa;
	return l != WM_PTE && pdc_lookup(m, pa, &st->npdc_hits[l], fill, true);
}

/*
 * Invalidation, PDC design: the PDEs the L2 TLB holds for the PCID(s) or va, and the PDC's
 * guest entries, all of them or, for one va with a known path, those on that path.
 * Host-table entries stay.
 */
static void pdc_inval(struct wm_model *m, bool all_pcids, uint16_t pcid, bool one_va,
		      uint64_t va, const struct wm_path *path)
{
	struct tlb *l2 = &m->l2_store[WM_4K];
	size_t n = (size_t)l2->sets * l2->ways;

	for (size_t i = 0; i < n && l2->used; i++) {
		if (l2->tag[i] == TAG_NONE || (l2->tag[i] >> KIND_SHIFT) != K_PDE)
			continue;
		if ((!all_pcids && l2->e[i].pcid != pcid) ||
		    (one_va && l2->tag[i] != tlb_tag(K_PDE, va)))
			continue;
		tlb_drop(l2, i);
	}
	for (unsigned int i = 0; i < m->pdc.n; i++) {
		struct psc_ent *e = &m->pdc.e[i];
		bool on_path = !one_va || !path;

		if (e->key == TAG_NONE || e->host)
			continue;
		for (int l = WM_PDPTE; !on_path && path && l <= path->levels; l++)
			on_path = l > path->leaf &&
				  e->key == (m->p->host_levels ? host_pa(path->entry_pa[l]) :
					     path->entry_pa[l]);
		if (on_path)
			*e = (struct psc_ent){ .key = TAG_NONE };
	}
	m->last_t = NULL;
}

static const struct upper_design split_design = {
	split_walk_start, split_entry_hit, split_walk_done,
	split_host_start, split_host_entry_hit, split_inval,
};

static const struct upper_design pdc_design = {
	pdc_walk_start, pdc_entry_hit, pdc_walk_done,
	pdc_host_start, pdc_host_entry_hit, pdc_inval,
};

static const struct upper_design *upper_design_for(enum wm_psc_design design)
{
	return design == WM_PSC_PDC ? &pdc_design : &split_design;
}

/*
 * Nested paging: make guest-physical address gpa host-physical, as the hardware does for
 * every guest page-table entry and for the data. The nested TLB first; on a miss a host
 * walk of host_levels levels to a 4K leaf, skipping what the host-side caches hold.
 */
static uint64_t nested_translate(struct wm_model *m, struct wm_space_stats *st, uint64_t gpa,
				 bool fill)
{
	uint64_t tag = gpa >> 12;

	if (tlb_find(m, &m->ntlb, tag) >= 0) {
		st->ntlb_hits++;
		return host_pa(gpa);
	}
	st->nested_walks++;
	for (int l = m->d->host_start(m, st, gpa); l >= WM_PTE; l--) {
		uint64_t pa = host_entry_pa(gpa, l);

		if (!m->d->host_entry_hit(m, st, l, gpa, pa, fill))
			st->nrefs[l][mem_ref(m, pa)]++;
	}
	if (fill)
		tlb_fill(m, &m->ntlb, tag, host_pa(gpa), true, WM_4K);
	return host_pa(gpa);
}

/* Physical address of the level-l entry of a walk: the guest's own, or, nested, where the
 * host keeps it after translating its guest-physical address (unless the cache that let
 * the walk start there already gave the table's host address). */
static inline uint64_t entry_pa(struct wm_model *m, struct wm_space_stats *st,
				const struct wm_path *path, int l, bool table_known, bool fill)
{
	if (!m->p->host_levels)
		return path->entry_pa[l];
	if (!table_known)
		nested_translate(m, st, path->entry_pa[l], fill);
	return host_pa(path->entry_pa[l]);
}

/*
 * The reads of one walk for va along path: from where the design lets it start to the
 * leaf, every entry the design does not serve is read (a reference to the cache hierarchy
 * at its physical address). With fill (a walk that succeeds) the design caches what it
 * caches; a faulting walk fills nothing. Nested, each guest entry's guest-physical address
 * is translated first. Returns the level the walk started at.
 */
static int walk_reads(struct wm_model *m, struct wm_space_stats *st, uint64_t va,
		      const struct wm_path *path, bool fill)
{
	bool known = false;
	int start = m->d->walk_start(m, st, va, path, &known);

	for (int l = start; l >= path->leaf; l--) {
		uint64_t pa = entry_pa(m, st, path, l, known && l == start, fill);

		if (!m->d->entry_hit(m, st, path, l, pa, fill))
			st->refs[l][mem_ref(m, pa)]++;
	}
	if (fill)
		m->d->walk_done(m, va, path, start);
	return start;
}

/*
 * Ask the walker; false (counted as a failed walk) when it cannot walk or gives nonsense.
 * A model without the PML5E level (wm_model_strip_pml5e) takes a 5-level path from the
 * PML4E down; a walk that failed at the PML5E fails at the PML4E instead.
 */
static bool get_path(struct wm_model *m, struct wm_space_stats *st, uint64_t va,
		     wm_walker walker, void *ctx, struct wm_path *path)
{
	memset(path, 0, sizeof(*path));
	if (!walker || !walker(ctx, va, path)) {
		st->walks_failed++;
		return false;
	}
	if ((path->levels != 4 && path->levels != 5) || path->leaf < WM_PTE ||
	    path->leaf > (path->present ? WM_PDPTE : path->levels)) {
		st->walks_failed++;	/* a walker bug; nothing sensible to charge */
		return false;
	}
	path->key_levels = path->levels;
	if (m->strip_pml5e && path->levels == 5) {
		path->levels = 4;
		if (path->leaf == WM_PML5E)
			path->leaf = WM_PML4E;
	}
	return true;
}

/*
 * The walk after an L2 TLB miss. Returns the page size of the translation, or -1 when the
 * walk failed (the walker knew no root, or the leaf was not present): its reads are
 * charged, nothing is filled. A present walk fills the upper-level caches of the levels
 * it read and the TLBs. Nested, the data's guest-physical page is translated too, and the
 * TLBs get a 4K entry (the host maps 4K pages) for the host-physical page.
 */
static int walk(struct wm_model *m, struct wm_space_stats *st, uint64_t va, wm_walker walker,
		void *ctx)
{
	struct wm_path path;
	enum wm_page size;
	uint64_t base;

	if (!get_path(m, st, va, walker, ctx, &path))
		return -1;
	walk_reads(m, st, va, &path, path.present);
	if (!path.present) {
		st->walks_failed++;
		return -1;
	}
	size = (enum wm_page)(path.leaf - 1);
	base = path.page_pa & ~((1ULL << page_shift[size]) - 1);
	if (m->p->host_levels) {
		base = nested_translate(m, st, base + (va & ((1ULL << page_shift[size]) - 1) &
						       ~0xfffULL), true);
		size = WM_4K;
	}
	l2_fill(m, va, base, path.global, size);
	l1_fill(m, va, base, path.global, size);
	return size;
}

enum lookup { LOOKUP_MISS, LOOKUP_HIT, LOOKUP_STALE };

/*
 * Look va up in one TLB level (an array per page size, or one shared array). A hit whose
 * page no longer holds pa is stale: counted, dropped, and reported as such, so that the
 * caller walks at once.
 */
static enum lookup tlb_level_lookup(struct wm_model *m, struct tlb *const *level, uint64_t va,
				    uint64_t pa, struct wm_space_stats *st, struct tlb **t,
				    ptrdiff_t *i)
{
	for (int s = 0; s < WM_NPAGES; s++) {
		*t = level[s];
		if (!(*t)->sets)
			continue;
		*i = tlb_find(m, *t, tlb_tag((enum tlb_kind)s, va));
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
 * to the cache hierarchy at pa (nested: at its host-physical address).
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
	struct tlb *l1[WM_NPAGES] = { &m->l1[0], &m->l1[1], &m->l1[2] };
	const struct tlb_ent *e;
	ptrdiff_t i;
	int psize;

	(void)size;
	st->accesses++;
	if (m->p->host_levels)
		pa = host_pa(pa);
	if (t) {
		e = &t->e[m->last_i];
		if (t->tag[m->last_i] == tlb_tag((enum tlb_kind)e->size, va) && holds(e, pa)) {
			psize = e->size;
			goto data;
		}
		m->last_t = NULL;
	}

	switch (tlb_level_lookup(m, l1, va, pa, st, &t, &i)) {
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

static bool inval_hits(const struct inval *iv, uint64_t tag, const struct tlb_ent *e)
{
	enum tlb_kind kind;

	if (tag == TAG_NONE)
		return false;
	kind = (enum tlb_kind)(tag >> KIND_SHIFT);
	if (kind == K_PDE)
		return false;	/* PDEs go with the upper-level caches (upper_inval) */
	if (iv->one_page) {
		bool covers = tag == tlb_tag(kind, iv->va);

		/* A smashed 1G page may sit in several 2M entries: all of them go (the SDM
		 * asks that every TLB entry for a page larger than 4K be invalidated). */
		if (!covers && e->size == WM_1G && kind == K_2M)
			covers = (tag & ((1ULL << KIND_SHIFT) - 1)) >> 9 ==
				 iv->va >> page_shift[WM_1G];
		if (!covers)
			return false;
	}
	if (e->global)
		return iv->globals;
	return iv->nonglobals && (iv->all_pcids || e->pcid == iv->pcid);
}

static void tlb_array_inval(struct tlb *t, const struct inval *iv)
{
	size_t n = (size_t)t->sets * t->ways;

	for (size_t i = 0; i < n && t->used; i++) {
		if (inval_hits(iv, t->tag[i], &t->e[i]))
			tlb_drop(t, i);
	}
}

static void tlb_inval(struct wm_model *m, const struct inval *iv)
{
	for (int s = 0; s < WM_NPAGES; s++) {
		tlb_array_inval(&m->l1[s], iv);
		tlb_array_inval(&m->l2_store[s], iv);
	}
	m->last_t = NULL;
}

/*
 * Drop cached upper-level entries: of every PCID, or of `pcid` only; with one_va, only the
 * entries that would be used to translate va (split PSCs: in the paging mode each entry
 * was made under; PDC design: va's PDE in the L2 TLB and, path given, the PDC entries at
 * the physical addresses of va's walk). The PDC is tagged by physical address, not PCID:
 * a PCID-wide operation empties it, and an individual-address one without the path too
 * (allowed: a processor may always invalidate more). Host-table entries (nested) stay:
 * only the host changes its tables.
 */
static void upper_inval(struct wm_model *m, bool all_pcids, uint16_t pcid, bool one_va,
			uint64_t va, const struct wm_path *path)
{
	m->d->inval(m, all_pcids, pcid, one_va, va, path);
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
	upper_inval(m, false, m->pcid, false, 0, NULL);
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
	upper_inval(m, false, m->pcid, false, 0, NULL);
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
		upper_inval(m, false, pcid, true, va, NULL);
		break;
	case 1:
		tlb_inval(m, &(struct inval){ .pcid = pcid, .nonglobals = true });
		upper_inval(m, false, pcid, false, 0, NULL);
		break;
	case 2:
		tlb_inval(m, &(struct inval){ .all_pcids = true, .globals = true,
					      .nonglobals = true });
		upper_inval(m, true, 0, false, 0, NULL);
		break;
	case 3:
		tlb_inval(m, &(struct inval){ .all_pcids = true, .nonglobals = true });
		upper_inval(m, true, 0, false, 0, NULL);
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
	upper_inval(m, true, 0, false, 0, NULL);
}

/*
 * A page fault (SDM Vol. 3A §4.10.4.1: "page faults invalidate entries in the TLBs and
 * paging-structure caches ... that would be used for that linear address"). The walk that
 * faulted is charged first, with the caches as they were, down to the entry the walker
 * says was not present (see model.h). It counts as an L1 and L2 TLB miss and a failed
 * walk, and fills nothing.
 */
void wm_page_fault(struct wm_model *m, uint64_t va, wm_walker walker, void *ctx)
{
	struct wm_space_stats *st = &m->stats.space[va >> 63];
	struct wm_path path;

	st->faults++;
	st->fault_walks++;
	st->l1_dtlb_misses++;
	st->l2_tlb_misses++;
	if (!get_path(m, st, va, walker, ctx, &path))
		return;
	walk_reads(m, st, va, &path, false);
	st->walks_failed++;
	if (!m->p->fault_invalidates)
		return;
	tlb_inval(m, &(struct inval){ .pcid = m->pcid, .globals = true, .nonglobals = true,
				      .one_page = true, .va = va });
	upper_inval(m, false, m->pcid, true, va, &path);
}

void wm_model_strip_pml5e(struct wm_model *m)
{
	m->strip_pml5e = true;
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
 * Cycles of the walks: every entry read, guest and host, at the latency of where it was
 * served, each as if serialised and nothing overlapped it, plus the PDC lookups that hit
 * (PDC design, which looks the levels up one after the other). Not included: the L2 TLB
 * hits (wm_l2_hit_cycles), PSC lookups of the split design (done beside the TLB lookup),
 * the data accesses (wm_data_cycles).
 */
struct wm_band wm_walk_cycles(const struct wm_model *m, enum wm_space sp)
{
	const struct wm_space_stats *st = &m->stats.space[sp];
	struct wm_band b = { 0, 0 };
	uint64_t hits = 0;

	for (int l = WM_PTE; l <= WM_PML5E; l++) {
		for (int w = 0; w < WM_NWHERE; w++) {
			double n = (double)(st->refs[l][w] + st->nrefs[l][w]);

			b.lo += n * m->p->ref_latency[w].lo;
			b.hi += n * m->p->ref_latency[w].hi;
		}
		hits += st->pdc_hits[l] + st->npdc_hits[l];	/* 0 in the split design */
	}
	b.lo += (double)hits * m->p->pdc_hit.lo;
	b.hi += (double)hits * m->p->pdc_hit.hi;
	return b;
}

struct wm_band wm_l2_hit_cycles(const struct wm_model *m, enum wm_space sp)
{
	const struct wm_space_stats *st = &m->stats.space[sp];
	double hits = (double)(st->l1_dtlb_misses - st->l2_tlb_misses);

	return (struct wm_band){ hits * m->p->l2_tlb_hit.lo, hits * m->p->l2_tlb_hit.hi };
}

struct wm_band wm_data_cycles(const struct wm_model *m, enum wm_space sp)
{
	const struct wm_space_stats *st = &m->stats.space[sp];
	struct wm_band b = { 0, 0 };

	for (int w = 0; w < WM_NWHERE; w++) {
		b.lo += (double)st->data_at[w] * m->p->ref_latency[w].lo;
		b.hi += (double)st->data_at[w] * m->p->ref_latency[w].hi;
	}
	return b;
}
