/*
 * ftav_input: fast-tavern's normalizeWorldbooks and normalizeRegexes
 * (which input shapes are read, what each field becomes, what is
 * dropped without a word), and getActiveEntries (keyword, always and
 * vector activation, passes, the probability gate, identity by index,
 * the activation sort).  Reference: fast-tavern.md sections 2.2, 2.3,
 * 4.1 to 4.3.
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

static bool
is_table(const struct node *v)
{
	return v && v->kind == NODE_TABLE;
}

static const struct node *
get(const struct node *t, const char *k)
{
	return is_table(t) ? tree_get(t, k) : NULL;
}

/* v ?? fallback */
static const struct node *
nn(const struct node *v)
{
	return v && v->kind != NODE_NULL ? v : NULL;
}

/* toNumber(v, fallback): a number as is, else Number(v); finite or
 * the fallback. */
static double
to_number(const struct node *v, double fallback)
{
	double d = ftav_tonumber(v);

	return isfinite(d) ? d : fallback;
}

static const char **
str_list(struct ftav *ft, const struct node *v, size_t *n)
{
	const char **out;
	size_t i;

	*n = 0;
	if (!v || v->kind != NODE_ARRAY)
		return NULL;
	out = arena_array(&ft->run->arena, v->u.array.n + 1, sizeof(*out));
	for (i = 0; i < v->u.array.n; i++)
		out[i] = ftav_str(ft->run, v->u.array.items[i]);
	*n = v->u.array.n;
	return out;
}

static struct ftav_entry *
one_entry(struct ftav *ft, const struct node *e)
{
	struct run *run = ft->run;
	struct ftav_entry *x;
	const struct node *v;
	const char *s;

	if (!is_table(e))
		return NULL;
	x = arena_alloc(&run->arena, sizeof(*x));
	memset(x, 0, sizeof(*x));
	v = nn(tree_get(e, "position"));
	x->position = v ? ftav_str(run, v) : "";
	if (!*x->position)
		return NULL;
	x->index = to_number(tree_get(e, "index"), NAN);
	if (!isfinite(x->index))
		return NULL;
	v = nn(tree_get(e, "name"));
	x->name = v ? ftav_str(run, v) : "";
	v = nn(tree_get(e, "content"));
	x->content = v ? ftav_str(run, v) : "";
	v = tree_get(e, "enabled");
	x->enabled = v && v->kind == NODE_BOOL ? v->u.b : true;
	v = nn(tree_get(e, "activationMode"));
	s = v ? ftav_str(run, v) : "keyword";
	x->mode = strcmp(s, "always") == 0 ? 0 : strcmp(s, "vector") == 0 ?
	    2 : 1;
	x->key = str_list(ft, tree_get(e, "key"), &x->nkey);
	x->sec = str_list(ft, tree_get(e, "secondaryKey"), &x->nsec);
	v = nn(tree_get(e, "selectiveLogic"));
	s = v ? ftav_str(run, v) : "andAny";
	x->logic = strcmp(s, "andAll") == 0 ? 1 : strcmp(s, "notAny") == 0 ?
	    2 : strcmp(s, "notAll") == 0 ? 3 : 0;
	x->order = to_number(tree_get(e, "order"), NAN);
	if (!isfinite(x->order))
		return NULL;
	x->depth = to_number(tree_get(e, "depth"),
	    strcmp(x->position, "fixed") == 0 ? NAN : 0);
	if (!isfinite(x->depth))
		return NULL;
	v = tree_get(e, "role");
	if (v && v->kind == NODE_NULL)
		x->role = NULL;
	else if (!ftav_truthy(v))
		x->role = NULL;
	else
		x->role = ftav_str(run, v);
	if (x->role && !*x->role)
		x->role = NULL;
	v = tree_get(e, "caseSensitive");
	x->cs = v && v->kind == NODE_BOOL ? v->u.b : -1;
	v = tree_get(e, "excludeRecursion");
	x->excl = v && v->kind == NODE_BOOL && v->u.b;
	v = tree_get(e, "preventRecursion");
	x->prevent = v && v->kind == NODE_BOOL && v->u.b;
	x->prob = to_number(tree_get(e, "probability"), 100);
	v = tree_get(e, "other");
	x->other = v && (v->kind == NODE_TABLE || v->kind == NODE_ARRAY) ?
	    v : NULL;
	return x;
}

static void
push_entry(struct ftav_entry ***out, size_t *n, size_t *cap,
    struct ftav_entry *e)
{
	if (!e)
		return;
	*out = vec_grow(*out, cap, *n + 1, sizeof(**out));
	(*out)[(*n)++] = e;
}

/* Every element an object with a "content" key. */
static bool
entry_array(const struct node *v)
{
	size_t i;

	if (!v || v->kind != NODE_ARRAY)
		return false;
	for (i = 0; i < v->u.array.n; i++)
		if (!is_table(v->u.array.items[i]) ||
		    !tree_get(v->u.array.items[i], "content"))
			return false;
	return true;
}

static void
one_book(struct ftav *ft, const struct node *f, struct ftav_entry ***out,
    size_t *n, size_t *cap)
{
	const struct node *list = NULL, *en;
	size_t i;

	if (entry_array(f)) {
		list = f;
	} else if (is_table(f) && (list = tree_get(f, "entries")) &&
	    list->kind == NODE_ARRAY) {
		en = tree_get(f, "enabled");
		if (en && en->kind == NODE_BOOL && !en->u.b)
			return;
	} else {
		return;
	}
	for (i = 0; i < list->u.array.n; i++)
		push_entry(out, n, cap, one_entry(ft, list->u.array.items[i]));
}

bool
ftav_worldbooks(struct ftav *ft, const struct node *in, int prio,
    struct ftav_entry ***out, size_t *n)
{
	size_t cap = 0, i, start = *n;

	cap = *n;
	if (!ftav_truthy(in))
		return true;
	if (in->kind == NODE_ARRAY && !entry_array(in)) {
		for (i = 0; i < in->u.array.n; i++)
			if (ftav_truthy(in->u.array.items[i]))
				one_book(ft, in->u.array.items[i], out, n,
				    &cap);
	} else {
		one_book(ft, in, out, n, &cap);
	}
	for (i = start; i < *n; i++) {
		(*out)[i]->prio = prio;
		(*out)[i]->seq = i - start;
	}
	return true;
}

static int
target_of(const struct node *v)
{
	static const char *const names[] = { "userInput", "aiOutput",
		"slashCommands", "worldBook", "reasoning", "user", "model",
		"assistant_response", "preset", "world_book", NULL };
	static const int map[] = { 0, 1, 2, 3, 4, 0, 1, 1, 2, 3 };
	size_t i;

	if (!v || v->kind != NODE_STRING)
		return -1;
	for (i = 0; names[i]; i++)
		if (strcmp(v->u.str.s, names[i]) == 0 &&
		    strlen(names[i]) == v->u.str.len)
			return map[i];
	return -1;
}

static int
view_of(const struct node *v)
{
	if (!v || v->kind != NODE_STRING)
		return -1;
	if (!strcmp(v->u.str.s, "user") || !strcmp(v->u.str.s, "user_view"))
		return 0;
	if (!strcmp(v->u.str.s, "model") || !strcmp(v->u.str.s,
	    "model_view") || !strcmp(v->u.str.s, "assistant_view"))
		return 1;
	return -1;
}

static const char *const target_names[] = { "userInput", "aiOutput",
	"slashCommands", "worldBook", "reasoning" };

static bool
one_script(struct ftav *ft, const struct node *it, struct ftav_script *s)
{
	struct run *run = ft->run;
	const struct node *v, *l;
	const char *m;
	size_t i;
	int k;

	if (!is_table(it) || !tree_get(it, "findRegex"))
		return false;
	memset(s, 0, sizeof(*s));
	v = nn(tree_get(it, "id"));
	s->id = v ? ftav_str(run, v) : "";
	if (!*s->id)
		return false;
	v = nn(tree_get(it, "name"));
	s->name = v ? ftav_str(run, v) : "";
	v = tree_get(it, "enabled");
	s->enabled = !(v && v->kind == NODE_BOOL && !v->u.b);
	v = nn(tree_get(it, "findRegex"));
	s->find = v ? ftav_str(run, v) : "";
	v = nn(tree_get(it, "replaceRegex"));
	s->replace = v ? ftav_str(run, v) : "";
	s->trim = str_list(ft, tree_get(it, "trimRegex"), &s->ntrim);
	l = tree_get(it, "targets");
	if (l && l->kind == NODE_ARRAY) {
		s->tnames = arena_array(&run->arena, l->u.array.n + 1,
		    sizeof(char *));
		for (i = 0; i < l->u.array.n; i++)
			if ((k = target_of(l->u.array.items[i])) >= 0) {
				s->tnames[s->ntargets++] = target_names[k];
				s->targets |= 1u << k;
			}
	}
	l = tree_get(it, "view");
	if (l && l->kind == NODE_ARRAY) {
		s->vnames = arena_array(&run->arena, l->u.array.n + 1,
		    sizeof(char *));
		for (i = 0; i < l->u.array.n; i++)
			if ((k = view_of(l->u.array.items[i])) >= 0) {
				s->vnames[s->nview++] = k ? "model" : "user";
				s->view |= 1u << k;
			}
	}
	s->run_on_edit = ftav_truthy(tree_get(it, "runOnEdit"));
	v = nn(tree_get(it, "macroMode"));
	m = v ? ftav_str(run, v) : "none";
	s->macro_mode = strcmp(m, "raw") == 0 ? 1 : strcmp(m, "escaped") ==
	    0 ? 2 : 0;
	v = tree_get(it, "minDepth");
	s->min = v && (v->kind == NODE_INT || v->kind == NODE_FLOAT) ? v :
	    NULL;
	v = tree_get(it, "maxDepth");
	s->max = v && (v->kind == NODE_INT || v->kind == NODE_FLOAT) ? v :
	    NULL;
	return true;
}

static void
push_script(struct ftav *ft, const struct node *it,
    struct ftav_script **out, size_t *n, size_t *cap)
{
	*out = vec_grow(*out, cap, *n + 1, sizeof(**out));
	if (one_script(ft, it, &(*out)[*n]))
		(*n)++;
}

/* Every element an object with findRegex and replaceRegex. */
static bool
script_array(const struct node *v)
{
	size_t i;

	if (!v || v->kind != NODE_ARRAY)
		return false;
	for (i = 0; i < v->u.array.n; i++)
		if (!is_table(v->u.array.items[i]) ||
		    !tree_get(v->u.array.items[i], "findRegex") ||
		    !tree_get(v->u.array.items[i], "replaceRegex"))
			return false;
	return true;
}

static void
one_file(struct ftav *ft, const struct node *f, struct ftav_script **out,
    size_t *n, size_t *cap)
{
	const struct node *l = NULL;
	size_t i;

	if (!ftav_truthy(f))
		return;
	if (script_array(f))
		l = f;
	else if ((l = get(f, "regexScripts")) && l->kind == NODE_ARRAY)
		;
	else if ((l = get(f, "scripts")) && l->kind == NODE_ARRAY)
		;
	else
		l = NULL;
	if (!l) {
		push_script(ft, f, out, n, cap);
		return;
	}
	for (i = 0; i < l->u.array.n; i++)
		push_script(ft, l->u.array.items[i], out, n, cap);
}

void
ftav_regexes(struct ftav *ft, const struct node *in,
    struct ftav_script **out, size_t *n, size_t *cap)
{
	size_t i;

	if (!ftav_truthy(in))
		return;
	if (in->kind == NODE_ARRAY && !script_array(in)) {
		for (i = 0; i < in->u.array.n; i++)
			one_file(ft, in->u.array.items[i], out, n, cap);
		return;
	}
	one_file(ft, in, out, n, cap);
}

/* ---- activation ---- */

struct act {
	struct ftav *ft;
	bool cs_default;
};

static bool
has(struct ftav *ft, const char *text, const char *low, const char *k,
    bool cs)
{
	if (!*k)
		return false;
	if (cs)
		return strstr(text, k) != NULL;
	return strstr(low, ftav_lower(ft->run, k, strlen(k))) != NULL;
}

static size_t
nonempty(const char **v, size_t n, const char ***out, struct ftav *ft)
{
	const char **r = arena_array(&ft->run->arena, n + 1, sizeof(*r));
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (*v[i])
			r[k++] = v[i];
	*out = r;
	return k;
}

static bool
any_of(struct ftav *ft, const char *t, const char *low, const char **l,
    size_t n, bool cs)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (has(ft, t, low, l[i], cs))
			return true;
	return false;
}

static bool
all_of(struct ftav *ft, const char *t, const char *low, const char **l,
    size_t n, bool cs)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!has(ft, t, low, l[i], cs))
			return false;
	return true;
}

static bool
keyword(struct ftav *ft, const struct ftav_entry *e, const char *text,
    bool cs)
{
	const char **prim, **sec;
	size_t np = nonempty(e->key, e->nkey, &prim, ft);
	size_t ns;
	const char *low = cs ? text : ftav_lower(ft->run, text, strlen(text));

	if (np == 0)
		np = nonempty(e->sec, e->nsec, &prim, ft);
	if (np == 0 || !any_of(ft, text, low, prim, np, cs))
		return false;
	if (e->nkey == 0)
		return true;
	ns = nonempty(e->sec, e->nsec, &sec, ft);
	if (ns == 0)
		return true;
	switch (e->logic) {
	case 1:
		return all_of(ft, text, low, sec, ns, cs);
	case 2:
		return !any_of(ft, text, low, sec, ns, cs);
	case 3:
		return !all_of(ft, text, low, sec, ns, cs);
	default:
		return any_of(ft, text, low, sec, ns, cs);
	}
}

/* options.rng as the conformance README encodes it: a number, a list
 * cycled through, or {"seed": n} for mulberry32.  NaN when it gives no
 * number. */
static bool
rng_next(struct ftav *ft, double *out)
{
	const struct node *r = ft->rng, *seed;
	size_t n;

	if (!r || r->kind == NODE_NULL) {
		*out = (double)rand() / ((double)RAND_MAX + 1);
		return true;
	}
	if (r->kind == NODE_INT || r->kind == NODE_FLOAT) {
		*out = ftav_tonumber(r);
		return true;
	}
	if (r->kind == NODE_ARRAY) {
		n = r->u.array.n;
		*out = n ? ftav_tonumber(r->u.array.items[ft->rng_calls++ %
		    n]) : NAN;
		return true;
	}
	if (r->kind == NODE_TABLE && (seed = tree_get(r, "seed")) &&
	    (seed->kind == NODE_INT || seed->kind == NODE_FLOAT)) {
		uint32_t a, t;

		if (ft->rng_calls++ == 0) {
			double d = trunc(ftav_tonumber(seed));

			d = fmod(d, 4294967296.0);
			if (d < 0)
				d += 4294967296.0;
			ft->rng_state = isfinite(d) ? (uint32_t)d : 0;
		}
		a = ft->rng_state += 0x6D2B79F5u;
		t = (a ^ (a >> 15)) * (a | 1u);
		t = t ^ (t + (t ^ (t >> 7)) * (t | 61u));
		*out = (double)(t ^ (t >> 14)) / 4294967296.0;
		return true;
	}
	ftav_throw(ft, r, "options.rng must be a number, a list of numbers "
	    "or {\"seed\": n}: JSON cannot carry the function");
	return false;
}

static int
cmp_active(const void *pa, const void *pb)
{
	const struct ftav_entry *a = *(const struct ftav_entry *const *)pa;
	const struct ftav_entry *b = *(const struct ftav_entry *const *)pb;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio - b->prio;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool
seen(double *v, size_t n, double x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool
ftav_activate(struct ftav *ft, const struct node *options,
    const char *scan, struct ftav_entry **all, size_t nall,
    struct ftav_entry ***active, size_t *nactive)
{
	struct run *run = ft->run;
	const struct node *v = get(options, "defaultCaseSensitive");
	bool cs_default = v && v->kind != NODE_NULL ? ftav_truthy(v) : false;
	double limit, *done, *failed, p, r;
	size_t ndone = 0, nfailed = 0, i;
	struct buf ctx = BUF_INIT;
	struct ftav_entry **out;
	int64_t it;
	bool ok = true;

	v = nn(get(options, "vectorSearch"));
	if (v) {
		ftav_throw(ft, v, "options.vectorSearch is a function, which "
		    "JSON cannot carry");
		return false;
	}
	v = nn(get(options, "recursionLimit"));
	limit = v ? trunc(ftav_tonumber(v)) : 5;
	if (limit < 0)
		limit = 0;
	ft->rng = get(options, "rng");
	done = arena_array(&run->arena, nall + 1, sizeof(*done));
	failed = arena_array(&run->arena, nall + 1, sizeof(*failed));
	out = arena_array(&run->arena, nall + 1, sizeof(*out));
	buf_puts(&ctx, scan);
	/* NaN passes: iteration <= NaN is false, so nothing runs. */
	for (it = 0; !isnan(limit) && (double)it <= limit && ok; it++) {
		bool any = false;

		for (i = 0; i < nall && ok; i++) {
			struct ftav_entry *e = all[i];
			bool cs = e->cs >= 0 ? e->cs : cs_default, fire;
			const char *text = it > 0 && e->excl ? scan :
			    ctx.data ? ctx.data : "";

			if (seen(done, ndone, e->index) ||
			    seen(failed, nfailed, e->index) || !e->enabled)
				continue;
			fire = e->mode == 0 ? true : e->mode == 1 ?
			    keyword(ft, e, text, cs) : false;
			if (!fire)
				continue;
			p = e->prob < 0 ? 0 : e->prob > 100 ? 100 : e->prob;
			if (p <= 0) {
				failed[nfailed++] = e->index;
				continue;
			}
			if (p < 100) {
				if (!rng_next(ft, &r)) {
					ok = false;
					break;
				}
				if (!(r * 100 < p)) {
					failed[nfailed++] = e->index;
					continue;
				}
			}
			done[ndone] = e->index;
			out[ndone++] = e;
			any = true;
			if (!e->prevent && *e->content) {
				if (ctx.len)
					buf_putc(&ctx, '\n');
				buf_puts(&ctx, e->content);
			}
		}
		if (!any)
			break;
	}
	buf_free(&ctx);
	/* qsort is not stable, but the key (order, prio, seq) is total. */
	qsort(out, ndone, sizeof(*out), cmp_active);
	*active = out;
	*nactive = ndone;
	return ok;
}

struct node *
ftav_entry_tree(struct run *run, const struct ftav_entry *e)
{
	struct arena *a = &run->arena;
	struct node *t = tree_table(a), *l;
	size_t i;

	tree_put(a, t, "index", ftav_num(run, e->index));
	tree_put(a, t, "name", tree_str(a, e->name));
	tree_put(a, t, "content", tree_str(a, e->content));
	tree_put(a, t, "enabled", tree_bool(a, e->enabled));
	tree_put(a, t, "activationMode", tree_str(a, e->mode == 0 ?
	    "always" : e->mode == 1 ? "keyword" : "vector"));
	l = tree_put(a, t, "key", tree_array(a));
	for (i = 0; i < e->nkey; i++)
		tree_push(a, l, tree_str(a, e->key[i]));
	l = tree_put(a, t, "secondaryKey", tree_array(a));
	for (i = 0; i < e->nsec; i++)
		tree_push(a, l, tree_str(a, e->sec[i]));
	tree_put(a, t, "selectiveLogic", tree_str(a, e->logic == 1 ?
	    "andAll" : e->logic == 2 ? "notAny" : e->logic == 3 ? "notAll" :
	    "andAny"));
	tree_put(a, t, "order", ftav_num(run, e->order));
	tree_put(a, t, "depth", ftav_num(run, e->depth));
	tree_put(a, t, "position", tree_str(a, e->position));
	tree_put(a, t, "role", e->role ? tree_str(a, e->role) :
	    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
	tree_put(a, t, "caseSensitive", e->cs < 0 ? tree_new(a, NODE_NULL,
	    0, span_make(0, 0)) : tree_bool(a, e->cs));
	tree_put(a, t, "excludeRecursion", tree_bool(a, e->excl));
	tree_put(a, t, "preventRecursion", tree_bool(a, e->prevent));
	tree_put(a, t, "probability", ftav_num(run, e->prob));
	tree_put(a, t, "other", e->other ? tree_copy(a, e->other) :
	    tree_table(a));
	return t;
}

struct node *
ftav_script_tree(struct run *run, const struct ftav_script *s)
{
	struct arena *a = &run->arena;
	struct node *t = tree_table(a), *l;
	size_t i;

	tree_put(a, t, "id", tree_str(a, s->id));
	tree_put(a, t, "name", tree_str(a, s->name));
	tree_put(a, t, "enabled", tree_bool(a, s->enabled));
	tree_put(a, t, "findRegex", tree_str(a, s->find));
	tree_put(a, t, "replaceRegex", tree_str(a, s->replace));
	l = tree_put(a, t, "trimRegex", tree_array(a));
	for (i = 0; i < s->ntrim; i++)
		tree_push(a, l, tree_str(a, s->trim[i]));
	l = tree_put(a, t, "targets", tree_array(a));
	for (i = 0; i < s->ntargets; i++)
		tree_push(a, l, tree_str(a, s->tnames[i]));
	l = tree_put(a, t, "view", tree_array(a));
	for (i = 0; i < s->nview; i++)
		tree_push(a, l, tree_str(a, s->vnames[i]));
	tree_put(a, t, "runOnEdit", tree_bool(a, s->run_on_edit));
	tree_put(a, t, "macroMode", tree_str(a, s->macro_mode == 1 ? "raw" :
	    s->macro_mode == 2 ? "escaped" : "none"));
	tree_put(a, t, "minDepth", s->min ? tree_copy(a, s->min) :
	    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
	tree_put(a, t, "maxDepth", s->max ? tree_copy(a, s->max) :
	    tree_new(a, NODE_NULL, 0, span_make(0, 0)));
	return t;
}
