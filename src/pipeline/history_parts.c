/*
 * The history's content parts: text, images and files in strata's,
 * OpenAI's, Anthropic's and Gemini's shapes (history_int.h).
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

/* The text parts of d joined by a blank line, in the arena. */
const char *
history_joined(struct run *run, const struct draft *d, size_t *len)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < d->parts.n; i++) {
		if (d->parts.v[i].kind != PART_TEXT)
			continue;
		if (b.len)
			buf_puts(&b, "\n\n");
		buf_put(&b, d->parts.v[i].data, d->parts.v[i].len);
	}
	*len = b.len;
	s = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* A tool result's content: a string, or parts (text and images). */
bool
history_result_content(struct reader *rd, const struct node *e,
    const struct node *v, struct draft *d, const char **text, size_t *len)
{
	*text = "";
	*len = 0;
	if (!v)
		return true;
	if (v->kind == NODE_STRING) {
		*text = v->u.str.s;
		*len = v->u.str.len;
		return true;
	}
	if (v->kind == NODE_TABLE) {    /* a Gemini response object */
		struct buf b = BUF_INIT;
		const struct node *o = tree_get(v, "output");

		if (v->u.table.n == 1 && o && o->kind == NODE_STRING) {
			*text = o->u.str.s;
			*len = o->u.str.len;
			return true;
		}
		o = tree_get(v, "error");
		if (v->u.table.n == 1 && o && o->kind == NODE_STRING) {
			*text = o->u.str.s;
			*len = o->u.str.len;
			return true;
		}
		d->result = v;

		json_write(&b, v, -1);
		*len = b.len;
		*text = arena_strndup(&rd->run->arena, b.data, b.len);
		buf_free(&b);
		return true;
	}
	if (v->kind != NODE_ARRAY) {
		diag_error(rd->run, rd->src, v->span,
		    MSG_HISTORY_CONTENT_PARTS, tree_kind_article(v->kind));
		return false;
	}
	if (!history_parts(rd, e, ROLE_TOOL, v, d))
		return false;
	*text = history_joined(rd->run, d, len);
	/* Text alone needs no parts. */
	{
		size_t i;

		for (i = 0; i < d->parts.n; i++)
			if (d->parts.v[i].kind != PART_TEXT)
				return true;
		d->parts.n = 0;
	}
	return true;
}

/* An image or file part named by a string member of p. */
static bool
media(struct reader *rd, const struct node *p, enum part_kind kind,
    const struct node *ref, const char *media_type, struct draft *d)
{
	struct part pt;

	if (!str_of(ref)) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    kind == PART_IMAGE ? "image" : "file",
		    "a string 'path' or 'url'");
		return false;
	}
	if (!media_data_part(rd->run, rd->src, ref->span, kind, ref->u.str.s,
	    ref->u.str.len, rd->dir, rd->in->allow_files, media_type, &pt))
		return false;
	vec_push(&d->parts, pt);
	return true;
}

/* A part given as bytes already in base64. */
static bool
inline_part(struct reader *rd, const struct node *p, enum part_kind kind,
    const char *what, const struct node *data, const struct node *type,
    struct draft *d)
{
	struct part pt;

	if (!str_of(data) || !str_of(type)) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    what, "string data and a media type");
		return false;
	}
	memset(&pt, 0, sizeof(pt));
	pt.kind = kind;
	pt.data = data->u.str.s;
	pt.len = data->u.str.len;
	pt.media_type = str_of(type);
	vec_push(&d->parts, pt);
	return true;
}

static bool
url_part(struct reader *rd, const struct node *p, enum part_kind kind,
    const char *what, const struct node *url, const struct node *type,
    struct draft *d)
{
	struct part pt;

	if (!str_of(url)) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    what, "a string URL");
		return false;
	}
	if (!media_data_part(rd->run, rd->src, url->span, kind,
	    url->u.str.s, url->u.str.len, NULL, rd->in->allow_files,
	    str_of(type), &pt))
		return false;
	if (!pt.url && !pt.media_type)
		pt.media_type = str_of(type);
	vec_push(&d->parts, pt);
	return true;
}

/* An Anthropic source {type: base64|url|text, ...}. */
static bool
source_part(struct reader *rd, const struct node *p, enum part_kind kind,
    const char *what, struct draft *d)
{
	const struct node *s = tree_get(p, "source");
	const char *t = s ? str_of(tree_get(s, "type")) : NULL;

	if (t && strcmp(t, "base64") == 0)
		return inline_part(rd, p, kind, what, tree_get(s, "data"),
		    tree_get(s, "media_type"), d);
	if (t && strcmp(t, "url") == 0)
		return url_part(rd, p, kind, what, tree_get(s, "url"), NULL,
		    d);
	if (t && strcmp(t, "text") == 0 && kind == PART_FILE) {
		struct part pt;
		const struct node *data = tree_get(s, "data");

		if (!str_of(data))
			goto bad;
		memset(&pt, 0, sizeof(pt));
		pt.kind = PART_FILE;
		pt.media_type = "text/plain";
		{
			struct buf b = BUF_INIT;

			base64_encode(&b, data->u.str.s, data->u.str.len);
			pt.len = b.len;
			pt.data = arena_strndup(&rd->run->arena,
			    b.data ? b.data : "", b.len);
			buf_free(&b);
		}
		vec_push(&d->parts, pt);
		return true;
	}
bad:
	diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD, what,
	    "a 'source' of type base64, url or text");
	return false;
}

static bool
text_part(struct reader *rd, const struct node *p, const struct node *t,
    struct draft *d)
{
	struct part pt;

	if (!t || t->kind != NODE_STRING) {
		diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_BAD,
		    "text", "a string 'text'");
		return false;
	}
	memset(&pt, 0, sizeof(pt));
	pt.kind = PART_TEXT;
	pt.data = t->u.str.s;
	pt.len = t->u.str.len;
	vec_push(&d->parts, pt);
	return true;
}

bool
history_wrong_role(struct reader *rd, const struct node *p, const char *what,
    enum role r)
{
	const char *rn = names_role(r);

	diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_ROLE, what,
	    rn[0] == 'a' ? "n" : "", rn);
	return false;
}

/* A Gemini part: text, inlineData, fileData, functionCall or
 * functionResponse (handled by the caller). */
static bool
gemini_part(struct reader *rd, const struct node *p, enum role r,
    struct draft *d)
{
	const struct node *v, *th = tree_get(p, "thought");
	enum part_kind k;

	if (tree_get(p, "thoughtSignature")) {
		if (r != ROLE_ASSISTANT)
			return history_wrong_role(rd, p, "thoughtSignature", r);
		d->signed_parts = true;
	}
	if (th && th->kind == NODE_BOOL && th->u.b) {
		if (r != ROLE_ASSISTANT)
			return history_wrong_role(rd, p, "thought", r);
		if (!(v = tree_get(p, "text")) || v->kind != NODE_STRING)
			return text_part(rd, p, NULL, d);
		history_add_reasoning(d, v->u.str.s, v->u.str.len);
		return true;
	}
	if ((v = tree_get(p, "text")))
		return text_part(rd, p, v, d);
	if ((v = tree_get(p, "inlineData"))) {
		const char *mt = str_of(tree_get(v, "mimeType"));

		k = mt && strncmp(mt, "image/", 6) == 0 ? PART_IMAGE :
		    PART_FILE;
		return inline_part(rd, p, k, "inlineData",
		    tree_get(v, "data"), tree_get(v, "mimeType"), d);
	}
	if ((v = tree_get(p, "fileData"))) {
		const char *mt = str_of(tree_get(v, "mimeType"));

		k = mt && strncmp(mt, "image/", 6) == 0 ? PART_IMAGE :
		    PART_FILE;
		return url_part(rd, p, k, "fileData", tree_get(v, "fileUri"),
		    tree_get(v, "mimeType"), d);
	}
	if ((v = tree_get(p, "functionCall"))) {
		if (r != ROLE_ASSISTANT)
			return history_wrong_role(rd, p, "functionCall", r);
		return history_add_call(rd, d, p, tree_get(v, "id"),
		    tree_get(v, "name"), tree_get(v, "args"));
	}
	diag_error(rd->run, rd->src, p->span, MSG_HISTORY_PART_TYPE,
	    p->u.table.n ? diag_shown(rd->run, p->u.table.items[0].key,
	    p->u.table.items[0].keylen) : "{}");
	return false;
}

/* The parts of one element into d; tool results (Anthropic tool_result,
 * Gemini functionResponse) become tool messages at once. */
bool
history_parts(struct reader *rd, const struct node *e, enum role r,
    const struct node *arr, struct draft *d)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < arr->u.array.n; i++) {
		const struct node *p = arr->u.array.items[i], *tn;
		const char *t;

		if (p->kind == NODE_STRING) {   /* Gemini allows bare text */
			ok = text_part(rd, p, p, d) && ok;
			continue;
		}
		if (p->kind != NODE_TABLE) {
			diag_error(rd->run, rd->src, p->span,
			    MSG_HISTORY_PART_BAD, "content", "to be an object");
			ok = false;
			continue;
		}
		tn = tree_get(p, "type");
		t = str_of(tn);
		if (!tn) {
			const struct node *fr = tree_get(p,
			    "functionResponse");

			if (fr) {
				struct draft rc = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };
				const char *text;
				size_t len;
				const struct node *resp = tree_get(fr,
				    "response");

				if (r != ROLE_USER && r != ROLE_TOOL) {
					ok = history_wrong_role(rd, p,
					    "functionResponse", r);
					continue;
				}
				ok = history_result_content(rd, p, resp, &rc,
				    &text, &len) && history_add_result(rd, e,
				    tree_get(fr, "id"), str_of(tree_get(fr,
				    "name")), &rc, text, len, resp &&
				    tree_get(resp, "error") && !tree_get(resp,
				    "output")) && ok;
				history_draft_free(&rc);
				continue;
			}
			ok = gemini_part(rd, p, r, d) && ok;
			continue;
		}
		if (!t) {
			diag_error(rd->run, rd->src, tn->span,
			    MSG_HISTORY_PART_BAD, "content", "a string 'type'");
			ok = false;
		} else if (strcmp(t, "text") == 0) {
			ok = text_part(rd, p, tree_get(p, "text"), d) && ok;
		} else if (strcmp(t, "image") == 0 || strcmp(t, "file") == 0 ||
		    strcmp(t, "document") == 0) {
			enum part_kind k = t[0] == 'i' ? PART_IMAGE :
			    PART_FILE;
			const struct node *ref = tree_get(p, "path");
			const struct node *f = tree_get(p, "file");

			if (tree_get(p, "source"))
				ok = source_part(rd, p, k, t, d) && ok;
			else if (f && f->kind == NODE_TABLE) {
				/* OpenAI {file: {file_data, filename}} */
				const char *fd = str_of(tree_get(f,
				    "file_data"));
				struct part pt;

				if (!fd || !media_is_url(fd, strlen(fd)) ||
				    !media_part(rd->run, rd->src,
				    tree_get(f, "file_data")->span, PART_FILE,
				    fd, strlen(fd), NULL, NULL, &pt) ||
				    pt.url) {
					diag_error(rd->run, rd->src, f->span,
					    MSG_HISTORY_PART_BAD, "file",
					    "'file_data' as a data: URL");
					ok = false;
					continue;
				}
				pt.filename = str_of(tree_get(f, "filename"));
				vec_push(&d->parts, pt);
			} else
				ok = media(rd, p, k, ref ? ref : tree_get(p,
				    "url"), str_of(tree_get(p, "media_type")),
				    d) && ok;
		} else if (strcmp(t, "image_url") == 0) {
			const struct node *iu = tree_get(p, "image_url");

			if (iu && iu->kind == NODE_TABLE)
				iu = tree_get(iu, "url");
			ok = url_part(rd, p, PART_IMAGE, t, iu, NULL, d) &&
			    ok;
		} else if (strcmp(t, "thinking") == 0 ||
		    strcmp(t, "redacted_thinking") == 0) {
			if (r != ROLE_ASSISTANT)
				ok = history_wrong_role(rd, p, t, r);
			else
				ok = history_thinking_part(rd, p, t, d) && ok;
		} else if (strcmp(t, "tool_use") == 0) {
			if (r != ROLE_ASSISTANT)
				ok = history_wrong_role(rd, p, t, r);
			else
				ok = history_add_call(rd, d, p,
				    tree_get(p, "id"), tree_get(p, "name"),
				    tree_get(p, "input")) && ok;
		} else if (strcmp(t, "tool_result") == 0) {
			struct draft rc = { { 0 }, { 0 }, NULL, BUF_INIT, NULL, false };
			const char *text;
			size_t len;
			const struct node *ie = tree_get(p, "is_error");

			if (r != ROLE_USER) {
				ok = history_wrong_role(rd, p, t, r);
				continue;
			}
			ok = history_result_content(rd, p, tree_get(p,
			    "content"), &rc, &text, &len) &&
			    history_add_result(rd, p, tree_get(p,
			    "tool_use_id"), NULL, &rc, text, len, ie &&
			    ie->kind == NODE_BOOL && ie->u.b) && ok;
			history_draft_free(&rc);
		} else {
			diag_error(rd->run, rd->src, tn->span,
			    MSG_HISTORY_PART_TYPE, diag_shown(rd->run, t,
			    strlen(t)));
			ok = false;
		}
	}
	return ok;
}
