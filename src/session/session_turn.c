/*
 * build --session's write-back (session.h): once the request is built,
 * the session takes the turn.
 */
#include "session/session.h"

#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/profile.h"
#include "prompt/chat.h"
#include "prompt/entry.h"
#include "prompt/names.h"

/*
 * A SillyTavern build's state: a new chat's greeting first, the
 * variables its macros changed, the timed world-info state.
 */
static void
put_tavern(struct run *run, struct chatfile *c, const struct session_turn *t)
{
	struct arena *a = &run->arena;
	const struct node *v = t->vars_changed;
	struct node *vars;
	size_t i;

	if (t->greeting && c->msgs.n == 0) {
		chatfile_append(run, c, session_message(a, ROLE_ASSISTANT,
		    t->char_name ? t->char_name : "Assistant", t->greeting,
		    strlen(t->greeting), t->now_ms));
		for (i = 0; i < t->nmore; i++)
			chatfile_append(run, c, session_message(a,
			    ROLE_ASSISTANT, t->more_names[i],
			    t->more_greetings[i], strlen(t->more_greetings[i]),
			    t->now_ms));
	}
	if (v && v->kind == NODE_TABLE && v->u.table.n) {
		vars = session_vars_mut(run, c);
		for (i = 0; i < v->u.table.n; i++) {
			const struct member *m = &v->u.table.items[i];

			tree_set(a, vars, m->key, m->keylen, 0, span_make(0, 0),
			    tree_copy(a, m->value));
		}
	}
	if (t->timed)
		tree_set(a, chatfile_metadata_mut(run, c), "timedWorldInfo",
		    14, 0, span_make(0, 0), tree_copy(a, t->timed));
}

/*
 * The entries this build added from the command line (-i) with scope
 * session or turn: the session keeps them (a turn's until the reply ends
 * it), replacing a kept one of the same key.
 */
static void
keep_entries(struct run *run, struct chatfile *c, const struct chat *chat)
{
	struct arena *a = &run->arena;
	struct node *st = session_state_mut(run, c), *old, *list;
	size_t i, k;

	for (i = 0; i < chat->stack.nall; i++) {
		const struct entry *e = chat->stack.all[i];
		struct node *o;

		if (strcmp(e->layer, "cli") || e->status != ENTRY_ACTIVE ||
		    e->scope == SCOPE_GLOBAL)
			continue;
		old = tree_get(st, "entries");
		list = tree_array(a);
		for (k = 0; old && old->kind == NODE_ARRAY &&
		    k < old->u.array.n; k++) {
			const struct node *x = old->u.array.items[k];
			const struct node *key = tree_get(x, "key");

			if (!key || key->kind != NODE_STRING ||
			    strcmp(key->u.str.s, e->key) != 0)
				tree_push(a, list, old->u.array.items[k]);
		}
		o = tree_table(a);
		tree_put(a, o, "key", tree_str(a, e->key));
		tree_put(a, o, "content", tree_strn(a, e->content, e->len));
		tree_put(a, o, "priority", tree_int(a, e->priority));
		tree_put(a, o, "role", tree_str(a, names_role(e->role)));
		tree_put(a, o, "scope", tree_str(a, names_scope(e->scope)));
		tree_push(a, list, o);
		tree_set(a, st, "entries", 7, 0, span_make(0, 0), list);
	}
}

/* --image: the turn's images go into the session with the file each
 * was read from (parts and --image are in the same order). */
static void
put_images(struct run *run, struct node *m, const struct session_turn *t,
    const struct message_extra *x)
{
	const char **path = arena_array(&run->arena, x->nparts + 1,
	    sizeof(*path));
	size_t i, k = 0;

	for (i = 0; i < x->nparts; i++) {
		const char *arg;

		if (x->parts[i].kind != PART_IMAGE || k >= t->nimages)
			continue;
		arg = t->images[k++];
		if (!x->parts[i].url && strncmp(arg, "data:", 5) != 0)
			path[i] = arg;
	}
	session_put_media(&run->arena, m, x->parts, path, x->nparts);
}

static bool
append_turn(struct run *run, struct chatfile *c, void *arg)
{
	struct session_turn *t = arg;
	const struct chat *chat = t->chat;
	const struct message *turn = NULL;
	struct node *m;
	size_t i;

	session_set_profile(run, c, session_profile_fp(&run->arena,
	    chat->profile->root));
	session_thread(run, c, t->seed, t->now);
	t->thread = session_state_str(c, "thread_id");
	put_tavern(run, c, t);
	keep_entries(run, c, chat);
	for (i = 0; i < chat->n; i++)
		if (chat->msgs[i].origin == ORIGIN_TURN)
			turn = &chat->msgs[i];
	if (t->user) {
		chatfile_append(run, c, session_message(&run->arena, ROLE_USER,
		    t->user_name ? t->user_name : "User", t->user,
		    strlen(t->user), t->now_ms));
		return true;
	}
	if (!(chat->user && chat->user_len) && !(turn && turn->x))
		return true;
	m = chatfile_append(run, c, session_message(&run->arena, ROLE_USER,
	    session_last_name(c, true, "User"), chat->user ? chat->user : "",
	    chat->user_len, t->now_ms))->obj;
	if (turn && turn->x)
		put_images(run, m, t, turn->x);
	return true;
}

bool
session_save_turn(struct run *run, struct session_hold *h,
    struct session_turn *t)
{
	t->thread = NULL;
	return session_update_held(run, h, append_turn, t);
}
