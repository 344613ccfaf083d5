/*
 * The history (-H): a JSON array of messages -- {role, content[, name]}
 * and the richer kinds (parts, tool calls, tool results) in strata's
 * shape or a provider's (strata(1), CONVERSATION HISTORY).  System and
 * developer messages are split out into in->base and in->devbase; the
 * others go to in->hist in order.  The array has two free slots before
 * the history and one after it, for arrange() to use in place, so the
 * messages are never copied.
 *
 * A history is the one input that grows without bound (a million
 * messages is 40 MB), and a JSON tree of it costs ~20 times its size.
 * So a plain history -- an array of objects of string members role,
 * content and name, nothing else -- is read by a small scanner straight
 * into messages whose text borrows the file's bytes (decoded only where
 * a string has escapes).  Anything else, including every error, makes
 * it give up without a word and the general reader (json.c's tree, the
 * checks below) read the file instead, so what is accepted and every
 * message reported are the general reader's.
 */
#include "pipeline/history_int.h"


#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/map.h"
#include "base/path.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

void
history_room(struct run *run, struct inputs *in, size_t n)
{
	in->hist = (struct message *)arena_array(&run->arena, n + 3,
	    sizeof(*in->hist)) + 2;
	in->nhist = 0;
	in->histroom = n;
	buf_reset(&in->base);
	buf_reset(&in->devbase);
}
static bool
role_of(const char *s, size_t len, enum role *r)
{
	static const char *const names[] = { "system", "developer", "user",
		"assistant", "tool", "model", "function", NULL };
	static const enum role roles[] = { ROLE_SYSTEM, ROLE_DEVELOPER,
		ROLE_USER, ROLE_ASSISTANT, ROLE_TOOL, ROLE_ASSISTANT,
		ROLE_USER };
	int i = names_index(names, s, len);

	if (i < 0 || strlen(s) != len)
		return false;
	*r = roles[i];
	return true;
}

/* System and developer text goes to the system prompt, as keep() does. */
void
history_add_system(struct buf *b, const char *text, size_t len)
{
	size_t n = entry_trim(&text, len);

	if (!n)
		return;
	if (b->len)
		buf_puts(b, "\n\n");
	buf_put(b, text, n);
}

static void
keep_split(struct reader *rd, enum role r, const char *text, size_t len)
{
	history_add_system(r == ROLE_SYSTEM ? &rd->in->base :
	    &rd->in->devbase, text, len);
}
/* The draft as one message (none when it is an empty user remainder of
 * a turn of tool results); false after reporting a part the role cannot
 * have. */
static bool
finish(struct reader *rd, const struct node *e, enum role r,
    const struct node *name, struct draft *d, bool textonly, bool listed,
    const char *text, size_t len, bool results)
{
	struct run *run = rd->run;
	struct message m;
	struct message_extra *x = NULL;
	size_t i;

	if (!textonly)
		text = history_joined(run, d, &len);
	if (results && !d->parts.n && !d->calls.n)
		return true;
	if (r == ROLE_SYSTEM || r == ROLE_DEVELOPER) {
		for (i = 0; i < d->parts.n; i++)
			if (d->parts.v[i].kind != PART_TEXT) {
				return history_wrong_role(rd, e,
				    d->parts.v[i].kind == PART_IMAGE ?
				    "image" : "file", r);
			}
		keep_split(rd, r, text, len);
		return true;
	}
	memset(&m, 0, sizeof(m));
	m.role = r;
	m.origin = ORIGIN_HISTORY;
	m.content = text;
	m.len = len;
	m.name = name ? str_of(name) : NULL;
	m.has_src = true;
	m.src = rd->src->id;
	m.span = e->span;
	for (i = 0; i < d->parts.n; i++)
		if (d->parts.v[i].kind != PART_TEXT)
			break;
	/* Text given as a list stays a list (the shape round-trips). */
	if (listed && d->parts.n)
		i = 0;
	if (i < d->parts.n || d->calls.n) {
		x = arena_alloc(&run->arena, sizeof(*x));
		if (i < d->parts.n) {
			x->parts = arena_array(&run->arena, d->parts.n,
			    sizeof(struct part));
			memcpy((void *)x->parts, d->parts.v, d->parts.n *
			    sizeof(struct part));
			x->nparts = d->parts.n;
		}
		if (d->calls.n) {
			struct tool_call *c = arena_array(&run->arena,
			    d->calls.n, sizeof(*c));

			memcpy(c, d->calls.v, d->calls.n * sizeof(*c));
			x->calls = c;
			x->ncalls = d->calls.n;
			for (i = 0; i < d->calls.n; i++) {
				map_put(&rd->calls, c[i].id, strlen(c[i].id),
				    &c[i]);
				vec_push(&rd->open, &c[i]);
			}
		}
	}
	if (r == ROLE_ASSISTANT && (rd->pend_at || d->reasoning.len ||
	    d->replay)) {
		if (!x)
			x = arena_alloc(&run->arena, sizeof(*x));
		history_put_reasoning(rd, d, x);
	}
	m.x = x;
	keep_message(rd, &m);
	return true;
}

static const char *const element_keys[] = { "role", "content", "name",
	"tool_calls", "tool_call_id", "is_error", "parts", "reasoning",
	"reasoning_content", "strata", NULL };

/* A thinking message (role "thinking") or a Responses reasoning item:
 * reasoning for the assistant message after it. */
static bool
pending_reasoning(struct reader *rd, const struct node *e, bool item)
{
	const struct node *content = tree_get(e, "content");
	struct draft *d = &rd->pend;
	size_t j;

	if (item) {
		if (!history_reasoning_item(rd, e, d))
			return false;
		rd->pend_at = e;
		return true;
	}
	for (j = 0; j < e->u.table.n; j++) {
		const struct member *mb = &e->u.table.items[j];

		if (strcmp(mb->key, "role") && strcmp(mb->key, "content")) {
			diag_error(rd->run, rd->src, mb->keyspan,
			    MSG_HISTORY_KEY, diag_shown(rd->run, mb->key,
			    mb->keylen));
			return false;
		}
	}
	if (!content || content->kind != NODE_STRING) {
		diag_error(rd->run, rd->src, content ? content->span : e->span,
		    MSG_WRONG_TYPE, "content", "a string", content ?
		    tree_kind_article(content->kind) : "nothing");
		return false;
	}
	history_add_reasoning(d, content->u.str.s, content->u.str.len);
	rd->pend_at = e;
	return true;
}

/*
 * The keys of element e, their types, and which roles may have them;
 * *r is its role.  Reports each problem: false when any.
 */
static bool
check_element(struct reader *rd, const struct node *e, enum role *r)
{
	struct run *run = rd->run;
	const struct node *role = tree_get(e, "role"),
	    *content = tree_get(e, "content"), *name = tree_get(e, "name"),
	    *calls = tree_get(e, "tool_calls"),
	    *callid = tree_get(e, "tool_call_id"),
	    *iserr = tree_get(e, "is_error"), *gparts = tree_get(e, "parts");
	bool eok = true;
	size_t j;

	for (j = 0; j < e->u.table.n; j++) {
		const struct member *mb = &e->u.table.items[j];

		if (strlen(mb->key) != mb->keylen ||
		    names_index(element_keys, mb->key, mb->keylen) < 0) {
			diag_error(run, rd->src, mb->keyspan, MSG_HISTORY_KEY,
			    diag_shown(run, mb->key, mb->keylen));
			eok = false;
		}
	}
	if (!role) {
		diag_error(run, rd->src, e->span, MSG_HISTORY_MISSING, "role");
		eok = false;
	} else if (role->kind != NODE_STRING || !role_of(role->u.str.s,
	    role->u.str.len, r)) {
		diag_error(run, rd->src, role->span, MSG_HISTORY_ROLE,
		    role->kind == NODE_STRING ? diag_shown(run,
		    role->u.str.s, role->u.str.len) :
		    tree_kind_article(role->kind));
		eok = false;
	}
	if (name && name->kind != NODE_STRING) {
		diag_error(run, rd->src, name->span, MSG_WRONG_TYPE, "name",
		    "a string", tree_kind_article(name->kind));
		eok = false;
	}
	if (iserr && iserr->kind != NODE_BOOL) {
		diag_error(run, rd->src, iserr->span, MSG_WRONG_TYPE,
		    "is_error", "a boolean", tree_kind_article(iserr->kind));
		eok = false;
	}
	if (eok && calls && *r != ROLE_ASSISTANT) {
		diag_error(run, rd->src, tree_member(e, "tool_calls", 10)->
		    keyspan, MSG_HISTORY_ONLY_FOR, "tool_calls", "assistant");
		eok = false;
	}
	for (j = 0; eok && *r != ROLE_ASSISTANT && j < 3; j++) {
		static const char *const rk[] = { "reasoning",
			"reasoning_content", "strata" };
		const struct member *mb = tree_member(e, rk[j],
		    strlen(rk[j]));

		if (mb) {
			diag_error(run, rd->src, mb->keyspan,
			    MSG_HISTORY_ONLY_FOR, rk[j], "assistant");
			eok = false;
		}
	}
	if (eok && (callid || iserr) && *r != ROLE_TOOL) {
		const struct member *mb = callid ? tree_member(e,
		    "tool_call_id", 12) : tree_member(e, "is_error", 8);

		diag_error(run, rd->src, mb->keyspan, MSG_HISTORY_ONLY_FOR,
		    mb->key, "tool");
		eok = false;
	}
	if (!content && !gparts && !calls && *r != ROLE_TOOL) {
		diag_error(run, rd->src, e->span, MSG_HISTORY_MISSING,
		    "content");
		eok = false;
	}
	return eok;
}

/* One element of the array. */
static bool
element_slow(struct reader *rd, const struct node *e)
{
	struct run *run = rd->run;
	const struct node *role, *content, *name, *calls, *callid, *iserr,
	    *gparts;
	struct draft d = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };
	enum role r = ROLE_USER;
	size_t j, len = 0;
	const char *text = NULL;
	bool eok = true, textonly = false, listed = false;
	size_t before = rd->out.n;

	if (e->kind != NODE_TABLE) {
		diag_error(run, rd->src, e->span, MSG_HISTORY_ITEM,
		    tree_kind_article(e->kind));
		return false;
	}
	role = tree_get(e, "role");
	if (!role && str_of(tree_get(e, "type")) &&
	    strcmp(str_of(tree_get(e, "type")), "reasoning") == 0)
		return pending_reasoning(rd, e, true);
	if (role && str_of(role) && strcmp(str_of(role), "thinking") == 0)
		return pending_reasoning(rd, e, false);
	if (!check_element(rd, e, &r))
		return false;
	content = tree_get(e, "content");
	name = tree_get(e, "name");
	calls = tree_get(e, "tool_calls");
	callid = tree_get(e, "tool_call_id");
	iserr = tree_get(e, "is_error");
	gparts = tree_get(e, "parts");
	if (r == ROLE_TOOL) {
		struct draft rc = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };

		eok = history_result_content(rd, e, content, &rc, &text,
		    &len) && history_add_result(rd, e, callid ? callid : NULL,
		    NULL, &rc, text, len, iserr && iserr->u.b);
		history_draft_free(&rc);
		return eok;
	}
	if (content && content->kind == NODE_STRING) {
		text = content->u.str.s;
		len = content->u.str.len;
		textonly = true;
	} else if (content && content->kind == NODE_ARRAY) {
		eok = history_parts(rd, e, r, content, &d);
		listed = true;
	} else if (content && content->kind != NODE_NULL) {
		diag_error(run, rd->src, content->span,
		    MSG_HISTORY_CONTENT_PARTS, tree_kind_article(content->kind));
		eok = false;
	}
	if (eok && gparts) {
		if (gparts->kind != NODE_ARRAY) {
			diag_error(run, rd->src, gparts->span, MSG_WRONG_TYPE,
			    "parts", "an array", tree_kind_article(gparts->kind));
			eok = false;
		} else {
			eok = history_parts(rd, e, r, gparts, &d);
			/* Gemini has only lists: one text part is text. */
			listed = listed || d.parts.n > 1;
		}
	}
	if (eok && calls)
		eok = history_tool_calls(rd, calls, &d);
	for (j = 0; eok && r == ROLE_ASSISTANT && j < 2; j++) {
		const struct node *rs = tree_get(e, j ? "reasoning_content" :
		    "reasoning");

		if (rs && rs->kind != NODE_STRING) {
			diag_error(run, rd->src, rs->span, MSG_WRONG_TYPE,
			    j ? "reasoning_content" : "reasoning", "a string",
			    tree_kind_article(rs->kind));
			eok = false;
		} else if (rs) {
			history_add_reasoning(&d, rs->u.str.s, rs->u.str.len);
		}
	}
	if (eok && r == ROLE_ASSISTANT && tree_get(e, "strata"))
		eok = history_strata_replay(rd, tree_get(e, "strata"), &d);
	/* Gemini's signatures go back on the parts that had them: the
	 * parts as given (unless a "strata" already said it). */
	if (eok && d.signed_parts && gparts && !(d.replay &&
	    tree_get(d.replay, "gemini"))) {
		for (j = 0; j < gparts->u.array.n; j++)
			history_add_replay(run, &d, "gemini",
			    gparts->u.array.items[j]);
	}
	if (eok && r != ROLE_ASSISTANT)
		history_drop_pending(rd);
	if (eok) {
		if (textonly && d.calls.n) {
			struct part pt;

			memset(&pt, 0, sizeof(pt));
			pt.kind = PART_TEXT;
			pt.data = text;
			pt.len = len;
			if (len) {
				vec_push(&d.parts, pt);
				memmove(d.parts.v + 1, d.parts.v,
				    (d.parts.n - 1) * sizeof(pt));
				d.parts.v[0] = pt;
			}
			textonly = false;
		}
		eok = finish(rd, e, r, name, &d, textonly, listed, text, len,
		    rd->out.n > before);
	}
	history_draft_free(&d);
	return eok;
}

static bool
slow(struct run *run, struct source *src, struct inputs *in)
{
	struct reader rd;
	struct node *root;
	size_t i;
	bool ok = true;

	if (!load_source(run, src, LOAD_JSON, &root))
		return false;
	if (root->kind != NODE_ARRAY) {
		diag_error(run, src, root->span, MSG_HISTORY_NOT_ARRAY,
		    tree_kind_json(root->kind));
		return false;
	}
	memset(&rd, 0, sizeof(rd));
	rd.run = run;
	rd.src = src;
	rd.dir = strcmp(src->path, "-") && path_dir_len(src->path) ?
	    path_dir(&run->arena, src->path) : NULL;
	map_init(&rd.calls, &run->arena);
	history_room(run, in, 0);
	rd.in = in;
	for (i = 0; i < root->u.array.n; i++)
		ok = element_slow(&rd, root->u.array.items[i]) && ok;
	history_drop_pending(&rd);
	history_draft_free(&rd.pend);
	in->hist = (struct message *)arena_array(&run->arena, rd.out.n + 3,
	    sizeof(*in->hist)) + 2;
	in->histroom = rd.out.n;
	if (rd.out.n)
		memcpy(in->hist, rd.out.v, rd.out.n * sizeof(*in->hist));
	in->nhist = rd.out.n;
	vec_free(&rd.out);
	vec_free(&rd.open);
	return ok;
}


bool
history_read(struct run *run, const char *path, struct inputs *in)
{
	/* The option is a source of its own, so that a read error points
	 * at it (--history:1:1). */
	const struct source *arg = run_source_mem(run, "--history", path,
	    strlen(path));
	struct source *src = run_read(run, path, arg, span_make(0, arg->len));

	return src && history_parse(run, src, in);
}

bool
history_parse(struct run *run, struct source *src, struct inputs *in)
{
	in->histsrc = src;
	return history_fast(run, src, in) || slow(run, src, in);
}
