#include "tavern/macro.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

const struct macro_name macro_names[] = {
	{ "<USER>", 1 }, { "<BOT>", 1 }, { "<CHAR>", 1 },
	{ "<CHARIFNOTGROUP>", 1 }, { "<GROUP>", 1 },
	{ "roll", 2 },
	{ "instructInput", 3 }, { "instructOutput", 3 },
	{ "instructSeparator", 3 }, { "instructStop", 3 },
	{ "systemPrompt", 3 },
	{ "setvar", 4 }, { "addvar", 4 }, { "incvar", 4 }, { "decvar", 4 },
	{ "getvar", 4 }, { "setglobalvar", 4 }, { "addglobalvar", 4 },
	{ "incglobalvar", 4 }, { "decglobalvar", 4 }, { "getglobalvar", 4 },
	{ "newline", 5 }, { "trim", 5 }, { "noop", 5 }, { "input", 5 },
	{ "original", 6 }, { "charPrompt", 6 }, { "charInstruction", 6 },
	{ "charJailbreak", 6 }, { "description", 6 }, { "personality", 6 },
	{ "scenario", 6 }, { "persona", 6 }, { "mesExamples", 6 },
	{ "mesExamplesRaw", 6 }, { "charVersion", 6 }, { "char_version", 6 },
	{ "charDepthPrompt", 6 }, { "creatorNotes", 6 }, { "user", 6 },
	{ "char", 6 }, { "group", 6 }, { "charIfNotGroup", 6 },
	{ "groupNotMuted", 6 }, { "notChar", 6 }, { "model", 6 },
	{ "lastChatMessage", 6 }, { "isMobile", 6 },
	{ "maxPrompt", 7 }, { "lastMessage", 7 }, { "lastMessageId", 7 },
	{ "lastUserMessage", 7 }, { "lastCharMessage", 7 },
	{ "reverse", 8 }, { "//", 8 },
	{ "time", 9 }, { "date", 9 }, { "weekday", 9 }, { "isotime", 9 },
	{ "isodate", 9 }, { "datetimeformat", 9 }, { "idle_duration", 9 },
	{ "time_UTC", 9 },
	{ "outlet", 10 },
	{ "banned", 11 }, { "random", 11 }, { "pick", 11 },
	{ NULL, 0 },
};

struct mctx {
	struct run *run;
	struct macro_env *env;
	const char *original;   /* NULL once used (or not offered) */
	uint64_t raw_hash;      /* cyrb53 of the text as given, for pick */
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

static size_t
utf16_units(const char *s, size_t n)
{
	size_t i = 0, u = 0;
	uint32_t cp;

	while (i < n) {
		size_t k = utf8_decode(s + i, n - i, &cp);

		if (k == 0)
			k = 1;
		u += cp >= 0x10000 ? 2 : 1;
		i += k;
	}
	return u;
}

/*
 * Run one step over s: every "{{...}}" whose inside holds no '}' is
 * offered to fn, left to right, as a global regular expression would
 * find them.  s itself when fn replaced nothing (no copy); the UTF-16
 * offset is counted on from the previous "{{", which starts with an
 * ASCII byte, so that counting is linear in s.
 */
static char *
apply(struct mctx *m, char *s, step_fn *fn)
{
	struct buf out = BUF_INIT;
	size_t n = strlen(s), i = 0, p, done = 0, upos = 0, units = 0;
	char *r;

	while (i < n) {
		const char *o = strstr(s + i, "{{");
		const char *close, *rep;

		if (!o)
			break;
		p = (size_t)(o - s);
		/* Only {{pick}} reads the offset (its seed). */
		if (fn == step_random) {
			units += utf16_units(s + upos, p - upos);
			upos = p;
		}
		close = strchr(o + 2, '}');
		if (close && close[1] == '}' && (rep = fn(m, o + 2,
		    (size_t)(close - o - 2), units)) != NULL) {
			buf_put(&out, s + done, p - done);
			buf_puts(&out, rep);
			i = done = (size_t)(close - s) + 2;
			continue;
		}
		i = p + 1;
	}
	if (done == 0)
		return s;
	buf_put(&out, s + done, n - done);
	buf_putc(&out, '\0');
	r = arena_strdup(&m->run->arena, out.data);
	buf_free(&out);
	return r;
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

static const char *
or_empty(const char *s)
{
	return s ? s : "";
}

/* JavaScript's String(number). */
static const char *
js_number(struct arena *a, double d)
{
	char tmp[64];
	int prec;

	if (isnan(d))
		return "NaN";
	if (isinf(d))
		return d > 0 ? "Infinity" : "-Infinity";
	if (d == floor(d) && fabs(d) < 1e21)
		return arena_printf(a, "%.0f", d == 0 ? 0.0 : d);
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	return arena_strdup(a, tmp);
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

void
macro_var_set(struct run *run, struct macro_vars *vars, const char *name,
    const char *value)
{
	size_t i;

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

static const char *
var_add(struct run *run, struct macro_vars *vars, const char *name,
    const char *value)
{
	struct arena *a = &run->arena;
	const char *cur = var_value(a, vars, name);
	double dc, dv;
	const char *r;

	if (!*cur)
		cur = "0";
	if (!js_to_number(value, &dv) || !js_to_number(cur, &dc)) {
		/* String(currentValue || '') + value: a zero is falsy */
		r = arena_printf(a, "%s%s", js_to_number(cur, &dc) &&
		    dc == 0 ? "" : cur, value);
		macro_var_set(run, vars, name, r);
		return r;
	}
	r = js_number(a, dc + dv);
	macro_var_set(run, vars, name, r);
	return r;
}

/* --- randomness: named so the shared base/rng.[ch] can replace them. */

static double
rng_xorshift_next(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (double)((x * 0x2545f4914f6cdd1dULL) >> 11) /
	    9007199254740992.0;
}

uint64_t
macro_cyrb53(const char *s, size_t len)
{
	uint32_t h1 = 0xdeadbeef, h2 = 0x41c6ce57;
	size_t i = 0;
	uint32_t cp;

	while (i < len) {
		size_t k = utf8_decode(s + i, len - i, &cp);
		uint32_t units[2];
		int nu = 1, j;

		if (k == 0)
			k = 1;
		if (cp >= 0x10000) {
			units[0] = 0xd800 + ((cp - 0x10000) >> 10);
			units[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
			nu = 2;
		} else
			units[0] = cp;
		for (j = 0; j < nu; j++) {
			h1 = (h1 ^ units[j]) * 2654435761u;
			h2 = (h2 ^ units[j]) * 1597334677u;
		}
		i += k;
	}
	h1 = ((h1 ^ (h1 >> 16)) * 2246822507u) ^
	    ((h2 ^ (h2 >> 13)) * 3266489909u);
	h2 = ((h2 ^ (h2 >> 16)) * 2246822507u) ^
	    ((h1 ^ (h1 >> 13)) * 3266489909u);
	return 4294967296ULL * (h2 & 2097151) + h1;
}

/* seedrandom's ARC4 generator, keyed by a string seed. */
struct arc4 {
	unsigned i, j;
	unsigned char s[256];
};

static unsigned
arc4_g(struct arc4 *r, int count, double *out)
{
	double acc = 0;
	unsigned i = r->i, j = r->j, t;

	while (count--) {
		i = (i + 1) & 255;
		t = r->s[i];
		j = (j + t) & 255;
		r->s[i] = r->s[j];
		r->s[j] = (unsigned char)t;
		acc = acc * 256 + r->s[(r->s[i] + r->s[j]) & 255];
	}
	r->i = i;
	r->j = j;
	*out = acc;
	return (unsigned)fmod(acc, 4294967296.0);
}

static void
rng_arc4_seed(struct arc4 *r, const char *seed)
{
	unsigned key[256];
	unsigned smear = 0, t, j = 0;
	size_t keylen = 0, i, n = strlen(seed);
	double dummy;

	memset(key, 0, sizeof(key));
	/* mixkey: JavaScript's charCodeAt over the seed (ASCII digits) */
	for (i = 0; i < n; i++) {
		smear ^= key[i & 255] * 19;
		key[i & 255] = (smear + (unsigned char)seed[i]) & 255;
		if ((i & 255) + 1 > keylen)
			keylen = (i & 255) + 1;
	}
	if (keylen == 0)
		keylen = 1;
	for (i = 0; i < 256; i++)
		r->s[i] = (unsigned char)i;
	for (i = 0; i < 256; i++) {
		t = r->s[i];
		j = (j + key[i % keylen] + t) & 255;
		r->s[i] = r->s[j];
		r->s[j] = (unsigned char)t;
	}
	r->i = r->j = 0;
	arc4_g(r, 256, &dummy);
}

static double
rng_arc4_next(struct arc4 *r)
{
	double n, d = 281474976710656.0, x = 0;

	arc4_g(r, 6, &n);
	while (n < 4503599627370496.0) {
		n = (n + x) * 256;
		d *= 256;
		arc4_g(r, 1, &x);
	}
	while (n >= 9007199254740992.0) {
		n /= 2;
		d /= 2;
		x = floor(x / 2);
	}
	return (n + x) / d;
}

/* --- the steps, in SillyTavern's order --- */

static const char *
step_roll(struct mctx *m, const char *s, size_t n, size_t off)
{
	struct arena *a = &m->run->arena;
	size_t k = iprefix(s, n, "roll");
	long count = 1, sides, add = 0, i, total = 0;
	char *f, *p, *end;

	if (!k || k >= n || (s[k] != ' ' && s[k] != ':'))
		return NULL;
	f = arena_strndup(a, s + k + 1, n - k - 1);
	for (p = f; *p == ' '; p++)
		;
	if (*p == 'd' || *p == 'D')
		p++;
	else {
		count = strtol(p, &end, 10);
		if (end == p)
			return "";
		p = end;
		if (*p == '\0') {
			sides = count;
			count = 1;
			goto roll;
		}
		if (*p != 'd' && *p != 'D')
			return "";
		p++;
	}
	sides = strtol(p, &end, 10);
	if (end == p)
		return "";
	p = end;
	if (*p == '+' || *p == '-') {
		add = strtol(p, &end, 10);
		if (end == p + 1)
			return "";
		p = end;
	}
	while (*p == ' ')
		p++;
	if (*p)
		return "";
roll:
	if (count < 1 || sides < 1 || count > 1000)
		return "";
	for (i = 0; i < count; i++)
		total += 1 + (long)floor(rng_xorshift_next(&m->env->rng) *
		    (double)sides);
	return arena_printf(a, "%ld", total + add);
}

static const char *
step_instruct(struct mctx *m, const char *s, size_t n, size_t off)
{
	/* Instruct mode is off in Chat Completion: these are empty. */
	static const char *const names[] = { "instructSystem",
		"instructSystemPrefix", "instructSystemSuffix", "instructInput",
		"instructUserPrefix", "instructUserSuffix", "instructOutput",
		"instructAssistantPrefix", "instructSeparator",
		"instructAssistantSuffix", "instructSystemPromptPrefix",
		"instructSystemPromptSuffix", "instructFirstOutput",
		"instructFirstAssistantPrefix", "instructLastOutput",
		"instructLastAssistantPrefix", "instructFirstInput",
		"instructFirstUserPrefix", "instructLastInput",
		"instructLastUserPrefix", "instructStop",
		"instructUserFiller", "instructSystemInstructionPrefix",
		"instructStoryStringPrefix", "instructStoryStringSuffix",
		"exampleSeparator", "chatSeparator", "chatStart",
		"systemPrompt", "defaultSystemPrompt", "instructSystemPrompt",
		NULL };
	size_t i;

	for (i = 0; names[i]; i++)
		if (ieq(s, n, names[i]))
			return "";
	return NULL;
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
		if (strncmp(op, "set", 3) == 0)
			macro_var_set(m->run, m->vars, name, value);
		else
			var_add(m->run, m->vars, name, value);
		return "";
	}
	if (k == n)
		return NULL;
	name = arena_strndup(a, s + k, n - k);
	if (strncmp(op, "inc", 3) == 0)
		return var_add(m->run, m->vars, name, "1");
	if (strncmp(op, "dec", 3) == 0)
		return var_add(m->run, m->vars, name, "-1");
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
	char *r;

	while (*s) {
		if (strncasecmp(s, "{{trim}}", 8) == 0) {
			for (;;) {
				if (out.len && out.data[out.len - 1] == '\n') {
					out.len--;
					if (out.len && out.data[out.len - 1] ==
					    '\r')
						out.len--;
				} else
					break;
			}
			s += 8;
			while (*s == '\n' || (*s == '\r' && s[1] == '\n'))
				s += *s == '\r' ? 2 : 1;
		} else
			buf_putc(&out, *s++);
	}
	buf_putc(&out, '\0');
	r = arena_strdup(a, out.data);
	buf_free(&out);
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
		{ "groupNotMuted", e->group ? e->group : e->char_name,
		    false },
		{ "notChar", e->user, false },
		{ "model", e->model, false },
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
	for (i = 0; i < LEN(t); i++)
		if (strcmp(m->key, t[i].name) == 0)
			return ieq(s, n, t[i].name) && (!t[i].card ||
			    e->card_macros) ? or_empty(t[i].value) : NULL;
	return NULL;
}

/* The environment's names, in SillyTavern's insertion order. */
static const char *const env_keys[] = { "original", "charPrompt",
	"charInstruction", "charJailbreak", "description", "charDescription",
	"personality", "charPersonality", "scenario", "charScenario",
	"persona", "mesExamples", "mesExamplesRaw", "charVersion",
	"char_version", "charDepthPrompt", "creatorNotes", "user", "char",
	"group", "charIfNotGroup", "groupNotMuted", "notChar", "model",
	"lastChatMessage", "isMobile" };

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
	return NULL;
}

static const char *
step_reverse(struct mctx *m, const char *s, size_t n, size_t off)
{
	size_t k = iprefix(s, n, "reverse:"), i;
	char *r, *w;
	uint32_t cp;

	if (!k || k == n)
		return NULL;
	/* Reverse by code points. */
	r = arena_alloc(&m->run->arena, n - k + 1);
	w = r + (n - k);
	*w = '\0';
	for (i = k; i < n;) {
		size_t len = utf8_decode(s + i, n - i, &cp);

		if (len == 0)
			len = 1;
		w -= len;
		memcpy(w, s + i, len);
		i += len;
	}
	return r;
}

/* {{// ...}}: the comment may hold '}' and newlines, up to "}}". */
static char *
comment_step(struct arena *a, const char *s)
{
	struct buf out = BUF_INIT;
	char *r;

	while (*s) {
		const char *end;

		if (strncmp(s, "{{//", 4) == 0 &&
		    (end = strstr(s + 4, "}}")) != NULL) {
			s = end + 2;
			continue;
		}
		buf_putc(&out, *s++);
	}
	buf_putc(&out, '\0');
	r = arena_strdup(a, out.data);
	buf_free(&out);
	return r;
}

/* A subset of moment.js's format tokens, in English. */
static const char *
moment_format(struct arena *a, const struct tm *tm, const char *f)
{
	static const char *const months[] = { "January", "February",
		"March", "April", "May", "June", "July", "August",
		"September", "October", "November", "December" };
	static const char *const days[] = { "Sunday", "Monday", "Tuesday",
		"Wednesday", "Thursday", "Friday", "Saturday" };
	struct buf b = BUF_INIT;
	const char *r;
	int h12 = tm->tm_hour % 12 ? tm->tm_hour % 12 : 12;

	while (*f) {
		if (*f == '[') {
			const char *e = strchr(f, ']');

			if (e) {
				buf_put(&b, f + 1, (size_t)(e - f - 1));
				f = e + 1;
				continue;
			}
		}
#define TOK(t) (strncmp(f, (t), strlen(t)) == 0 && (f += strlen(t), 1))
		if (TOK("YYYY"))
			buf_printf(&b, "%04d", tm->tm_year + 1900);
		else if (TOK("YY"))
			buf_printf(&b, "%02d", (tm->tm_year + 1900) % 100);
		else if (TOK("MMMM"))
			buf_puts(&b, months[tm->tm_mon]);
		else if (TOK("MMM"))
			buf_printf(&b, "%.3s", months[tm->tm_mon]);
		else if (TOK("MM"))
			buf_printf(&b, "%02d", tm->tm_mon + 1);
		else if (TOK("M"))
			buf_printf(&b, "%d", tm->tm_mon + 1);
		else if (TOK("DD"))
			buf_printf(&b, "%02d", tm->tm_mday);
		else if (TOK("D"))
			buf_printf(&b, "%d", tm->tm_mday);
		else if (TOK("dddd"))
			buf_puts(&b, days[tm->tm_wday]);
		else if (TOK("ddd"))
			buf_printf(&b, "%.3s", days[tm->tm_wday]);
		else if (TOK("HH"))
			buf_printf(&b, "%02d", tm->tm_hour);
		else if (TOK("H"))
			buf_printf(&b, "%d", tm->tm_hour);
		else if (TOK("hh"))
			buf_printf(&b, "%02d", h12);
		else if (TOK("h"))
			buf_printf(&b, "%d", h12);
		else if (TOK("mm"))
			buf_printf(&b, "%02d", tm->tm_min);
		else if (TOK("m"))
			buf_printf(&b, "%d", tm->tm_min);
		else if (TOK("ss"))
			buf_printf(&b, "%02d", tm->tm_sec);
		else if (TOK("s"))
			buf_printf(&b, "%d", tm->tm_sec);
		else if (TOK("A"))
			buf_puts(&b, tm->tm_hour < 12 ? "AM" : "PM");
		else if (TOK("a"))
			buf_puts(&b, tm->tm_hour < 12 ? "am" : "pm");
		else if (TOK("LT"))
			buf_printf(&b, "%d:%02d %s", h12, tm->tm_min,
			    tm->tm_hour < 12 ? "AM" : "PM");
		else if (TOK("LL"))
			buf_printf(&b, "%s %d, %04d", months[tm->tm_mon],
			    tm->tm_mday, tm->tm_year + 1900);
		else
			buf_putc(&b, *f++);
#undef TOK
	}
	buf_putc(&b, '\0');
	r = arena_strdup(a, b.data);
	buf_free(&b);
	return r;
}

static void
time_at(int64_t ms, int offset_hours, struct tm *tm)
{
	time_t t = (time_t)(ms / 1000 - (ms % 1000 < 0)) +
	    (time_t)offset_hours * 3600;

	gmtime_r(&t, tm);
}

static const char *
step_time(struct mctx *m, const char *s, size_t n, size_t off)
{
	struct arena *a = &m->run->arena;
	struct tm tm;
	size_t k;

	time_at(m->env->now_ms, 0, &tm);
	if (ieq(s, n, "time"))
		return moment_format(a, &tm, "LT");
	if (ieq(s, n, "date"))
		return moment_format(a, &tm, "LL");
	if (ieq(s, n, "weekday"))
		return moment_format(a, &tm, "dddd");
	if (ieq(s, n, "isotime"))
		return moment_format(a, &tm, "HH:mm");
	if (ieq(s, n, "isodate"))
		return moment_format(a, &tm, "YYYY-MM-DD");
	if (ieq(s, n, "idle_duration"))
		return "just now";
	if ((k = iprefix(s, n, "datetimeformat ")) && k < n)
		return moment_format(a, &tm, arena_strndup(a, s + k, n - k));
	if ((k = iprefix(s, n, "time_UTC")) && k < n &&
	    (s[k] == '+' || s[k] == '-')) {
		char *num = arena_strndup(a, s + k, n - k), *end;
		long h = strtol(num, &end, 10);

		if (*end || end == num + 1)
			return NULL;
		time_at(m->env->now_ms, (int)h, &tm);
		return moment_format(a, &tm, "LT");
	}
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

/* {{random::a::b}} / {{random:a,b}}: the list, SillyTavern's way. */
static size_t
split_list(struct arena *a, const char *s, size_t n, char ***items)
{
	size_t cap = 8, cnt = 0, i, start = 0;
	bool colons = false;
	char **v;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			colons = true;
	v = arena_array(a, cap, sizeof(*v));
	for (i = 0; i <= n; i++) {
		bool end = i == n, sep;

		sep = !end && (colons ? (s[i] == ':' && i + 1 < n &&
		    s[i + 1] == ':') : (s[i] == ',' && (i == 0 ||
		    s[i - 1] != '\\')));
		if (!end && !sep)
			continue;
		if (cnt == cap) {
			v = arena_grow(a, v, cap, cap * 2, sizeof(*v));
			cap *= 2;
		}
		if (colons)
			v[cnt++] = arena_strndup(a, s + start, i - start);
		else {
			/* trim, then \, -> , */
			size_t b = start, e = i, j;
			struct buf t = BUF_INIT;

			for (j = b; j < e; j++) {
				if (s[j] == '\\' && j + 1 < e && s[j + 1] ==
				    ',')
					continue;
				buf_putc(&t, s[j]);
			}
			buf_putc(&t, '\0');
			b = 0;
			e = strlen(t.data);
			while (b < e && isspace((unsigned char)t.data[b]))
				b++;
			while (e > b && isspace((unsigned char)t.data[e - 1]))
				e--;
			v[cnt++] = arena_strndup(a, t.data + b, e - b);
			buf_free(&t);
		}
		if (colons && sep)
			i++;
		start = i + 1;
	}
	*items = v;
	return cnt;
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
		cnt = split_list(a, s + k, n - k, &items);
		return items[(size_t)floor(rng_xorshift_next(&m->env->rng) *
		    (double)cnt)];
	}
	if ((k = list_prefix(s, n, "pick"))) {
		struct arc4 r;
		const char *seed;

		cnt = split_list(a, s + k, n - k, &items);
		seed = arena_printf(a, "%llu-%llu-%zu",
		    (unsigned long long)m->env->chat_id_hash,
		    (unsigned long long)m->raw_hash, off);
		rng_arc4_seed(&r, arena_printf(a, "%llu",
		    (unsigned long long)macro_cyrb53(seed, strlen(seed))));
		return items[(size_t)floor(rng_arc4_next(&r) * (double)cnt)];
	}
	return NULL;
}

char *
macro_expand(struct run *run, struct macro_env *env, const char *text,
    size_t len, const char *original)
{
	struct arena *a = &run->arena;
	static const char *const var_ops[] = { "setvar::", "addvar::",
		"incvar::", "decvar::", "getvar::", "setglobalvar::",
		"addglobalvar::", "incglobalvar::", "decglobalvar::",
		"getglobalvar::" };
	struct mctx m;
	char *s = arena_strndup(a, text, len);
	size_t i;

	m.run = run;
	m.env = env;
	m.original = original;
	m.raw_hash = macro_cyrb53(text, len);
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
#define STEP(fn) if (strstr(s, "{{")) s = apply(&m, s, fn)
	STEP(step_roll);
	STEP(step_instruct);
	for (i = 0; i < LEN(var_ops); i++) {
		m.key = var_ops[i];
		m.vars = i < 5 ? env->locals : env->globals;
		STEP(step_var);
	}
	m.key = "newline";
	STEP(step_basic);
	if (strstr(s, "{{"))
		s = trim_step(a, s);
	m.key = "noop";
	STEP(step_basic);
	m.key = "input";
	STEP(step_basic);
	for (i = 0; i < LEN(env_keys); i++) {
		m.key = env_keys[i];
		STEP(step_env);
	}
	STEP(step_chat);
	STEP(step_reverse);
	if (strstr(s, "{{"))
		s = comment_step(a, s);
	STEP(step_time);
	STEP(step_outlet);
	STEP(step_random);
#undef STEP
	return s;
}

char *
macro_expands(struct run *run, struct macro_env *env, const char *text)
{
	return macro_expand(run, env, text, strlen(text), NULL);
}
