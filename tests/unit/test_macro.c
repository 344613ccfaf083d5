/*
 * macro_fixed(): which texts' macros give the same result at any time,
 * so that a regex script's replacement may run late or never.
 */
#include <string.h>

#include "base/util.h"
#include "check.h"
#include "tavern/macro.h"

static struct macro_env env;

static bool
fixed(const char *s)
{
	return macro_fixed(&env, s, strlen(s));
}

int
main(void)
{
	progname = "test_macro";
	env.user = "Sam";
	env.char_name = "Mira";
	/* As tbuild gives them: card texts already substituted. */
	env.description = "Mira keeps the lighthouse.";
	env.last_message = "Always.";

	/* No macro, a fixed one, legacy names, time, pick, a comment, an
	 * unknown name. */
	CHECK(fixed("plain text"));
	CHECK(fixed("{{char}}: hello {{user}}"));
	CHECK(fixed("<USER> and <BOT>"));
	CHECK(fixed("{{time}} {{date}} {{pick::a,b}} {{// note}} "
	    "{{whatever}}"));
	CHECK(fixed("{{lastMessage}} {{newline}} {{trim}}"));
	/* What changes state or reads it: any case, blanks after "{{". */
	CHECK(!fixed("{{setvar::a::1}}"));
	CHECK(!fixed("{{ADDVAR::a::1}}"));
	CHECK(!fixed("{{getvar::a}}"));
	CHECK(!fixed("{{ getglobalvar::a}}"));
	CHECK(!fixed("{{incvar::a}} {{decglobalvar::b}}"));
	CHECK(!fixed("{{random::a,b}}"));
	CHECK(!fixed("{{roll:d6}}"));
	CHECK(!fixed("{{outlet::x}}"));
	CHECK(!fixed("{{lastChatMessage}}"));
	/* A macro that others could build: nested, unclosed, a lone '{'. */
	CHECK(!fixed("{{ran{{noop}}dom::a,b}}"));
	CHECK(!fixed("{{char"));
	CHECK(!fixed("{x}"));
	/* A value the text may insert holds "{{": a later step could run
	 * it, so no text with a macro is fixed... */
	env.description = "{{random::a,b}}";
	CHECK(!fixed("{{char}}"));
	CHECK(!fixed("<USER>"));
	/* ...but a text without one is. */
	CHECK(fixed("plain"));
	/* A single '{' in a value is enough: next to other text it may
	 * open one. */
	env.description = "Mira keeps the lighthouse.";
	env.user = "Sam{";
	CHECK(!fixed("{{char}}"));
	env.user = "Sam";
	CHECK(fixed("{{char}}"));
	return check_done("macro");
}
