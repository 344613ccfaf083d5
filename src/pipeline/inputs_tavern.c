/*
 * inputs_tavern: the SillyTavern inputs of a build, read in the front
 * half with the rest of what the command line and the profile name,
 * before the dialect is chosen: the sandbox's -H as the chat, the
 * variables (-v, --global-var, --macro and the global variables file),
 * the paths of the profile's [tavern] table (where each was named kept
 * for its errors), --persona-file, then the settings, card or group,
 * preset and chat, each read once (tavern/tbuild.h tavern_read()).
 * The message typed, --now and the session's chat are the ones
 * inputs_read() already read.
 */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "base/path.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/profile.h"
#include "session/globals.h"
#include "tavern/tbuild.h"

/*
 * --persona-file FILE (seed 002's persona_file): a JSON object's name
 * and description, or else the file's text as the description.  The
 * command line's --persona-name and --persona win.
 */
static bool
persona_file(struct run *run, const struct options *opt,
    struct tavern_input *tin)
{
	struct source *src;
	struct node *n;

	if (!opt->persona_file)
		return true;
	src = run_read(run, opt->persona_file, NULL, span_make(0, 0));
	if (!src)
		return false;
	if (src->len && src->text[strspn(src->text, " \t\r\n")] == '{') {
		const struct node *nm, *d;

		if (!json_parse(run, src, &n))
			return false;
		nm = tree_get(n, "name");
		d = tree_get(n, "description");
		if ((nm && nm->kind != NODE_STRING) || (d &&
		    d->kind != NODE_STRING) || (!nm && !d)) {
			diag_error(run, src, n->span, MSG_PERSONA_FILE);
			return false;
		}
		if (nm && !tin->persona_name)
			tin->persona_name = nm->u.str.s;
		if (d && !tin->persona)
			tin->persona = d->u.str.s;
		return true;
	}
	if (!tin->persona)
		tin->persona = arena_strndup(&run->arena, src->text,
		    src->len);
	return true;
}

/*
 * A sandbox (seed 002): -H with a card is the chat itself -- no greeting,
 * the messages as given, in file order with the system lines where they
 * stand.  Not with another chat (--chat, --session).
 */
static bool
sandbox(struct run *run, const struct options *opt, const struct inputs *in,
    struct tavern_input *tin)
{
	struct tavern_msg *v;
	size_t i, k;

	if (opt->history || opt->history_src) {
		struct node *arr;

		if (tin->chat) {
			diag_plain(run, DIAG_ERROR, MSG_SANDBOX_TWO_CHATS,
			    tin->chat);
			return false;
		}
		/* In file order, system lines where they stand (the -H
		 * reader, which has checked the file, splits them out). */
		if (!in->histsrc || !json_parse(run, (struct source *)
		    in->histsrc, &arr) || arr->kind != NODE_ARRAY)
			return false;
		v = arena_array(&run->arena, arr->u.array.n + 1, sizeof(*v));
		for (i = k = 0; i < arr->u.array.n; i++) {
			const struct node *m = arr->u.array.items[i];
			const struct node *r = tree_get(m, "role");
			const struct node *c = tree_get(m, "content");
			const struct node *nm = tree_get(m, "name");
			int role = r && r->kind == NODE_STRING ?
			    names_index(names_roles, r->u.str.s,
			    r->u.str.len) : -1;

			/* Seed 002's thinking: the reasoning of the
			 * assistant message right after it. */
			if (r && r->kind == NODE_STRING &&
			    strcmp(r->u.str.s, "thinking") == 0 &&
			    c && c->kind == NODE_STRING) {
				const struct node *nx = i + 1 <
				    arr->u.array.n ? arr->u.array.items[i +
				    1] : NULL;
				const struct node *nr = nx ? tree_get(nx,
				    "role") : NULL;

				if (!nr || nr->kind != NODE_STRING ||
				    strcmp(nr->u.str.s, "assistant")) {
					diag_error(run, run_source(run,
					    m->src), m->span,
					    MSG_SANDBOX_THINKING);
					return false;
				}
				v[k].thinking = c->u.str.s;
				v[k].thinking_src = m->src;
				v[k].thinking_span = m->span;
				continue;
			}
			if ((role != ROLE_USER && role != ROLE_ASSISTANT &&
			    role != ROLE_SYSTEM) || (c &&
			    c->kind != NODE_STRING && c->kind != NODE_NULL) ||
			    tree_get(m, "tool_calls")) {
				diag_error(run, run_source(run, m->src),
				    m->span, MSG_SANDBOX_ROLE);
				return false;
			}
			v[k].role = r->u.str.s;
			v[k].name = nm && nm->kind == NODE_STRING ?
			    nm->u.str.s : NULL;
			v[k].text = c && c->kind == NODE_STRING ?
			    c->u.str.s : "";
			k++;
		}
		tin->msgs = v;
		tin->nmsgs = k;
		tin->has_msgs = true;
	}
	return true;
}

/* NAME=VALUE arguments into table t (the last of a name wins). */
static bool
kv_table(struct run *run, const struct kv *v, size_t n, struct node *t)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *eq = strchr(v[i].arg, '=');

		if (!eq || eq == v[i].arg) {
			diag_plain(run, DIAG_ERROR, MSG_GLOBAL_VAR_ARG,
			    v[i].opt, v[i].arg);
			return false;
		}
		tree_set(&run->arena, t, v[i].arg, (size_t)(eq - v[i].arg), 0,
		    span_make(0, 0), tree_str(&run->arena, eq + 1));
	}
	return true;
}

/*
 * The variables a SillyTavern build starts from, over the chat's and
 * the settings': -v as local variables, the --globals file and then
 * --global-var as global ones.
 */
static bool
tavern_vars(struct run *run, const struct options *opt, const char *globals,
    struct tavern_input *tin)
{
	struct node *l = tree_table(&run->arena), *g;

	if (globals) {
		if (!globals_load(run, globals, &g))
			return false;
	} else {
		g = tree_table(&run->arena);
	}
	if (!kv_table(run, opt->vars, opt->nvars, l) ||
	    !kv_table(run, opt->global_vars, opt->nglobal_vars, g))
		return false;
	if (opt->nmacros) {
		struct node *m = tree_table(&run->arena);

		if (!kv_table(run, opt->macros, opt->nmacros, m))
			return false;
		tin->macros = m;
	}
	tin->vars = l->u.table.n ? l : NULL;
	tin->global_vars = g->u.table.n ? g : NULL;
	return true;
}

/* The global variables file: --globals, else the profile's [tavern]
 * globals (relative to the profile), else none. */
static const char *
globals_path(struct run *run, const struct options *opt,
    const struct profile *p)
{
	const struct node *t = profile_tavern(p), *v;

	if (opt->globals)
		return opt->globals;
	if (!t || !(v = tree_get(t, "globals")) || v->kind != NODE_STRING)
		return NULL;
	if (p->embedded || !p->src)
		return v->u.str.s;
	return path_join(&run->arena, path_dir(&run->arena, p->src->path),
	    v->u.str.s);
}

bool
inputs_tavern(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in)
{
	struct tavern_input *tin = arena_alloc(&run->arena, sizeof(*tin));

	*tin = opt->tavern;
	tin->user = in->user ? in->user->text : NULL;
	tin->user_src = in->user;
	tin->has_now = in->has_now;
	tin->now_ms = in->now_ms;
	/* --session: the session is the chat (a new one starts with the
	 * card's greeting), unless --chat names another. */
	if (!tin->chat && in->sess && in->sess->src && in->sess->src->len) {
		tin->chat = opt->session;
		tin->chatfile = in->sess;       /* read once, by inputs */
	}
	in->tavern_globals = globals_path(run, opt, p);
	if (!sandbox(run, opt, in, tin) ||
	    !tavern_vars(run, opt, in->tavern_globals, tin) ||
	    !tavern_input_profile(run, tin, profile_tavern(p),
	    p->embedded ? NULL : p->src->path) ||
	    !persona_file(run, opt, tin))
		return false;
	in->tavern = tin;
	in->tfiles = arena_alloc(&run->arena, sizeof(*in->tfiles));
	return tavern_read(run, tin, in->tfiles);
}
