/*
 * Gemini generateContent request body.  The model is part of the URL, so
 * it is not in the body.  Sampling parameters go into generationConfig
 * under Gemini's names (emit_params.c translates them).
 */
#include "emit/emit.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "prompt/chat.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/tree.h"

/*
 * A URL part of message i whose media type Gemini needs and no one gave:
 * said where the URL came from, with how to give the type there -- an
 * --image argument as TYPE=URL, a history or session part as its
 * "media_type".
 */
static void
url_no_type(struct run *run, const struct chat *c, size_t i,
    const struct part *p)
{
	const struct message *m = &c->msgs[i];
	const struct source *s;

	if (p->has_src) {
		s = run_source(run, p->src);
		diag_error(run, s, p->span, MSG_IMAGE_URL_TYPE,
		    names_role(m->role), i + 1, "gemini", arena_printf(
		    &run->arena, "give its type before it, as --image "
		    "TYPE=%.*s with TYPE image/png, image/jpeg, image/gif "
		    "or image/webp", (int)p->len, p->data));
		return;
	}
	s = m->has_src ? run_source(run, m->src) : NULL;
	diag_error(run, s, s ? m->span : span_make(0, 0), MSG_IMAGE_URL_TYPE,
	    names_role(m->role), i + 1, "gemini",
	    "give it as the part's \"media_type\"");
}

/* The parts of message i (text and media) into arr. */
static bool
media_parts(struct run *run, const struct chat *c, size_t i,
    struct node *arr, struct arena *a)
{
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	size_t k;

	if (!x || !x->nparts) {
		if (m->len || !x || !x->ncalls) {
			struct node *q = tree_table(a);

			tree_put(a, q, "text", tree_strref(a, m->content,
			    m->len));
			tree_push(a, arr, q);
		}
		return true;
	}
	for (k = 0; k < x->nparts; k++) {
		const struct part *p = &x->parts[k];
		struct node *q = tree_table(a), *d;

		if (p->kind == PART_TEXT) {
			tree_put(a, q, "text", tree_strref(a, p->data, p->len));
		} else if (p->url) {
			const char *t = p->media_type ? p->media_type :
			    emit_url_type(p->data, p->len);

			if (!t) {
				url_no_type(run, c, i, p);
				return false;
			}
			d = tree_put(a, q, "fileData", tree_table(a));
			tree_put(a, d, "mimeType", tree_str(a, t));
			tree_put(a, d, "fileUri", tree_strref(a, p->data,
			    p->len));
		} else {
			d = tree_put(a, q, "inlineData", tree_table(a));
			tree_put(a, d, "mimeType", tree_str(a, p->media_type));
			tree_put(a, d, "data", tree_strref(a, p->data, p->len));
		}
		tree_push(a, arr, q);
	}
	return true;
}

/* A functionResponse part for tool message i. */
static struct node *
response(struct run *run, const struct chat *c, size_t i, struct arena *a)
{
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	struct node *q = tree_table(a), *fr, *r;
	size_t k;

	for (k = 0; k < x->nparts; k++)
		if (x->parts[k].kind != PART_TEXT) {
			emit_cannot(run, c, i, "gemini",
			    "an image or file in a tool result");
			return NULL;
		}
	fr = tree_put(a, q, "functionResponse", tree_table(a));
	tree_put(a, fr, "name", tree_str(a, x->call_name));
	if (x->result) {
		tree_put(a, fr, "response", (struct node *)x->result);
		return q;
	}
	r = tree_put(a, fr, "response", tree_table(a));
	tree_put(a, r, x->is_error ? "error" : "output", tree_strref(a,
	    m->content, m->len));
	return q;
}

/* One content: a message, or a run of tool results (one user turn). */
static struct node *
text_parts(struct arena *a, const char *s, size_t len)
{
	struct node *parts = tree_array(a), *part = tree_table(a);

	tree_put(a, part, "text", tree_strref(a, s, len));
	tree_push(a, parts, part);
	return parts;
}

static struct node *
content(struct run *run, const struct chat *c, size_t *ip, struct arena *a)
{
	size_t i = (*ip)++, k;
	const struct message *m = &c->msgs[i];
	const struct message_extra *x = m->x;
	struct node *o = tree_table(a), *parts, *q, *fc;

	tree_put(a, o, "role", tree_str(a,
	    m->role == ROLE_ASSISTANT ? "model" : "user"));
	parts = tree_put(a, o, "parts", tree_array(a));
	if (m->role == ROLE_TOOL) {
		for (k = i; k < c->n && c->msgs[k].role == ROLE_TOOL; k++) {
			if (!(q = response(run, c, k, a)))
				return NULL;
			tree_push(a, parts, q);
		}
		*ip = k;
		return o;
	}
	if (m->role == ROLE_ASSISTANT && emit_empty(m)) {
		struct source *s = m->has_src ? run_source(run, m->src) : NULL;

		diag_error(run, s, s ? m->span : span_make(0, 0),
		    MSG_PROVIDER_EMPTY, names_role(m->role), i + 1, "gemini",
		    "assistant");
		return NULL;
	}
	/* A reply's parts as Gemini returned them, thought signatures on
	 * the parts that had them. */
	if (m->role == ROLE_ASSISTANT && (q = (struct node *)emit_replay(m,
	    "gemini"))) {
		tree_set(a, o, "parts", 5, 0, span_make(0, 0), q);
		return o;
	}
	if (!media_parts(run, c, i, parts, a))
		return NULL;
	for (k = 0; x && k < x->ncalls; k++) {
		q = tree_table(a);
		fc = tree_put(a, q, "functionCall", tree_table(a));
		tree_put(a, fc, "name", tree_str(a, x->calls[k].name));
		tree_put(a, fc, "args", (struct node *)x->calls[k].args);
		tree_push(a, parts, q);
	}
	return o;
}

bool
emit_gemini(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *body = tree_table(a), *hole, *tools, *decls, *g;
	size_t syslen;
	const char *system = emit_system_text(run, c, &syslen), *model;
	size_t i, first = emit_first_turn(c);

	/* The model is the URL's; a model of another provider is still
	 * worth a warning. */
	if (c->model && *c->model && !emit_model(run, c, "gemini", &model))
		return false;
	if (first == c->n) {
		diag_plain(run, DIAG_ERROR, MSG_NO_USER_MESSAGE, "gemini");
		return false;
	}
	if (system) {
		struct node *si = tree_put(a, body, "systemInstruction",
		    tree_table(a));

		if (c->dialect == DIALECT_TAVERN) {
			/* As SillyTavern: a part for each system message. */
			struct node *parts = tree_put(a, si, "parts",
			    tree_array(a)), *part;

			for (i = 0; i < first; i++) {
				part = tree_table(a);
				tree_put(a, part, "text", tree_strref(a,
				    c->msgs[i].content, c->msgs[i].len));
				tree_push(a, parts, part);
			}
		} else
			tree_put(a, si, "parts", text_parts(a, system,
			    syslen));
	}
	hole = tree_put(a, body, "contents", tree_array(a));
	if (c->tools.n) {
		struct node *t = tree_table(a);

		tools = tree_put(a, body, "tools", tree_array(a));
		decls = tree_put(a, t, "functionDeclarations", tree_array(a));
		for (i = 0; i < c->tools.n; i++)
			tree_push(a, decls, emit_tool(a, c->tools.items[i],
			    "parametersJsonSchema"));
		tree_push(a, tools, t);
	}
	g = tree_table(a);
	if (!emit_params(run, c, FORMAT_GEMINI, body, g))
		return false;
	if (c->max_tokens && !tree_get(g, "maxOutputTokens"))
		tree_put(a, g, "maxOutputTokens", tree_int(a, c->max_tokens));
	if (g->u.table.n)
		tree_put(a, body, "generationConfig", g);
	return emit_write(run, c, body, hole, first, content, out);
}
