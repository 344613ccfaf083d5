/*
 * The pipeline driver on a real profile (fixtures/layers): the messages
 * it arranges, the stages the rewrite stage records, where an error in
 * rewritten text points, that a new pass plugs into a plan without the
 * driver, and that assembling twice gives the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/util.h"
#include "check.h"
#include "diag/run.h"
#include "pipeline/assemble.h"
#include "pipeline/rewrite.h"
#include "text/template.h"

#define FIX "unit/fixtures/layers/"

static struct entry *
entry_of(const struct chat *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->stack.nall; i++)
		if (strcmp(c->stack.all[i]->key, key) == 0)
			return c->stack.all[i];
	return NULL;
}

static const char *
str(struct run *run, const struct etext *t)
{
	return arena_strndup(&run->arena, t->s, t->len);
}

static void
build(void)
{
	struct run run;
	struct options opt;
	struct chat c;
	struct entry *e;
	const char *want = "Prefix for Kei.\n\n## global.safety\nStay calm."
	    "\n\n## persona\nYou are a helper of Kei.\n\n## format\nReply "
	    "in one line.\nNo lists.\n\n## skill.diary\n";

	run_init(&run);
	memset(&opt, 0, sizeof(opt));
	opt.profile = FIX "p.toml";
	opt.user = "hi";
	CHECK(assemble(&run, &opt, &c, NULL));
	CHECK_INT(c.n, 2);
	CHECK(strncmp(c.msgs[0].content, want, strlen(want)) == 0);
	CHECK_STR(c.msgs[1].content, "hi");
	/* Stages: raw, after placeholders, after tidy. */
	e = entry_of(&c, "persona");
	CHECK_INT(e->nstages, 2);
	CHECK_STR(str(&run, &e->raw), "\nYou are a helper of {{user}}.\n\n");
	CHECK_STR(str(&run, &e->stages[0]),
	    "\nYou are a helper of Kei.\n\n");
	CHECK_STR(str(&run, &e->stages[1]), "You are a helper of Kei.");
	CHECK_INT(e->message, 0);
	/* Tidy read the CRLF file as LF. */
	CHECK_STR(str(&run, &entry_of(&c, "format")->stages[1]),
	    "Reply in one line.\nNo lists.");
	/* What expands to nothing is skipped, as empty text is. */
	CHECK(entry_of(&c, "empty.after")->status == ENTRY_EMPTY);
	CHECK(entry_of(&c, "context.memory")->status == ENTRY_MISSING);
	run_free(&run);
}

/* An error in expanded text points at the placeholder's own line. */
static void
error_span(void)
{
	struct run run;
	struct options opt;
	struct chat c;
	char path[] = "/tmp/test_pipeline.XXXXXX", got[512] = "";
	int fd = mkstemp(path), saved = dup(2);
	FILE *f;

	run_init(&run);
	memset(&opt, 0, sizeof(opt));
	opt.profile = FIX "bad.toml";
	fflush(stderr);
	dup2(fd, 2);
	CHECK(!assemble(&run, &opt, &c, NULL));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	unlink(path);
	CHECK(strncmp(got, FIX "bad.toml:6:8: error: unknown placeholder",
	    strlen(FIX "bad.toml:6:8: error: unknown placeholder")) == 0);
	run_free(&run);
}

/* A pass from outside the plan: upper-cases ASCII, notes depths. */
static size_t depths[8], ndepths;

static bool
upper(const struct rewrite_ctx *cx, const struct entry *e,
    const struct etext *in, struct etext *out)
{
	char *s = arena_strndup(&cx->run->arena, in->s, in->len);
	size_t i;

	for (i = 0; i < in->len; i++)
		if (s[i] >= 'a' && s[i] <= 'z')
			s[i] = (char)(s[i] - 'a' + 'A');
	*out = *in;
	out->s = s;
	return true;
}

static bool
depth(const struct rewrite_ctx *cx, const struct message *m, size_t d,
    const struct etext *in, struct etext *out)
{
	if (ndepths < LEN(depths))
		depths[ndepths++] = d;
	*out = *in;
	return true;
}

static void
plug_in(void)
{
	static const struct rewrite_pass up = { "upper", ENTRY_TEMPLATE,
		upper, NULL, NULL, 0 };
	static const struct rewrite_pass dp = { "depth", 0, NULL, depth,
		NULL, 0 };
	static const struct rewrite_pass *const passes[] = {
		&rewrite_placeholders, &up, &rewrite_tidy, &dp };
	const struct rewrite_plan plan = { passes, LEN(passes) };
	struct run run;
	struct tvars vars;
	struct rewrite_profile px;
	struct entry *e;
	struct message m[2];
	struct chat c;

	run_init(&run);
	template_vars_init(&run, &vars);
	rewrite_profile_init(&px, &run, NULL, &vars);
	template_var(&run, &vars, "x", "value", 5, NULL, span_make(0, 0));
	e = entry_new(&run.arena, "k", "inject");
	entry_set_raw(&run.arena, e, "  say {{x}} ", 12, 0, span_make(0, 0),
	    false);
	e->rewrite = ENTRY_TEMPLATE | ENTRY_TIDY;
	CHECK(rewrite_entries(&px.cx, &plan, &e, 1));
	CHECK_INT(e->nstages, 3);
	CHECK_STR(str(&run, &e->stages[0]), "  say value ");
	CHECK_STR(str(&run, &e->stages[1]), "  SAY VALUE ");
	/* Tidy keeps a first line's indent. */
	CHECK_STR(e->content, "  SAY VALUE");
	memset(&c, 0, sizeof(c));
	memset(m, 0, sizeof(m));
	m[0].content = m[1].content = "text";
	m[0].len = m[1].len = 4;
	c.msgs = m;
	c.n = 2;
	CHECK(rewrite_messages(&px.cx, &plan, &c));
	CHECK_INT(ndepths, 2);
	CHECK_INT(depths[0], 1);
	CHECK_INT(depths[1], 0);
	CHECK_INT(m[1].nstages, 1);
	run_free(&run);
}

/* Nothing is read back: the same inputs give the same bytes. */
static void
twice(void)
{
	struct run r1, r2;
	struct options opt;
	struct chat a, b;
	size_t i;

	memset(&opt, 0, sizeof(opt));
	opt.profile = FIX "p.toml";
	opt.user = "hi";
	run_init(&r1);
	run_init(&r2);
	CHECK(assemble(&r1, &opt, &a, NULL));
	CHECK(assemble(&r2, &opt, &b, NULL));
	CHECK_INT(a.n, b.n);
	for (i = 0; i < a.n && i < b.n; i++)
		CHECK(a.msgs[i].len == b.msgs[i].len && memcmp(a.msgs[i].content,
		    b.msgs[i].content, a.msgs[i].len) == 0);
	run_free(&r1);
	run_free(&r2);
}

int
main(void)
{
	build();
	error_span();
	plug_in();
	twice();
	return check_done("test_pipeline");
}
