/*
 * tbuild_regex: the build's regex scripts (text/regex.h), called
 * directly: the scripts in SillyTavern's scope order (global, the
 * --regex files, the preset's, the character's -- the last two only
 * when settings.json allows them), run with the build's macros for
 * replacement strings, and listed for -f result as seed 002's
 * merged_regex.
 */
#include "tavern/tbuild_int.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/path.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "tavern/card.h"
#include "tavern/ftav.h"
#include "tavern/macro.h"

static bool
macro_cb(void *ctx, enum regex_macro_use use, const char *s, size_t len,
    struct buf *out)
{
	struct tb *t = ctx;

	/* FIND_ESCAPED would escape only the macros' values; the legacy
	 * engine gives the whole text, so it reads as FIND (documented). */
	(void)use;
	buf_puts(out, macro_expand(t->run, &t->env, s, len, NULL));
	return true;
}

/* The preset's file name without .json ("" with none), as
 * preset_allowed_regex.openai names it. */
static const char *
preset_name(struct tb *t)
{
	const char *b, *dot;

	if (!t->in->preset)
		return "";
	b = path_base(t->in->preset);
	dot = strrchr(b, '.');
	return dot ? arena_strndup(&t->run->arena, b, (size_t)(dot - b)) : b;
}

/*
 * beforeNormalizeAssets, afterNormalizeAssets: the regex scripts before
 * seed 002's merge (after: as merged), {"global": [...], "preset":
 * [...], "scoped": [...]}, each script the object as read; what the
 * hooks return is read again, as the scripts of each scope.
 */
static bool
rehook(struct tb *t, const char *point)
{
	static const char *const scopes[] = { "global", "preset", "scoped" };
	const struct tavern_hooks *h = &t->in->hooks;
	struct arena *a = &t->run->arena;
	struct node *d = tree_table(a), *arr[LEN(scopes)];
	size_t i, k;
	bool ok = true;

	if (!tavern_hooked(h, point))
		return true;
	for (k = 0; k < LEN(scopes); k++)
		arr[k] = tree_put(a, d, scopes[k], tree_array(a));
	for (i = 0; i < t->scripts.n; i++)
		tree_push(a, arr[t->scripts.v[i].scope],
		    tree_copy(a, t->scripts.v[i].node));
	if (!h->run(h->ctx, t->run, point, &d))
		return false;
	regex_set_free(&t->scripts);
	regex_set_init(&t->scripts);
	for (k = 0; k < LEN(scopes); k++)
		ok &= regex_set_add(t->run, &t->scripts, (enum regex_scope)k,
		    tree_get(d, scopes[k]));
	return ok;
}

bool
tb_regex_load(struct tb *t)
{
	const struct node *ext = t->s.extensions, *pa, *pext, *preset = NULL;
	const struct node *scoped = card_regex_scripts(t->card);
	struct regex_set *set = &t->scripts;
	struct run *run = t->run;
	bool ok = true;
	size_t i;

	pext = tree_get(t->p->root, "extensions");
	if (pext && pext->kind == NODE_TABLE)
		preset = tree_get(pext, "regex_scripts");
	pa = ext && ext->kind == NODE_TABLE ?
	    tree_get(ext, "preset_allowed_regex") : NULL;
	if (t->s.regex)
		ok &= regex_set_add(run, set, REGEX_GLOBAL, t->s.regex);
	/* The --regex files tavern_read() read. */
	for (i = 0; i < t->in->nregex; i++)
		ok &= t->f->regex[i] && regex_set_add(run, set, REGEX_GLOBAL,
		    t->f->regex[i]);
	if (preset && pa && pa->kind == NODE_TABLE &&
	    tree_has_string(tree_get(pa, "openai"), preset_name(t)))
		ok &= regex_set_add(run, set, REGEX_PRESET, preset);
	if (scoped && ext && ext->kind == NODE_TABLE &&
	    tree_has_string(tree_get(ext, "character_allowed_regex"),
	    path_base(t->in->card)))
		ok &= regex_set_add(run, set, REGEX_SCOPED, scoped);
	/* Seed 002's merge: the scripts read, those it drops, those that
	 * run (merged_regex's meta). */
	if (ok)
		ok = rehook(t, "beforeNormalizeAssets");
	for (i = 0; i < set->n; i++)
		t->rx_inputs[set->v[i].scope]++;
	t->rx_deduped = regex_set_dedup(run, set);
	if (ok)
		ok = rehook(t, "afterNormalizeAssets");
	t->scripts_loaded = true;
	return ok;
}

/* The call a prompt's text is: what the model reads (SillyTavern's
 * isPrompt), or for --view user_view what a chat shows (isMarkdown:
 * the display-only scripts instead of the prompt-only ones). */
static enum regex_call
call_kind(const struct tb *t)
{
	return t->in->user_view ? REGEX_MARKDOWN : REGEX_PROMPT;
}

const char *
tb_regex(struct tb *t, enum regex_placement place, bool is_prompt, int depth,
    const char *text)
{
	struct run *run = t->run;
	struct regex_macros m = { macro_cb, t };
	struct buf out = BUF_INIT, fired = BUF_INIT;
	const char *r = text;
	size_t len;

	t->fired = NULL;
	if (!t->scripts_loaded || !text || !*text)
		return text;
	len = strlen(text);
	t->scripts.fired = &fired;
	if (regex_apply(run, &t->scripts, place, is_prompt ? call_kind(t) : 0,
	    depth, text, len, &out, &m) &&
	    (out.len != len || memcmp(out.data, text, len) != 0)) {
		r = arena_strndup(&run->arena, out.data ? out.data : "",
		    out.len);
		if (fired.len)
			t->fired = arena_strndup(&run->arena, fired.data,
			    fired.len);
	}
	t->scripts.fired = NULL;
	buf_free(&fired);
	buf_free(&out);
	return r;
}

static bool
fixed_cb(void *ctx, const char *s, size_t n)
{
	const struct tb *t = ctx;

	return macro_fixed(&t->env, s, n);
}

bool
tb_regex_pure(struct tb *t, enum regex_placement place, const char *text)
{
	unsigned char *k;

	if (!t->scripts_loaded || !text)
		return true;
	if ((unsigned)place >= LEN(t->pure))
		return regex_set_pure(&t->scripts, place, call_kind(t), text,
		    strlen(text), fixed_cb, t);
	/* The scripts' part of the answer is the same for every text. */
	k = &t->pure[place];
	if (!*k)
		*k = regex_set_pure(&t->scripts, place, call_kind(t), "{", 1,
		    fixed_cb, t) ? 1 : regex_set_pure(&t->scripts, place,
		    call_kind(t), "", 0, fixed_cb, t) ? 2 : 3;
	return *k == 1 || (*k == 2 && !strchr(text, '{'));
}

struct node *
tb_regex_rules(struct tb *t)
{
	static const char *const scopes[] = { "global", "preset",
	    "scoped" };
	struct arena *a = &t->run->arena;
	struct node *res = tree_table(a), *rules = tree_array(a);
	struct node *meta, *order, *counts;
	size_t i;

	for (i = 0; t->scripts_loaded && i < t->scripts.n; i++)
		tree_push(a, rules, tree_copy(a, t->scripts.v[i].node));
	tree_put(a, res, "regex_rules", rules);
	meta = tree_put(a, res, "meta", tree_table(a));
	order = tree_put(a, meta, "order", tree_array(a));
	counts = tree_put(a, meta, "input_counts", tree_table(a));
	for (i = 0; i < LEN(scopes); i++) {
		tree_push(a, order, tree_str(a, scopes[i]));
		tree_put(a, counts, scopes[i], tree_int(a,
		    (int64_t)t->rx_inputs[i]));
	}
	tree_put(a, meta, "dedup_removed_count", tree_int(a,
	    (int64_t)t->rx_deduped));
	tree_put(a, meta, "total", tree_int(a, (int64_t)rules->u.array.n));
	return res;
}
