#include "tavern/tchat.h"

#include <string.h>

#include "base/arena.h"
#include "base/path.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/run.h"
#include "session/chatfile.h"
#include "tavern/field.h"

static void
add(struct run *run, struct tchat *c, const struct tchat_msg *m)
{
	if (!m->hidden) {
		if (c->n == c->cap)
			c->msgs = avec_grow(&run->arena, c->msgs, &c->cap,
			    c->n, c->n + 1, sizeof(*c->msgs));
		c->msgs[c->n++] = *m;
	}
	if (c->nall == c->allcap)
		c->all = avec_grow(&run->arena, c->all, &c->allcap, c->nall,
		    c->nall + 1, sizeof(*c->all));
	c->all[c->nall++] = *m;
}

void
tchat_add(struct run *run, struct tchat *c, const char *name,
    const char *text, bool is_user)
{
	struct tchat_msg m;

	memset(&m, 0, sizeof(m));
	m.name = name;
	m.text = text;
	m.is_user = is_user;
	m.swipe_id = m.nswipes = -1;
	add(run, c, &m);
}

void
tchat_pop(struct tchat *c)
{
	if (!c->nall)
		return;
	if (!c->all[--c->nall].hidden && c->n)
		c->n--;
}

size_t
tchat_user_count(const struct tchat *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		n += c->msgs[i].is_user;
	return n;
}

static const char *
text_of(const struct node *o)
{
	const struct node *mes = tree_get(o, "mes"), *sw, *id;

	if (mes && mes->kind == NODE_STRING)
		return mes->u.str.s;    /* the tree's, in the arena */
	sw = tree_get(o, "swipes");
	id = tree_get(o, "swipe_id");
	if (sw && sw->kind == NODE_ARRAY && id && id->kind == NODE_INT &&
	    id->u.i >= 0 && (size_t)id->u.i < sw->u.array.n &&
	    sw->u.array.items[id->u.i]->kind == NODE_STRING)
		return sw->u.array.items[id->u.i]->u.str.s;
	return "";
}

bool
tchat_read(struct run *run, const char *path, const struct node *named,
    struct tchat *c)
{
	struct chatfile f;
	struct source *src;

	memset(c, 0, sizeof(*c));
	c->id = "";
	if (!path)
		return true;
	src = field_read(run, path, named);
	if (!src || !chatfile_read(run, src, &f))
		return false;
	tchat_from(run, &f, path, c);
	return true;
}

void
tchat_from(struct run *run, const struct chatfile *f, const char *path,
    struct tchat *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->id = path_name(&run->arena, path, ".jsonl");
	c->meta = chatfile_metadata(f);
	if (f->header) {
		const struct node *u = tree_get(f->header, "user_name");

		if (u && u->kind == NODE_STRING)
			c->user_name = u->u.str.s;
	}
	for (i = 0; i < f->msgs.n; i++) {
		const struct node *o = f->msgs.v[i].obj, *extra, *type, *fa,
		    *x;
		const char *name = chatfile_name(o);
		struct tchat_msg m;

		memset(&m, 0, sizeof(m));
		m.name = name ? name : "";
		m.text = text_of(o);
		m.is_user = chatfile_is_user(o);
		m.hidden = chatfile_is_system(o);
		m.node = o;
		extra = tree_get(o, "extra");
		type = extra && extra->kind == NODE_TABLE ?
		    tree_get(extra, "type") : NULL;
		m.narrator = type && type->kind == NODE_STRING &&
		    strcmp(type->u.str.s, "narrator") == 0;
		fa = tree_get(o, "force_avatar");
		m.force_avatar = fa && fa->kind == NODE_STRING &&
		    fa->u.str.len;
		x = tree_get(o, "swipe_id");
		m.swipe_id = x && x->kind == NODE_INT && x->u.i >= 0 ?
		    x->u.i : -1;
		x = tree_get(o, "swipes");
		m.nswipes = x && x->kind == NODE_ARRAY ?
		    (int64_t)x->u.array.n : -1;
		x = extra && extra->kind == NODE_TABLE ?
		    tree_get(extra, "memory") : NULL;
		m.memory = x && x->kind == NODE_STRING && x->u.str.len ?
		    x->u.str.s : NULL;
		x = extra && extra->kind == NODE_TABLE ?
		    tree_get(extra, "reasoning") : NULL;
		m.reasoning = x && x->kind == NODE_STRING && x->u.str.len ?
		    x->u.str.s : NULL;
		add(run, c, &m);
	}
}
