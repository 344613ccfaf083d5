#include "tavern/macro.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/rng.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/ftav.h"
#include "text/macro_lex.h"
#include "text/macros.h"

struct mctx {
	struct run *run;
	struct macro_env *env;
	const char *original;   /* NULL once used (or not offered) */
	const char *text;       /* the text as given, and its length */
	size_t len;
	uint64_t raw_hash;      /* cyrb53 of text, for pick, once needed */
	bool hashed;
	/* The one macro of a pass: SillyTavern runs one regular
	 * expression per name, so a value a pass inserts is seen by the
	 * passes after it. */
	const char *key;
	struct macro_vars *vars;
};

/* A step: the replacement for the macro whose inside ("user",
 * "setvar::a::b") is s[0..n), or NULL when the step does not know it.
 * off is where the macro starts, in UTF-16 units. */
typedef const char *step_fn(struct mctx *m, const char *s, size_t n,
    size_t off);
static step_fn step_random;

static bool
ieq(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

/* s starts with prefix (any case): the length of the prefix, else 0. */
static size_t
iprefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && strncasecmp(s, prefix, k) == 0 ? k : 0;
}

/* Would an expansion of m->text reach `size` bytes past a cap?  Then
 * report it (once per env) and stop expanding. */
static bool
too_big(struct mctx *m, size_t size)
{
	struct macro_env *env = m->env;
	size_t cap = MACRO_OUT_BASE + MACRO_OUT_FACTOR * m->len;
	size_t total = MACRO_TOTAL_BASE + MACRO_OUT_FACTOR * (env->in_total +
	    m->len);

	if (size <= cap && env->out_total + size <= total)
		return false;
	if (!env->over)
		diag_plain(m->run, DIAG_ERROR, MSG_MACRO_OUTPUT,
		    macro_asset(env), size <= cap ? "a build" : "one text",
		    size <= cap ? total : cap);
	env->over = true;
	return true;
}

/*
 * Run one step over s: every "{{...}}" whose inside holds no '}' is
 * offered to fn, left to right, as a global regular expression would
 * find them (the shared lexer finds them).  s itself when fn replaced
 * nothing (no copy); the UTF-16 offset is counted only for the step that
 * reads it, on from the previous token, so counting is linear in s.
 */
static char *
apply(struct mctx *m, char *s, step_fn *fn)
{
	struct buf out = BUF_INIT;
	size_t n = strlen(s), i = 0, done = 0, u = 0, upos = 0;
	struct mlex l;
	struct mlex_tok t;
	const char *rep;
	char *r;

	mlex_init(&l, s, n, &m->run->arena);
	while (!m->env->over && mlex_next(&l, i, &t)) {
		/* Only {{pick}} reads the offset (its seed). */
		if (fn == step_random) {
			u += utf16_length(s + upos, t.at - upos);
			upos = t.at;
		}
		rep = fn(m, s + t.at + 2, t.end - t.at - 4, u);
		if (rep && too_big(m, out.len + (t.at - done) + strlen(rep) +
		    (n - t.end))) {
			rep = NULL;
			break;
		}
		if (rep) {
			buf_put(&out, s + done, t.at - done);
			buf_puts(&out, rep);
			i = done = t.end;
		} else {
			i = t.at + 1;
		}
	}
	if (done == 0)
		return s;
	buf_put(&out, s + done, n - done);
	buf_putc(&out, '\0');
	r = arena_strdup(&m->run->arena, out.data);
	buf_free(&out);
	return r;
}

/* Does s hold "{{" followed at once by key (any case)?  Every step
 * below answers only macros whose inside starts with its name, so a step
 * whose names are all absent cannot change s and is not run: most texts
 * hold a macro or two, and most of the 50 passes are then a scan. */
/* The first "{{" of s, or NULL.  strchr() rather than strstr(): a
 * sanitizer's strstr() measures the whole rest of s on every call,
 * which made has_open() quadratic under ASan (fuzz finding
 * macros/asan-strstr-braces). */
static const char *
find_open(const char *s)
{
	while ((s = strchr(s, '{')) != NULL && s[1] != '{')
		s++;
	return s;
}

static bool
has_open(const char *s, const char *key)
{
	size_t k = strlen(key);

	while ((s = find_open(s)) != NULL) {
		if (strncasecmp(s + 2, key, k) == 0)
			return true;
		s++;    /* "{{{user}}}": the second '{' opens one too */
	}
	return false;
}

/* Replace a literal (any case) everywhere: the <USER> forms.  Each
 * starts with '<': s itself when it has none. */
static char *
replace_literal(struct arena *a, char *s, const char *lit,
    const char *with)
{
	struct buf out = BUF_INIT;
	size_t k = strlen(lit);
	char *lt, *r;

	if (!strchr(s, '<'))
		return s;
	while ((lt = strchr(s, '<')) != NULL) {
		buf_put(&out, s, (size_t)(lt - s));
		s = lt;
		if (strncasecmp(s, lit, k) == 0) {
			buf_puts(&out, with);
			s += k;
		} else
			buf_putc(&out, *s++);
	}
	buf_puts(&out, s);
	buf_putc(&out, '\0');
	r = arena_strdup(a, out.data);
	buf_free(&out);
	return r;
}

/* {{name}} (exactly, case and all) as with, everywhere in s: a macro of
 * the user's own (--macro). */
static char *
replace_user(struct arena *a, char *s, const char *name, size_t len,
    const char *with)
{
	struct buf out = BUF_INIT;
	char *p, *r;

	for (;;) {
		p = strstr(s, "{{");
		if (!p)
			break;
		buf_put(&out, s, (size_t)(p - s));
		if (strncmp(p + 2, name, len) == 0 &&
		    strncmp(p + 2 + len, "}}", 2) == 0) {
			buf_puts(&out, with);
			s = p + 4 + len;
		} else {
			buf_put(&out, p, 2);
			s = p + 2;
		}
	}
	if (!out.len)
		return s;
	buf_puts(&out, s);
	buf_putc(&out, '\0');
	r = arena_strdup(a, out.data);
	buf_free(&out);
	return r;
}

static const char *
or_empty(const char *s)
{
	return s ? s : "";
}

/* JavaScript's String(number), as fast-tavern's conversions give it. */
static const char *
js_number(struct arena *a, double d)
{
	struct buf b = BUF_INIT;
	const char *s;

	ftav_number(&b, d);
	s = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* JavaScript's Number(s): false when NaN. */
static bool
js_to_number(const char *s, double *d)
{
	const char *p = s, *e;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	if (p == e) {
		*d = 0;
		return true;
	}
	*d = strtod(p, &end);
	if (end != e)
		return false;
	/* strtod takes "inf", "nan" and hex floats; Number() does not,
	 * except "Infinity" and 0x integers (rare enough to ignore). */
	for (; p < e; p++)
		if (isalpha((unsigned char)*p) && *p != 'e' && *p != 'E')
			return false;
	return true;
}

const char *
macro_asset(const struct macro_env *env)
{
	return env && env->asset ? env->asset : "a text of the build";
}

/* Set a variable; asset names the text whose macros set it (NULL: a
 * variable read from a file). */
static void
var_set(struct run *run, struct macro_vars *vars, const char *name,
    const char *value, const char *asset)
{
	size_t i;

	if (strlen(value) > MACRO_VAR_MAX) {
		if (asset)
			diag_plain(run, DIAG_ERROR, MSG_MACRO_VAR_BIG_IN,
			    asset, diag_shown(run, name, strlen(name)),
			    strlen(value), (size_t)MACRO_VAR_MAX);
		else
			diag_plain(run, DIAG_ERROR, MSG_MACRO_VAR_BIG,
			    diag_shown(run, name, strlen(name)),
			    strlen(value), (size_t)MACRO_VAR_MAX);
		return;
	}
	for (i = 0; i < vars->n; i++)
		if (strcmp(vars->v[i].name, name) == 0) {
			vars->v[i].value = arena_strdup(&run->arena, value);
			return;
		}
	if (vars->n == vars->cap)
		vars->v = avec_grow(&run->arena, vars->v, &vars->cap, vars->n,
		    vars->n + 1, sizeof(*vars->v));
	vars->v[vars->n].name = arena_strdup(&run->arena, name);
	vars->v[vars->n].value = arena_strdup(&run->arena, value);
	vars->n++;
}

void
macro_var_set(struct run *run, struct macro_vars *vars, const char *name,
    const char *value)
{
	var_set(run, vars, name, value, NULL);
}

static const char *
var_get(const struct macro_vars *vars, const char *name)
{
	size_t i;

	if (!vars)
		return NULL;
	for (i = 0; i < vars->n; i++)
		if (strcmp(vars->v[i].name, name) == 0)
			return vars->v[i].value;
	return NULL;
}

void
macro_vars_load(struct run *run, struct macro_vars *vars,
    const struct node *t)
{
	size_t i;

	if (!t || t->kind != NODE_TABLE)
		return;
	for (i = 0; i < t->u.table.n; i++) {
		const struct member *mb = &t->u.table.items[i];
		const struct node *v = mb->value;
		struct buf b = BUF_INIT;

		if (v->kind == NODE_STRING)
			buf_put(&b, v->u.str.s, v->u.str.len);
		else if (v->kind == NODE_INT)
			buf_printf(&b, "%lld", (long long)v->u.i);
		else if (v->kind == NODE_FLOAT)
			buf_puts(&b, js_number(&run->arena, v->u.f));
		else
			json_write(&b, v, 0);
		buf_putc(&b, '\0');
		macro_var_set(run, vars, mb->key, b.data);
		buf_free(&b);
	}
}

/* getvar: a numeric text comes back as its number. */
static const char *
var_value(struct arena *a, const struct macro_vars *vars, const char *name)
{
	const char *v = var_get(vars, name);
	double d;

	if (!v || !*v)
		return "";
	if (js_to_number(v, &d))
		return js_number(a, d);
	return v;
}

/* addvar on a variable that holds a JSON array: value pushed (as a
 * string), the array written back as JSON.stringify writes it; NULL
 * when cur is no array. */
static const char *
array_push(struct run *run, const char *cur, const char *value)
{
	struct run quiet;
	struct source *src;
	struct node *arr = NULL;
	struct buf b = BUF_INIT;
	const char *r = NULL, *p = cur;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p != '[')
		return NULL;
	/* Parsed on a run of its own: a text that is no JSON is simply
	 * no array (JSON.parse throws, SillyTavern goes on). */
	run_init(&quiet);
	quiet.diag.capped = true;
	src = run_source_mem(&quiet, "variable", cur, strlen(cur));
	if (json_parse(&quiet, src, &arr) && arr->kind == NODE_ARRAY) {
		tree_push(&quiet.arena, arr, tree_str(&quiet.arena, value));
		json_write(&b, arr, -1);
		buf_putc(&b, '\0');
		r = arena_strdup(&run->arena, b.data);
		buf_free(&b);
	}
	run_free(&quiet);
	return r;
}

static const char *
var_add(struct run *run, struct macro_vars *vars, const char *name,
    const char *value, const char *asset)
{
	struct arena *a = &run->arena;
	const char *cur = var_value(a, vars, name);
	double dc, dv;
	const char *r;

	if ((r = array_push(run, cur, value)) != NULL) {
		var_set(run, vars, name, r, asset);
		return r;
	}
	if (!*cur)
		cur = "0";
	if (!js_to_number(value, &dv) || !js_to_number(cur, &dc)) {
		/* String(currentValue || '') + value: a zero is falsy */
		r = arena_printf(a, "%s%s", js_to_number(cur, &dc) &&
		    dc == 0 ? "" : cur, value);
		var_set(run, vars, name, r, asset);
		return r;
	}
	r = js_number(a, dc + dv);
	var_set(run, vars, name, r, asset);
	return r;
}

uint64_t
macro_cyrb53(const char *s, size_t len)
{
	return rng_cyrb53(s, len, 0);
}

/* --- the steps, in SillyTavern's order --- */

static const char *
step_roll(struct mctx *m, const char *s, size_t n, size_t off)
{
	size_t k = iprefix(s, n, "roll");
	const char *r;

	if (!k || k >= n || (s[k] != ' ' && s[k] != ':'))
		return NULL;
	r = macros_roll(&m->run->arena, s + k + 1, n - k - 1, &m->env->rng);
	return r ? r : "";
}

static const char *
step_instruct(struct mctx *m, const char *s, size_t n, size_t off)
{
	/* Instruct mode is off in Chat Completion: these are empty. */
	const struct macros_def *d = macros_find(s, n);

	return d && d->step == 3 ? "" : NULL;
}

/* "name::value" after a prefix: split at the first "::". */
static bool
split2(struct arena *a, const char *s, size_t n, char **name, char **value)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			break;
	if (i == 0 || i + 1 >= n)
		return false;
	*name = arena_strndup(a, s, i);
	if (strchr(*name, ':'))
		return false;
	*value = arena_strndup(a, s + i + 2, n - i - 2);
	return true;
}

/* String.prototype.trim() for a variable's name: ASCII blanks and the
 * Unicode spaces JS trims. */
static char *
js_trim(struct arena *a, char *s)
{
	static const char *const sp[] = { "\xc2\xa0", "\xe1\x9a\x80",
		"\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf",
		"\xe2\x81\x9f", "\xe3\x80\x80", "\xef\xbb\xbf" };
	size_t n = strlen(s), i, k;
	bool again = true;

	(void)a;
	while (again) {
		again = false;
		if (*s && strchr(" \t\n\v\f\r", *s)) {
			s++;
			n--;
			again = true;
			continue;
		}
		if (n && strchr(" \t\n\v\f\r", s[n - 1])) {
			s[--n] = '\0';
			again = true;
			continue;
		}
		for (i = 0; i < LEN(sp); i++) {
			k = strlen(sp[i]);
			if (n >= k && memcmp(s, sp[i], k) == 0) {
				s += k;
				n -= k;
				again = true;
			} else if (n >= k && memcmp(s + n - k, sp[i], k) ==
			    0) {
				s[n -= k] = '\0';
				again = true;
			}
		}
		/* U+2000..U+200A */
		if (n >= 3 && (unsigned char)s[0] == 0xe2 &&
		    (unsigned char)s[1] == 0x80 && (unsigned char)s[2] >=
		    0x80 && (unsigned char)s[2] <= 0x8a) {
			s += 3;
			n -= 3;
			again = true;
		} else if (n >= 3 && (unsigned char)s[n - 3] == 0xe2 &&
		    (unsigned char)s[n - 2] == 0x80 &&
		    (unsigned char)s[n - 1] >= 0x80 &&
		    (unsigned char)s[n - 1] <= 0x8a) {
			s[n -= 3] = '\0';
			again = true;
		}
	}
	return s;
}

/* One variable macro, m->key ("setvar::", ...), on m->vars. */
static const char *
step_var(struct mctx *m, const char *s, size_t n, size_t off)
{
	struct arena *a = &m->run->arena;
	const char *op = m->key;
	char *name, *value;
	size_t k = iprefix(s, n, op);

	if (!k || !m->vars)
		return NULL;
	if (strncmp(op, "set", 3) == 0 || strncmp(op, "add", 3) == 0) {
		if (!split2(a, s + k, n - k, &name, &value))
			return NULL;
		name = js_trim(a, name);
		if (strncmp(op, "set", 3) == 0)
			var_set(m->run, m->vars, name, value,
			    macro_asset(m->env));
		else
			var_add(m->run, m->vars, name, value,
			    macro_asset(m->env));
		return "";
	}
	if (k == n)
		return NULL;
	name = js_trim(a, arena_strndup(a, s + k, n - k));
	if (strncmp(op, "inc", 3) == 0)
		return var_add(m->run, m->vars, name, "1",
		    macro_asset(m->env));
	if (strncmp(op, "dec", 3) == 0)
		return var_add(m->run, m->vars, name, "-1",
		    macro_asset(m->env));
	return var_value(a, m->vars, name);
}

static const char *
step_basic(struct mctx *m, const char *s, size_t n, size_t off)
{
	if (!ieq(s, n, m->key))
		return NULL;
	if (strcmp(m->key, "newline") == 0)
		return "\n";
	if (strcmp(m->key, "input") == 0)
		return or_empty(m->env->input);
	return "";
}

/* (?:\r?\n)*{{trim}}(?:\r?\n)* */
static char *
trim_step(struct arena *a, const char *s)
{
	struct buf out = BUF_INIT;
	size_t n = strlen(s), i = 0;
	struct mlex l;
	struct mlex_tok t;
	char *r;

	mlex_init(&l, s, n, a);
	while (mlex_next(&l, i, &t)) {
		/* exactly "{{trim}}", any case */
		if (t.end - t.at != 8 || !ieq(s + t.at + 2, 4, "trim")) {
			buf_put(&out, s + i, t.at + 1 - i);
			i = t.at + 1;
			continue;
		}
		buf_put(&out, s + i, t.at - i);
		while (out.len && out.data[out.len - 1] == '\n') {
			out.len--;
			if (out.len && out.data[out.len - 1] == '\r')
				out.len--;
		}
		i = t.end;
		while (s[i] == '\n' || (s[i] == '\r' && s[i + 1] == '\n'))
			i += s[i] == '\r' ? 2 : 1;
	}
	buf_put(&out, s + i, n - i);
	buf_putc(&out, '\0');
	r = arena_strdup(a, out.data);
	buf_free(&out);
	return r;
}

/* {{notChar}} in a group: the members but the one speaking, then the
 * user. */
static const char *
not_char(struct run *run, const struct macro_env *e)
{
	struct buf b = BUF_INIT;
	const char *r;
	size_t i;

	for (i = 0; i < e->nmembers; i++) {
		if (e->char_name && strcmp(e->members[i], e->char_name) == 0)
			continue;
		buf_puts(&b, e->members[i]);
		buf_puts(&b, ", ");
	}
	buf_puts(&b, or_empty(e->user));
	buf_putc(&b, '\0');
	r = arena_strdup(&run->arena, b.data);
	buf_free(&b);
	return r;
}

static const char *
step_env(struct mctx *m, const char *s, size_t n, size_t off)
{
	const struct macro_env *e = m->env;
	const struct { const char *name; const char *value; bool card; }
	    t[] = {
		{ "charPrompt", e->char_prompt, true },
		{ "charInstruction", e->char_instruction, true },
		{ "charJailbreak", e->char_instruction, true },
		{ "description", e->description, true },
		{ "charDescription", e->description, true },
		{ "personality", e->personality, true },
		{ "charPersonality", e->personality, true },
		{ "scenario", e->scenario, true },
		{ "charScenario", e->scenario, true },
		{ "persona", e->persona, true },
		{ "mesExamples", e->mes_examples, true },
		{ "mesExamplesRaw", e->mes_examples_raw, true },
		{ "charVersion", e->char_version, true },
		{ "char_version", e->char_version, true },
		{ "charDepthPrompt", e->char_depth_prompt, true },
		{ "creatorNotes", e->creator_notes, true },
		{ "user", e->user, false },
		{ "char", e->char_name, false },
		{ "group", e->group ? e->group : e->char_name, false },
		{ "charIfNotGroup", e->group ? e->group : e->char_name,
		    false },
		{ "groupNotMuted", e->group_not_muted ? e->group_not_muted :
		    e->group ? e->group : e->char_name, false },
		{ "notChar", e->members ? not_char(m->run, e) : e->user,
		    false },
		{ "model", e->model, false },
		{ "authorsNote", e->authors_note, false },
		{ "charAuthorsNote", e->char_authors_note, false },
		{ "defaultAuthorsNote", e->default_authors_note, false },
		{ "lastGenerationType", e->gen_type, false },
		{ "isMobile", "false", false },
	};
	size_t i;

	/* Every name below answers only its own key. */
	if (!ieq(s, n, m->key))
		return NULL;
	if (strcmp(m->key, "original") == 0) {
		const char *o = m->original;

		if (!o || !ieq(s, n, "original"))
			return NULL;
		m->original = NULL;
		return o;
	}
	if (strcmp(m->key, "lastChatMessage") == 0)
		return e->last_chat_message && ieq(s, n, m->key) ?
		    e->last_chat_message : NULL;
	/* {{summary}} is SillyTavern's only while its extension is on. */
	if (strcmp(m->key, "summary") == 0)
		return e->summary;
	for (i = 0; i < LEN(t); i++)
		if (strcmp(m->key, t[i].name) == 0)
			return ieq(s, n, t[i].name) && (!t[i].card ||
			    e->card_macros) ? or_empty(t[i].value) : NULL;
	return NULL;
}

static const char *
step_chat(struct mctx *m, const char *s, size_t n, size_t off)
{
	const struct macro_env *e = m->env;
	struct arena *a = &m->run->arena;

	if (ieq(s, n, "maxPrompt"))
		return arena_printf(a, "%ld", e->max_prompt);
	if (ieq(s, n, "lastMessage"))
		return or_empty(e->last_message);
	if (ieq(s, n, "lastMessageId"))
		return e->last_message_id < 0 ? "" : arena_printf(a, "%ld",
		    e->last_message_id);
	if (ieq(s, n, "lastUserMessage"))
		return or_empty(e->last_user_message);
	if (ieq(s, n, "lastCharMessage"))
		return or_empty(e->last_char_message);
	if (ieq(s, n, "firstIncludedMessageId"))
		return or_empty(e->first_included_id);
	if (ieq(s, n, "firstDisplayedMessageId"))
		return or_empty(e->first_displayed_id);
	if (ieq(s, n, "lastSwipeId"))
		return or_empty(e->last_swipe_id);
	if (ieq(s, n, "currentSwipeId"))
		return or_empty(e->current_swipe_id);
	return NULL;
}

static const char *
step_reverse(struct mctx *m, const char *s, size_t n, size_t off)
{
	size_t k = iprefix(s, n, "reverse:");

	if (!k || k == n)
		return NULL;
	return macros_reverse(&m->run->arena, s + k, n - k);
}

/* {{// ...}}: the comment may hold '}' and newlines, up to "}}". */
static char *
comment_step(struct arena *a, const char *s)
{
	struct buf out = BUF_INIT;
	size_t n = strlen(s), i = 0, o;
	struct mlex l;
	struct mlex_tok t;
	char *r;

	mlex_init(&l, s, n, a);
	while ((o = mlex_open(&l, i)) < n) {
		if (s[o + 2] == '/' && s[o + 3] == '/' && mlex_at(&l, o, &t)) {
			buf_put(&out, s + i, o - i);
			i = t.end;
			continue;
		}
		buf_put(&out, s + i, o + 1 - i);
		i = o + 1;
	}
	buf_put(&out, s + i, n - i);
	buf_putc(&out, '\0');
	r = arena_strdup(a, out.data);
	buf_free(&out);
	return r;
}

static const char *
step_time(struct mctx *m, const char *s, size_t n, size_t off)
{
	struct arena *a = &m->run->arena;
	const char *r;
	size_t k;
	int h;

	if ((r = macros_time_named(a, m->env->now_ms, s, n)))
		return r;
	if (ieq(s, n, "idle_duration"))
		return "just now";
	if ((k = iprefix(s, n, "datetimeformat ")) && k < n)
		return macros_time(a, m->env->now_ms, 0,
		    arena_strndup(a, s + k, n - k));
	if ((k = iprefix(s, n, "time_UTC")) && k < n &&
	    macros_utc_offset(s + k, n - k, &h))
		return macros_time(a, m->env->now_ms, h, "LT");
	return NULL;
}

static const char *
step_outlet(struct mctx *m, const char *s, size_t n, size_t off)
{
	size_t k = iprefix(s, n, "outlet::");
	const char *r;

	if (!k || k == n)
		return NULL;
	if (!m->env->outlet)
		return "";
	r = m->env->outlet(m->env->outlet_ctx,
	    arena_strndup(&m->run->arena, s + k, n - k));
	return r ? r : "";
}

/* {{timeDiff::A::B}}: A ends at the first "::"; neither holds a
 * newline (SillyTavern's pattern uses ".", which stops at one). */
static const char *
step_timediff(struct mctx *m, const char *s, size_t n, size_t off)
{
	struct arena *a = &m->run->arena;
	size_t k = iprefix(s, n, "timeDiff::"), i;

	if (!k || memchr(s, '\n', n) || memchr(s, '\r', n))
		return NULL;
	for (i = k; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			return macros_time_diff(a,
			    arena_strndup(a, s + k, i - k),
			    arena_strndup(a, s + i + 2, n - i - 2));
	return NULL;
}

static size_t
list_prefix(const char *s, size_t n, const char *name)
{
	size_t k = iprefix(s, n, name);

	if (!k)
		return 0;
	if (k < n && s[k] == ' ')
		k++;
	if (k < n && s[k] == ':') {
		k++;
		if (k < n && s[k] == ':')
			k++;
		return k < n ? k : 0;
	}
	return 0;
}

static const char *
step_random(struct mctx *m, const char *s, size_t n, size_t off)
{
	struct arena *a = &m->run->arena;
	char **items;
	size_t k, cnt;

	if (iprefix(s, n, "banned ") && n > 8)
		return "";
	if ((k = list_prefix(s, n, "random"))) {
		cnt = macros_list(a, s + k, n - k, &items);
		return items[(size_t)floor(macros_random(&m->env->rng) *
		    (double)cnt)];
	}
	if ((k = list_prefix(s, n, "pick"))) {
		cnt = macros_list(a, s + k, n - k, &items);
		if (!m->hashed) {
			m->raw_hash = macro_cyrb53(m->text, m->len);
			m->hashed = true;
		}
		return items[macros_pick(a, cnt, m->env->chat_id_hash,
		    m->raw_hash, off)];
	}
	return NULL;
}

/* A value that holds a '{' may, next to other text, open a macro. */
static bool
has_braces(const char *s)
{
	return s && strchr(s, '{') != NULL;
}

/* mlex_closed()'s each: a macro that changes state or reads what
 * changes during a build says no. */
static bool
not_moving(void *ctx, const char *in, size_t n)
{
	static const char *const moving[] = {
		"roll", "random", "outlet", "setvar", "addvar", "incvar",
		"decvar", "getvar", "setglobalvar", "addglobalvar",
		"incglobalvar", "decglobalvar", "getglobalvar",
		"lastChatMessage",      /* set only once --type continue
		                         * has picked its message */
	};
	size_t k;

	(void)ctx;
	while (n && (*in == ' ' || *in == '\t' || *in == '\n' ||
	    *in == '\r')) {
		in++;
		n--;
	}
	for (k = 0; k < LEN(moving); k++)
		if (iprefix(in, n, moving[k]))
			return false;
	return true;
}

bool
macro_fixed(const struct macro_env *env, const char *s, size_t n)
{
	const char *const values[] = {
		env->user, env->char_name, env->group, env->description,
		env->personality, env->scenario, env->persona,
		env->mes_examples, env->mes_examples_raw, env->char_prompt,
		env->char_instruction, env->char_depth_prompt,
		env->creator_notes, env->char_version, env->model,
		env->last_message, env->last_user_message,
		env->last_char_message, env->input, env->last_chat_message,
		env->authors_note, env->char_authors_note,
		env->default_authors_note, env->summary, env->group_not_muted,
	};
	size_t k;

	if (!memchr(s, '{', n) && !memchr(s, '<', n))
		return true;
	for (k = 0; k < LEN(values); k++)
		if (has_braces(values[k]))
			return false;
	return mlex_closed(s, n, not_moving, NULL);
}

char *
macro_expand(struct run *run, struct macro_env *env, const char *text,
    size_t len, const char *original)
{
	struct arena *a = &run->arena;
	const struct macros_def *d;
	struct mctx m;
	char var_key[32];
	char *s = arena_strndup(a, text, len);
	size_t i;

	m.run = run;
	m.env = env;
	m.original = original;
	m.text = text;
	m.len = len;
	m.hashed = false;
	m.key = NULL;
	m.vars = NULL;

	s = replace_literal(a, s, "<USER>", or_empty(env->user));
	s = replace_literal(a, s, "<BOT>", or_empty(env->char_name));
	s = replace_literal(a, s, "<CHAR>", or_empty(env->char_name));
	s = replace_literal(a, s, "<CHARIFNOTGROUP>",
	    or_empty(env->group ? env->group : env->char_name));
	s = replace_literal(a, s, "<GROUP>",
	    or_empty(env->group ? env->group : env->char_name));
	/* Every step below needs a "{{" and none runs without one. */
	if (!strstr(s, "{{"))
		return s;
	for (i = 0; env->user_macros && i < env->user_macros->u.table.n;
	    i++) {
		const struct member *um = &env->user_macros->u.table.items[i];

		if (strstr(s, "{{"))
			s = replace_user(a, s, um->key, um->keylen,
			    um->value->u.str.s);
	}
#define STEP(fn) if (strstr(s, "{{")) s = apply(&m, s, fn)
#define STEP_IF(key, fn) if (has_open(s, key)) s = apply(&m, s, fn)
	STEP_IF("roll", step_roll);
	STEP(step_instruct);
	/* Steps 4 to 6 run one pass per name, in the registry's order. */
	for (d = macros_table; d->name; d++) {
		if (d->step == 4) {
			size_t k = strlen(d->name);

			if (k + 3 > sizeof var_key)
				continue;	/* no such name */
			memcpy(var_key, d->name, k);
			memcpy(var_key + k, "::", 3);
			m.key = var_key;
			m.vars = strstr(d->name, "global") ? env->globals :
			    env->locals;
			STEP_IF(m.key, step_var);
		} else if (d->step == 5 && strcmp(d->name, "trim") == 0) {
			if (has_open(s, "trim}}"))
				s = trim_step(a, s);
		} else if (d->step == 5) {
			m.key = d->name;
			STEP_IF(m.key, step_basic);
		} else if (d->step == 6) {
			m.key = d->name;
			STEP_IF(m.key, step_env);
		}
	}
	if (has_open(s, "maxPrompt") || has_open(s, "last") ||
	    has_open(s, "first") || has_open(s, "currentSwipeId"))
		s = apply(&m, s, step_chat);
	STEP_IF("reverse:", step_reverse);
	if (has_open(s, "//"))
		s = comment_step(a, s);
	STEP(step_time);
	STEP_IF("outlet::", step_outlet);
	STEP_IF("timeDiff::", step_timediff);
	if (has_open(s, "random") || has_open(s, "pick") ||
	    has_open(s, "banned "))
		s = apply(&m, s, step_random);
#undef STEP_IF
#undef STEP
	env->in_total += len;
	env->out_total += strlen(s);
	return s;
}

char *
macro_expands(struct run *run, struct macro_env *env, const char *text)
{
	return macro_expand(run, env, text, strlen(text), NULL);
}
