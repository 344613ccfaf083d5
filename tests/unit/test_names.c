/* Unit tests: prompt/names, the spellings of the prompt model. */
#include "prompt/names.h"

#include <string.h>

#include "check.h"

static int
prio(const char *s)
{
	int v = -999;

	return names_priority_parse(s, strlen(s), &v) ? v : -999;
}

int
main(void)
{
	enum out_format f;

	/* DESIGN.md's names and seed 000's, and its constants. */
	CHECK_INT(prio("safety"), 10);
	CHECK_INT(prio("persona"), 30);
	CHECK_INT(prio("reaction_plan"), 90);
	CHECK_INT(prio("character_profile"), 30);
	CHECK_INT(prio("character_state"), 40);
	CHECK_INT(prio("character_relationship"), 50);
	CHECK_INT(prio("character_memories"), 60);
	CHECK_INT(prio("world_book"), 65);
	CHECK_INT(prio("knowledge_rag"), 70);
	CHECK_INT(prio("tool_instructions"), 80);
	CHECK_INT(prio("PRIORITY_KNOWLEDGE_RAG"), 70);
	CHECK_INT(prio("PRIORITY_SAFETY"), 10);
	CHECK_INT(prio("PRIORITY_knowledge_rag"), -999);
	CHECK_INT(prio("Safety"), -999);
	/* Integers: a sign, digits, nothing else. */
	CHECK_INT(prio("0"), 0);
	CHECK_INT(prio("-5"), -5);
	CHECK_INT(prio("1000"), 1000);
	CHECK_INT(prio(" 5"), -999);
	CHECK_INT(prio("+5"), -999);
	CHECK_INT(prio("5x"), -999);
	CHECK_INT(prio(""), -999);
	CHECK_INT(prio("99999999999"), -999);
	/* Names print as they parse. */
	CHECK_STR(names_role(ROLE_DEVELOPER), "developer");
	CHECK_STR(names_scope(SCOPE_SESSION), "session");
	CHECK_STR(names_style(STYLE_TAGGED), "tagged");
	CHECK(names_format_parse("gemini", &f) && f == FORMAT_GEMINI);
	CHECK(!names_format_parse("Gemini", &f));
	CHECK_INT(names_index(names_roles, "user", 4), ROLE_USER);
	CHECK_INT(names_index(names_roles, "use", 3), -1);
	return check_done("names");
}
