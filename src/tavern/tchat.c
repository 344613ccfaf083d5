#include "tavern/tchat.h"

#include <string.h>

#include "base/arena.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/run.h"
#include "session/chatfile.h"

void
tchat_add(struct run *run, struct tchat *c, const char *name,
    const char *text, bool is_user)
{
	struct tchat_msg m;

	memset(&m, 0, sizeof(m));
	m.name = name;
	m.text = text;
	m.is_user = is_user;
	if (c->n == c->cap)
		c->msgs = avec_grow(&run->arena, c->msgs, &c->cap, c->n,
		    c->n + 1, sizeof(*c->msgs));
	c->msgs[c->n++] = m;
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
tchat_read(struct run *run, const char *path, struct tchat *c)
{
	struct chatfile f;
	struct source *src;
	const char *base;
	size_t i, len;

	memset(c, 0, sizeof(*c));
	c->id = "";
	if (!path)
		return true;
	src = run_read(run, path, NULL, span_make(0, 0));
	if (!src || !chatfile_read(run, src, &f))
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 6 && strcmp(base + len - 6, ".jsonl") == 0)
		len -= 6;
	c->id = arena_strndup(&run->arena, base, len);
	c->meta = chatfile_metadata(&f);
	if (f.header) {
		const struct node *u = tree_get(f.header, "user_name");

		if (u && u->kind == NODE_STRING)
			c->user_name = u->u.str.s;
	}
	for (i = 0; i < f.msgs.n; i++) {
		const struct node *o = f.msgs.v[i].obj, *extra, *type, *fa;
		const char *name = chatfile_name(o);

		if (chatfile_is_system(o))
			continue;
		tchat_add(run, c, name ? name : "", text_of(o),
		    chatfile_is_user(o));
		extra = tree_get(o, "extra");
		type = extra && extra->kind == NODE_TABLE ?
		    tree_get(extra, "type") : NULL;
		c->msgs[c->n - 1].narrator = type && type->kind ==
		    NODE_STRING && strcmp(type->u.str.s, "narrator") == 0;
		fa = tree_get(o, "force_avatar");
		c->msgs[c->n - 1].force_avatar = fa && fa->kind ==
		    NODE_STRING && fa->u.str.len;
	}
	return true;
}
