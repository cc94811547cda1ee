// SPDX-License-Identifier: GPL-2.0
/* hold: a page fault's handler held back from the models (hold.h). */
#include <stdlib.h>

#include "hold.h"

/* Room for `more` items after `used` in array a of *cap items of `size` bytes: a, moved
 * if need be, or NULL (a still valid) when memory runs out. */
static void *reserve(void *a, size_t *cap, size_t used, size_t more, size_t size)
{
	size_t want = *cap ? *cap : 4096;
	void *b;

	if (used + more <= *cap)
		return a;
	while (want < used + more)
		want *= 2;
	b = realloc(a, want * size);
	if (b)
		*cap = want;
	return b;
}

bool wm_hold_event(struct wm_hold *h, const struct wm_held *e, bool store)
{
	size_t words = store ? e->size / 8 : 0;
	struct wm_held *ev;
	uint64_t *stored;

	if (h->n >= (h->max ? h->max : WM_HOLD_MAX))
		return false;
	ev = reserve(h->ev, &h->cap, h->n, 1, sizeof(*ev));
	if (!ev)
		return false;
	h->ev = ev;
	if (words) {
		stored = reserve(h->stored, &h->cap_stored, h->nstored, words, sizeof(*stored));
		if (!stored)
			return false;
		h->stored = stored;
	}
	h->ev[h->n++] = *e;
	for (size_t w = 0; w < words; w++)
		h->stored[h->nstored++] = (e->pa & ~7ull) + 8 * w;
	return true;
}

bool wm_hold_wrote(const struct wm_hold *h, uint64_t pa)
{
	for (size_t i = 0; i < h->nstored; i++)
		if (h->stored[i] == pa)
			return true;
	return false;
}

void wm_hold_cut(const struct wm_hold *h, struct wm_path *path)
{
	for (int l = path->levels; l >= path->leaf; l--) {
		if (wm_hold_wrote(h, path->entry_pa[l])) {
			path->leaf = l;
			path->present = false;
			return;
		}
	}
}

size_t wm_hold_release(struct wm_hold *h, void (*feed)(const struct wm_held *e, void *ctx),
		       void *ctx)
{
	size_t n = h->n;

	for (size_t i = 0; i < n; i++)
		feed(&h->ev[i], ctx);
	h->n = h->nstored = 0;
	h->on = false;
	return n;
}

void wm_hold_free(struct wm_hold *h)
{
	free(h->ev);
	free(h->stored);
	*h = (struct wm_hold){ 0 };
}

bool wm_given_path(void *ctx, uint64_t va, struct wm_path *path)
{
	(void)va;
	*path = *(const struct wm_path *)ctx;
	return true;
}
