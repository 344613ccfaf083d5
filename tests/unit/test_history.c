/*
 * The history reader (pipeline/history*.c): a plain history read by the
 * fast scanner, its text borrowing the file's bytes; system and
 * developer text split out; strata's, OpenAI's, Anthropic's and
 * Gemini's shapes of tool calls, results, parts and reasoning; and the
 * errors, each at its line and column, with the general reader's
 * messages whichever reader started.
 */
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "check.h"
#include "diag/run.h"
#include "pipeline/stages.h"

static struct run run;
static struct buf msgs;
static struct inputs in;

static bool
hread(const char *text)
{
	struct source *src = run_source_mem(&run, "h.json", text,
	    strlen(text));

	buf_reset(&msgs);
	run.diag.errors = run.diag.warnings = 0;
	buf_free(&in.base);
	buf_free(&in.devbase);
	memset(&in, 0, sizeof(in));
	return history_parse(&run, src, &in);
}

static bool
said(const char *s)
{
	return msgs.data && strstr(msgs.data, s) != NULL;
}

static bool
text_is(size_t i, const char *s)
{
	return i < in.nhist && in.hist[i].len == strlen(s) &&
	    memcmp(in.hist[i].content, s, in.hist[i].len) == 0;
}

int
main(void)
{
	const struct message_extra *x;
	const char *plain = "[{\"role\": \"user\", \"content\": \"hi\"},\n"
	    " {\"content\": \"hello\", \"role\": \"assistant\", "
	    "\"name\": \"Mira\"}]";

	run_init(&run);
	run.diag.to = &msgs;

	/* A plain history: messages in order, text borrowed from the
	 * source, spans on each element. */
	CHECK(hread(plain));
	CHECK_INT(in.nhist, 2);
	CHECK_INT(in.hist[0].role, ROLE_USER);
	CHECK(text_is(0, "hi"));
	CHECK(text_is(1, "hello"));
	CHECK_STR(in.hist[1].name, "Mira");
	CHECK(in.hist[0].origin == ORIGIN_HISTORY);
	CHECK(in.hist[0].has_src);
	CHECK_INT(in.hist[1].span.off, strchr(plain, '\n') + 2 - plain);
	CHECK(in.hist[0].content > in.histsrc->text &&
	    in.hist[0].content < in.histsrc->text + in.histsrc->len);

	/* Escapes decoded; system and developer text goes to base and
	 * devbase, trimmed and joined by a blank line. */
	CHECK(hread("[{\"role\":\"system\",\"content\":\"\\n A \\n\"},"
	    "{\"role\":\"developer\",\"content\":\"D\"},"
	    "{\"role\":\"system\",\"content\":\"B\"},"
	    "{\"role\":\"user\",\"content\":\"a\\u00e9\\n\\\"q\\\"\"}]"));
	CHECK_INT(in.nhist, 1);
	CHECK(text_is(0, "a\xc3\xa9\n\"q\""));
	/* Blank lines and trailing white space go; an indent stays. */
	CHECK_INT(in.base.len, 5);
	CHECK(memcmp(in.base.data, " A\n\nB", 5) == 0);
	CHECK_INT(in.devbase.len, 1);

	/* The empty array; then errors, at their place. */
	CHECK(hread(" [ ] "));
	CHECK_INT(in.nhist, 0);
	CHECK(!hread("{\"role\":\"user\"}"));
	CHECK(said("h.json:1:1: error:"));
	CHECK(!hread("[{\"role\":\"user\",\"content\":\"a\",\"mood\":1}]"));
	CHECK(said("h.json:1:31: error:"));
	CHECK(said("mood"));
	CHECK(!hread("[{\"role\":\"wizard\",\"content\":\"a\"}]"));
	CHECK(said("h.json:1:10: error:"));
	CHECK(said("wizard"));
	CHECK(!hread("[{\"content\":\"a\"}]"));
	CHECK(said("role"));
	CHECK(!hread("[\"text\"]"));
	CHECK(said("h.json:1:2: error:"));
	/* Every element is checked: two errors, two messages. */
	CHECK(!hread("[{\"role\":1,\"content\":\"a\"},\n"
	    "{\"role\":\"user\",\"content\":\"a\",\"name\":2}]"));
	CHECK_INT(run.diag.errors, 2);
	CHECK(said("h.json:2:"));
	/* A name OpenAI refuses makes the fast scanner give up: the
	 * general reader takes it as it is (the emitters judge names). */
	CHECK(hread("[{\"role\":\"user\",\"content\":\"a\",\"name\":\"a b\"}]"));
	CHECK_STR(in.hist[0].name, "a b");
	CHECK(text_is(0, "a"));

	/* OpenAI tool calls and their result, paired by id. */
	CHECK(hread("[{\"role\":\"assistant\",\"content\":null,\"tool_calls\":"
	    "[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":"
	    "\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Vell\\\"}\"}}]},"
	    "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"rain\"}]"));
	CHECK_INT(in.nhist, 2);
	x = in.hist[0].x;
	CHECK(x && x->ncalls == 1);
	CHECK_STR(x->calls[0].id, "c1");
	CHECK_STR(x->calls[0].name, "weather");
	x = in.hist[1].x;
	CHECK_INT(in.hist[1].role, ROLE_TOOL);
	CHECK(x && x->call_id && strcmp(x->call_id, "c1") == 0);
	CHECK_STR(x->call_name, "weather");
	CHECK(text_is(1, "rain"));
	/* A result for no call; a call id given twice; calls on a user
	 * message; arguments that are not an object. */
	CHECK(!hread("[{\"role\":\"tool\",\"tool_call_id\":\"zz\","
	    "\"content\":\"r\"}]"));
	CHECK(said("zz"));
	CHECK(!hread("[{\"role\":\"assistant\",\"tool_calls\":["
	    "{\"id\":\"c\",\"function\":{\"name\":\"f\"}},"
	    "{\"id\":\"c\",\"function\":{\"name\":\"f\"}}]}]"));
	CHECK_INT(run.diag.errors, 1);
	CHECK(!hread("[{\"role\":\"user\",\"content\":\"a\",\"tool_calls\":[]}]"));
	CHECK(said("tool_calls"));
	CHECK(!hread("[{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\","
	    "\"function\":{\"name\":\"f\",\"arguments\":\"[1]\"}}]}]"));
	CHECK_INT(run.diag.errors, 1);

	/* Anthropic: tool_use in the assistant turn, tool_result in the
	 * user's (a tool message of its own, then the rest). */
	CHECK(hread("[{\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
	    "\"text\":\"let me see\"},{\"type\":\"tool_use\",\"id\":\"t1\","
	    "\"name\":\"look\",\"input\":{}}]},{\"role\":\"user\",\"content\":"
	    "[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":"
	    "\"seen\",\"is_error\":true},{\"type\":\"text\",\"text\":\"ok\"}]}]"));
	CHECK_INT(in.nhist, 3);
	CHECK_INT(in.hist[1].role, ROLE_TOOL);
	CHECK(in.hist[1].x && in.hist[1].x->is_error);
	CHECK(text_is(1, "seen"));
	CHECK_INT(in.hist[2].role, ROLE_USER);

	/* Gemini: role model, parts, a functionCall answered by name. */
	CHECK(hread("[{\"role\":\"model\",\"parts\":[{\"functionCall\":"
	    "{\"name\":\"look\",\"args\":{}}}]},{\"role\":\"user\",\"parts\":"
	    "[{\"functionResponse\":{\"name\":\"look\",\"response\":"
	    "{\"output\":\"x\"}}}]}]"));
	CHECK_INT(in.nhist, 2);
	CHECK_INT(in.hist[0].role, ROLE_ASSISTANT);
	CHECK_INT(in.hist[1].role, ROLE_TOOL);
	CHECK_STR(in.hist[1].x->call_name, "look");
	CHECK(!hread("[{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
	    "{\"name\":\"nobody\",\"response\":{}}}]}]"));
	CHECK(said("nobody"));

	/* Reasoning given before its assistant message goes on it. */
	CHECK(hread("[{\"role\":\"user\",\"content\":\"q\"},{\"role\":"
	    "\"thinking\",\"content\":\"hmm\"},{\"role\":\"assistant\","
	    "\"content\":\"a\"}]"));
	CHECK_INT(in.nhist, 2);
	x = in.hist[1].x;
	CHECK(x && x->reasoning_len == 3 &&
	    memcmp(x->reasoning, "hmm", 3) == 0);
	CHECK(!hread("[{\"role\":\"thinking\",\"content\":1}]"));
	CHECK_INT(run.diag.errors, 1);

	/* An image by URL is a part; a system message may not have one. */
	CHECK(hread("[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	    "\"text\":\"see\"},{\"type\":\"image_url\",\"image_url\":"
	    "{\"url\":\"https://e.org/a.png\"}}]}]"));
	CHECK(in.hist[0].x && in.hist[0].x->nparts == 2);
	CHECK_INT(in.hist[0].x->parts[1].kind, PART_IMAGE);
	CHECK(!hread("[{\"role\":\"system\",\"content\":[{\"type\":\"image_url\","
	    "\"image_url\":{\"url\":\"https://e.org/a.png\"}}]}]"));
	CHECK(said("image"));

	buf_free(&in.base);
	buf_free(&in.devbase);
	buf_free(&msgs);
	run_free(&run);
	return check_done("history");
}
