/*
 * tbuild_hook: seed 002's hook points inside the SillyTavern assembly.
 * At each, the point's messages go to the user's hooks as
 * {"messages": [{"role", "content", "name"}, ...]} and come back with
 * their texts and names possibly changed: the same number of messages,
 * each with its role.  What the hooks return is what the build goes on
 * with.  SillyTavern substitutes macros and runs regex scripts on each
 * piece as it assembles, so the texts a point sees are past those
 * steps for the pieces already placed (strata(1), HOOKS).
 */
#include "tavern/tbuild_int.h"

#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "prompt/names.h"

static struct node *
msg_node(struct arena *a, const char *role, const char *text,
    const char *name)
{
	struct node *o = tree_table(a);

	tree_put(a, o, "role", tree_str(a, role));
	tree_put(a, o, "content", tree_str(a, text ? text : ""));
	tree_put(a, o, "name", name ? tree_str(a, name) :
	    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
	return o;
}

static void
bad(struct run *run, const struct node *n, const char *what, const char *want)
{
	diag_error(run, run_source(run, n->src), n->span, MSG_HOOK_TYPE, what,
	    want);
}

/*
 * Run point on msgs (n of them, role[i] each); the texts and names come
 * back in text[] and name[].  False after reporting.
 */
static bool
hook_msgs(struct tb *t, const char *point, size_t n, const char *const *role,
    const char **text, const char **name)
{
	struct run *run = t->run;
	struct arena *a = &run->arena;
	struct node *d = tree_table(a), *arr = tree_array(a);
	const struct node *out;
	size_t i, k;

	for (i = 0; i < n; i++)
		tree_push(a, arr, msg_node(a, role[i], text[i], name[i]));
	tree_put(a, d, "messages", arr);
	if (!t->in->hooks.run(t->in->hooks.ctx, run, point, &d))
		return false;
	out = tree_get(d, "messages");
	if (out->u.array.n != n) {
		diag_error(run, run_source(run, out->src), out->span,
		    MSG_HOOK_COUNT, n, out->u.array.n);
		return false;
	}
	for (i = 0; i < n; i++) {
		const struct node *m = out->u.array.items[i], *r, *c, *nm;

		if (m->kind != NODE_TABLE) {
			bad(run, m, "a message", "an object");
			return false;
		}
		for (k = 0; k < m->u.table.n; k++) {
			const struct member *mb = &m->u.table.items[k];

			if (strcmp(mb->key, "role") &&
			    strcmp(mb->key, "content") &&
			    strcmp(mb->key, "name")) {
				diag_error(run, run_source(run, m->src),
				    mb->keyspan, MSG_HOOK_KEY, mb->key);
				return false;
			}
		}
		r = tree_get(m, "role");
		c = tree_get(m, "content");
		nm = tree_get(m, "name");
		if (!r || r->kind != NODE_STRING || strcmp(r->u.str.s,
		    role[i])) {
			diag_error(run, run_source(run, (r ? r : m)->src),
			    (r ? r : m)->span, MSG_HOOK_ROLE, i + 1,
			    role[i]);
			return false;
		}
		if (!c || c->kind != NODE_STRING) {
			bad(run, c ? c : m, "'content'", "a string");
			return false;
		}
		if (nm && nm->kind != NODE_STRING && nm->kind != NODE_NULL) {
			bad(run, nm, "'name'", "a string or null");
			return false;
		}
		text[i] = c->u.str.s;
		name[i] = nm && nm->kind == NODE_STRING ? nm->u.str.s : NULL;
	}
	return true;
}

/* beforeRaw: the chat as read (a sandbox's messages, or the chat
 * file's shown ones), before the greeting and the message typed join
 * it. */
bool
tb_hook_chat(struct tb *t)
{
	struct arena *a = &t->run->arena;
	size_t n = t->chat.n, i, j;
	const char **role, **text, **name;

	if (!tavern_hooked(&t->in->hooks, "beforeRaw"))
		return true;
	role = arena_array(a, n + 1, sizeof(*role));
	text = arena_array(a, n + 1, sizeof(*text));
	name = arena_array(a, n + 1, sizeof(*name));
	for (i = 0; i < n; i++) {
		const struct tchat_msg *m = &t->chat.msgs[i];

		role[i] = m->is_user ? "user" : m->narrator ? "system" :
		    "assistant";
		text[i] = m->text;
		name[i] = m->name;
	}
	if (!hook_msgs(t, "beforeRaw", n, role, text, name))
		return false;
	/* The shown messages are the chat array's that are not hidden,
	 * in order; the macros read that array. */
	for (i = j = 0; i < n; i++) {
		struct tchat_msg *m = &t->chat.msgs[i];

		for (; j < t->chat.nall; j++)
			if (!t->chat.all[j].hidden &&
			    t->chat.all[j].text == m->text) {
				t->chat.all[j].text = text[i];
				t->chat.all[j].name = name[i] ? name[i] : "";
				j++;
				break;
			}
		m->text = text[i];
		m->name = name[i] ? name[i] : "";
	}
	return true;
}

/* afterInsert, afterRaw, before/afterPostprocess*: the messages of l. */
bool
tb_hook_list(struct tb *t, const char *point, struct tlist *l)
{
	struct arena *a = &t->run->arena;
	size_t n = l->n, i;
	const char **role, **text, **name;

	if (!tavern_hooked(&t->in->hooks, point))
		return true;
	role = arena_array(a, n + 1, sizeof(*role));
	text = arena_array(a, n + 1, sizeof(*text));
	name = arena_array(a, n + 1, sizeof(*name));
	for (i = 0; i < n; i++) {
		tb_resolve(t, &l->v[i]);
		role[i] = names_role(l->v[i].role);
		text[i] = l->v[i].content;
		name[i] = l->v[i].name;
	}
	if (!hook_msgs(t, point, n, role, text, name))
		return false;
	for (i = 0; i < n; i++) {
		l->v[i].content = text[i];
		l->v[i].name = name[i];
	}
	return true;
}

bool
tavern_hooked(const struct tavern_hooks *h, const char *point)
{
	return h && h->run && h->wanted && h->wanted(h->ctx, point);
}

/* The postprocess points of the build's view. */
const char *
tb_hook_post(const struct tb *t, bool after)
{
	if (t->in->user_view)
		return after ? "afterPostprocessUser" : "beforePostprocessUser";
	return after ? "afterPostprocessAssistant" :
	    "beforePostprocessAssistant";
}
