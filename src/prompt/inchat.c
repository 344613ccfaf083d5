#include "prompt/inchat.h"

#include <string.h>

#include "base/arena.h"

/* Whether x goes after y among the pieces (deepest first, then r's
 * order and role rank); equal pieces keep the caller's order. */
static bool
after(const struct inchat_piece *x, const struct inchat_piece *y,
    const struct inchat_rules *r)
{
	if (x->depth != y->depth)
		return x->depth < y->depth;
	if (!r->role_rank)
		return false;
	if (x->order != y->order)
		return x->order > y->order;
	return r->role_rank[x->role] > r->role_rank[y->role];
}

/* v[0..n) sorted stably, by merging halves through tmp. */
static void
sort(struct inchat_piece *v, struct inchat_piece *tmp, size_t n,
    const struct inchat_rules *r)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort(v, tmp, h, r);
	sort(v + h, tmp, n - h, r);
	while (i < h && j < n)
		tmp[k++] = after(&v[i], &v[j], r) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v));
}

/* Whether y joins x's message. */
static bool
joins(const struct inchat_piece *x, const struct inchat_piece *y)
{
	return x->depth == y->depth && x->order == y->order &&
	    x->role == y->role;
}

struct inchat_slot *
inchat_place(struct arena *a, struct inchat_piece *v, size_t n, size_t conv,
    const struct inchat_rules *r, size_t *nslots)
{
	struct inchat_slot *s = arena_array(a, conv + n + 1, sizeof(*s));
	struct inchat_piece *tmp = arena_array(a, n + 1, sizeof(*tmp));
	size_t i, k = 0, j, out = 0;

	sort(v, tmp, n, r);
	for (i = 0; i <= conv; i++) {
		/* The pieces before conversation message i: those with
		 * exactly conv - i after them, or, at the top, every
		 * deeper one. */
		while (k < n && (size_t)v[k].depth >= conv - i) {
			for (j = k + 1; j < n && joins(&v[k], &v[j]); j++)
				;
			s[out].inject = true;
			s[out].first = k;
			s[out++].n = j - k;
			k = j;
		}
		if (i < conv) {
			s[out].inject = false;
			s[out++].msg = i;
		}
	}
	*nslots = out;
	return s;
}
