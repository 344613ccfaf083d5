/*
 * Reading follows SillyTavern's own use of each field: the four flags are
 * read with JavaScript truthiness, the depths and substituteRegex with
 * Number(), placement with strict equality; a value of another type than
 * SillyTavern writes gets a warning saying how it is read, and a value
 * that SillyTavern would crash on (a findRegex that is not a string, a
 * trimStrings that is not a list of strings) is an error.  Application
 * follows runRegexScript(): see regex_apply().
 */
#include "text/regex.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/vec.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"
#include "text/macro_lex.h"

void
regex_set_init(struct regex_set *set)
{
	memset(set, 0, sizeof(*set));
	set->match_limit = JSREGEX_MATCH_LIMIT;
	set->depth_limit = JSREGEX_DEPTH_LIMIT;
	set->build_left = REGEX_BUILD_BUDGET;
}

void
regex_set_free(struct regex_set *set)
{
	size_t k;

	for (k = 0; k < set->n; k++) {
		jsregex_free(&set->v[k].re);
		free(set->v[k].cache);
	}
	free(set->v);
	jsregex_match_data_free(set->md);
	memset(set, 0, sizeof(*set));
}

void
regex_set_limits(struct regex_set *set, uint32_t match, uint32_t depth)
{
	size_t k;

	set->match_limit = match;
	set->depth_limit = depth;
	for (k = 0; k < set->n; k++)
		jsregex_set_limits(&set->v[k].re, match, depth);
}

/* Enough match data for a regex of ngroups groups. */
static void
need_groups(struct regex_set *set, uint32_t ngroups)
{
	if (set->md && set->mdgroups >= ngroups)
		return;
	jsregex_match_data_free(set->md);
	set->md = jsregex_match_data(ngroups);
	set->mdgroups = ngroups;
}

/* JavaScript's truthiness of a JSON value. */
static bool
truthy(const struct node *v)
{
	switch (v->kind) {
	case NODE_BOOL: return v->u.b;
	case NODE_INT: return v->u.i != 0;
	case NODE_FLOAT: return v->u.f != 0 && !isnan(v->u.f);
	case NODE_STRING: return v->u.str.len != 0;
	case NODE_NULL: return false;
	default: return true;
	}
}

/* JavaScript's Number() of a scalar; NAN for what is not a number. */
static double
js_number(const struct node *v)
{
	const char *s;
	char *end;
	double d;

	switch (v->kind) {
	case NODE_BOOL: return v->u.b ? 1 : 0;
	case NODE_INT: return (double)v->u.i;
	case NODE_FLOAT: return v->u.f;
	case NODE_NULL: return 0;
	case NODE_STRING:
		s = v->u.str.s;
		while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
			s++;
		if (*s == '\0')
			return 0;
		d = strtod(s, &end);
		while (*end == ' ' || (*end >= '\t' && *end <= '\r'))
			end++;
		return *end == '\0' && end != s ? d : NAN;
	default: return NAN;
	}
}

static void
coerced(struct run *run, const struct node *v, const char *key,
    const char *as)
{
	diag_warning(run, run_source(run, v->src), v->span, MSG_REGEX_COERCED,
	    key, tree_kind_article(v->kind), as);
}

static bool
wrong_type(struct run *run, const struct node *v, const char *key,
    const char *want)
{
	diag_error(run, run_source(run, v->src), v->span, MSG_REGEX_FIELD_TYPE,
	    key, want, tree_kind_article(v->kind));
	return false;
}

static bool
read_flag(struct run *run, const struct node *obj, const char *key)
{
	const struct node *v = tree_get(obj, key);
	bool b;

	if (!v)
		return false;
	b = truthy(v);
	if (v->kind != NODE_BOOL && v->kind != NODE_NULL)
		coerced(run, v, key, b ? "true" : "false");
	return b;
}

/* minDepth, maxDepth: NAN when SillyTavern applies no limit. */
static bool
read_depth(struct run *run, const struct node *obj, const char *key,
    double *out)
{
	const struct node *v = tree_get(obj, key);
	char tmp[64];

	*out = NAN;
	if (!v || v->kind == NODE_NULL)
		return true;
	if (v->kind == NODE_TABLE || v->kind == NODE_ARRAY ||
	    v->kind == NODE_DATETIME)
		return wrong_type(run, v, key, "a number or null");
	*out = js_number(v);
	if (v->kind != NODE_INT && v->kind != NODE_FLOAT) {
		if (isnan(*out))
			snprintf(tmp, sizeof(tmp), "no limit");
		else
			snprintf(tmp, sizeof(tmp), "%g", *out);
		coerced(run, v, key, tmp);
	}
	return true;
}

/* The replacement with {{match}} made "$0", cut into pieces. */
static void
cut_replacement(struct run *run, struct regex_script *s, const char *r,
    size_t n)
{
	struct buf t = BUF_INIT;
	VEC(struct regex_piece) v = {0};
	struct regex_piece pc;
	size_t i, k, lit;
	const char *q;

	for (i = 0; i < n; i++) {
		if (r[i] == '{' && n - i >= 9 && r[i + 1] == '{' &&
		    strncasecmp(r + i + 2, "match", 5) == 0 &&
		    r[i + 7] == '}' && r[i + 8] == '}') {
			buf_puts(&t, "$0");
			i += 8;
		} else {
			buf_putc(&t, r[i]);
		}
	}
	q = t.data ? arena_strndup(&run->arena, t.data, t.len) : "";
	n = t.len;
	buf_free(&t);
	for (i = lit = 0; i < n;) {
		memset(&pc, 0, sizeof(pc));
		if (q[i] == '$' && i + 1 < n && q[i + 1] >= '0' &&
		    q[i + 1] <= '9') {
			pc.kind = REGEX_PIECE_GROUP;
			for (k = i + 1; k < n && q[k] >= '0' && q[k] <= '9';
			    k++)
				if (pc.group < UINT64_MAX / 20)
					pc.group = pc.group * 10 +
					    (uint64_t)(q[k] - '0');
				else
					pc.group = UINT64_MAX;
		} else if (q[i] == '$' && i + 2 < n && q[i + 1] == '<' &&
		    q[i + 2] != '>' && memchr(q + i + 2, '>', n - i - 2)) {
			pc.kind = REGEX_PIECE_NAME;
			pc.s = q + i + 2;
			k = (size_t)((const char *)memchr(q + i + 2, '>',
			    n - i - 2) - q);
			pc.len = k - i - 2;
			k++;
		} else {
			i++;
			continue;
		}
		if (i > lit) {
			struct regex_piece tp = { REGEX_PIECE_TEXT, q + lit,
			    i - lit, 0 };

			vec_push(&v, tp);
		}
		vec_push(&v, pc);
		i = lit = k;
	}
	if (n > lit) {
		struct regex_piece tp = { REGEX_PIECE_TEXT, q + lit, n - lit,
		    0 };

		vec_push(&v, tp);
	}
	s->pieces = arena_array(&run->arena, v.n ? v.n : 1, sizeof(*v.v));
	if (v.n)
		memcpy(s->pieces, v.v, v.n * sizeof(*v.v));
	s->npieces = v.n;
	vec_free(&v);
}

static const char *
what(struct run *run, const struct regex_script *s)
{
	return arena_printf(&run->arena, "findRegex of script '%s'",
	    diag_shown(run, s->name, strlen(s->name)));
}

/* Compile pat as the script's regex; origin maps it into the file. */
static bool
compile(struct run *run, struct regex_set *set, struct regex_script *s,
    const char *pat, size_t len, bool mapped)
{
	struct jsregex_parts parts;
	struct jsregex_origin at = {0};

	jsregex_free(&s->re);
	s->ok = false;
	jsregex_split(pat, len, &parts);
	if (parts.none)
		return true;
	if (parts.flags & JSREGEX_INERT) {
		size_t i;
		char bad = '?';

		for (i = parts.off + parts.len + 1; i < len; i++)
			if (strchr("xXUAJ", pat[i]) && pat[i]) {
				bad = pat[i];
				break;
			}
		diag_warning(run, s->src, s->findspan, MSG_REGEX_INERT,
		    what(run, s), bad);
		return true;
	}
	if (parts.not_flags)
		diag_warning(run, s->src, s->findspan, MSG_REGEX_NOT_FLAGS,
		    what(run, s));
	at.src = s->src;
	at.span = s->findspan;
	at.json = mapped && s->src && s->findspan.len > 0 &&
	    s->src->text[s->findspan.off] == '"';
	at.whole = !mapped;
	at.base = parts.off;
	at.what = what(run, s);
	/* SillyTavern leaves out a script whose regex it cannot make;
	 * strata does the same with one it cannot run, and says so. */
	at.warn = true;
	if (!jsregex_compile(run, &at, pat + parts.off, parts.len,
	    parts.flags, &s->re))
		return true;
	jsregex_set_limits(&s->re, set->match_limit, set->depth_limit);
	need_groups(set, s->re.ngroups);
	s->ok = true;
	return true;
}

static bool
read_script(struct run *run, struct regex_set *set, enum regex_scope scope,
    const struct node *obj, struct regex_script *s)
{
	const struct node *v, *e;
	bool ok = true;
	size_t k;
	double d;

	memset(s, 0, sizeof(*s));
	s->scope = scope;
	s->src = run_source(run, obj->src);
	s->span = obj->span;
	s->node = obj;
	s->findspan = obj->span;
	s->name = "";
	s->min_depth = s->max_depth = NAN;
	if ((v = tree_get(obj, "scriptName")) != NULL) {
		if (v->kind == NODE_STRING)
			s->name = arena_strndup(&run->arena, v->u.str.s,
			    v->u.str.len);
		else if (v->kind != NODE_NULL)
			ok = wrong_type(run, v, "scriptName", "a string");
	}
	s->find = "";
	if ((v = tree_get(obj, "findRegex")) != NULL) {
		if (v->kind == NODE_STRING) {
			s->find = arena_strndup(&run->arena, v->u.str.s,
			    v->u.str.len);
			s->findlen = v->u.str.len;
			s->findspan = v->span;
		} else if (v->kind != NODE_NULL) {
			ok = wrong_type(run, v, "findRegex", "a string");
		}
	}
	cut_replacement(run, s, "", 0);
	if ((v = tree_get(obj, "replaceString")) != NULL) {
		if (v->kind == NODE_STRING)
			cut_replacement(run, s, v->u.str.s, v->u.str.len);
		else if (v->kind != NODE_NULL)
			ok = wrong_type(run, v, "replaceString", "a string");
	}
	if ((v = tree_get(obj, "trimStrings")) != NULL &&
	    v->kind != NODE_NULL) {
		if (v->kind != NODE_ARRAY) {
			ok = wrong_type(run, v, "trimStrings",
			    "an array of strings");
		} else {
			s->trims = arena_array(&run->arena,
			    v->u.array.n + 1, sizeof(*s->trims));
			s->trimlens = arena_array(&run->arena,
			    v->u.array.n + 1, sizeof(*s->trimlens));
			for (k = 0; k < v->u.array.n; k++) {
				e = v->u.array.items[k];
				if (e->kind != NODE_STRING) {
					ok = wrong_type(run, e, "trimStrings",
					    "an array of strings");
					continue;
				}
				s->trims[s->ntrims] = e->u.str.s;
				s->trimlens[s->ntrims++] = e->u.str.len;
			}
		}
	}
	if ((v = tree_get(obj, "placement")) != NULL &&
	    v->kind != NODE_NULL) {
		if (v->kind != NODE_ARRAY) {
			ok = wrong_type(run, v, "placement",
			    "an array of numbers");
		} else {
			for (k = 0; k < v->u.array.n; k++) {
				e = v->u.array.items[k];
				d = e->kind == NODE_INT ? (double)e->u.i :
				    e->kind == NODE_FLOAT ? e->u.f : NAN;
				if (e->kind != NODE_INT &&
				    e->kind != NODE_FLOAT) {
					coerced(run, e, "placement",
					    "no placement (includes() "
					    "compares strictly)");
					continue;
				}
				if (d >= 0 && d < 32 && d == floor(d))
					s->placements |= 1u << (unsigned)d;
			}
		}
	}
	s->disabled = read_flag(run, obj, "disabled");
	s->markdown_only = read_flag(run, obj, "markdownOnly");
	s->prompt_only = read_flag(run, obj, "promptOnly");
	s->run_on_edit = read_flag(run, obj, "runOnEdit");
	if ((v = tree_get(obj, "substituteRegex")) != NULL) {
		d = js_number(v);
		if (v->kind != NODE_INT && v->kind != NODE_FLOAT &&
		    v->kind != NODE_NULL) {
			if (v->kind == NODE_TABLE || v->kind == NODE_ARRAY)
				d = NAN;
			coerced(run, v, "substituteRegex",
			    d == 1 ? "1 (raw)" : d == 2 ? "2 (escaped)" :
			    "0 (none)");
		}
		s->substitute = d == 1 ? 1 : d == 2 ? 2 : 0;
	}
	if (!read_depth(run, obj, "minDepth", &s->min_depth))
		ok = false;
	if (!read_depth(run, obj, "maxDepth", &s->max_depth))
		ok = false;
	if (ok && s->substitute == 0 && s->findlen > 0)
		ok = compile(run, set, s, s->find, s->findlen, true);
	return ok;
}

bool
regex_set_add(struct run *run, struct regex_set *set,
    enum regex_scope scope, const struct node *scripts)
{
	const struct node *const *items = &scripts;
	size_t n = 1, k, at;
	struct regex_script s;
	bool ok = true;

	if (scripts->kind == NODE_NULL)
		return true;            /* "regex_scripts": null: none */
	if (scripts->kind == NODE_ARRAY) {
		items = (const struct node *const *)scripts->u.array.items;
		n = scripts->u.array.n;
	}
	/* After the scope's scripts, before the later scopes'. */
	for (at = 0; at < set->n && set->v[at].scope <= scope; at++)
		;
	for (k = 0; k < n; k++) {
		if (items[k]->kind != NODE_TABLE) {
			diag_error(run, run_source(run, items[k]->src),
			    items[k]->span, MSG_REGEX_NOT_SCRIPT,
			    tree_kind_article(items[k]->kind));
			ok = false;
			continue;
		}
		if (!read_script(run, set, scope, items[k], &s))
			ok = false;
		if (set->n == set->cap)
			set->v = vec_grow(set->v, &set->cap, set->n + 1,
			    sizeof(*set->v));
		memmove(set->v + at + 1, set->v + at,
		    (set->n - at) * sizeof(*set->v));
		set->v[at++] = s;
		set->n++;
	}
	return ok;
}

/* A script's merge key (regex_set_dedup()): what, and its text. */
static const char *
dedup_key(const struct regex_script *s, const char **what)
{
	const struct node *id = s->node ? tree_get(s->node, "id") : NULL;

	if (id && id->kind == NODE_STRING && id->u.str.len) {
		*what = "id";
		return id->u.str.s;
	}
	if (s->name && *s->name) {
		*what = "name";
		return s->name;
	}
	*what = "findRegex";
	return s->find ? s->find : "";
}

size_t
regex_set_dedup(struct run *run, struct regex_set *set)
{
	size_t i, j, k = 0, dropped = 0;

	for (i = 0; i < set->n; i++) {
		const char *what, *key = dedup_key(&set->v[i], &what);

		for (j = 0; j < k; j++) {
			const char *w2, *k2 = dedup_key(&set->v[j], &w2);

			if (strcmp(what, w2) == 0 && strcmp(key, k2) == 0)
				break;
		}
		if (j < k) {
			const struct source *first = set->v[j].src;
			unsigned line = 0, col = 0;

			if (first)
				source_linecol(first, set->v[j].span.off,
				    &line, &col);
			diag_warning(run, set->v[i].src, set->v[i].span,
			    MSG_REGEX_DUPLICATE, set->v[i].name ?
			    set->v[i].name : "", what, first ?
			    arena_printf(&run->arena, "%s:%u:%u",
			    first->path, line + first->line_base, col) : "?");
			jsregex_free(&set->v[i].re);
			free(set->v[i].cache);
			dropped++;
			continue;
		}
		set->v[k++] = set->v[i];
	}
	set->n = k;
	return dropped;
}

bool
regex_selected(const struct regex_script *s, enum regex_placement placement,
    unsigned call, int depth)
{
	bool md = call & REGEX_MARKDOWN, pr = call & REGEX_PROMPT;

	if (s->disabled)
		return false;
	if (!((s->markdown_only && md) || (s->prompt_only && pr) ||
	    (!s->markdown_only && !s->prompt_only && !md && !pr)))
		return false;
	if ((call & REGEX_EDIT) && !s->run_on_edit)
		return false;
	if (depth != REGEX_NO_DEPTH) {
		if (!isnan(s->min_depth) && s->min_depth >= -1 &&
		    depth < s->min_depth)
			return false;
		if (!isnan(s->max_depth) && s->max_depth >= 0 &&
		    depth > s->max_depth)
			return false;
	}
	return (unsigned)placement < 32 &&
	    (s->placements & (1u << (unsigned)placement));
}

/* Length of the character at s[0..n) (an invalid byte counts one). */
static size_t
char_len(const char *s, size_t n)
{
	uint32_t c;
	size_t k = utf8_decode(s, n, &c);

	return k ? k : 1;
}

static bool
expand(const struct regex_macros *m, enum regex_macro_use use,
    const char *s, size_t n, struct buf *out)
{
	if (!m || !m->expand) {
		buf_put(out, s, n);
		return true;
	}
	return m->expand(m->ctx, use, s, n, out);
}

/* A capture with the trim strings removed (each macro-expanded), as
 * String.prototype.replaceAll(trim, "") does in turn. */
static bool
put_trimmed(const struct regex_script *s, const struct regex_macros *m,
    const char *v, size_t n, struct buf *out)
{
	struct buf cur = BUF_INIT, next = BUF_INIT, t = BUF_INIT;
	size_t k, i;
	bool ok = true;

	if (s->ntrims == 0) {
		buf_put(out, v, n);
		return true;
	}
	buf_put(&cur, v, n);
	for (k = 0; k < s->ntrims && ok; k++) {
		buf_reset(&t);
		ok = expand(m, REGEX_MACRO_TRIM, s->trims[k], s->trimlens[k],
		    &t);
		if (!ok || t.len == 0)
			continue;
		buf_reset(&next);
		for (i = 0; i < cur.len;) {
			if (cur.len - i >= t.len &&
			    memcmp(cur.data + i, t.data, t.len) == 0) {
				i += t.len;
			} else {
				buf_putc(&next, cur.data[i]);
				i++;
			}
		}
		buf_reset(&cur);
		buf_put(&cur, next.data ? next.data : "", next.len);
	}
	buf_put(out, cur.data ? cur.data : "", cur.len);
	buf_free(&cur);
	buf_free(&next);
	buf_free(&t);
	return ok;
}

/*
 * The replacement for one match, as runRegexScript's callback builds it:
 * $N is argument N of String.prototype.replace's callback -- the match,
 * the groups, then the offset (in UTF-16 units) and the whole string; a
 * falsy value gives "".
 */
static bool
replacement(struct run *run, const struct regex_script *s,
    const struct jsregex *re,
    const struct regex_macros *m, const char *text, size_t len,
    const size_t *ov, size_t *u16, size_t *u16at, struct buf *out)
{
	struct buf r = BUF_INIT;
	const struct regex_piece *p;
	uint64_t g, G = re->ngroups;
	size_t k;
	uint32_t j;
	char num[32];
	bool ok = true;

	for (k = 0; k < s->npieces && ok; k++) {
		p = &s->pieces[k];
		if (p->kind == REGEX_PIECE_TEXT) {
			buf_put(&r, p->s, p->len);
			continue;
		}
		if (p->kind == REGEX_PIECE_NAME) {
			g = 0;
			for (j = 1; re->has_names && j <= re->ngroups; j++)
				if (re->names[j] &&
				    strlen(re->names[j]) == p->len &&
				    memcmp(re->names[j], p->s, p->len) == 0)
					g = j;
			if (g == 0)
				continue;
		} else {
			g = p->group;
		}
		if (g <= G) {
			if (ov[2 * g] == SIZE_MAX || ov[2 * g + 1] == ov[2 * g])
				continue;
			ok = put_trimmed(s, m, text + ov[2 * g],
			    ov[2 * g + 1] - ov[2 * g], &r);
		} else if (g == G + 1) {
			*u16 += utf16_length(text + *u16at, ov[0] - *u16at);
			*u16at = ov[0];
			if (*u16 == 0)
				continue;
			snprintf(num, sizeof(num), "%zu", *u16);
			buf_puts(&r, num);
		} else if (g == G + 2) {
			ok = put_trimmed(s, m, text, len, &r);
		}
		/* G + 3 with named groups is the groups object, which has no
		 * string form: SillyTavern throws a TypeError there; strata
		 * inserts nothing, as for every later number. */
	}
	k = out->len;
	if (ok)
		ok = expand(m, REGEX_MACRO_REPLACE, r.data ? r.data : "",
		    r.len, out);
	/* The rest of the text stays valid UTF-8 (matches and trim strings
	 * fall on character boundaries); a macro's output may not. */
	if (ok && !jsregex_valid(out->data + k, out->len - k)) {
		diag_plain(run, DIAG_ERROR, MSG_INVALID_UTF8);
		ok = false;
	}
	buf_free(&r);
	return ok;
}

/*
 * One match attempt within the budgets (regex.h): the step limit starts
 * at REGEX_STEP_FLOOR and doubles while the attempt runs out of it, up to
 * the per-match limit and what is left of the run's and the build's
 * budgets; each try is charged its limit.  On JSREGEX_LIMIT *msg says
 * which bound it was.
 */
static enum jsregex_result
budgeted_match(struct regex_set *set, struct regex_script *s,
    const char *text, size_t len, size_t pos, size_t *ov, uint64_t *run_left,
    enum diag_msg *msg)
{
	uint64_t step = REGEX_STEP_FLOOR, lim;
	enum jsregex_result r;

	for (;;) {
		lim = step < set->match_limit ? step : set->match_limit;
		if (lim > *run_left)
			lim = *run_left;
		if (lim > set->build_left)
			lim = set->build_left;
		if (lim == 0) {
			*msg = *run_left == 0 ? MSG_REGEX_RUN_BUDGET :
			    MSG_REGEX_BUILD_BUDGET;
			return JSREGEX_LIMIT;
		}
		jsregex_set_limits(&s->re, (uint32_t)lim, set->depth_limit);
		r = jsregex_match(&s->re, set->md, text, len, pos, ov);
		*run_left -= lim;
		set->build_left -= lim;
		if (r != JSREGEX_LIMIT)
			return r;
		if (lim >= set->match_limit) {
			*msg = MSG_REGEX_LIMIT;
			return r;
		}
		if (lim < step) {       /* a budget ran out */
			*msg = *run_left == 0 ? MSG_REGEX_RUN_BUDGET :
			    MSG_REGEX_BUILD_BUDGET;
			return r;
		}
		step *= 2;
	}
}

/*
 * One script over text.  When it changes the text, the result goes to out
 * (which is empty) and *changed is set; otherwise out is left alone.
 * Returns false on a limit or another error: the text then stays as it
 * was.
 */
static bool
run_script(struct run *run, struct regex_set *set, struct regex_script *s,
    const char *text, size_t len, struct buf *out,
    const struct regex_macros *m, bool *changed)
{
	struct buf pat = BUF_INIT;
	size_t pos = 0, last = 0, u16 = 0, u16at = 0, few[32], *ov = few;
	enum jsregex_result r;
	uint64_t run_left;
	bool ok = true;

	*changed = false;
	if (s->substitute) {
		ok = expand(m, s->substitute == 2 ? REGEX_MACRO_FIND_ESCAPED :
		    REGEX_MACRO_FIND, s->find, s->findlen, &pat);
		if (ok && !(s->cached && s->cachelen == pat.len &&
		    memcmp(s->cache, pat.data ? pat.data : "", pat.len) ==
		    0)) {
			free(s->cache);
			s->cache = xstrndup(pat.data ? pat.data : "", pat.len);
			s->cachelen = pat.len;
			s->cached = true;
			ok = compile(run, set, s, s->cache, s->cachelen,
			    false);
		}
		buf_free(&pat);
	}
	if (!ok || !s->ok)
		return ok;
	if (2 * (s->re.ngroups + 1) > LEN(few))
		ov = xreallocarray(NULL, 2 * (s->re.ngroups + 1),
		    sizeof(*ov));
	run_left = REGEX_RUN_BUDGET + (uint64_t)REGEX_BYTE_BUDGET * len;
	while (pos <= len) {
		enum diag_msg msg = MSG_REGEX_MATCH_FAILED;

		r = budgeted_match(set, s, text, len, pos, ov, &run_left,
		    &msg);
		if (r == JSREGEX_NOMATCH)
			break;
		if (r != JSREGEX_MATCH) {
			if (!s->reported)
				diag_error(run, s->src, s->findspan, msg,
				    diag_shown(run, s->name,
				    strlen(s->name)));
			s->reported = true;
			ok = false;
			break;
		}
		buf_put(out, text + last, ov[0] - last);
		if (!replacement(run, s, &s->re, m, text, len, ov, &u16,
		    &u16at, out)) {
			ok = false;
			break;
		}
		*changed = true;
		last = ov[1];
		if (!(s->re.flags & JSREGEX_G))
			break;
		if (ov[1] == ov[0]) {
			if (ov[1] >= len)
				break;
			pos = ov[1] + char_len(text + ov[1], len - ov[1]);
		} else {
			pos = ov[1];
		}
	}
	if (ov != few)
		free(ov);
	if (ok && *changed)
		buf_put(out, text + last, len - last);
	if (!ok)
		*changed = false;
	return ok;
}

static bool
script_fixed(struct regex_script *s,
    bool (*fixed)(void *ctx, const char *s, size_t n), void *ctx)
{
	size_t k;

	if (s->fixed)
		return s->fixed > 0;
	s->fixed = -1;
	if (s->substitute && !fixed(ctx, s->find, s->findlen))
		return false;
	for (k = 0; k < s->ntrims; k++)
		if (!fixed(ctx, s->trims[k], s->trimlens[k]))
			return false;
	for (k = 0; k < s->npieces; k++) {
		const struct regex_piece *p = &s->pieces[k];

		if (p->kind == REGEX_PIECE_TEXT && (!mlex_closed(p->s,
		    p->len, NULL, NULL) || !fixed(ctx, p->s, p->len)))
			return false;
	}
	s->fixed = 1;
	return true;
}

bool
regex_set_pure(struct regex_set *set, enum regex_placement placement,
    unsigned call, const char *text, size_t len,
    bool (*fixed)(void *ctx, const char *s, size_t n), void *ctx)
{
	bool any = false, brace = false;
	size_t k, j;

	for (k = 0; k < set->n; k++) {
		struct regex_script *s = &set->v[k];

		if (!regex_selected(s, placement, call, REGEX_NO_DEPTH) ||
		    s->findlen == 0)
			continue;
		if (!script_fixed(s, fixed, ctx))
			return false;
		/* After a script that may write a '{', what a later one
		 * copies from its text may open a macro. */
		for (j = 0; j < s->npieces; j++) {
			const struct regex_piece *p = &s->pieces[j];

			if (p->kind != REGEX_PIECE_TEXT && brace)
				return false;
		}
		for (j = 0; j < s->npieces; j++)
			if (s->pieces[j].kind == REGEX_PIECE_TEXT &&
			    memchr(s->pieces[j].s, '{', s->pieces[j].len))
				brace = true;
		any = true;
	}
	return !any || !memchr(text, '{', len);
}

/*
 * SillyTavern's getRegexedString(): an empty text is returned as it is;
 * every selected script runs on the result of the one before.
 */
bool
regex_apply(struct run *run, struct regex_set *set,
    enum regex_placement placement, unsigned call, int depth,
    const char *text, size_t len, struct buf *out,
    const struct regex_macros *macros)
{
	struct buf a = BUF_INIT, b = BUF_INIT, *cur = NULL, *next = &a, *t;
	size_t k;
	bool ok = true, changed;

	if (!jsregex_valid(text, len)) {
		diag_plain(run, DIAG_ERROR, MSG_INVALID_UTF8);
		buf_put(out, text, len);
		return false;
	}
	/* The build's allowance grows with the text once, not once per
	 * script: a thousand scripts on one text share it. */
	set->build_left += (uint64_t)REGEX_BYTE_BUDGET * len;
	for (k = 0; k < set->n && len > 0; k++) {
		struct regex_script *s = &set->v[k];

		if (!regex_selected(s, placement, call, depth) ||
		    s->findlen == 0)
			continue;
		buf_reset(next);
		if (!run_script(run, set, s, cur ? cur->data : text,
		    cur ? cur->len : len, next, macros, &changed))
			ok = false;
		if (!changed)
			continue;
		if (set->fired) {
			if (set->fired->len)
				buf_puts(set->fired, ", ");
			buf_puts(set->fired, s->name && *s->name ? s->name :
			    "(unnamed script)");
		}
		t = cur ? cur : &b;
		cur = next;
		next = t;
		if (cur->len == 0)
			break;          /* an empty text stops the chain */
	}
	if (cur)
		buf_put(out, cur->data ? cur->data : "", cur->len);
	else
		buf_put(out, text, len);
	buf_free(&a);
	buf_free(&b);
	return ok;
}
