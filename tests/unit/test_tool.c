/* The tool model: the shapes, the checks, the name index.  The prose is
 * test_tool_prose.c's; the provider-native objects are test_emit.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/map.h"
#include "check.h"
#include "json_input.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "diag/source.h"
#include "prompt/tool.h"
#include "data/tree.h"

static struct run run;
static char *stderr_text;       /* what the last read_tools() printed */

/* tool_read() on text; returns the number of errors it reported and
 * keeps what it printed in stderr_text. */
static unsigned
read_tools(const char *text, struct tool_list *list, bool *ok)
{
	struct node *n;
	unsigned before;

	/* Each case starts with fresh counts (and no message cap). */
	diag_init(&run.diag);
	n = json_input(&run, text);
	before = run.diag.errors;
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct buf b = BUF_INIT;
	char chunk[512];
	size_t k;
	bool r;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = tool_read(&run, n, list);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while ((k = fread(chunk, 1, sizeof(chunk), tmp)) > 0)
		buf_put(&b, chunk, k);
	fclose(tmp);
	free(stderr_text);
	buf_putc(&b, '\0');
	stderr_text = buf_detach(&b);
	if (ok)
		*ok = r;
	return run.diag.errors - before;
}

static unsigned
errors(const char *text)
{
	struct tool_list list = { 0 };
	bool ok;
	unsigned n = read_tools(text, &list, &ok);

	CHECK(ok == (n == 0));
	CHECK_INT(list.n, 0);
	return n;
}

/* One error, whose message contains want. */
#define CHECK_ERROR(text, want) do { \
	CHECK_INT(errors(text), 1); \
	if (!strstr(stderr_text, want)) { \
		check_failures++; \
		fprintf(stderr, "%s:%d: want \"%s\" in:\n%s", __FILE__, \
		    __LINE__, want, stderr_text); \
	} \
} while (0)

static char *
compact(const struct node *n)
{
	struct buf b = BUF_INIT;

	json_write(&b, n, -1);
	buf_putc(&b, '\0');
	return buf_detach(&b);
}

static void
test_shapes(void)
{
	struct tool_list list = { 0 };
	char *s;
	bool ok;

	/* Ours, with no parameters at all. */
	CHECK_INT(read_tools("{\"name\": \"now\", \"description\": \"The time.\"}",
	    &list, &ok), 0);
	CHECK(ok);
	CHECK_INT(list.n, 1);
	CHECK_STR(list.items[0]->name, "now");
	CHECK_STR(list.items[0]->description, "The time.");
	CHECK(list.items[0]->usage_hint == NULL);
	CHECK(list.items[0]->strict == NULL);
	s = compact(list.items[0]->parameters);
	CHECK_STR(s, "{\"type\":\"object\",\"properties\":{}}");
	free(s);

	/* OpenAI, usage_hint beside "function", strict inside. */
	CHECK_INT(read_tools("{\"type\": \"function\", \"function\": {\"name\": "
	    "\"search\", \"description\": \"Search the web.\", \"parameters\": "
	    "{\"type\": \"object\", \"properties\": {\"q\": {\"type\": "
	    "\"string\"}}, \"required\": [\"q\"], \"additionalProperties\": "
	    "false}, \"strict\": true}, \"usage_hint\": \"For fresh facts.\"}",
	    &list, &ok), 0);
	CHECK(ok);
	CHECK_INT(list.n, 2);
	CHECK_STR(list.items[1]->name, "search");
	CHECK_STR(list.items[1]->usage_hint, "For fresh facts.");
	CHECK(list.items[1]->strict && list.items[1]->strict->u.b);
	s = compact(list.items[1]->parameters);
	CHECK_STR(s, "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":"
	    "\"string\"}},\"required\":[\"q\"],\"additionalProperties\":"
	    "false}");
	free(s);

	/* OpenAI with usage_hint inside "function" and no type. */
	CHECK_INT(read_tools("{\"function\": {\"name\": \"f1\", \"description\": "
	    "\"One.\", \"usage_hint\": \"Inside.\"}}", &list, NULL), 0);
	CHECK_STR(list.items[2]->usage_hint, "Inside.");

	/* MCP, with the keys real servers send; the schema has no "type",
	 * so the tool gets a copy that has one, first. */
	CHECK_INT(read_tools("{\"name\": \"read_file\", \"title\": \"Read file\", "
	    "\"description\": \"Read a file.\", \"inputSchema\": "
	    "{\"properties\": {\"path\": {\"type\": \"string\"}}, "
	    "\"required\": [\"path\"]}, \"outputSchema\": {\"type\": "
	    "\"object\"}, \"annotations\": {\"readOnlyHint\": true}, "
	    "\"icons\": [], \"execution\": {}, \"_meta\": {}}", &list, &ok),
	    0);
	CHECK(ok);
	CHECK_STR(list.items[3]->name, "read_file");
	s = compact(list.items[3]->parameters);
	CHECK_STR(s, "{\"type\":\"object\",\"properties\":{\"path\":"
	    "{\"type\":\"string\"}},\"required\":[\"path\"]}");
	free(s);

	/* Anthropic's own shape. */
	CHECK_INT(read_tools("{\"name\": \"calc\", \"description\": \"Add.\", "
	    "\"input_schema\": {\"type\": \"object\", \"properties\": {}}}",
	    &list, NULL), 0);
	CHECK_STR(list.items[4]->name, "calc");
	CHECK_STR(list.items[4]->description, "Add.");

	/* OpenAI Responses' flat shape. */
	CHECK_INT(read_tools("{\"type\": \"function\", \"name\": \"flat\", "
	    "\"description\": \"Flat.\", \"strict\": false, \"parameters\": "
	    "{\"type\": \"object\", \"properties\": {}}}", &list, NULL), 0);
	CHECK_STR(list.items[5]->name, "flat");
	CHECK(list.items[5]->strict && !list.items[5]->strict->u.b);

	/* An array of mixed shapes, then an MCP tools/list result. */
	CHECK_INT(read_tools("[{\"name\": \"a1\", \"description\": \"A.\"},\n"
	    " {\"type\": \"function\", \"function\": {\"name\": \"a2\", "
	    "\"description\": \"B.\"}},\n"
	    " {\"name\": \"a3\", \"description\": \"C.\", \"inputSchema\": "
	    "{\"type\": \"object\"}}]", &list, &ok), 0);
	CHECK(ok);
	CHECK_INT(read_tools("{\"tools\": [{\"name\": \"b1\", \"description\": "
	    "\"D.\"}, {\"name\": \"b2\", \"description\": \"E.\"}], "
	    "\"nextCursor\": \"x\", \"_meta\": {}}", &list, &ok), 0);
	CHECK(ok);
	CHECK_INT(read_tools("[]", &list, &ok), 0);
	CHECK(ok);
	CHECK_INT(list.n, 11);
	CHECK_STR(list.items[6]->name, "a1");
	CHECK_STR(list.items[7]->name, "a2");
	CHECK_STR(list.items[8]->name, "a3");
	CHECK_STR(list.items[9]->name, "b1");
	CHECK_STR(list.items[10]->name, "b2");
}

/* A schema with a type is shared, not copied; without one it is copied
 * and the definition is left as it was. */
static void
test_sharing(void)
{
	struct tool_list list = { 0 };
	struct node *def, *schema;

	def = json_input(&run, "{\"name\": \"x\", \"description\": \"X.\", "
	    "\"parameters\": {\"type\": \"object\", \"properties\": {}}}");
	CHECK(tool_read(&run, def, &list));
	CHECK(list.items[0]->parameters == tree_get(def, "parameters"));
	def = json_input(&run, "{\"name\": \"y\", \"description\": \"Y.\", "
	    "\"parameters\": {\"properties\": {\"a\": {}}}}");
	CHECK(tool_read(&run, def, &list));
	schema = tree_get(def, "parameters");
	CHECK(list.items[1]->parameters != schema);
	CHECK(tree_get(schema, "type") == NULL);
	CHECK(tree_get(list.items[1]->parameters, "properties") ==
	    tree_get(schema, "properties"));
}

static void
test_errors(void)
{
	struct tool_list list = { 0 };
	char name[80];
	char *s;
	int i;
	bool ok;

	/* Not a definition at all. */
	CHECK_ERROR("42", "expected a tool definition (a table), found integer");
	CHECK_ERROR("[\"b\"]", "found string");
	CHECK_ERROR("{\"tools\": {}}", "'tools' must be an array (found table)");
	CHECK_ERROR("{\"tools\": [], \"cursor\": 1}",
	    "unknown key 'cursor' in a tool list");

	/* name and description. */
	CHECK_ERROR("{\"description\": \"d\"}", "tool definition has no 'name'");
	CHECK_ERROR("{\"name\": \"x\"}", "tool definition has no 'description'");
	CHECK_ERROR("{\"name\": 5, \"description\": \"d\"}",
	    "'name' must be a string (found integer)");
	CHECK_ERROR("{\"name\": \"\", \"description\": \"d\"}", "'name' is empty");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \" \\n\"}",
	    "'description' is empty");
	CHECK_ERROR("{\"name\": \"x\", \"description\": null}",
	    "'description' must be a string (found null)");
	CHECK_ERROR("{\"name\": \"a.b\", \"description\": \"d\"}",
	    "tool name 'a.b' is not allowed");
	CHECK_ERROR("{\"name\": \"a b\", \"description\": \"d\"}",
	    "tool name 'a b' is not allowed");
	CHECK_ERROR("{\"name\": \"\xc3\xa9t\xc3\xa9\", \"description\": \"d\"}",
	    "is not allowed");
	for (i = 0; i < 65; i++)
		name[i] = 'a' + i % 26;
	name[65] = '\0';
	s = malloc(200);
	snprintf(s, 200, "{\"name\": \"%s\", \"description\": \"d\"}", name);
	CHECK_ERROR(s, "is not allowed");
	name[64] = '\0';
	snprintf(s, 200, "{\"name\": \"%s\", \"description\": \"d\"}", name);
	CHECK_INT(read_tools(s, &list, &ok), 0);
	CHECK(ok);
	free(s);
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"usage_hint\": 3}",
	    "'usage_hint' must be a string (found integer)");

	/* Unknown keys, with a suggestion when one is close. */
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"descripton\": "
	    "\"e\"}", "unknown key 'descripton' in a tool definition; "
	    "did you mean 'description'?");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"params\": "
	    "{}}", "unknown key 'params' in a tool definition; "
	    "did you mean 'parameters'?");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"foo\": 1}",
	    "unknown key 'foo' in a tool definition\n");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"title\": \"T\"}",
	    "unknown key 'title' in a tool definition\n");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"inputSchema\": "
	    "{}, \"foo\": 1}", "unknown key 'foo' in an MCP tool definition");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"input_schema\": "
	    "{}, \"title\": 1}", "in an Anthropic tool definition");
	CHECK_ERROR("{\"type\": \"function\", \"function\": {\"name\": \"x\", "
	    "\"description\": \"d\"}, \"extra\": 1}",
	    "unknown key 'extra' in an OpenAI tool definition");
	CHECK_ERROR("{\"type\": \"function\", \"function\": {\"name\": \"x\", "
	    "\"description\": \"d\", \"paramters\": {}}}",
	    "unknown key 'paramters' in an OpenAI function; "
	    "did you mean 'parameters'?");

	/* The OpenAI envelope. */
	CHECK_ERROR("{\"type\": \"custom\", \"function\": {\"name\": \"x\", "
	    "\"description\": \"d\"}}", "unsupported tool type 'custom'");
	CHECK_ERROR("{\"type\": \"function\", \"function\": \"x\"}",
	    "'function' must be a table (found string)");
	CHECK_ERROR("{\"type\": \"function\", \"function\": {\"name\": \"x\", "
	    "\"description\": \"d\", \"usage_hint\": \"a\"}, \"usage_hint\": "
	    "\"b\"}", "'usage_hint' is given twice");
	CHECK(strstr(stderr_text, "note: first given here"));
	CHECK_ERROR("{\"type\": \"function\", \"function\": {\"name\": \"x\", "
	    "\"description\": \"d\", \"strict\": \"yes\"}}",
	    "'strict' must be true or false (found string)");
	CHECK_ERROR("{\"type\": 1, \"name\": \"x\", \"description\": \"d\"}",
	    "'type' must be a string (found integer)");

	/* Parameters that are not a JSON Schema object. */
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "[]}", "'parameters' must be a JSON Schema object (found array)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"inputSchema\": "
	    "\"s\"}", "'inputSchema' must be a JSON Schema object "
	    "(found string)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"type\": \"array\"}}",
	    "the parameters schema must have \"type\": \"object\"");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"type\": [\"object\"]}}", "must have \"type\": \"object\"");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": []}}", "'properties' must be a table "
	    "(found array)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": \"string\"}}}",
	    "property 'a' must be a JSON Schema object (found string)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": \"str\"}}}}",
	    "unknown type 'str': JSON Schema types are");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": [\"string\", 1]}}}}",
	    "'type' must be a type name or a non-empty array of them "
	    "(found integer)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": []}}}}", "(found array)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": true}}}}", "(found boolean)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": [\"string\", \"nul\"]}}}}",
	    "unknown type 'nul'");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {}}, \"required\": \"a\"}}",
	    "'required' must be an array (found string)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {}}, \"required\": [\"a\", 1]}}",
	    "'required' must list property names (found integer)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {}}, \"required\": [\"a\", \"b\"]}}",
	    "required property 'b' is not in 'properties'");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"required\": [\"a\"]}}", "required property 'a'");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"enum\": \"x\"}}}}",
	    "'enum' must be an array (found string)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": \"array\", \"items\": "
	    "[]}}}}", "'items' must be a JSON Schema object (found array)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": \"array\", \"items\": "
	    "{\"type\": \"foo\"}}}}}", "unknown type 'foo'");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"type\": \"object\", \"properties\": "
	    "{\"b\": {\"type\": \"object\", \"required\": [\"c\"]}}}}}}",
	    "required property 'c'");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"anyOf\": {}}}}}",
	    "'anyOf' must be an array (found table)");
	CHECK_ERROR("{\"name\": \"x\", \"description\": \"d\", \"parameters\": "
	    "{\"properties\": {\"a\": {\"oneOf\": [{\"type\": \"string\"}, "
	    "3]}}}}", "an 'oneOf' entry must be a JSON Schema object "
	    "(found integer)");

	/* Every error in a definition is reported, and it is not kept. */
	CHECK_INT(errors("{\"name\": \"a b\", \"description\": \"\", "
	    "\"parameters\": {\"type\": \"object\", \"properties\": {\"x\": "
	    "{\"type\": \"str\"}}, \"required\": [\"y\"]}, \"foo\": 1}"), 5);
	/* ... and every definition of an array is checked. */
	CHECK_INT(read_tools("[{\"name\": \"ok1\", \"description\": \"d\"}, "
	    "{\"name\": \"bad\"}, {\"name\": \"ok2\", \"description\": "
	    "\"d\"}, {\"description\": \"d\"}]", &list, &ok), 2);
	CHECK(!ok);
	CHECK_INT(list.n, 3);   /* the 64-letter name, ok1, ok2 */
	CHECK_STR(list.items[1]->name, "ok1");
	CHECK_STR(list.items[2]->name, "ok2");
}

static void
test_locations(void)
{
	struct tool_list list = { 0 };
	bool ok;

	/* Errors point at the offending node or key. */
	CHECK_INT(read_tools("{\n"
	    "  \"name\": \"x\",\n"
	    "  \"description\": \"d\",\n"
	    "  \"parameters\": {\n"
	    "    \"properties\": {\n"
	    "      \"a\": {\"type\": \"str\"},\n"
	    "      \"b\": {}\n"
	    "    },\n"
	    "    \"required\": [\"b\", \"zz\"]\n"
	    "  },\n"
	    "  \"usage\": \"u\"\n"
	    "}", &list, &ok), 3);
	CHECK(!ok);
	CHECK(strstr(stderr_text, "t.json:6:21: error: unknown type 'str'"));
	CHECK(strstr(stderr_text, "t.json:9:23: error: required property 'zz'"));
	CHECK(strstr(stderr_text, "t.json:11:3: error: unknown key 'usage' in "
	    "a tool definition; did you mean 'usage_hint'?"));

	/* A name defined twice: the error at the second, a note at the
	 * first, within one read and across reads. */
	CHECK_INT(read_tools("[{\"name\": \"twice\", \"description\": \"1\"},\n"
	    " {\"name\": \"twice\", \"description\": \"2\"}]", &list, &ok), 1);
	CHECK(!ok);
	CHECK(strstr(stderr_text, "t.json:2:11: error: tool 'twice' is "
	    "defined twice"));
	CHECK(strstr(stderr_text, "t.json:1:11: note: first defined here"));
	CHECK_INT(list.n, 1);
	CHECK_STR(list.items[0]->description, "1");
	CHECK_INT(read_tools("\n{\"type\": \"function\", \"function\": {\"name\": "
	    "\"twice\", \"description\": \"3\"}}", &list, &ok), 1);
	CHECK(strstr(stderr_text, "t.json:2:43: error: tool 'twice' is "
	    "defined twice"));
	CHECK_INT(list.n, 1);
}

/* Deep schemas fail fast, with one message.  Built with the tree
 * builders: the JSON reader may have its own, lower, nesting limit. */
static void
test_depth(void)
{
	struct tool_list list = { 0 };
	struct arena *a = &run.arena;
	struct node *def, *s, *props;
	unsigned before;
	int i;

	diag_init(&run.diag);
	before = run.diag.errors;

	def = tree_table(a);
	tree_put(a, def, "name", tree_str(a, "deep"));
	tree_put(a, def, "description", tree_str(a, "d"));
	s = tree_put(a, def, "parameters", tree_table(a));
	for (i = 0; i < 100; i++) {
		props = tree_put(a, s, "properties", tree_table(a));
		s = tree_put(a, props, "a", tree_table(a));
		tree_put(a, s, "type", tree_str(a, "array"));
		s = tree_put(a, s, "items", tree_table(a));
	}
	fflush(stderr);
	fprintf(stderr, "(one \"nesting deeper\" error expected)\n");
	CHECK(!tool_read(&run, def, &list));
	CHECK_INT(run.diag.errors - before, 1);
	CHECK_INT(list.n, 0);
}

/* The name index: many tools keep their order, and a duplicate is
 * found against any of them, in a later read too. */
static void
test_many(void)
{
	struct tool_list list = { 0 };
	struct buf b = BUF_INIT;
	size_t i;
	bool ok;

	buf_putc(&b, '[');
	for (i = 0; i < 5000; i++)
		buf_printf(&b, "%s{\"name\": \"t%zu\", \"description\": \"d\"}",
		    i ? ", " : "", i);
	buf_putc(&b, ']');
	CHECK_INT(read_tools(b.data, &list, &ok), 0);
	CHECK(ok);
	CHECK_INT(list.n, 5000);
	CHECK_STR(list.items[0]->name, "t0");
	CHECK_STR(list.items[4999]->name, "t4999");
	CHECK_INT(list.names.n, 5000);
	CHECK(map_get(&list.names, "t1234", 5) == list.items[1234]);
	CHECK_INT(read_tools("{\"name\": \"t4321\", \"description\": \"d\"}",
	    &list, &ok), 1);
	CHECK(!ok);
	CHECK(strstr(stderr_text, "tool 't4321' is defined twice"));
	CHECK(strstr(stderr_text, "t.json:1:"));
	CHECK_INT(list.n, 5000);
	buf_free(&b);
}

int
main(void)
{
	run_init(&run);
	test_shapes();
	test_sharing();
	test_errors();
	test_locations();
	test_depth();
	test_many();
	free(stderr_text);
	run_free(&run);
	return check_done("test_tool");
}
