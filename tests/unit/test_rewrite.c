/*
 * The rewrite driver both dialects share (prompt/rewrite.h), on texts
 * of a dialect's own: a plan of passes by stage, each applying to the
 * kinds of text it names; the record hook sees every pass of the range
 * with the text before and after it; a pass that fails fails the run
 * and the passes after it still run.
 */
#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "prompt/rewrite.h"
#include "check.h"

enum { KIND_A = 1, KIND_B = 2 };

/* The test dialect's state: what the record hook saw. */
struct seen {
	char log[256];
};

static void
put(const struct rewrite_ctx *cx, const struct etext *in, const char *add,
    struct etext *out)
{
	const char *s = arena_printf(&cx->run->arena, "%.*s%s", (int)in->len,
	    in->s, add);

	*out = *in;
	out->s = s;
	out->len = strlen(s);
}

static bool
suffix(const struct rewrite_ctx *cx, const void *what,
    const struct etext *in, struct etext *out)
{
	put(cx, in, what, out);
	return true;
}

static bool
fail(const struct rewrite_ctx *cx, const void *what,
    const struct etext *in, struct etext *out)
{
	put(cx, in, "!", out);
	return false;
}

static void
record(const struct rewrite_ctx *cx, const void *what,
    const struct rewrite_pass *pass, const struct etext *in,
    const struct etext *out)
{
	struct seen *sn = cx->dialect;
	size_t n = strlen(sn->log);

	snprintf(sn->log + n, sizeof(sn->log) - n, "%s%u:%s=%.*s",
	    n ? " " : "", pass->stage, pass->name, (int)out->len, out->s);
}

static const struct rewrite_pass one = { .name = "one", .applies = KIND_A,
	.text = suffix, .stage = 1 };
static const struct rewrite_pass two = { .name = "two", .applies = KIND_B,
	.text = suffix, .stage = 2 };
static const struct rewrite_pass three = { .name = "three",
	.applies = KIND_A | KIND_B, .text = suffix, .stage = 3 };
static const struct rewrite_pass bad = { .name = "bad", .applies = KIND_B,
	.text = fail, .stage = 2 };

static const char *
run_plan(struct rewrite_ctx *cx, const struct rewrite_plan *plan,
    unsigned from, unsigned to, unsigned kind, bool *ok)
{
	struct etext in = { "x", 1, NULL, 0 }, out;

	((struct seen *)cx->dialect)->log[0] = '\0';
	*ok = rewrite_text(cx, plan, from, to, kind, "+", &in, &out);
	return arena_strndup(&cx->run->arena, out.s, out.len);
}

int
main(void)
{
	static const struct rewrite_pass *const passes[] = { &one, &two,
		&three };
	/* A new pass is one line in the plan. */
	static const struct rewrite_pass *const more[] = { &one, &two, &bad,
		&three };
	const struct rewrite_plan plan = { passes, 3 }, plan2 = { more, 4 };
	struct run run;
	struct seen sn;
	struct rewrite_ctx cx;
	bool ok;

	run_init(&run);
	cx.run = &run;
	cx.dialect = &sn;
	cx.record = record;
	/* Every stage; kind A: two does not apply, yet is recorded. */
	CHECK_STR(run_plan(&cx, &plan, 0, 3, KIND_A, &ok), "x++");
	CHECK(ok);
	CHECK_STR(sn.log, "1:one=x+ 2:two=x+ 3:three=x++");
	/* A range of stages: the others neither run nor are recorded. */
	CHECK_STR(run_plan(&cx, &plan, 2, 3, KIND_B, &ok), "x++");
	CHECK_STR(sn.log, "2:two=x+ 3:three=x++");
	CHECK_STR(run_plan(&cx, &plan, 1, 1, KIND_B, &ok), "x");
	CHECK_STR(sn.log, "1:one=x");
	/* A pass that fails: false, and the rest still run. */
	CHECK_STR(run_plan(&cx, &plan2, 0, 3, KIND_B, &ok), "x+!+");
	CHECK(!ok);
	CHECK_STR(sn.log, "1:one=x 2:two=x+ 2:bad=x+! 3:three=x+!+");
	/* With no record hook the text is the same. */
	cx.record = NULL;
	CHECK_STR(run_plan(&cx, &plan, 0, 3, KIND_A, &ok), "x++");
	CHECK_STR(sn.log, "");
	run_free(&run);
	return check_done("test_rewrite");
}
