/* The tools section of the system prompt (layers/tool_prose.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "json_input.h"
#include "data/json.h"
#include "diag/run.h"
#include "layers/tool_prose.h"
#include "prompt/tool.h"

static struct run run;

/* Read the tool definitions in text into list; they must be valid. */
static void
add(struct tool_list *list, const char *text)
{
	if (!tool_read(&run, json_input(&run, text), list)) {
		fprintf(stderr, "invalid test tools:\n%s\n", text);
		exit(1);
	}
}

static char *
prose(const struct tool_list *list)
{
	struct buf b = BUF_INIT;

	tool_prose(&b, list, NULL);
	buf_putc(&b, '\0');
	return buf_detach(&b);
}

static const char weather[] =
    "{\n"
    "  \"name\": \"get_weather\",\n"
    "  \"description\": \"Get the current weather for a city.\\n\",\n"
    "  \"parameters\": {\n"
    "    \"type\": \"object\",\n"
    "    \"properties\": {\n"
    "      \"city\": {\"type\": \"string\",\n"
    "        \"description\": \"City name\"},\n"
    "      \"unit\": {\"type\": \"string\",\n"
    "        \"description\": \"Temperature unit\",\n"
    "        \"enum\": [\"c\", \"f\"], \"default\": \"c\"},\n"
    "      \"filters\": {\"type\": \"object\",\n"
    "        \"description\": \"Narrow the result.\",\n"
    "        \"properties\": {\n"
    "          \"days\": {\"type\": \"integer\",\n"
    "            \"description\": \"How many days ahead.\\r\\n"
    "At most 7.  \\n\\n  Counted from today.\",\n"
    "            \"default\": 1},\n"
    "          \"hourly\": {\"type\": \"boolean\"}\n"
    "        },\n"
    "        \"required\": [\"days\"]},\n"
    "      \"tags\": {\"type\": \"array\",\n"
    "        \"items\": {\"type\": \"string\"}},\n"
    "      \"stops\": {\"type\": \"array\",\n"
    "        \"description\": \"Stops on the way.\",\n"
    "        \"items\": {\"type\": \"object\", \"properties\": {\n"
    "          \"name\": {\"type\": \"string\"},\n"
    "          \"lat\": {\"type\": \"number\",\n"
    "            \"description\": \"Latitude\"}},\n"
    "          \"required\": [\"name\"]}},\n"
    "      \"note\": {\"anyOf\": [{\"type\": \"string\"},\n"
    "        {\"type\": \"null\"},\n"
    "        {\"type\": \"string\", \"format\": \"date\"}],\n"
    "        \"description\": \"A note\", \"default\": null},\n"
    "      \"mode\": {\"enum\": [\"fast\", \"slow\"]},\n"
    "      \"level\": {\"type\": [\"integer\", \"null\"],\n"
    "        \"enum\": [1, 2, null],\n"
    "        \"description\": \"\xe7\xad\x89\xe7\xba\xa7\xe3\x80\x82\"},\n"
    "      \"extra\": {},\n"
    "      \"where\": {\"anyOf\": [{\"type\": \"object\",\n"
    "        \"properties\": {\n"
    "        \"x\": {\"type\": \"number\"}}}, {\"type\": \"null\"}]}\n"
    "    },\n"
    "    \"required\": [\"city\"]\n"
    "  },\n"
    "  \"usage_hint\": \"Call it when the user asks about the weather.\"\n"
    "}\n";

static const char weather_prose[] =
    "You can call the following tools.\n"
    "\n"
    "### get_weather\n"
    "Get the current weather for a city.\n"
    "Parameters:\n"
    "- city (string, required): City name\n"
    "- unit (string, optional): Temperature unit. One of: \"c\", \"f\". "
    "Default: \"c\".\n"
    "- filters (object, optional): Narrow the result.\n"
    "  - days (integer, required): How many days ahead.\n"
    "    At most 7.\n"
    "\n"
    "      Counted from today. Default: 1.\n"
    "  - hourly (boolean, optional)\n"
    "- tags (array of string, optional)\n"
    "- stops (array of object, optional): Stops on the way.\n"
    "  - name (string, required)\n"
    "  - lat (number, optional): Latitude\n"
    "- note (string or null, optional): A note. Default: null.\n"
    "- mode (string, optional): One of: \"fast\", \"slow\".\n"
    "- level (integer or null, optional): \xe7\xad\x89\xe7\xba\xa7\xe3\x80\x82"
    " One of: 1, 2, null.\n"
    "- extra (any, optional)\n"
    "- where (object or null, optional)\n"
    "  - x (number, optional)\n"
    "When to use: Call it when the user asks about the weather.\n"
    "\n"
    "### ping\n"
    "Check that the server is up.\n"
    "Parameters: none.";

static void
test_prose(void)
{
	struct tool_list list = { 0 };
	char *s;

	s = prose(&list);
	CHECK_STR(s, "");
	free(s);
	add(&list, weather);
	add(&list, "{\"name\": \"ping\", \"inputSchema\": "
	    "{\"type\": \"object\"},\n"
	    " \"description\": \"Check that the server is up.\"}");
	CHECK_INT(list.n, 2);
	s = prose(&list);
	CHECK_STR(s, weather_prose);
	free(s);
	/* The same again: nothing depends on state. */
	s = prose(&list);
	CHECK_STR(s, weather_prose);
	free(s);
}

/* Tools come in list order, whatever their shapes. */
static void
test_order(void)
{
	struct tool_list list = { 0 };
	char *s;

	add(&list, "[{\"name\": \"now\", \"description\": \"The time.\"},\n"
	    " {\"type\": \"function\", \"function\": {\"name\": \"search\", "
	    "\"description\": \"Search the web.\", \"parameters\": {\"type\": "
	    "\"object\", \"properties\": {\"q\": {\"type\": \"string\"}}, "
	    "\"required\": [\"q\"]}}, \"usage_hint\": \"For fresh facts.\"},\n"
	    " {\"name\": \"read_file\", \"description\": \"Read a file.\", "
	    "\"inputSchema\": {\"properties\": {\"path\": {\"type\": "
	    "\"string\"}}, \"required\": [\"path\"]}},\n"
	    " {\"type\": \"function\", \"name\": \"flat\", \"description\": "
	    "\"Flat.\"},\n"
	    " {\"name\": \"a1\", \"description\": \"A.\"}]");
	s = prose(&list);
	CHECK(strstr(s, "### now\n") < strstr(s, "### search\n"));
	CHECK(strstr(s, "### flat\nFlat.\nParameters: none.\n\n### a1"));
	CHECK(strstr(s, "### read_file\nRead a file.\nParameters:\n"
	    "- path (string, required)\n\n"));
	CHECK(strstr(s, "### search\nSearch the web.\nParameters:\n"
	    "- q (string, required)\nWhen to use: For fresh facts.\n\n"));
	free(s);
}

/* required: a name listed twice counts once; a long list is a set. */
static void
test_required(void)
{
	struct tool_list list = { 0 };
	struct buf def = BUF_INIT, want = BUF_INIT;
	size_t i, n = 3000;
	char *s;

	add(&list, "{\"name\": \"r\", \"description\": \"R.\", \"parameters\": "
	    "{\"properties\": {\"a\": {}, \"b\": {}, \"c\": {}}, "
	    "\"required\": [\"c\", \"a\", \"c\"]}}");
	s = prose(&list);
	CHECK_STR(s, "You can call the following tools.\n\n### r\nR.\n"
	    "Parameters:\n- a (any, required)\n- b (any, optional)\n"
	    "- c (any, required)");
	free(s);

	/* n properties, the even ones required, listed backwards. */
	list = (struct tool_list){ 0 };
	buf_puts(&def, "{\"name\": \"big\", \"description\": \"B.\", "
	    "\"parameters\": {\"properties\": {");
	buf_puts(&want, "You can call the following tools.\n\n### big\nB.\n"
	    "Parameters:");
	for (i = 0; i < n; i++) {
		buf_printf(&def, "%s\"p%zu\": {\"type\": \"string\"}",
		    i ? ", " : "", i);
		buf_printf(&want, "\n- p%zu (string, %s)", i,
		    i % 2 ? "optional" : "required");
	}
	buf_puts(&def, "}, \"required\": [");
	for (i = n; i-- > 0; )
		if (i % 2 == 0)
			buf_printf(&def, "\"p%zu\"%s", i, i ? ", " : "");
	buf_puts(&def, "]}}");
	add(&list, def.data);
	s = prose(&list);
	CHECK_STR(s, want.data);
	free(s);
	buf_free(&def);
	buf_free(&want);
}

int
main(void)
{
	run_init(&run);
	test_prose();
	test_order();
	test_required();
	run_free(&run);
	return check_done("test_tool_prose");
}
