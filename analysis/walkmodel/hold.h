/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hold: what the guest does between a page fault's entry and its retried access, held back
 * from the models. The walk that faulted ran before the handler, so the plugin charges it
 * first and hands these over after, in order. The handler's 8-byte stores are kept by
 * physical address: an entry on the faulting address's path that the handler wrote was
 * not present when that walk read it (or, written in place, was the leaf it faulted on).
 */
#ifndef WALKMODEL_HOLD_H
#define WALKMODEL_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define WM_HELD_ACCESS	(-1)		/* wm_held.flush of a data access */
#define WM_HOLD_MAX	(1u << 22)	/* events of one fault, unless wm_hold.max says less */

struct wm_held {
	uint64_t va, pa;
	unsigned int size;		/* of an access */
	int flush;			/* WM_HELD_ACCESS, or the caller's kind of flush */
};

struct wm_hold {
	struct wm_held *ev;
	size_t n, cap;
	uint64_t *stored;		/* physical addresses of the 8-byte words stored */
	size_t nstored, cap_stored;
	size_t max;			/* events held at most; 0: WM_HOLD_MAX */
	bool on;			/* holding back for a pending fault */
};

/* Hold e back (a store of `store` true also records the 8-byte words it wrote). False,
 * holding nothing more, when the hold is full or memory runs out: the caller then releases
 * what is held and feeds e itself. */
bool wm_hold_event(struct wm_hold *h, const struct wm_held *e, bool store);
/* The 8-byte word at pa was stored while holding. */
bool wm_hold_wrote(const struct wm_hold *h, uint64_t pa);
/* Make path (the tables as they are now) the path the faulting walk read: cut at the
 * first entry from the top that was written while holding, which was not present then. */
void wm_hold_cut(const struct wm_hold *h, struct wm_path *path);
/* Hand every held event to feed, in order; empty the hold and stop holding. Returns how
 * many there were. */
size_t wm_hold_release(struct wm_hold *h, void (*feed)(const struct wm_held *e, void *ctx),
		       void *ctx);
void wm_hold_free(struct wm_hold *h);
/* A walker (model.h) that gives the path ctx points to, whatever the address: how the
 * faulting walk's path, cut by wm_hold_cut(), reaches wm_page_fault(). */
bool wm_given_path(void *ctx, uint64_t va, struct wm_path *path);

#endif
