/* {{NAME}} placeholders: values, literal braces, unknown names, where
 * errors point, and that big inputs take linear time. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "check.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "text/template.h"

static struct run run;
static struct tvars vars;
static struct etext last;

/* Expand text as the bytes of a source t.md, stderr silenced. */
static const char *
expand(const char *text, bool *ok)
{
	struct source *src = run_source_mem(&run, "t.md", text, strlen(text));
	struct seg *g = arena_alloc(&run.arena, sizeof(*g));
	struct etext in = { src->text, src->len, g, 1 };
	int saved = dup(2);
	FILE *null = fopen("/dev/null", "w");

	g->src = src->id;
	g->span = span_make(0, src->len);
	g->exact = true;
	fflush(stderr);
	dup2(fileno(null), 2);
	*ok = template_expand(&run, &vars, &in, &last);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(null);
	return arena_strndup(&run.arena, last.s, last.len);
}

/* n variables defined and each used once: must be fast. */
static void
linear(size_t n)
{
	struct buf text = BUF_INIT, want = BUF_INIT;
	clock_t t0 = clock();
	size_t i;
	bool ok;

	template_vars_init(&run, &vars);
	for (i = 0; i < n; i++) {
		char *name = arena_printf(&run.arena, "v%zu", i);
		char *val = arena_printf(&run.arena, "x%zu", i);

		template_var(&run, &vars, name, val, strlen(val), NULL,
		    span_make(0, 0));
		buf_printf(&text, "{{%s}} ", name);
		buf_printf(&want, "%s ", val);
	}
	CHECK_INT(template_nvars(&vars), n);
	CHECK_STR(expand(text.data, &ok), want.data);
	CHECK(ok);
	CHECK(template_var_at(&vars, n - 1)->used);
	/* Quadratic work (5e9 name comparisons) takes minutes here; linear
	 * work well under a second, ten under valgrind. */
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 60.0);
	buf_free(&text);
	buf_free(&want);
}

/* The block language (issue 11): the origins stay exact around it. */
static void
blocks(void)
{
	struct node *list = tree_array(&run.arena);
	unsigned before;
	struct span sp;
	uint32_t src;
	bool ok;

	tree_push(&run.arena, list, tree_str(&run.arena, "a"));
	tree_push(&run.arena, list, tree_str(&run.arena, "b"));
	template_var(&run, &vars, "on", "yes", 3, NULL, span_make(0, 0));
	template_var(&run, &vars, "off", "0", 1, NULL, span_make(0, 0));
	template_var_node(&run, &vars, "xs", list, NULL, span_make(0, 0));
	CHECK_STR(expand("{{if on}}A{{else}}B{{/if}}{{if off}}C{{else}}D{{/if}}",
	    &ok), "AD");
	CHECK(ok);
	CHECK_STR(expand("{{if !off}}neg{{/if}}", &ok), "neg");
	CHECK_STR(expand("[{{each xs as x}}<{{x}}>{{/each}}] {{xs}}", &ok),
	    "[<a><b>] a, b");
	CHECK(ok);
	CHECK_STR(expand("x{{// gone }}y \\{\\{z\\}\\}", &ok), "xy {{z}}");
	/* Text after a block keeps its exact origin. */
	CHECK_STR(expand("{{if on}}A{{/if}}tail", &ok), "Atail");
	CHECK(etext_locate(&last, 1, 4, &src, &sp));
	CHECK_INT(sp.off, 17);
	CHECK_INT(sp.len, 4);
	/* A skipped branch reports nothing. */
	before = run.diag.errors;
	CHECK_STR(expand("{{if off}}{{nope}}{{/if}}", &ok), "");
	CHECK(ok);
	CHECK_INT(run.diag.errors, before);
	expand("{{if on}}open", &ok);
	CHECK(!ok);
	expand("{{/each}}", &ok);
	CHECK(!ok);
	expand("{{each on as x}}{{/each}}", &ok);
	CHECK(!ok);
	CHECK_INT(run.diag.errors - before, 3);
}

/* Many "{{" that never close: still linear. */
static void
unclosed_braces(size_t n)
{
	struct buf text = BUF_INIT;
	clock_t t0 = clock();
	size_t i;
	bool ok;

	for (i = 0; i < n; i++)
		buf_puts(&text, "{{ x");
	CHECK_INT(strlen(expand(text.data, &ok)), 4 * n);
	CHECK(ok);
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 60.0);
	buf_free(&text);
}

/* SillyTavern's state-free macros in strata's texts (text/macros.h). */
static void
macros(void)
{
	bool ok;
	unsigned before;
	const char *r1, *r2;

	template_vars_init(&run, &vars);
	vars.now = "2026-01-02T15:04:05Z";
	vars.seed = "7";
	template_var(&run, &vars, "who", "Ada", 3, NULL, span_make(0, 0));
	CHECK_STR(expand("a{{newline}}b{{NewLine}}c{{noop}}", &ok),
	    "a\nb\nc");
	CHECK(ok);
	CHECK_STR(expand("{{reverse::abc}} {{reverse:é𝄞x}}", &ok),
	    "cba x𝄞é");
	CHECK_STR(expand("{{date}}|{{time}}|{{isodate}} {{isotime}}|"
	    "{{weekday}}|{{time_UTC+2}}|{{time_UTC-5}}|{{time::UTC+9}}", &ok),
	    "January 2, 2026|3:04 PM|2026-01-02 15:04|Friday|5:04 PM|"
	    "10:04 AM|12:04 AM");
	CHECK_STR(expand("{{datetimeformat YYYY/MM/DD [at] h A}}", &ok),
	    "2026/01/02 at 3 PM");
	/* {{trim}}: itself and the line ends written around it. */
	CHECK_STR(expand("x\n\n{{trim}}\r\n\ny", &ok), "xy");
	/* Inner first. */
	CHECK_STR(expand("{{reverse::{{who}}!}}", &ok), "!adA");
	/* Random ones: from --seed, the same seed the same bytes. */
	vars.rng_set = false;
	r1 = expand("{{random::a::b::c}} {{roll 3d6}} {{pick::p::q::r}} "
	    "{{random:x\\, y, z}}", &ok);
	CHECK(ok);
	vars.rng_set = false;
	r2 = expand("{{random::a::b::c}} {{roll 3d6}} {{pick::p::q::r}} "
	    "{{random:x\\, y, z}}", &ok);
	CHECK_STR(r1, r2);
	CHECK_STR(expand("{{roll:1d1+4}} {{roll::1}} {{random::only}}", &ok),
	    "5 1 only");
	/* A variable of a macro's name wins. */
	template_var(&run, &vars, "newline", "NL", 2, NULL, span_make(0, 0));
	CHECK_STR(expand("{{newline}}", &ok), "NL");
	/* Errors at their spans. */
	before = run.diag.errors;
	expand("{{roll}} {{roll::zz}} {{noop::x}} {{random}} {{char}} "
	    "{{getvar::x}} {{nosuch::x}} {{time_UTC+x}}", &ok);
	CHECK(!ok);
	CHECK_INT(run.diag.errors - before, 8);
	/* Not macros: an unknown name in the legacy forms stays text. */
	CHECK_STR(expand("{{foo bar}} {{foo:bar}} {{ not one }}", &ok),
	    "{{foo bar}} {{foo:bar}} {{ not one }}");
	CHECK(ok);
	/* Kept when the profile keeps unknown names. */
	vars.keep_unknown = true;
	CHECK_STR(expand("{{char}} {{nosuch::x}}", &ok),
	    "{{char}} {{nosuch::x}}");
	CHECK(ok);
	vars.keep_unknown = false;
}

int
main(void)
{
	bool ok;
	unsigned before;
	struct span sp;
	uint32_t src;

	run_init(&run);
	template_vars_init(&run, &vars);
	template_var(&run, &vars, "user", "Kei", 3, NULL, span_make(0, 0));
	template_var(&run, &vars, "a.b-c", "dotted", 6, NULL, span_make(0, 0));
	template_var(&run, &vars, "empty", "", 0, NULL, span_make(0, 0));
	CHECK_STR(expand("Hi {{user}}!", &ok), "Hi Kei!");
	CHECK(ok);
	/* The value's run stands for its placeholder; the rest is exact. */
	CHECK(etext_locate(&last, 3, 3, &src, &sp));
	CHECK_INT(sp.off, 3);
	CHECK_INT(sp.len, 8);
	CHECK(etext_locate(&last, 6, 1, &src, &sp));
	CHECK_INT(sp.off, 11);
	CHECK_STR(expand("{{ user }}/{{\tuser\t}}", &ok), "Kei/Kei");
	CHECK_STR(expand("{{a.b-c}}[{{empty}}]", &ok), "dotted[]");
	CHECK(template_var_at(&vars, 0)->used &&
	    template_var_at(&vars, 1)->used);
	/* Not placeholders: kept as written. */
	CHECK_STR(expand("{{ not one }} {x} {{}} {{1x}} {{user", &ok),
	    "{{ not one }} {x} {{}} {{1x}} {{user");
	CHECK(ok);
	CHECK_STR(expand("{{{user}}}", &ok), "{Kei}");
	/* Later definitions win (-v over [vars]) and keep their place. */
	template_var(&run, &vars, "user", "主人", 6, NULL, span_make(0, 0));
	CHECK_STR(expand("{{user}}", &ok), "主人");
	CHECK_INT(template_nvars(&vars), 3);
	CHECK_STR(template_var_at(&vars, 0)->value, "主人");
	/* Unknown: an error each, unless kept. */
	before = run.diag.errors;
	expand("{{nope}} and {{nada}}", &ok);
	CHECK(!ok);
	CHECK_INT(run.diag.errors - before, 2);
	vars.keep_unknown = true;
	CHECK_STR(expand("{{nope}} {{user}}", &ok), "{{nope}} 主人");
	CHECK(ok);
	vars.keep_unknown = false;
	blocks();
	macros();
	linear(100000);
	unclosed_braces(100000);
	run_free(&run);
	return check_done("test_template");
}
