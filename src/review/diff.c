/*
 * Comparing two build results: entries matched by key (the n-th entry of
 * a key in OLD with the n-th in NEW), a SillyTavern build's items by
 * identifier the same way, tools by name, parameters by key, messages by
 * index; then the cache prefix in the provider's order.
 */
#include "review/diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

#define ALIGN_CELLS 4000000u    /* of the items' order table, at most */

/* An entry (or a SillyTavern item) of a document, as far as the review
 * needs it. */
struct ent {
	const char *key, *layer, *status, *content;
	const char *why;                /* status and its note, in words */
	size_t len;
	int64_t priority, message;      /* message: -1 for none */
	int64_t pos;                    /* index in its message's list */
	size_t nth;                     /* occurrence of its key */
	bool has_content, used;
	bool item;                      /* a SillyTavern item */
	struct ent *partner;            /* NEW's: its match in OLD, or NULL */
	bool shuffled;                  /* an item out of the shared order */
	struct ent *next;               /* the next of its kind and key */
};

/* The entries (or items) of one key, in order. */
struct chain {
	struct ent *first, *last;
};

struct doc {
	const struct node *root, *msgs, *ents, *items, *tools, *params;
	struct ent *e;
	size_t n;
	struct map keys[2];             /* key -> struct chain: [0] the
	                                 * entries', [1] the items' */
};

static const char *
str(const struct node *t, const char *key)
{
	const struct node *n = t ? tree_get(t, key) : NULL;

	return n && n->kind == NODE_STRING ? n->u.str.s : NULL;
}

static int64_t
num(const struct node *t, const char *key, int64_t none)
{
	const struct node *n = t ? tree_get(t, key) : NULL;

	return n && n->kind == NODE_INT ? n->u.i : none;
}

static const char *
compact(struct arena *a, const struct node *n, size_t *len)
{
	struct buf b = BUF_INIT;
	const char *s;

	json_write(&b, n, -1);
	s = arena_strndup(a, b.data ? b.data : "", b.len);
	*len = b.len;
	buf_free(&b);
	return s;
}

/* Entry i of d from o: key, layer, status, priority, message, text. */
static bool
load_entry(struct doc *d, size_t i, const struct node *o)
{
	const struct node *c = tree_get(o, "content");
	struct ent *e = &d->e[i];

	e->key = str(o, "key");
	if (!e->key)
		return false;
	e->layer = str(o, "layer") ? str(o, "layer") : "?";
	e->status = str(o, "status") ? str(o, "status") : "active";
	e->why = e->status;
	e->priority = num(o, "priority", 0);
	/* -f json numbers messages from 1; null is none. */
	e->message = num(o, "message", 0) - 1;
	if (c && c->kind == NODE_STRING) {
		e->content = c->u.str.s;
		e->len = c->u.str.len;
		e->has_content = true;
	}
	return true;
}

/* Item i of d from o (a SillyTavern build's items[]): its identifier,
 * its origin as its layer (documents saved before origin was spelled
 * so name it source), in the request or why not (reason, with the
 * note's words), its message, and its text as sent (the last stage). */
static bool
load_item(struct run *run, struct doc *d, size_t i, const struct node *o)
{
	const struct node *st = tree_get(o, "stages");
	const struct node *c = st && st->kind == NODE_TABLE ?
	    tree_get(st, "regex-post") : NULL;
	const char *note = str(o, "note");
	struct ent *e = &d->e[i];

	e->item = true;
	e->key = str(o, "id");
	if (!e->key)
		return false;
	e->layer = str(o, "origin") ? str(o, "origin") : str(o, "source") ?
	    str(o, "source") : "?";
	e->status = str(o, "reason") ? str(o, "reason") : "active";
	e->why = note && strcmp(e->status, "active") != 0 ?
	    arena_printf(&run->arena, "%s (%s)", e->status, note) : e->status;
	e->message = num(o, "message", 0) - 1;
	if (c && c->kind == NODE_STRING) {
		e->content = c->u.str.s;
		e->len = c->u.str.len;
		e->has_content = true;
	}
	return true;
}

/* The place of each active entry or item in its message's list. */
static void
places(struct doc *d)
{
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		struct ent *e = &d->e[i];
		const struct node *m, *keys;
		size_t seen = 0;

		e->pos = -1;
		if (e->message < 0 ||
		    (size_t)e->message >= d->msgs->u.array.n)
			continue;
		m = d->msgs->u.array.items[e->message];
		keys = tree_get(m, e->item ? "items" : "entries");
		for (k = 0; keys && keys->kind == NODE_ARRAY &&
		    k < keys->u.array.n; k++) {
			const struct node *kn = keys->u.array.items[k];

			if (kn->kind == NODE_STRING &&
			    strcmp(kn->u.str.s, e->key) == 0) {
				e->pos = (int64_t)seen;
				break;
			}
			seen++;
		}
	}
}

static bool
load(struct run *run, const struct node *root, struct doc *d)
{
	size_t i, nents, nitems;

	memset(d, 0, sizeof(*d));
	map_init(&d->keys[0], &run->arena);
	map_init(&d->keys[1], &run->arena);
	d->root = root;
	if (root->kind != NODE_TABLE)
		goto bad;
	d->msgs = tree_get(root, "messages");
	d->ents = tree_get(root, "entries");
	d->items = tree_get(root, "items");
	d->tools = tree_get(root, "tool_defs");
	d->params = tree_get(root, "params");
	if (!d->msgs || d->msgs->kind != NODE_ARRAY || !d->ents ||
	    d->ents->kind != NODE_ARRAY)
		goto bad;
	if (d->items && d->items->kind != NODE_ARRAY)
		goto bad;
	nents = d->ents->u.array.n;
	nitems = d->items ? d->items->u.array.n : 0;
	d->n = nents + nitems;
	d->e = arena_array(&run->arena, d->n + 1, sizeof(*d->e));
	for (i = 0; i < d->n; i++) {
		struct ent *e = &d->e[i];
		struct map_item *mi;
		struct chain *ch;
		bool added;

		if (i < nents ? !load_entry(d, i, d->ents->u.array.items[i]) :
		    !load_item(run, d, i, d->items->u.array.items[i - nents]))
			goto bad;
		mi = map_intern(&d->keys[e->item], e->key, strlen(e->key),
		    &added);
		if (added) {
			ch = arena_array(&run->arena, 1, sizeof(*ch));
			ch->first = e;
			mi->value = ch;
		} else {
			ch = mi->value;
			ch->last->next = e;
			e->nth = ch->last->nth + 1;
		}
		ch->last = e;
	}
	places(d);
	return true;
bad:
	diag_error(run, run_source(run, root->src), span_make(root->span.off,
	    root->span.len > 1 ? 1 : root->span.len), MSG_REVIEW_NOT_BUILD);
	return false;
}

static struct review_change *
add(struct run *run, struct review *r, enum review_kind kind,
    enum review_what what, const char *name)
{
	struct review_change *c;

	if (r->n == r->cap)
		r->v = avec_grow(&run->arena, r->v, &r->cap, r->n, r->n + 1,
		    sizeof(*r->v));
	c = &r->v[r->n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->what = what;
	c->name = name;
	return c;
}

/* A change of entry or item e. */
static struct review_change *
add_ent(struct run *run, struct review *r, enum review_kind kind,
    const struct ent *e)
{
	struct review_change *c = add(run, r, kind, e->item ? REVIEW_ITEM :
	    REVIEW_ENTRY, e->key);

	c->layer = e->layer;
	return c;
}

/* The entry or item of d that e matches: the n-th of its key for e the
 * n-th, not yet matched; or NULL. */
static struct ent *
match(struct doc *d, const struct ent *e)
{
	const struct chain *ch = map_get(&d->keys[e->item], e->key,
	    strlen(e->key));
	struct ent *x;

	for (x = ch ? ch->first : NULL; x; x = x->next)
		if (!x->used && x->nth == e->nth)
			return x;
	return NULL;
}

/* Do a and b stand for the same entry or item. */
static bool
same_ent(const struct ent *a, const struct ent *b)
{
	return a->item == b->item && a->nth == b->nth &&
	    strcmp(a->key, b->key) == 0;
}

/* Whether e is out of order among the entries both documents have in
 * its message: not on a longest common subsequence of the two orders, so
 * one entry moving up does not make all those it passed "moved". */
static bool
out_of_order(const struct doc *od, const struct doc *nd, const struct ent *o,
    const struct ent *n)
{
	const struct ent **a, **b;
	size_t na = 0, nb = 0, i, j, w;
	uint32_t *t;
	bool on = true;

	a = xreallocarray(NULL, od->n + 1, sizeof(*a));
	b = xreallocarray(NULL, nd->n + 1, sizeof(*b));
	for (i = 0; i < od->n; i++)
		if (od->e[i].message == o->message && od->e[i].pos >= 0 &&
		    od->e[i].item == o->item)
			a[na++] = &od->e[i];
	for (i = 0; i < nd->n; i++)
		if (nd->e[i].message == n->message && nd->e[i].pos >= 0 &&
		    nd->e[i].item == n->item)
			b[nb++] = &nd->e[i];
	/* By position in the message. */
	for (i = 1; i < na; i++)
		for (j = i; j > 0 && a[j - 1]->pos > a[j]->pos; j--) {
			const struct ent *x = a[j];

			a[j] = a[j - 1];
			a[j - 1] = x;
		}
	for (i = 1; i < nb; i++)
		for (j = i; j > 0 && b[j - 1]->pos > b[j]->pos; j--) {
			const struct ent *x = b[j];

			b[j] = b[j - 1];
			b[j - 1] = x;
		}
	w = nb + 1;
	t = xreallocarray(NULL, (na + 1) * w, sizeof(*t));
	for (i = na + 1; i-- > 0;)
		for (j = nb + 1; j-- > 0;) {
			uint32_t *c = &t[i * w + j];

			if (i == na || j == nb)
				*c = 0;
			else if (same_ent(a[i], b[j]))
				*c = t[(i + 1) * w + j + 1] + 1;
			else
				*c = t[(i + 1) * w + j] > t[i * w + j + 1] ?
				    t[(i + 1) * w + j] : t[i * w + j + 1];
		}
	/* Walk one longest common subsequence; is n on it? */
	i = j = 0;
	on = false;
	while (i < na && j < nb) {
		if (same_ent(a[i], b[j])) {
			if (b[j] == n)
				on = true;
			i++;
			j++;
		} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	free(t);
	free(a);
	free(b);
	return !on;
}

static int
by_place(const void *x, const void *y)
{
	const struct ent *a = *(const struct ent *const *)x;
	const struct ent *b = *(const struct ent *const *)y;

	if (a->message != b->message)
		return a->message < b->message ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* d's items in the request, in its order (by message, then place in
 * the message); *n of them, on the heap. */
static struct ent **
request_order(const struct doc *d, size_t *n)
{
	struct ent **v = xreallocarray(NULL, d->n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < d->n; i++)
		if (d->e[i].item && d->e[i].message >= 0 && d->e[i].pos >= 0)
			v[(*n)++] = &d->e[i];
	qsort(v, *n, sizeof(*v), by_place);
	return v;
}

/*
 * Which items of NEW moved: those in the request on both sides that are
 * off a longest common subsequence of the two request orders.  A
 * SillyTavern build puts most prompts in messages of their own, so one
 * prompt added near the top renumbers every message after it: by the
 * profile build's rule (its message changed) every later item would be
 * "moved".  Found once for the whole request; over ALIGN_CELLS cells,
 * the profile build's rule.
 */
static void
item_order(const struct doc *od, struct doc *nd)
{
	size_t na, nb, i, j, w;
	struct ent **a = request_order(od, &na), **b = request_order(nd, &nb);
	uint32_t *t;

	for (j = 0; j < nb; j++)
		b[j]->shuffled = b[j]->partner && (b[j]->partner->message !=
		    b[j]->message || b[j]->partner->pos != b[j]->pos);
	if (!na || !nb || (na + 1) * (nb + 1) > ALIGN_CELLS)
		goto done;
	w = nb + 1;
	t = xcalloc((na + 1) * w, sizeof(*t));
	for (i = na; i-- > 0;)
		for (j = nb; j-- > 0;)
			t[i * w + j] = b[j]->partner == a[i] ?
			    t[(i + 1) * w + j + 1] + 1 :
			    t[(i + 1) * w + j] > t[i * w + j + 1] ?
			    t[(i + 1) * w + j] : t[i * w + j + 1];
	for (j = 0; j < nb; j++)
		b[j]->shuffled = true;
	i = j = 0;
	while (i < na && j < nb) {
		if (b[j]->partner == a[i]) {
			b[j++]->shuffled = false;
			i++;
		} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	free(t);
done:
	free(a);
	free(b);
}

/* An item that moved: to another message, or in its own. */
static void
item_moved(struct run *run, struct review *r, const struct ent *o,
    const struct ent *n)
{
	struct review_change *c;

	if (!n->shuffled || o->message < 0 || n->message < 0)
		return;
	c = add_ent(run, r, REVIEW_MOVED, n);
	if (o->message != n->message)
		c->detail = arena_printf(&run->arena, "message %" PRId64
		    " -> %" PRId64, o->message + 1, n->message + 1);
	else
		c->detail = arena_printf(&run->arena, "position %" PRId64
		    " -> %" PRId64 " in message %" PRId64, o->pos + 1,
		    n->pos + 1, n->message + 1);
}

static void
moved(struct run *run, struct review *r, const struct doc *od,
    const struct doc *nd, const struct ent *o, const struct ent *n)
{
	struct buf b = BUF_INIT;
	struct review_change *c;

	if (o->priority != n->priority)
		buf_printf(&b, "priority %" PRId64 " -> %" PRId64,
		    o->priority, n->priority);
	if (o->message != n->message && o->message >= 0 && n->message >= 0)
		buf_printf(&b, "%smessage %" PRId64 " -> %" PRId64,
		    b.len ? ", " : "", o->message + 1, n->message + 1);
	else if (o->pos != n->pos && o->pos >= 0 && n->pos >= 0 &&
	    out_of_order(od, nd, o, n))
		buf_printf(&b, "%sposition %" PRId64 " -> %" PRId64
		    " in message %" PRId64, b.len ? ", " : "", o->pos + 1,
		    n->pos + 1, n->message + 1);
	if (b.len) {
		c = add_ent(run, r, REVIEW_MOVED, n);
		c->detail = arena_strdup(&run->arena, b.data);
	}
	buf_free(&b);
}

static void
entries(struct run *run, struct review *r, struct doc *od, struct doc *nd)
{
	struct review_change *c;
	size_t i;

	for (i = 0; i < nd->n; i++) {
		nd->e[i].partner = match(od, &nd->e[i]);
		if (nd->e[i].partner)
			nd->e[i].partner->used = true;
	}
	item_order(od, nd);
	for (i = 0; i < nd->n; i++) {
		struct ent *n = &nd->e[i], *o = n->partner;
		bool oa, na;

		if (!o) {
			c = add_ent(run, r, REVIEW_ADDED, n);
			if (!n->item)
				c->detail = arena_printf(&run->arena, "%s, "
				    "priority %" PRId64, n->status,
				    n->priority);
			else if (n->message >= 0)
				c->detail = arena_printf(&run->arena, "%s, "
				    "message %" PRId64, n->why,
				    n->message + 1);
			else
				c->detail = n->why;
			c->new = n->content;
			c->newlen = n->len;
			continue;
		}
		oa = strcmp(o->status, "active") == 0;
		na = strcmp(n->status, "active") == 0;
		if (oa && !na) {
			c = add_ent(run, r, REVIEW_SKIPPED, n);
			c->detail = n->why;
		} else if (!oa && na) {
			c = add_ent(run, r, REVIEW_UNSKIPPED, n);
			c->detail = o->why;
		} else if (!oa && strcmp(o->status, n->status) != 0) {
			c = add_ent(run, r, REVIEW_SKIPPED, n);
			c->detail = arena_printf(&run->arena, "%s, was %s",
			    n->why, o->why);
		}
		/* an item the build left out keeps its text as read: it
		 * differs from the one sent for no change of the item */
		if (o->has_content && n->has_content && (!n->item ||
		    oa == na) && (o->len != n->len ||
		    memcmp(o->content, n->content, n->len) != 0)) {
			c = add_ent(run, r, REVIEW_CHANGED, n);
			c->old = o->content;
			c->oldlen = o->len;
			c->new = n->content;
			c->newlen = n->len;
		}
		if (oa && na && n->item)
			item_moved(run, r, o, n);
		else if (oa && na)
			moved(run, r, od, nd, o, n);
	}
	for (i = 0; i < od->n; i++) {
		struct ent *o = &od->e[i];

		if (o->used)
			continue;
		c = add_ent(run, r, REVIEW_REMOVED, o);
		c->old = o->content;
		c->oldlen = o->len;
	}
}

static const struct node *
tool_named(const struct node *tools, const char *name)
{
	size_t i;

	for (i = 0; tools && tools->kind == NODE_ARRAY &&
	    i < tools->u.array.n; i++) {
		const char *s = str(tools->u.array.items[i], "name");

		if (s && strcmp(s, name) == 0)
			return tools->u.array.items[i];
	}
	return NULL;
}

static bool
same(struct arena *a, const struct node *x, const struct node *y)
{
	size_t xl, yl;
	const char *xs, *ys;

	if (!x || !y)
		return x == y;
	xs = compact(a, x, &xl);
	ys = compact(a, y, &yl);
	return xl == yl && memcmp(xs, ys, xl) == 0;
}

/* Which parts of a tool changed: its description, a schema property
 * (added, removed, changed), the required list, anything else. */
static void
tool_changes(struct run *run, struct review *r, const char *name,
    const struct node *o, const struct node *n)
{
	struct arena *a = &run->arena;
	const struct node *op = tree_get(o, "parameters");
	const struct node *np = tree_get(n, "parameters");
	const struct node *oprops = op ? tree_get(op, "properties") : NULL;
	const struct node *nprops = np ? tree_get(np, "properties") : NULL;
	struct buf b = BUF_INIT;
	struct review_change *c;
	size_t i;

	if (!same(a, tree_get(o, "description"), tree_get(n, "description")))
		buf_puts(&b, "description");
	if (nprops && nprops->kind == NODE_TABLE)
		for (i = 0; i < nprops->u.table.n; i++) {
			const struct member *m = &nprops->u.table.items[i];
			const struct node *ov = oprops &&
			    oprops->kind == NODE_TABLE ? tree_get(oprops,
			    m->key) : NULL;

			if (!ov)
				buf_printf(&b, "%sproperty '%s' added",
				    b.len ? ", " : "", m->key);
			else if (!same(a, ov, m->value))
				buf_printf(&b, "%sproperty '%s' changed",
				    b.len ? ", " : "", m->key);
		}
	if (oprops && oprops->kind == NODE_TABLE)
		for (i = 0; i < oprops->u.table.n; i++) {
			const struct member *m = &oprops->u.table.items[i];

			if (!nprops || nprops->kind != NODE_TABLE ||
			    !tree_get(nprops, m->key))
				buf_printf(&b, "%sproperty '%s' removed",
				    b.len ? ", " : "", m->key);
		}
	if (!same(a, op ? tree_get(op, "required") : NULL,
	    np ? tree_get(np, "required") : NULL))
		buf_printf(&b, "%srequired", b.len ? ", " : "");
	if (!b.len && !same(a, o, n))
		buf_puts(&b, "schema");
	if (b.len) {
		c = add(run, r, REVIEW_CHANGED, REVIEW_TOOL, name);
		c->detail = arena_strdup(a, b.data);
	}
	buf_free(&b);
}

static void
tools(struct run *run, struct review *r, const struct doc *od,
    const struct doc *nd)
{
	size_t i;

	for (i = 0; nd->tools && nd->tools->kind == NODE_ARRAY &&
	    i < nd->tools->u.array.n; i++) {
		const struct node *n = nd->tools->u.array.items[i];
		const char *name = str(n, "name");
		const struct node *o;

		if (!name)
			continue;
		o = tool_named(od->tools, name);
		if (!o)
			add(run, r, REVIEW_ADDED, REVIEW_TOOL, name);
		else
			tool_changes(run, r, name, o, n);
	}
	for (i = 0; od->tools && od->tools->kind == NODE_ARRAY &&
	    i < od->tools->u.array.n; i++) {
		const char *name = str(od->tools->u.array.items[i], "name");

		if (name && !tool_named(nd->tools, name))
			add(run, r, REVIEW_REMOVED, REVIEW_TOOL, name);
	}
}

static void
param(struct run *run, struct review *r, const char *name,
    const struct node *o, const struct node *n)
{
	struct review_change *c;

	if (same(&run->arena, o, n))
		return;
	c = add(run, r, REVIEW_PARAM, REVIEW_OTHER, name);
	if (o)
		c->old = compact(&run->arena, o, &c->oldlen);
	if (n)
		c->new = compact(&run->arena, n, &c->newlen);
}

static void
params(struct run *run, struct review *r, const struct doc *od,
    const struct doc *nd)
{
	const struct node *op = od->params, *np = nd->params;
	size_t i;

	param(run, r, "model", tree_get(od->root, "model"),
	    tree_get(nd->root, "model"));
	param(run, r, "max_tokens", tree_get(od->root, "max_tokens"),
	    tree_get(nd->root, "max_tokens"));
	if (np && np->kind == NODE_TABLE)
		for (i = 0; i < np->u.table.n; i++) {
			const struct member *m = &np->u.table.items[i];

			param(run, r, m->key, op && op->kind == NODE_TABLE ?
			    tree_get(op, m->key) : NULL, m->value);
		}
	if (op && op->kind == NODE_TABLE)
		for (i = 0; i < op->u.table.n; i++) {
			const struct member *m = &op->u.table.items[i];

			if (!np || np->kind != NODE_TABLE ||
			    !tree_get(np, m->key))
				param(run, r, m->key, m->value, NULL);
		}
}

static void
messages(struct run *run, struct review *r, const struct doc *od,
    const struct doc *nd)
{
	size_t on = od->msgs->u.array.n, nn = nd->msgs->u.array.n, i;

	for (i = 0; i < on || i < nn; i++) {
		const struct node *o = i < on ? od->msgs->u.array.items[i] :
		    NULL;
		const struct node *n = i < nn ? nd->msgs->u.array.items[i] :
		    NULL;
		const char *oc = str(o, "content"), *nc = str(n, "content");
		const char *orole = str(o, "role"), *nrole = str(n, "role");
		struct review_change *c;

		if (o && n && oc && nc && orole && nrole &&
		    strcmp(orole, nrole) == 0 && strcmp(oc, nc) == 0)
			continue;
		c = add(run, r, REVIEW_MESSAGE, REVIEW_OTHER, NULL);
		c->index = i;
		c->role = nrole ? nrole : orole ? orole : "?";
		c->oldbytes = o ? num(o, "bytes", 0) : -1;
		c->newbytes = n ? num(n, "bytes", 0) : -1;
		c->oldtokens = o ? num(o, "tokens", 0) : -1;
		c->newtokens = n ? num(n, "tokens", 0) : -1;
	}
}

static const char *
find(const char *hay, size_t n, const char *needle, size_t len)
{
	size_t i;

	for (i = 0; len <= n && i <= n - len; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, len) == 0)
			return hay + i;
	return NULL;
}

/* The entry of document d in message mi whose text holds byte off of
 * the message's content (entries are found by their text; between two,
 * the one before). */
static const char *
entry_at(const struct doc *d, size_t mi, const char *content, size_t off)
{
	const char *best = NULL;
	size_t i, bestat = 0, clen = strlen(content);

	for (i = 0; i < d->n; i++) {
		const struct ent *e = &d->e[i];
		const char *p;
		size_t at;

		if (e->message != (int64_t)mi || !e->has_content || !e->len)
			continue;
		p = find(content, clen, e->content, e->len);
		if (!p)
			continue;
		at = (size_t)(p - content);
		if (off >= at && off < at + e->len)
			return e->key;
		if (at <= off && (!best || at > bestat)) {
			best = e->key;
			bestat = at;
		}
	}
	return best;
}

static void
prefix(struct run *run, struct review *r, const struct doc *od,
    const struct doc *nd)
{
	size_t on = od->msgs->u.array.n, nn = nd->msgs->u.array.n, i, k;

	r->prefix_same = true;
	/* Anthropic caches tools, then system, then messages; OpenAI and
	 * Gemini the messages (strata(1), CACHING). */
	if (strcmp(r->provider, "anthropic") == 0) {
		size_t ot = od->tools && od->tools->kind == NODE_ARRAY ?
		    od->tools->u.array.n : 0;
		size_t nt = nd->tools && nd->tools->kind == NODE_ARRAY ?
		    nd->tools->u.array.n : 0;

		for (i = 0; i < ot || i < nt; i++) {
			const struct node *o = i < ot ?
			    od->tools->u.array.items[i] : NULL;
			const struct node *n = i < nt ?
			    nd->tools->u.array.items[i] : NULL;

			if (!same(&run->arena, o, n)) {
				r->prefix_same = false;
				r->prefix_tool = str(n ? n : o, "name");
				return;
			}
		}
	}
	for (i = 0; i < on && i < nn; i++) {
		const struct node *o = od->msgs->u.array.items[i];
		const struct node *n = nd->msgs->u.array.items[i];
		const char *oc = str(o, "content"), *nc = str(n, "content");
		const char *orole = str(o, "role"), *nrole = str(n, "role");

		if (!oc || !nc || !orole || !nrole)
			continue;
		if (strcmp(orole, nrole) == 0 && strcmp(oc, nc) == 0)
			continue;
		for (k = 0; oc[k] && oc[k] == nc[k]; k++)
			;
		if (strcmp(orole, nrole) != 0)
			k = 0;
		r->prefix_same = false;
		r->prefix_msg = i;
		r->prefix_byte = k;
		r->prefix_entry = entry_at(nd, i, nc, k);
		return;
	}
	/* One is the other with messages added: the shared part is all of
	 * the shorter, and a cache of it still hits. */
}

/* A cut of the budget's list (emit_json.c) in words: what was cut and
 * how, as the debug view says it. */
static const char *
cut_name(struct arena *a, const struct node *k)
{
	const char *key = str(k, "key");

	return arena_printf(a, "budget cut %s", key ? key : "history");
}

static struct node *
cut_words(struct arena *a, const struct node *k)
{
	const char *how = str(k, "cut"), *at = str(k, "at");
	int64_t was = num(k, "tokens", -1), kept = num(k, "kept", 0);
	const char *s;

	if (!how)
		return NULL;
	if (!str(k, "key") && num(k, "first", 0) == num(k, "last", 0))
		s = arena_printf(a, "message %" PRId64 " dropped",
		    num(k, "first", 0));
	else if (!str(k, "key"))
		s = arena_printf(a, "messages %" PRId64 "-%" PRId64 " dropped",
		    num(k, "first", 0), num(k, "last", 0));
	else if (strcmp(how, "truncated") == 0)
		s = arena_printf(a, "truncated (%s cut) to %" PRId64 " of %"
		    PRId64 " tokens", at ? at : "tail", kept, was);
	else if (strcmp(how, "fallback") == 0)
		s = arena_printf(a, "fallback, %" PRId64 " of %" PRId64
		    " tokens", kept, was);
	else
		s = arena_printf(a, "dropped, %" PRId64 " tokens", was);
	return tree_str(a, s);
}

/* What the budget cut in one and not the other, or cut otherwise. */
static void
budget_cuts(struct run *run, struct review *r, const struct doc *od,
    const struct doc *nd)
{
	struct arena *a = &run->arena;
	const struct node *ob = tree_get(od->root, "budget");
	const struct node *nb = tree_get(nd->root, "budget");
	const struct node *oc = ob ? tree_get(ob, "cuts") : NULL;
	const struct node *nc = nb ? tree_get(nb, "cuts") : NULL;
	size_t i, j, on = oc && oc->kind == NODE_ARRAY ? oc->u.array.n : 0;
	size_t nn = nc && nc->kind == NODE_ARRAY ? nc->u.array.n : 0;

	param(run, r, "budget", ob ? tree_get(ob, "tokens") : NULL,
	    nb ? tree_get(nb, "tokens") : NULL);
	for (i = 0; i < nn; i++) {
		const struct node *n = nc->u.array.items[i], *o = NULL;
		const char *name = cut_name(a, n);

		for (j = 0; j < on && !o; j++)
			if (strcmp(cut_name(a, oc->u.array.items[j]),
			    name) == 0)
				o = oc->u.array.items[j];
		param(run, r, name, o ? cut_words(a, o) : NULL,
		    cut_words(a, n));
	}
	for (j = 0; j < on; j++) {
		const struct node *o = oc->u.array.items[j];
		const char *name = cut_name(a, o);

		for (i = 0; i < nn; i++)
			if (strcmp(cut_name(a, nc->u.array.items[i]),
			    name) == 0)
				break;
		if (i == nn)
			param(run, r, name, cut_words(a, o), NULL);
	}
}

bool
review_compare(struct run *run, const struct node *old,
    const struct node *new, struct review *r)
{
	struct doc od, nd;

	memset(r, 0, sizeof(*r));
	if (!load(run, old, &od) || !load(run, new, &nd))
		return false;
	r->provider = str(new, "provider") ? str(new, "provider") :
	    str(old, "provider") ? str(old, "provider") : "openai";
	entries(run, r, &od, &nd);
	tools(run, r, &od, &nd);
	params(run, r, &od, &nd);
	budget_cuts(run, r, &od, &nd);
	messages(run, r, &od, &nd);
	prefix(run, r, &od, &nd);
	return true;
}

bool
review_differ(const struct review *r)
{
	return r->n > 0 || !r->prefix_same;
}
