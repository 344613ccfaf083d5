#include "tavern/card.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "data/json.h"
#include "data/png.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"
#include "tavern/field.h"

/* The card fields, in the order the V3 tree writes them. */
enum kind {
	TEXT,           /* card_text */
	LIST,           /* card_list */
	EXTENSIONS,     /* table, default {} */
	BOOK,           /* table or absent */
	OPT_TEXT,       /* string node or absent (nickname) */
	KEEP,           /* any node, kept as it is */
};

#define F(name, kind) { #name, kind, offsetof(struct card, name) }
static const struct field {
	const char *name;
	enum kind kind;
	size_t off;
} fields[] = {
	F(name, TEXT), F(description, TEXT), F(personality, TEXT),
	F(scenario, TEXT), F(first_mes, TEXT), F(mes_example, TEXT),
	F(creator_notes, TEXT), F(system_prompt, TEXT),
	F(post_history_instructions, TEXT),
	F(alternate_greetings, LIST), F(tags, LIST),
	F(creator, TEXT), F(character_version, TEXT),
	F(extensions, EXTENSIONS), F(character_book, BOOK),
	F(group_only_greetings, LIST),
	F(nickname, OPT_TEXT), F(creator_notes_multilingual, KEEP),
	F(source, KEEP), F(creation_date, KEEP), F(modification_date, KEEP),
	F(assets, KEEP),
};
#undef F

/* Top-level keys the reader consumes besides the fields. */
static const char *const top_consumed[] = {
	"spec", "spec_version", "data", "creatorcomment", "talkativeness",
	"fav",
};

static bool
is_field(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < LEN(fields); i++)
		if (strlen(fields[i].name) == len &&
		    memcmp(fields[i].name, key, len) == 0)
			return true;
	return false;
}

/* Whether top-level key is read as part of the card.  A V1 card (no
 * spec) has no "data": a key of that name is an unknown one there. */
static bool
is_consumed(const char *key, size_t len, bool v1)
{
	size_t i;

	if (v1 && len == 4 && memcmp(key, "data", 4) == 0)
		return false;
	for (i = 0; i < LEN(top_consumed); i++)
		if (strlen(top_consumed[i]) == len &&
		    memcmp(top_consumed[i], key, len) == 0)
			return true;
	return is_field(key, len);
}

struct reader {
	struct run *run;
	const struct source *src;
	const struct node *root, *data;
	struct card *card;
};

static const struct source *
src_of(struct reader *r, const struct node *n)
{
	return run_source(r->run, n->src);
}

/* The key's name as messages show it: "data.name" or "name". */
static const char *
where(struct reader *r, const char *key, bool indata)
{
	return indata ? arena_printf(&r->run->arena, "data.%s", key) : key;
}

static void
wrong_type(struct reader *r, const struct node *n, const char *what,
    const char *want)
{
	diag_error(r->run, src_of(r, n), n->span, MSG_CARD_WRONG_TYPE, what,
	    want, tree_kind_json(n->kind));
}

/* Text rules: see card.h.  False (reported) for a table or array. */
static bool
text(struct reader *r, const struct node *n, const char *what,
    struct card_text *out)
{
	struct buf b = BUF_INIT;
	char *s;

	out->s = "";
	out->len = 0;
	switch (n->kind) {
	case NODE_STRING:
		out->s = n->u.str.s;
		out->len = n->u.str.len;
		return true;
	case NODE_NULL:
		return true;
	case NODE_INT:
	case NODE_FLOAT:
	case NODE_BOOL:
		json_write(&b, n, -1);
		s = arena_strndup(&r->run->arena, b.data, b.len);
		buf_free(&b);
		diag_warning(r->run, src_of(r, n), n->span, MSG_CARD_COERCED,
		    what, tree_kind_json(n->kind), s);
		out->s = s;
		out->len = strlen(s);
		return true;
	default:
		wrong_type(r, n, what, "a string");
		return false;
	}
}

static void
push(struct run *run, struct card_list *l, const char *s, size_t len)
{
	l->items = arena_grow(&run->arena, l->items, l->n, l->n + 1,
	    sizeof(*l->items));
	l->items[l->n].s = s;
	l->items[l->n++].len = len;
}

static bool
list(struct reader *r, const struct node *n, const char *what, bool csv,
    struct card_list *out)
{
	size_t i;
	bool ok = true;

	memset(out, 0, sizeof(*out));
	if (n->kind == NODE_NULL)
		return true;
	if (n->kind == NODE_STRING && csv) {
		/* "a, b,c": the old V1 form of tags. */
		const char *s = n->u.str.s, *e = s + n->u.str.len;

		while (s < e) {
			const char *c = memchr(s, ',', (size_t)(e - s));
			const char *t = c ? c : e;

			while (s < t && (*s == ' ' || *s == '\t'))
				s++;
			while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
				t--;
			if (t > s)
				push(r->run, out, s, (size_t)(t - s));
			s = c ? c + 1 : e;
		}
		return true;
	}
	if (n->kind != NODE_ARRAY) {
		wrong_type(r, n, what, "an array of strings");
		return false;
	}
	for (i = 0; i < n->u.array.n; i++) {
		const struct node *it = n->u.array.items[i];
		struct card_text t;

		if (it->kind == NODE_NULL)
			continue;
		if (!text(r, it, arena_printf(&r->run->arena, "%s[%zu]", what,
		    i), &t))
			ok = false;
		else
			push(r->run, out, t.s, t.len);
	}
	return ok;
}

/* extensions, with top-level talkativeness and fav filled in. */
static bool
extensions(struct reader *r, const struct node *n, const char *what)
{
	static const char *const fill[] = { "talkativeness", "fav" };
	struct arena *a = &r->run->arena;
	struct node *ext;
	size_t i;

	if (n && n->kind != NODE_TABLE && n->kind != NODE_NULL) {
		wrong_type(r, n, what, "an object");
		return false;
	}
	if (n && n->kind == NODE_TABLE)
		ext = tree_copy(a, n);
	else
		ext = tree_table(a);
	/* Where V1 keeps them, and SillyTavern repeats them. */
	for (i = 0; i < LEN(fill); i++) {
		const struct node *v = tree_get(r->root, fill[i]);

		if (v && !tree_get(ext, fill[i]))
			tree_put(a, ext, fill[i], (struct node *)v);
	}
	r->card->extensions = ext;
	return true;
}

static bool
field(struct reader *r, const struct field *f)
{
	const struct node *n = NULL;
	bool indata = false;
	const char *what;
	char *slot = (char *)r->card + f->off;

	if (r->data && (n = tree_get(r->data, f->name)) != NULL)
		indata = true;
	else
		n = tree_get(r->root, f->name);
	if (!n && strcmp(f->name, "creator_notes") == 0)
		n = tree_get(r->root, "creatorcomment");
	what = where(r, f->name, indata);
	switch (f->kind) {
	case TEXT:
		if (!n) {
			((struct card_text *)(void *)slot)->s = "";
			return true;
		}
		return text(r, n, what, (struct card_text *)(void *)slot);
	case LIST:
		if (!n)
			return true;
		return list(r, n, what, strcmp(f->name, "tags") == 0,
		    (struct card_list *)(void *)slot);
	case EXTENSIONS:
		return extensions(r, n, what);
	case BOOK:
		if (!n || n->kind == NODE_NULL)
			return true;
		if (n->kind != NODE_TABLE) {
			wrong_type(r, n, what, "an object");
			return false;
		}
		*(const struct node **)(void *)slot = n;
		return true;
	case OPT_TEXT:
		if (n) {
			struct card_text t;

			if (!text(r, n, what, &t))
				return false;
			*(struct node **)(void *)slot = tree_strref(
			    &r->run->arena, t.s, t.len);
		}
		return true;
	case KEEP:
		*(const struct node **)(void *)slot = n;
		return true;
	}
	return true;
}

/* Whether string node n is exactly s (n may hold NULs). */
static bool
is(const char *s, const struct node *n)
{
	return n->u.str.len == strlen(s) && memcmp(n->u.str.s, s,
	    n->u.str.len) == 0;
}

static void
keep_unknown(struct run *run, const struct node *from, struct node *to,
    bool top, bool v1)
{
	size_t i;

	for (i = 0; i < from->u.table.n; i++) {
		const struct member *m = &from->u.table.items[i];

		if (top ? is_consumed(m->key, m->keylen, v1) :
		    is_field(m->key, m->keylen))
			continue;
		tree_add(&run->arena, to, m->key, m->keylen, m->keysrc,
		    m->keyspan, m->value);
	}
}

bool
card_from_tree(struct run *run, const struct source *src,
    const struct node *root, struct card **out)
{
	struct card *card = arena_alloc(&run->arena, sizeof(*card));
	struct reader r;
	const struct node *spec, *data;
	unsigned errors0 = run->diag.errors;
	size_t i;

	*out = NULL;
	memset(&r, 0, sizeof(r));
	r.run = run;
	r.src = src;
	r.root = root;
	r.card = card;
	card->src = src;
	card->file = src;
	card->root = root;
	if (root->kind != NODE_TABLE) {
		diag_error(run, src_of(&r, root), root->span,
		    MSG_CARD_NOT_OBJECT, tree_kind_json(root->kind));
		return false;
	}
	card->spec = CARD_V1;
	spec = tree_get(root, "spec");
	if (spec && spec->kind != NODE_STRING) {
		wrong_type(&r, spec, "spec", "a string");
		return false;
	}
	if (spec) {
		if (is("chara_card_v3", spec)) {
			card->spec = CARD_V3;
		} else {
			card->spec = CARD_V2;
			if (!is("chara_card_v2", spec))
				diag_warning(run, src_of(&r, spec), spec->span,
				    MSG_CARD_SPEC, diag_shown(run,
				    spec->u.str.s, spec->u.str.len));
		}
		data = tree_get(root, "data");
		if (data && data->kind == NODE_TABLE)
			r.data = card->data = data;
		else if (data && data->kind != NODE_NULL) {
			wrong_type(&r, data, "data", "an object");
			return false;
		}
	}
	for (i = 0; i < LEN(fields); i++)
		field(&r, &fields[i]);
	card->extra = tree_table(&run->arena);
	card->top_extra = tree_table(&run->arena);
	if (r.data)
		keep_unknown(run, r.data, card->extra, false, false);
	keep_unknown(run, root, card->top_extra, true,
	    card->spec == CARD_V1);
	if (run->diag.errors != errors0)
		return false;
	*out = card;
	return true;
}

static const char *
base64_why(enum base64_error e)
{
	switch (e) {
	case BASE64_BAD_CHAR:
		return "a byte that is not base64";
	case BASE64_BAD_PAD:
		return "'=' padding where it cannot be";
	case BASE64_AFTER_PAD:
		return "text after the '=' padding";
	case BASE64_TRUNCATED:
		return "a lone character at the end (truncated?)";
	case BASE64_OK:
		break;
	}
	return "?";
}

bool
card_from_png(struct run *run, struct source *src, struct card **out)
{
	struct png png;
	struct png_text t;
	struct buf b = BUF_INIT;
	struct source *json;
	struct node *root;
	enum base64_error e;
	const char *kw = "ccv3";
	size_t bad;

	*out = NULL;
	src->binary = true;
	if (!png_read(run, src, &png))
		return false;
	if (!png_find_text(&png, kw, &t)) {
		kw = "chara";
		if (!png_find_text(&png, kw, &t)) {
			diag_plain(run, DIAG_ERROR, MSG_CARD_NO_CHUNK,
			    src->path);
			return false;
		}
	}
	e = base64_decode(&b, t.text, t.len, &bad);
	if (e != BASE64_OK) {
		diag_error(run, src,
		    span_make((size_t)(t.text - src->text) + bad, 1),
		    MSG_CARD_BASE64, kw, base64_why(e));
		buf_free(&b);
		return false;
	}
	json = run_source_mem(run, arena_printf(&run->arena, "%s[%s]",
	    src->path, kw), b.data ? b.data : "", b.len);
	buf_free(&b);
	if (!json_parse(run, json, &root))
		return false;
	if (!card_from_tree(run, json, root, out))
		return false;
	(*out)->file = src;
	return true;
}

bool
card_read(struct run *run, const char *path, const struct node *named,
    struct card **out)
{
	struct source *src;
	struct node *root;

	*out = NULL;
	src = field_read(run, path, named);
	if (!src)
		return false;
	if (png_is_png(src->text, src->len))
		return card_from_png(run, src, out);
	if (!json_parse(run, src, &root))
		return false;
	return card_from_tree(run, src, root, out);
}

const struct node *
card_field_node(const struct card *card, const char *name)
{
	const struct node *n = NULL;

	if (card->data)
		n = tree_get(card->data, name);
	if (!n && card->root)
		n = tree_get(card->root, name);
	if (!n && strcmp(name, "creator_notes") == 0 && card->root)
		n = tree_get(card->root, "creatorcomment");
	return n;
}

double
card_talkativeness(const struct card *card)
{
	const struct node *n = tree_get(card->extensions, "talkativeness");
	char *end;
	double d;

	if (!n)
		return 0.5;
	if (n->kind == NODE_INT)
		return (double)n->u.i;
	if (n->kind == NODE_FLOAT)
		return n->u.f;
	if (n->kind == NODE_STRING && n->u.str.len > 0) {
		d = strtod(n->u.str.s, &end);
		if (end == n->u.str.s + n->u.str.len && isfinite(d))
			return d;
	}
	return 0.5;
}

struct card_text
card_world(const struct card *card)
{
	const struct node *n = tree_get(card->extensions, "world");
	struct card_text t = { "", 0 };

	if (n && n->kind == NODE_STRING) {
		t.s = n->u.str.s;
		t.len = n->u.str.len;
	}
	return t;
}

bool
card_depth_prompt(const struct card *card, struct card_depth_prompt *dp)
{
	const struct node *n = tree_get(card->extensions, "depth_prompt");
	const struct node *p, *d, *role;

	dp->prompt.s = "";
	dp->prompt.len = 0;
	dp->depth = 4;
	dp->role = "system";
	if (!n || n->kind != NODE_TABLE)
		return false;
	d = tree_get(n, "depth");
	if (d && d->kind == NODE_INT && d->u.i >= 0)
		dp->depth = d->u.i;
	else if (d && d->kind == NODE_FLOAT && d->u.f >= 0 &&
	    d->u.f < 1e15 && d->u.f == floor(d->u.f))
		dp->depth = (int64_t)d->u.f;
	else if (d && d->kind == NODE_STRING) {
		/* SillyTavern takes Number() of it: "2" is 2. */
		char *end;
		long long v = strtoll(d->u.str.s, &end, 10);

		if (end != d->u.str.s && *end == '\0' && v >= 0 &&
		    isdigit((unsigned char)d->u.str.s[0]))
			dp->depth = v;
	}
	role = tree_get(n, "role");
	if (role && role->kind == NODE_STRING &&
	    (strcmp(role->u.str.s, "user") == 0 ||
	    strcmp(role->u.str.s, "assistant") == 0))
		dp->role = role->u.str.s;
	p = tree_get(n, "prompt");
	if (!p || p->kind != NODE_STRING || p->u.str.len == 0)
		return false;
	dp->prompt.s = p->u.str.s;
	dp->prompt.len = p->u.str.len;
	return true;
}

const struct node *
card_regex_scripts(const struct card *card)
{
	const struct node *n = tree_get(card->extensions, "regex_scripts");

	return n && n->kind == NODE_ARRAY ? n : NULL;
}

static struct node *
list_tree(struct arena *a, const struct card_list *l)
{
	struct node *arr = tree_array(a);
	size_t i;

	for (i = 0; i < l->n; i++)
		tree_push(a, arr, tree_strref(a, l->items[i].s,
		    l->items[i].len));
	return arr;
}

static struct node *
data_tree(struct run *run, const struct card *card)
{
	struct arena *a = &run->arena;
	struct node *data = tree_table(a);
	size_t i;

	for (i = 0; i < LEN(fields); i++) {
		const struct field *f = &fields[i];
		const char *slot = (const char *)card + f->off;
		struct node *v = NULL;

		switch (f->kind) {
		case TEXT: {
			const struct card_text *t = (const void *)slot;

			v = tree_strref(a, t->s, t->len);
			break;
		}
		case LIST:
			v = list_tree(a, (const void *)slot);
			break;
		case EXTENSIONS:
		case BOOK:
		case OPT_TEXT:
		case KEEP:
			v = *(struct node *const *)(const void *)slot;
			break;
		}
		if (v)
			tree_put(a, data, f->name, v);
	}
	for (i = 0; i < card->extra->u.table.n; i++) {
		const struct member *m = &card->extra->u.table.items[i];

		tree_add(a, data, m->key, m->keylen, 0, span_make(0, 0),
		    m->value);
	}
	return data;
}

static void
add_top_extra(struct run *run, const struct card *card, struct node *top)
{
	size_t i;

	for (i = 0; i < card->top_extra->u.table.n; i++) {
		const struct member *m = &card->top_extra->u.table.items[i];

		tree_add(&run->arena, top, m->key, m->keylen, 0,
		    span_make(0, 0), m->value);
	}
}

struct node *
card_v3_tree(struct run *run, const struct card *card)
{
	struct arena *a = &run->arena;
	struct node *top = tree_table(a);

	tree_put(a, top, "spec", tree_str(a, "chara_card_v3"));
	tree_put(a, top, "spec_version", tree_str(a, "3.0"));
	tree_put(a, top, "data", data_tree(run, card));
	add_top_extra(run, card, top);
	return top;
}

struct node *
card_v2_tree(struct run *run, const struct card *card)
{
	struct arena *a = &run->arena;
	struct node *top = tree_table(a);
	const struct card_text *v1[] = {
		&card->name, &card->description, &card->personality,
		&card->scenario, &card->first_mes, &card->mes_example,
	};
	size_t i;

	for (i = 0; i < LEN(v1); i++)
		tree_put(a, top, fields[i].name, tree_strref(a, v1[i]->s,
		    v1[i]->len));
	tree_put(a, top, "spec", tree_str(a, "chara_card_v2"));
	tree_put(a, top, "spec_version", tree_str(a, "2.0"));
	tree_put(a, top, "data", data_tree(run, card));
	add_top_extra(run, card, top);
	return top;
}

bool
card_write_png(struct run *run, const struct card *card, const char *image,
    struct buf *out)
{
	struct source *src;
	struct png png;
	struct buf json = BUF_INIT, b64[2] = { BUF_INIT, BUF_INIT };
	struct png_text_in texts[2];
	size_t i, toolong;
	bool ok;

	src = run_read(run, image, NULL, span_make(0, 0));
	if (!src)
		return false;
	src->binary = true;
	if (!png_read(run, src, &png))
		return false;
	for (i = 0; i < 2; i++) {
		buf_reset(&json);
		json_write(&json, i == 0 ? card_v2_tree(run, card) :
		    card_v3_tree(run, card), -1);
		base64_encode(&b64[i], json.data, json.len);
		texts[i].keyword = i == 0 ? "chara" : "ccv3";
		texts[i].text = b64[i].data;
		texts[i].len = b64[i].len;
	}
	ok = png_write(out, &png, texts, 2, &toolong);
	if (!ok)
		diag_plain(run, DIAG_ERROR, MSG_PNG_TEXT_TOO_LONG,
		    texts[toolong].keyword,
		    (unsigned long)(texts[toolong].len +
		    strlen(texts[toolong].keyword) + 1),
		    (unsigned long)PNG_CHUNK_MAX);
	buf_free(&json);
	buf_free(&b64[0]);
	buf_free(&b64[1]);
	return ok;
}
