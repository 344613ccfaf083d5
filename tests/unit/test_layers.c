/*
 * The layers on a real profile (fixtures/layers): what each layer makes,
 * in which order, with which raw text and rewrite bits; front matter
 * consumed; -c matched by name; the four join styles.
 */
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "check.h"
#include "data/frontmatter.h"
#include "diag/run.h"
#include "layers/compose.h"
#include "layers/layer.h"
#include "profile/profile.h"
#include "prompt/tool.h"

#define FIX "unit/fixtures/layers/"

static struct run run;

static struct entry *
find(const struct entry_vec *v, const char *key)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i]->key, key) == 0)
			return v->v[i];
	return NULL;
}

static const char *
raw(const struct entry *e)
{
	return arena_strndup(&run.arena, e->raw.s, e->raw.len);
}

static void
collect(void)
{
	const struct profile *p = profile_load(&run, FIX "p.toml", NULL, 0);
	struct context_input ci = { 0 };
	struct layer_input in = { 0 };
	struct entry_vec v = { NULL, 0, 0 };
	struct tool_list tools;
	struct entry *e;
	static const char *const order[] = { "prefix", "persona", "format",
		"skill.diary", "skills", "global.safety", "empty.after",
		"context.memory" };
	size_t i;

	memset(&tools, 0, sizeof(tools));
	CHECK(p != NULL);
	if (!p)
		return;
	ci.name = "memory";
	ci.text = run_source_mem(&run, "ctx", "\n  remembered  \n", 15);
	ci.arg = run_source_mem(&run, "--context", "memory=ctx", 10);
	in.contexts = &ci;
	in.ncontexts = 1;
	CHECK(layer_collect(&run, p, &in, &v, &tools));
	CHECK_INT(v.n, (int)LEN(order));
	for (i = 0; i < v.n && i < LEN(order); i++)
		CHECK_STR(v.v[i]->key, order[i]);

	/* Raw text: placeholders not expanded, front matter gone. */
	e = find(&v, "persona");
	CHECK_STR(raw(e), "\nYou are a helper of {{user}}.\n\n");
	CHECK(e->rewrite == (ENTRY_TEMPLATE | ENTRY_TIDY | ENTRY_CRLF));
	CHECK_INT(e->raw.nsegs, 1);
	CHECK(e->raw.segs[0].exact);
	CHECK_INT(e->raw.segs[0].span.off, 22);
	CHECK_STR(raw(find(&v, "format")), "Reply in one line.\r\nNo lists.\r\n");
	CHECK_STR(raw(find(&v, "prefix")), "Prefix for {{user}}.");
	CHECK(find(&v, "prefix")->base);
	/* A multi-line string maps byte for byte, from its first line. */
	e = find(&v, "global.safety");
	CHECK_STR(raw(e), "Stay {{mood}}.\n");
	CHECK(e->raw.segs[0].exact);
	CHECK_INT(e->priority, 10);
	/* The outline lists the skill; its text is final (no rewrite). */
	e = find(&v, "skills");
	CHECK(strstr(raw(e), "- search: Look things up. -> "
	    "skills/search.md") != NULL);
	CHECK_INT(e->rewrite, 0);
	/* The context block, trimmed (a first line keeps its indent) and
	 * tagged, in the user turn. */
	e = find(&v, "context.memory");
	CHECK_STR(raw(e), "[memory context]\n  remembered\n[/memory context]");
	CHECK(e->placement == PLACE_USER && e->role == ROLE_USER);
}

static void
unknown_context(void)
{
	const struct profile *p = profile_load(&run, FIX "p.toml", NULL, 0);
	struct context_input ci[2];
	struct layer_input in = { 0 };
	struct entry_vec v = { NULL, 0, 0 };
	struct tool_list tools;
	unsigned before = run.diag.errors;

	memset(ci, 0, sizeof(ci));
	memset(&tools, 0, sizeof(tools));
	ci[0].name = "nosuch";
	ci[0].arg = run_source_mem(&run, "--context", "nosuch=x", 8);
	ci[0].text = run_source_mem(&run, "x", "x", 1);
	ci[0].namespan = span_make(0, 6);
	ci[1].name = "memory";
	ci[1].arg = ci[0].arg;
	ci[1].text = ci[0].text;
	in.contexts = ci;
	in.ncontexts = 2;
	CHECK(!layer_collect(&run, p, &in, &v, &tools));
	CHECK_INT(run.diag.errors - before, 1);
}

static void
front_matter(void)
{
	struct frontmatter fm;
	struct source *s;
	bool ok = true;

	s = run_source_mem(&run, "a.md", "\xef\xbb\xbf---\nname: n\n---\nbody",
	    20);
	CHECK(frontmatter_read(&run, s, &fm));
	CHECK_INT(fm.body, 19);
	CHECK_STR(frontmatter_string(&run, &fm, "name", &ok), "n");
	CHECK(ok);
	s = run_source_mem(&run, "b.md", "\xef\xbb\xbfno front", 11);
	CHECK(frontmatter_read(&run, s, &fm));
	CHECK(fm.meta == NULL);
	CHECK_INT(fm.body, 3);
}

static void
styles(void)
{
	struct entry a = { 0 }, b = { 0 }, base = { 0 };
	struct entry *v[] = { &base, &a, &b };
	struct buf out = BUF_INIT;
	size_t starts[3];

	base.content = "Base.";
	base.len = 5;
	base.base = true;
	a.key = "k.a";
	a.title = "A";
	a.content = "one";
	a.len = 3;
	b.key = "k.b";
	b.title = "B";
	b.content = "two";
	b.len = 3;
	compose_entries(&out, STYLE_PLAIN, v, 3, starts);
	CHECK_STR(out.data, "Base.\n\none\n\ntwo");
	CHECK_INT(starts[2], 12);
	buf_reset(&out);
	compose_entries(&out, STYLE_MARKDOWN, v, 3, NULL);
	CHECK_STR(out.data, "Base.\n\n## k.a\none\n\n## k.b\ntwo");
	buf_reset(&out);
	compose_entries(&out, STYLE_SECTIONS, v, 3, NULL);
	CHECK_STR(out.data, "Base.\n\n---\n\n**A**\none\n\n---\n\n**B**\ntwo");
	buf_reset(&out);
	compose_entries(&out, STYLE_TAGGED, v + 1, 2, starts);
	CHECK_STR(out.data, "<k.a>\none\n</k.a>\n\n<k.b>\ntwo\n</k.b>");
	CHECK_INT(starts[1], 24);
	buf_free(&out);
}

int
main(void)
{
	run_init(&run);
	collect();
	unknown_context();
	front_matter();
	styles();
	run_free(&run);
	return check_done("test_layers");
}
