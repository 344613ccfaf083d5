/*
 * ftav: fast-tavern 0.1.8's buildPrompt -- macros and variables set up,
 * history read, world info activated, the tagged list assembled
 * (relative prompts in array order with their slot entries before them,
 * the history block with the in-chat injections spliced in), each item
 * taken through its stages in list order, and the result laid out as
 * fast-tavern prints it.  Reference: fast-tavern.md sections 1, 3, 4.4,
 * 4.5, 4.7, 6.
 */
#include "tavern/ftav.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/tree.h"
#include "diag/run.h"

/* One TaggedContent. */
struct item {
	const char *tag;
	enum ftav_target target;
	enum ftav_role role;
	const char *text;
	size_t len;
	bool has_depth;
	double depth;
	/* the stages */
	const char *macro, *post;
	size_t macrolen, postlen;
};

struct items {
	struct item *v;
	size_t n, cap;
};

static const char *const role_names[] = { "system", "user", "model" };
static const char *const target_names[] = { "userInput", "aiOutput",
	"slashCommands", "worldBook", "reasoning" };

bool
ftav_recognise(const struct node *p)
{
	static const char *const keys[] = { "preset", "character", "globals",
		"history", "outputFormat", "systemRolePolicy",
		"globalVariables", "options", NULL };
	size_t i;

	if (!p || p->kind != NODE_TABLE)
		return false;
	for (i = 0; keys[i]; i++)
		if (tree_get(p, keys[i]))
			return true;
	return false;
}

static const struct node *
get(const struct node *t, const char *k)
{
	return t && t->kind == NODE_TABLE ? tree_get(t, k) : NULL;
}

static bool
is_str(const struct node *v, const char *s)
{
	return v && v->kind == NODE_STRING && strlen(s) == v->u.str.len &&
	    memcmp(v->u.str.s, s, v->u.str.len) == 0;
}

/* normalizeRole: system, user, model/assistant; else the fallback. */
static enum ftav_role
role_of(struct run *run, const struct node *v, enum ftav_role fallback)
{
	const char *s;

	if (!v || v->kind == NODE_NULL)
		return fallback;
	s = ftav_str(run, v);
	s = ftav_lower(run, s, strlen(s));
	if (!strcmp(s, "system"))
		return FT_SYSTEM;
	if (!strcmp(s, "user"))
		return FT_USER;
	if (!strcmp(s, "model") || !strcmp(s, "assistant"))
		return FT_MODEL;
	return fallback;
}

static enum ftav_role
role_str(struct run *run, const char *s, enum ftav_role fallback)
{
	struct node n;

	memset(&n, 0, sizeof(n));
	n.kind = NODE_STRING;
	n.u.str.s = (char *)s;
	n.u.str.len = strlen(s);
	return role_of(run, &n, fallback);
}

static struct item *
push(struct items *l)
{
	struct item *it;

	l->v = vec_grow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	it = &l->v[l->n++];
	memset(it, 0, sizeof(*it));
	return it;
}

/* History nodes: role and text of each message (section 2.5). */
struct hist {
	enum ftav_role role;
	const char *text;
};

static bool
history(struct ftav *ft, const struct node *h, struct hist **out,
    size_t *n)
{
	struct run *run = ft->run;
	struct hist *v;
	size_t i, k;

	*out = NULL;
	*n = 0;
	if (!ftav_truthy(h))
		return true;
	if (h->kind != NODE_ARRAY) {
		ftav_throw(ft, h, "history must be a list of messages");
		return false;
	}
	v = arena_array(&run->arena, h->u.array.n + 1, sizeof(*v));
	for (i = 0; i < h->u.array.n; i++) {
		const struct node *m = h->u.array.items[i], *p, *c;
		struct buf b = BUF_INIT;

		if (m->kind != NODE_TABLE && m->kind != NODE_ARRAY) {
			ftav_throw(ft, m, m->kind == NODE_NULL ? "a history "
			    "message is null" : "a history message must be "
			    "an object");
			return false;
		}
		v[i].role = role_of(run, get(m, "role"), FT_USER);
		if (m->kind == NODE_TABLE && tree_get(m, "parts")) {
			p = tree_get(m, "parts");
			if (ftav_truthy(p) && p->kind != NODE_ARRAY) {
				ftav_throw(ft, p, "a message's parts must be "
				    "a list");
				return false;
			}
			for (k = 0; ftav_truthy(p) && k < p->u.array.n;
			    k++) {
				const struct node *t = get(p->u.array.items[k],
				    "text");

				if (t && t->kind != NODE_NULL)
					ftav_tostring(&b, t);
			}
		} else {
			c = get(m, "content");
			if (c && c->kind != NODE_NULL)
				ftav_tostring(&b, c);
		}
		v[i].text = arena_strndup(&run->arena, b.data ? b.data : "",
		    b.len);
		buf_free(&b);
	}
	*out = v;
	*n = h->u.array.n;
	return true;
}

/* chatNodes.slice(-recent) joined with "\n". */
static const char *
scan_text(struct ftav *ft, const struct node *options, const struct hist *h,
    size_t n)
{
	const struct node *r = get(options, "recentHistoryForWorldbook");
	double k = r && r->kind != NODE_NULL ? -ftav_tonumber(r) : -5;
	size_t start, i;
	struct buf b = BUF_INIT;
	char *s;

	k = isnan(k) ? 0 : trunc(k);
	if (k < 0)
		start = -k >= (double)n ? 0 : n - (size_t)-k;
	else
		start = k >= (double)n ? n : (size_t)k;
	for (i = start; i < n; i++) {
		if (i > start)
			buf_putc(&b, '\n');
		buf_puts(&b, h[i].text);
	}
	s = arena_strndup(&ft->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/*
 * positionMap[position] || position, compared with === to the prompt's
 * identifier.  The map is looked into only when there is a slot entry
 * to place; a null map throws then.
 */
static bool
slot_match(struct ftav *ft, const struct node *map, bool map_given,
    const char *pos, const struct node *ident)
{
	const struct node *v = NULL;
	struct node tmp;

	if (map_given && map && map->kind == NODE_NULL) {
		ftav_throw(ft, map, "options.positionMap is null and a world "
		    "book entry needs it");
		return false;
	}
	if (!map_given) {
		if (!strcmp(pos, "beforeChar"))
			return is_str(ident, "charBefore");
		if (!strcmp(pos, "afterChar"))
			return is_str(ident, "charAfter");
	} else if (map->kind == NODE_TABLE) {
		v = tree_get(map, pos);
		if (!v && ftav_inherited(pos))
			return false;   /* an inherited function or object */
	} else if (map->kind == NODE_ARRAY || map->kind == NODE_STRING) {
		char *end;
		unsigned long k = strtoul(pos, &end, 10);

		if (*pos && !*end && (pos[0] != '0' || !pos[1])) {
			if (map->kind == NODE_ARRAY && k < map->u.array.n)
				v = map->u.array.items[k];
			if (map->kind == NODE_STRING && k < map->u.str.len) {
				memset(&tmp, 0, sizeof(tmp));
				tmp.kind = NODE_STRING;
				tmp.u.str.s = map->u.str.s + k;
				tmp.u.str.len = 1;
				v = &tmp;
			}
		}
	}
	if (v && ftav_truthy(v)) {
		if (!ident || ident->kind != v->kind)
			return (ident && (ident->kind == NODE_INT ||
			    ident->kind == NODE_FLOAT) && (v->kind ==
			    NODE_INT || v->kind == NODE_FLOAT)) &&
			    ftav_tonumber(ident) == ftav_tonumber(v);
		switch (v->kind) {
		case NODE_STRING:
			return ident->u.str.len == v->u.str.len &&
			    !memcmp(ident->u.str.s, v->u.str.s, v->u.str.len);
		case NODE_INT:
		case NODE_FLOAT:
			return ftav_tonumber(ident) == ftav_tonumber(v);
		case NODE_BOOL:
			return ident->u.b == v->u.b;
		default:
			return false;
		}
	}
	return is_str(ident, pos);
}

struct inj {
	const char *tag, *text;
	enum ftav_target target;
	enum ftav_role role;
	double depth, order;
	size_t idx;
};

static int
cmp_inj(const void *pa, const void *pb)
{
	const struct inj *a = pa, *b = pb;

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->order != b->order)
		return a->order > b->order ? -1 : 1;
	return a->idx > b->idx ? -1 : a->idx < b->idx;
}

static bool
finite_num(const struct node *v)
{
	return v && (v->kind == NODE_INT || (v->kind == NODE_FLOAT &&
	    isfinite(v->u.f)));
}

/* A prompt's content as fast-tavern uses it: a string, or a throw
 * when the macro pass gets something else. */
static bool
content_of(struct ftav *ft, const struct node *c, const char **s)
{
	if (!ftav_truthy(c)) {
		*s = "";
		return true;
	}
	if (c->kind != NODE_STRING) {
		ftav_throw(ft, c, "a prompt's content must be a string");
		return false;
	}
	*s = c->u.str.s;
	return true;
}

static const char *
tag(struct run *run, const char *what, const struct node *name)
{
	return arena_printf(&run->arena, "%s: %s", what, ftav_str(run,
	    name));
}

/* The history block with the in-chat injections (section 4.5). */
static bool
history_block(struct ftav *ft, struct items *out, const struct node *prompts,
    struct ftav_entry **act, size_t nact, const struct hist *h, size_t nh)
{
	struct run *run = ft->run;
	struct items blk = { 0 };
	struct inj *inj;
	size_t ninj = 0, i, k, np = 0;

	for (i = 0; i < nh; i++) {
		struct item *it = push(&blk);

		it->tag = arena_printf(&run->arena, "History: %s",
		    role_names[h[i].role]);
		it->target = h[i].role == FT_USER ? FT_USER_INPUT :
		    h[i].role == FT_MODEL ? FT_AI_OUTPUT : FT_SLASH;
		it->role = h[i].role;
		it->text = h[i].text;
		it->len = strlen(h[i].text);
		it->has_depth = true;
		it->depth = (double)(nh - 1 - i);
	}
	inj = arena_array(&run->arena, (prompts ? prompts->u.array.n : 0) +
	    nact + 1, sizeof(*inj));
	for (i = 0; prompts && i < prompts->u.array.n; i++) {
		const struct node *p = prompts->u.array.items[i], *en;

		if (!ftav_truthy(p))
			continue;
		en = get(p, "enabled");
		if (en && en->kind == NODE_BOOL && !en->u.b)
			continue;
		if (!is_str(get(p, "position"), "fixed") ||
		    !finite_num(get(p, "depth")) ||
		    !finite_num(get(p, "order")))
			continue;
		if (!content_of(ft, get(p, "content"), &inj[ninj].text))
			return false;
		inj[ninj].tag = tag(run, "Preset", get(p, "name"));
		inj[ninj].target = FT_SLASH;
		inj[ninj].role = role_of(run, get(p, "role"), FT_SYSTEM);
		inj[ninj].depth = ftav_tonumber(get(p, "depth"));
		inj[ninj].order = ftav_tonumber(get(p, "order"));
		inj[ninj].idx = np++;
		ninj++;
	}
	for (i = 0, k = 0; i < nact; i++) {
		const struct ftav_entry *e = act[i];

		if (strcmp(e->position, "fixed") != 0)
			continue;
		inj[ninj].tag = arena_printf(&run->arena, "Worldbook: %s",
		    e->name);
		inj[ninj].target = FT_WORLD;
		inj[ninj].role = e->role ? role_str(run, e->role, FT_SYSTEM) :
		    FT_SYSTEM;
		inj[ninj].text = e->content;
		inj[ninj].depth = e->depth;
		inj[ninj].order = e->order;
		inj[ninj].idx = 10000 + k++;
		ninj++;
	}
	qsort(inj, ninj, sizeof(*inj), cmp_inj);
	for (i = 0; i < ninj; i++) {
		double t = (double)nh - inj[i].depth;
		size_t at;
		struct item *it;

		t = t < 0 ? 0 : trunc(t);
		at = t > (double)blk.n ? blk.n : (size_t)t;
		push(&blk);
		memmove(&blk.v[at + 1], &blk.v[at], (blk.n - 1 - at) *
		    sizeof(*blk.v));
		it = &blk.v[at];
		memset(it, 0, sizeof(*it));
		it->tag = inj[i].tag;
		it->target = inj[i].target;
		it->role = inj[i].role;
		it->text = inj[i].text;
		it->len = strlen(inj[i].text);
	}
	for (i = 0; i < blk.n; i++)
		*push(out) = blk.v[i];
	free(blk.v);
	return true;
}

static int
cmp_slot(const void *pa, const void *pb)
{
	const struct ftav_entry *a = *(const struct ftav_entry *const *)pa;
	const struct ftav_entry *b = *(const struct ftav_entry *const *)pb;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* assembleTaggedPromptList (section 4.4). */
static bool
assemble(struct ftav *ft, const struct node *prompts,
    const struct node *options, struct ftav_entry **act, size_t nact,
    const struct hist *h, size_t nh, struct items *out)
{
	struct run *run = ft->run;
	const struct node *map = get(options, "positionMap");
	bool map_given = map != NULL;
	struct ftav_entry **slot;
	size_t i, k, ns;

	slot = arena_array(&run->arena, nact + 1, sizeof(*slot));
	for (i = 0; prompts && i < prompts->u.array.n; i++) {
		const struct node *p = prompts->u.array.items[i], *en, *id;
		const char *text;

		if (!ftav_truthy(p))
			continue;
		en = get(p, "enabled");
		if ((en && en->kind == NODE_BOOL && !en->u.b) ||
		    !is_str(get(p, "position"), "relative"))
			continue;
		id = get(p, "identifier");
		for (k = 0, ns = 0; k < nact; k++) {
			if (!strcmp(act[k]->position, "fixed"))
				continue;
			if (!slot_match(ft, map, map_given, act[k]->position,
			    id)) {
				if (ft->failed)
					return false;
				continue;
			}
			slot[ns] = act[k];
			/* a stable sort by order: the list index breaks
			 * ties */
			slot[ns]->seq = k;
			ns++;
		}
		qsort(slot, ns, sizeof(*slot), cmp_slot);
		for (k = 0; k < ns; k++) {
			struct item *it = push(out);

			it->tag = arena_printf(&run->arena, "Worldbook: %s",
			    slot[k]->name);
			it->target = FT_WORLD;
			it->role = slot[k]->role ? role_str(run, slot[k]->role,
			    FT_SYSTEM) : FT_SYSTEM;
			it->text = slot[k]->content;
			it->len = strlen(it->text);
		}
		if (is_str(id, "chatHistory")) {
			if (!history_block(ft, out, prompts, act, nact, h, nh))
				return false;
			continue;
		}
		if (!content_of(ft, get(p, "content"), &text))
			return false;
		if (*text) {
			struct item *it = push(out);

			it->tag = tag(run, "Preset", get(p, "name"));
			it->target = FT_SLASH;
			it->role = role_of(run, get(p, "role"), FT_SYSTEM);
			it->text = text;
			it->len = strlen(text);
		}
	}
	return true;
}

static struct node *
tagged_tree(struct run *run, const struct item *it, int stage)
{
	struct arena *a = &run->arena;
	struct node *t = tree_table(a);

	tree_put(a, t, "tag", tree_str(a, it->tag));
	tree_put(a, t, "target", tree_str(a, target_names[it->target]));
	tree_put(a, t, "role", tree_str(a, role_names[it->role]));
	tree_put(a, t, "text", stage == 2 ? tree_strn(a, it->macro,
	    it->macrolen) : stage == 3 ? tree_strn(a, it->post, it->postlen) :
	    tree_strn(a, it->text, it->len));
	if (it->has_depth)
		tree_put(a, t, "historyDepth", ftav_num(run, it->depth));
	return t;
}

static const char *
stage_text(const struct item *it, int stage, size_t *len)
{
	if (stage == 2) {
		*len = it->macrolen;
		return it->macro;
	}
	if (stage == 3) {
		*len = it->postlen;
		return it->post;
	}
	*len = it->len;
	return it->text;
}

/* One stage of stages.internal (policy false) or stages.output. */
static struct node *
messages(struct run *run, const struct items *l, int stage, int format,
    bool to_user)
{
	struct arena *a = &run->arena;
	struct node *arr = tree_array(a), *m, *parts, *part;
	struct buf b = BUF_INIT;
	size_t i, len;
	const char *s;

	if (format == 3) {
		for (i = 0; i < l->n; i++) {
			if (i)
				buf_putc(&b, '\n');
			s = stage_text(&l->v[i], stage, &len);
			buf_put(&b, s, len);
		}
		m = tree_strn(a, b.data ? b.data : "", b.len);
		buf_free(&b);
		return m;
	}
	for (i = 0; i < l->n; i++) {
		enum ftav_role r = l->v[i].role;

		if (to_user && r == FT_SYSTEM)
			r = FT_USER;
		s = stage_text(&l->v[i], stage, &len);
		m = tree_table(a);
		if (format == 1) {
			tree_put(a, m, "role", tree_str(a, r == FT_MODEL ?
			    "assistant" : role_names[r]));
			tree_put(a, m, "content", tree_strn(a, s, len));
		} else {
			tree_put(a, m, "role", tree_str(a, role_names[r]));
			parts = tree_put(a, m, "parts", tree_array(a));
			part = tree_table(a);
			tree_put(a, part, "text", tree_strn(a, s, len));
			tree_push(a, parts, part);
		}
		tree_push(a, arr, m);
	}
	return arr;
}

static const char *const stage_names[] = { "raw", "afterPreRegex",
	"afterMacro", "afterPostRegex" };

static struct node *
stages_tree(struct run *run, const struct items *l, int kind, int format,
    bool to_user)
{
	struct arena *a = &run->arena;
	struct node *t = tree_table(a), *arr;
	size_t i;
	int s;

	for (s = 0; s < 4; s++) {
		if (kind == 0 || (kind == 2 && format == 2)) {
			arr = tree_array(a);
			for (i = 0; i < l->n; i++)
				tree_push(a, arr, tagged_tree(run, &l->v[i],
				    s));
		} else if (kind == 1) {
			arr = messages(run, l, s, 0, false);
		} else {
			arr = messages(run, l, s, format, to_user);
		}
		tree_put(a, t, stage_names[s], arr);
	}
	return t;
}

static struct node *
result(struct ftav *ft, const struct node *params, struct ftav_entry **act,
    size_t nact, const struct items *l)
{
	struct run *run = ft->run;
	struct arena *a = &run->arena;
	struct node *r = tree_table(a), *arr, *vars, *st, *pi;
	const struct node *of = get(params, "outputFormat");
	const struct node *pol = get(params, "systemRolePolicy");
	int format = 0;         /* 0 gemini, 1 openai, 2 tagged, 3 text */
	bool to_user;
	size_t i;

	if (of && of->kind == NODE_NULL)
		of = NULL;
	if (pol && pol->kind == NODE_NULL)
		pol = NULL;
	format = is_str(of, "openai") ? 1 : is_str(of, "tagged") ? 2 :
	    is_str(of, "text") ? 3 : 0;
	to_user = pol && !is_str(pol, "keep");
	tree_put(a, r, "outputFormat", of ? tree_copy(a, of) :
	    tree_str(a, "gemini"));
	tree_put(a, r, "systemRolePolicy", pol ? tree_copy(a, pol) :
	    tree_str(a, "keep"));
	arr = tree_put(a, r, "activeWorldbookEntries", tree_array(a));
	for (i = 0; i < nact; i++)
		tree_push(a, arr, ftav_entry_tree(run, act[i]));
	arr = tree_put(a, r, "mergedRegexScripts", tree_array(a));
	for (i = 0; i < ft->nscripts; i++)
		tree_push(a, arr, ftav_script_tree(run, &ft->scripts[i]));
	vars = tree_put(a, r, "variables", tree_table(a));
	tree_put(a, vars, "local", ft->local);
	tree_put(a, vars, "global", ft->global);
	st = tree_put(a, r, "stages", tree_table(a));
	tree_put(a, st, "tagged", stages_tree(run, l, 0, format, to_user));
	tree_put(a, st, "internal", stages_tree(run, l, 1, format, to_user));
	tree_put(a, st, "output", stages_tree(run, l, 2, format, to_user));
	arr = tree_put(a, st, "perItem", tree_array(a));
	for (i = 0; i < l->n; i++) {
		const struct item *it = &l->v[i];

		pi = tree_table(a);
		tree_put(a, pi, "tag", tree_str(a, it->tag));
		tree_put(a, pi, "role", tree_str(a, role_names[it->role]));
		tree_put(a, pi, "target", tree_str(a,
		    target_names[it->target]));
		if (it->has_depth)
			tree_put(a, pi, "historyDepth", ftav_num(run,
			    it->depth));
		tree_put(a, pi, "raw", tree_strn(a, it->text, it->len));
		tree_put(a, pi, "afterPreRegex", tree_strn(a, it->text,
		    it->len));
		tree_put(a, pi, "afterMacro", tree_strn(a, it->macro,
		    it->macrolen));
		tree_put(a, pi, "afterPostRegex", tree_strn(a, it->post,
		    it->postlen));
		tree_push(a, arr, pi);
	}
	return r;
}

/* The variable context's start: {...v}. */
static struct node *
var_table(struct run *run, const struct node *v)
{
	struct arena *a = &run->arena;
	struct node *t = tree_table(a);
	struct ftav_kv *kv;
	size_t n = ftav_spread(run, v, &kv), i;

	for (i = 0; i < n; i++)
		tree_set(a, t, kv[i].key, strlen(kv[i].key), 0,
		    span_make(0, 0), tree_copy(a, kv[i].val));
	return t;
}

/* {char: character.name if truthy, ...macros} */
static void
macro_table(struct ftav *ft, const struct node *character,
    const struct node *macros)
{
	struct run *run = ft->run;
	const struct node *name = get(character, "name");
	struct ftav_kv *kv;
	size_t n = ftav_spread(run, macros, &kv), i, k;

	ft->macros = arena_array(&run->arena, n + 2, sizeof(*ft->macros));
	ft->nmacros = 0;
	if (ftav_truthy(name)) {
		ft->macros[0].key = "char";
		ft->macros[0].val = name;
		ft->nmacros = 1;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < ft->nmacros; k++)
			if (!strcmp(ft->macros[k].key, kv[i].key))
				break;
		ft->macros[k] = kv[i];
		if (k == ft->nmacros)
			ft->nmacros++;
	}
}

static bool
stages(struct ftav *ft, struct items *l)
{
	struct run *run = ft->run;
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct item *it = &l->v[i];

		buf_reset(&b);
		if (!ftav_macros(ft, it->text, it->len, &b))
			goto fail;
		it->macrolen = b.len;
		it->macro = arena_strndup(&run->arena, b.data ? b.data : "",
		    b.len);
		buf_reset(&b);
		if (!ftav_regex(ft, it->target, it->has_depth, it->depth,
		    it->macro, it->macrolen, &b))
			goto fail;
		it->postlen = b.len;
		it->post = arena_strndup(&run->arena, b.data ? b.data : "",
		    b.len);
	}
	buf_free(&b);
	return true;
fail:
	buf_free(&b);
	return false;
}

bool
ftav_build(struct run *run, const struct node *params, struct node **out)
{
	struct ftav ft;
	const struct node *preset = get(params, "preset");
	const struct node *character = get(params, "character");
	const struct node *globals = get(params, "globals");
	const struct node *options = get(params, "options");
	const struct node *prompts = get(preset, "prompts");
	struct ftav_entry **all = NULL, **act = NULL;
	size_t nall = 0, nact = 0, cap = 0;
	struct hist *h;
	size_t nh;
	struct items l = { 0 };
	bool ok = false;

	memset(&ft, 0, sizeof(ft));
	ft.run = run;
	*out = NULL;
	if (!params || params->kind != NODE_TABLE) {
		ftav_throw(&ft, params, "fast-tavern's parameters must be a "
		    "JSON object");
		return false;
	}
	if (ftav_truthy(prompts) && prompts->kind != NODE_ARRAY) {
		ftav_throw(&ft, prompts, "preset.prompts must be a list");
		return false;
	}
	if (!ftav_truthy(prompts))
		prompts = NULL;
	ftav_text_init(&ft);
	macro_table(&ft, character, get(params, "macros"));
	ft.local = var_table(run, get(params, "variables"));
	ft.global = var_table(run, get(params, "globalVariables"));
	ft.view = get(params, "view");
	if (!history(&ft, get(params, "history"), &h, &nh))
		goto done;
	ftav_worldbooks(&ft, get(globals, "worldBooks"), 1, &all, &nall);
	{
		const struct node *wb = get(character, "worldBook");

		if (ftav_truthy(wb))
			ftav_worldbooks(&ft, wb, 2, &all, &nall);
	}
	if (!ftav_activate(&ft, options, scan_text(&ft, options, h, nh), all,
	    nall, &act, &nact))
		goto done;
	if (!assemble(&ft, prompts, options, act, nact, h, nh, &l))
		goto done;
	/* The activation order again (assembly borrowed seq for its sort). */
	ftav_regexes(&ft, get(globals, "regexScripts"), &ft.scripts,
	    &ft.nscripts, &cap);
	ftav_regexes(&ft, get(preset, "regexScripts"), &ft.scripts,
	    &ft.nscripts, &cap);
	ftav_regexes(&ft, get(character, "regexScripts"), &ft.scripts,
	    &ft.nscripts, &cap);
	if (!stages(&ft, &l))
		goto done;
	*out = result(&ft, params, act, nact, &l);
	ok = !ft.failed;
done:
	ftav_text_free(&ft);
	free(ft.scripts);
	free(all);
	free(l.v);
	return ok;
}
