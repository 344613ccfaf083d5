/* {{NAME}} placeholders: values, literal braces, unknown names. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "diag/run.h"
#include "diag/source.h"
#include "text/template.h"

static struct run run;
static struct tvars vars;
static struct buf b;

static const char *
expand(const char *text, bool *ok)
{
	struct source *src = run_source_mem(&run, "t.md", text, strlen(text));
	int saved = dup(2);
	FILE *null = fopen("/dev/null", "w");

	buf_reset(&b);
	fflush(stderr);
	dup2(fileno(null), 2);
	*ok = template_expand(&run, &vars, src->text, src->len, src, 0, true,
	    span_make(0, 0), &b);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(null);
	return b.data ? b.data : "";
}

int
main(void)
{
	bool ok;
	unsigned before;

	run_init(&run);
	template_var(&run, &vars, "user", "Kei", 3, NULL, span_make(0, 0));
	template_var(&run, &vars, "a.b-c", "dotted", 6, NULL, span_make(0, 0));
	template_var(&run, &vars, "empty", "", 0, NULL, span_make(0, 0));
	CHECK_STR(expand("Hi {{user}}!", &ok), "Hi Kei!");
	CHECK(ok);
	CHECK_STR(expand("{{ user }}/{{\tuser\t}}", &ok), "Kei/Kei");
	CHECK_STR(expand("{{a.b-c}}[{{empty}}]", &ok), "dotted[]");
	CHECK(vars.items[0].used && vars.items[1].used);
	/* Not placeholders: kept as written. */
	CHECK_STR(expand("{{ not one }} {x} {{}} {{1x}} {{user", &ok),
	    "{{ not one }} {x} {{}} {{1x}} {{user");
	CHECK(ok);
	/* Later definitions win (-v over [vars]). */
	template_var(&run, &vars, "user", "主人", 6, NULL, span_make(0, 0));
	CHECK_STR(expand("{{user}}", &ok), "主人");
	CHECK_INT(vars.n, 3);
	/* Unknown: an error each, unless kept. */
	before = run.diag.errors;
	expand("{{nope}} and {{nada}}", &ok);
	CHECK(!ok);
	CHECK_INT(run.diag.errors - before, 2);
	vars.keep_unknown = true;
	CHECK_STR(expand("{{nope}} {{user}}", &ok), "{{nope}} 主人");
	CHECK(ok);
	buf_free(&b);
	run_free(&run);
	return check_done("test_template");
}
