/*
 * The emitters, on chats built by hand: the bytes of each format for
 * small cases, the errors they raise, and the token estimate and the
 * fingerprints strata(1) documents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "check.h"
#include "json_input.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "emit/emit_html.h"
#include "prompt/chat.h"
#include "profile/profile.h"

static struct run run;
static struct profile profile;

/* A chat with a model and no messages, for the profile "p.toml". */
static void
chat_init(struct chat *c, enum out_format f)
{
	memset(c, 0, sizeof(*c));
	c->profile = &profile;
	c->format = f;
	c->model = "m1";
	stack_init(&c->stack, &run.arena);
}

static struct message *
add(struct chat *c, enum role role, enum origin origin, const char *text)
{
	struct message *m;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4;
		c->msgs = realloc(c->msgs, c->cap * sizeof(*c->msgs));
	}
	m = &c->msgs[c->n++];
	memset(m, 0, sizeof(*m));
	m->role = role;
	m->origin = origin;
	m->content = text;
	m->len = strlen(text);
	return m;
}

/* The usual chat: a system prompt and a user turn. */
static void
basic(struct chat *c, enum out_format f)
{
	chat_init(c, f);
	add(c, ROLE_SYSTEM, ORIGIN_SYSTEM, "Be brief.");
	add(c, ROLE_USER, ORIGIN_TURN, "hi");
}

/* A chat of one user turn, no system prompt. */
static void
user_only(struct chat *c)
{
	chat_init(c, FORMAT_OPENAI);
	add(c, ROLE_USER, ORIGIN_TURN, "hi");
}

/* Run emitter fn on c; returns its bytes (NULL when it failed) and
 * counts the errors it reported in *nerr. */
static char *
emit(emit_fn *fn, const struct chat *c, unsigned *nerr)
{
	struct buf out = BUF_INIT;
	unsigned before = run.diag.errors;
	bool ok = fn(&run, c, &out);

	*nerr = run.diag.errors - before;
	if (!ok) {
		CHECK_INT(out.len, 0);
		buf_free(&out);
		return NULL;
	}
	buf_putc(&out, '\0');
	return buf_detach(&out);
}

#define CHECK_EMIT(fn, c, want) do { \
	unsigned err_; \
	char *out_ = emit((fn), (c), &err_); \
	CHECK_INT(err_, 0); \
	CHECK_STR(out_, (want)); \
	free(out_); \
} while (0)

/* The emitter fails with exactly one error. */
#define CHECK_FAILS(fn, c) do { \
	unsigned err_; \
	char *out_ = emit((fn), (c), &err_); \
	CHECK(out_ == NULL); \
	CHECK_INT(err_, 1); \
	free(out_); \
} while (0)

/* The user turn "hi", as OpenAI and Anthropic messages and as Gemini
 * contents, inside a body. */
#define USER_HI \
	"    {\n" \
	"      \"role\": \"user\",\n" \
	"      \"content\": \"hi\"\n" \
	"    }\n"
#define GEMINI_HI \
	"  \"contents\": [\n" \
	"    {\n" \
	"      \"role\": \"user\",\n" \
	"      \"parts\": [\n" \
	"        {\n" \
	"          \"text\": \"hi\"\n" \
	"        }\n" \
	"      ]\n" \
	"    }\n"

/* The start of a body with system text sys, up to the messages. */
#define ANTHROPIC_HEAD(sys) \
	"{\n" \
	"  \"model\": \"m1\",\n" \
	"  \"max_tokens\": 1024,\n" \
	"  \"system\": [\n" \
	"    {\n" \
	"      \"type\": \"text\",\n" \
	"      \"text\": \"" sys "\"\n" \
	"    }\n" \
	"  ],\n"
#define GEMINI_HEAD(sys) \
	"{\n" \
	"  \"systemInstruction\": {\n" \
	"    \"parts\": [\n" \
	"      {\n" \
	"        \"text\": \"" sys "\"\n" \
	"      }\n" \
	"    ]\n" \
	"  },\n"

static void
test_basic(void)
{
	struct chat c;

	basic(&c, FORMAT_OPENAI);
	CHECK_EMIT(emit_openai, &c, "{\n"
	    "  \"model\": \"m1\",\n"
	    "  \"messages\": [\n"
	    "    {\n"
	    "      \"role\": \"system\",\n"
	    "      \"content\": \"Be brief.\"\n"
	    "    },\n"
	    USER_HI
	    "  ]\n"
	    "}\n");
	CHECK_EMIT(emit_messages, &c, "[\n"
	    "  {\n"
	    "    \"role\": \"system\",\n"
	    "    \"content\": \"Be brief.\"\n"
	    "  },\n"
	    "  {\n"
	    "    \"role\": \"user\",\n"
	    "    \"content\": \"hi\"\n"
	    "  }\n"
	    "]\n");
	CHECK_EMIT(emit_anthropic, &c, ANTHROPIC_HEAD("Be brief.")
	    "  \"messages\": [\n"
	    USER_HI
	    "  ]\n"
	    "}\n");
	CHECK_EMIT(emit_gemini, &c, GEMINI_HEAD("Be brief.")
	    GEMINI_HI
	    "  ]\n"
	    "}\n");
	CHECK_EMIT(emit_text, &c, "=== system ===\nBe brief.\n\n"
	    "=== user ===\nhi\n");
	CHECK(emit_for(FORMAT_OPENAI) == emit_openai);
	CHECK(emit_for(FORMAT_JSON) == emit_json);
	free(c.msgs);
}

/* A developer message: its own message for OpenAI, joined to the
 * system text for the providers with one system prompt; an assistant
 * turn is Gemini's "model"; consecutive turns of a role merge for
 * Anthropic. */
static void
test_developer(void)
{
	struct chat c;

	chat_init(&c, FORMAT_OPENAI);
	add(&c, ROLE_SYSTEM, ORIGIN_SYSTEM, "Be brief.");
	add(&c, ROLE_DEVELOPER, ORIGIN_DEVELOPER, "Use tools.");
	add(&c, ROLE_USER, ORIGIN_TURN, "hi");
	add(&c, ROLE_ASSISTANT, ORIGIN_HISTORY, "hello")->name = "bot";
	add(&c, ROLE_USER, ORIGIN_TURN, "more");
	add(&c, ROLE_USER, ORIGIN_TURN, "again");
	CHECK_EMIT(emit_text, &c, "=== system ===\nBe brief.\n\n"
	    "=== developer ===\nUse tools.\n\n=== user ===\nhi\n\n"
	    "=== assistant (bot) ===\nhello\n\n=== user ===\nmore\n\n"
	    "=== user ===\nagain\n");
	CHECK_EMIT(emit_messages, &c, "[\n"
	    "  {\n    \"role\": \"system\",\n    \"content\": \"Be brief.\"\n  },\n"
	    "  {\n    \"role\": \"developer\",\n    \"content\": \"Use tools.\"\n"
	    "  },\n"
	    "  {\n    \"role\": \"user\",\n    \"content\": \"hi\"\n  },\n"
	    "  {\n    \"role\": \"assistant\",\n    \"content\": \"hello\",\n"
	    "    \"name\": \"bot\"\n  },\n"
	    "  {\n    \"role\": \"user\",\n    \"content\": \"more\"\n  },\n"
	    "  {\n    \"role\": \"user\",\n    \"content\": \"again\"\n  }\n"
	    "]\n");
	CHECK_EMIT(emit_anthropic, &c, ANTHROPIC_HEAD("Be brief.\\n\\nUse tools.")
	    "  \"messages\": [\n"
	    "    {\n      \"role\": \"user\",\n      \"content\": \"hi\"\n    },\n"
	    "    {\n      \"role\": \"assistant\",\n"
	    "      \"content\": \"hello\"\n    },\n"
	    "    {\n      \"role\": \"user\",\n"
	    "      \"content\": \"more\\n\\nagain\"\n    }\n"
	    "  ]\n"
	    "}\n");
	CHECK_EMIT(emit_gemini, &c, GEMINI_HEAD("Be brief.\\n\\nUse tools.")
	    "  \"contents\": [\n"
	    "    {\n      \"role\": \"user\",\n"
	    "      \"parts\": [\n        {\n          \"text\": \"hi\"\n"
	    "        }\n      ]\n    },\n"
	    "    {\n      \"role\": \"model\",\n"
	    "      \"parts\": [\n        {\n          \"text\": \"hello\"\n"
	    "        }\n      ]\n    },\n"
	    "    {\n      \"role\": \"user\",\n"
	    "      \"parts\": [\n        {\n          \"text\": \"more\"\n"
	    "        }\n      ]\n    },\n"
	    "    {\n      \"role\": \"user\",\n"
	    "      \"parts\": [\n        {\n          \"text\": \"again\"\n"
	    "        }\n      ]\n    }\n"
	    "  ]\n"
	    "}\n");
	free(c.msgs);
}

/* Tools: each provider's native shape, from one definition. */
static void
test_tools(void)
{
	struct chat c;
	unsigned nerr;
	char *s;

	user_only(&c);
	CHECK(tool_read(&run, json_input(&run, "[{\"name\": \"now\", "
	    "\"description\": \"The time.\"}, {\"type\": \"function\", "
	    "\"function\": {\"name\": \"find\", \"description\": \"Find.\", "
	    "\"strict\": true, "
	    "\"parameters\": {\"type\": \"object\", \"properties\": {\"q\": "
	    "{\"type\": \"string\"}}, \"required\": [\"q\"]}}}]"), &c.tools));
	s = emit(emit_openai, &c, &nerr);
	CHECK(s && strstr(s, "  \"tools\": [\n"
	    "    {\n"
	    "      \"type\": \"function\",\n"
	    "      \"function\": {\n"
	    "        \"name\": \"now\",\n"
	    "        \"description\": \"The time.\",\n"
	    "        \"parameters\": {\n"
	    "          \"type\": \"object\",\n"
	    "          \"properties\": {}\n"
	    "        }\n"
	    "      }\n"
	    "    },\n"
	    "    {\n"
	    "      \"type\": \"function\",\n"
	    "      \"function\": {\n"
	    "        \"name\": \"find\",\n"
	    "        \"description\": \"Find.\",\n"
	    "        \"parameters\": {\n"
	    "          \"type\": \"object\",\n"
	    "          \"properties\": {\n"
	    "            \"q\": {\n"
	    "              \"type\": \"string\"\n"
	    "            }\n"
	    "          },\n"
	    "          \"required\": [\n"
	    "            \"q\"\n"
	    "          ]\n"
	    "        },\n"
	    "        \"strict\": true\n"
	    "      }\n"
	    "    }\n"
	    "  ]\n"
	    "}\n"));
	free(s);
	s = emit(emit_anthropic, &c, &nerr);
	CHECK(s && strstr(s, "  \"tools\": [\n"
	    "    {\n"
	    "      \"name\": \"now\",\n"
	    "      \"description\": \"The time.\",\n"
	    "      \"input_schema\": {\n"
	    "        \"type\": \"object\",\n"
	    "        \"properties\": {}\n"
	    "      }\n"
	    "    },\n"
	    "    {\n"
	    "      \"name\": \"find\",\n"
	    "      \"description\": \"Find.\",\n"
	    "      \"input_schema\": {\n"));
	CHECK(s && !strstr(s, "strict"));
	free(s);
	s = emit(emit_gemini, &c, &nerr);
	CHECK(s && strstr(s, "  \"tools\": [\n"
	    "    {\n"
	    "      \"functionDeclarations\": [\n"
	    "        {\n"
	    "          \"name\": \"now\",\n"
	    "          \"description\": \"The time.\",\n"
	    "          \"parametersJsonSchema\": {\n"
	    "            \"type\": \"object\",\n"
	    "            \"properties\": {}\n"
	    "          }\n"
	    "        },\n"
	    "        {\n"
	    "          \"name\": \"find\",\n"));
	free(s);
	CHECK_EMIT(emit_text, &c, "=== user ===\nhi\n\n=== tools ===\nnow\n"
	    "find\n");
	free(c.msgs);
}

/* [output.params] and max_tokens, under each provider's names. */
static void
test_params(void)
{
	struct chat c;
	unsigned nerr;
	char *s;

	user_only(&c);
	c.params = json_input(&run, "{\"temperature\": 0.5, \"top_p\": 0.9, "
	    "\"stop\": \"END\"}");
	c.max_tokens = 100;
	CHECK_EMIT(emit_openai, &c, "{\n"
	    "  \"model\": \"m1\",\n"
	    "  \"messages\": [\n"
	    USER_HI
	    "  ],\n"
	    "  \"temperature\": 0.5,\n"
	    "  \"top_p\": 0.9,\n"
	    "  \"stop\": \"END\",\n"
	    "  \"max_completion_tokens\": 100\n"
	    "}\n");
	s = emit(emit_anthropic, &c, &nerr);
	CHECK(s && strstr(s, "  \"max_tokens\": 100,\n"));
	/* stop is Anthropic's stop_sequences, a list. */
	CHECK(s && strstr(s, "  \"temperature\": 0.5,\n  \"top_p\": 0.9,\n"
	    "  \"stop_sequences\": [\n    \"END\"\n  ]\n}\n"));
	free(s);
	CHECK_EMIT(emit_gemini, &c, "{\n"
	    GEMINI_HI
	    "  ],\n"
	    "  \"generationConfig\": {\n"
	    "    \"temperature\": 0.5,\n"
	    "    \"topP\": 0.9,\n"
	    "    \"stopSequences\": [\n"
	    "      \"END\"\n"
	    "    ],\n"
	    "    \"maxOutputTokens\": 100\n"
	    "  }\n"
	    "}\n");
	/* The params' own max_tokens wins over [output] max_tokens. */
	c.params = json_input(&run, "{\"max_tokens\": 7}");
	s = emit(emit_openai, &c, &nerr);
	CHECK(s && strstr(s, "  \"max_tokens\": 7\n}\n"));
	free(s);
	s = emit(emit_anthropic, &c, &nerr);
	CHECK(s && strstr(s, "  \"max_tokens\": 7,\n"));
	CHECK(s && !strstr(s, "100"));
	free(s);
	free(c.msgs);
}

/* What the emitters refuse, each with one error and no output. */
static void
test_errors(void)
{
	struct chat c;

	fprintf(stderr, "(errors expected below)\n");
	basic(&c, FORMAT_OPENAI);
	c.model = NULL;
	CHECK_FAILS(emit_openai, &c);
	CHECK_FAILS(emit_anthropic, &c);
	CHECK(!emit_check(&run, &c));
	c.model = "m1";
	c.params = json_input(&run, "{\"messages\": []}");
	CHECK_FAILS(emit_openai, &c);
	CHECK_FAILS(emit_anthropic, &c);
	c.params = json_input(&run, "{\"system\": \"x\"}");
	CHECK_FAILS(emit_anthropic, &c);
	c.params = json_input(&run, "{\"contents\": []}");
	CHECK_FAILS(emit_gemini, &c);
	c.format = FORMAT_GEMINI;
	CHECK(!emit_check(&run, &c));
	c.format = FORMAT_TEXT;
	CHECK(emit_check(&run, &c));
	c.params = NULL;

	/* Only a system prompt: no conversation to send. */
	c.n = 1;
	CHECK_FAILS(emit_anthropic, &c);
	CHECK_FAILS(emit_gemini, &c);
	c.n = 0;
	CHECK_FAILS(emit_openai, &c);
	/* A conversation must start with a user turn for Anthropic. */
	c.n = 1;
	add(&c, ROLE_ASSISTANT, ORIGIN_HISTORY, "hello");
	CHECK_FAILS(emit_anthropic, &c);
	free(c.msgs);
}

/* emit_tokens(): a CJK code point is one token, other code points one per
 * four (rounded up), an invalid byte one code point. */
static void
test_tokens(void)
{
	CHECK_INT(emit_tokens("", 0), 0);
	CHECK_INT(emit_tokens("a", 1), 1);
	CHECK_INT(emit_tokens("abcd", 4), 1);
	CHECK_INT(emit_tokens("hello world", 11), 3);
	CHECK_INT(emit_tokens("\xe4\xbd\xa0\xe5\xa5\xbd", 6), 2);       /* 你好 */
	CHECK_INT(emit_tokens("\xe4\xbd\xa0\xe5\xa5\xbd" "ab", 8), 3);
	CHECK_INT(emit_tokens("\xea\xb0\x80", 3), 1);   /* U+AC00, Hangul */
	CHECK_INT(emit_tokens("\xf0\xa0\x80\x80", 4), 1);       /* U+20000 */
	CHECK_INT(emit_tokens("\xe2\xba\x7f", 3), 1);   /* invalid: 3 bytes */
	CHECK_INT(emit_tokens("\xff\xfe", 2), 1);
	CHECK_INT(emit_tokens("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10),
	    2);                                         /* é x5: not CJK */
}

/*
 * Fingerprints, as strata(1) documents them: a message's is FNV-1a 64
 * (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over the bytes
 * of its role name, one NUL byte, then its content; the conversation's
 * is f = offset basis, then f = (f XOR h) * prime mod 2^64 for each
 * message fingerprint h in order; the request's folds in, after the
 * messages, the fingerprint of the model (as role "model") and, when
 * there are any, of each tool, the params and max_tokens.  The values
 * were computed apart from strata (a few lines of Python).
 */
static void
test_fingerprint(void)
{
	struct chat c;
	uint64_t sys, user;
	unsigned nerr;
	char *s;

	sys = emit_fingerprint("system", "Be brief.", 9);
	user = emit_fingerprint("user", "hi", 2);
	CHECK(sys == UINT64_C(0xfd78e6a4399cfb65));
	CHECK(user == UINT64_C(0xd8272ba5ab1b7e89));
	CHECK(emit_fingerprint("user", "hi", 2) ==
	    hash_fnv1a64(HASH_FNV_INIT, "user\0hi", 7));
	CHECK(emit_fingerprint_fold(emit_fingerprint_fold(HASH_FNV_INIT, sys),
	    user) == UINT64_C(0x32debb0bcb677a0b));
	/* The role counts: the same text under another role differs. */
	CHECK(emit_fingerprint("assistant", "hi", 2) != user);

	basic(&c, FORMAT_JSON);
	s = emit(emit_json, &c, &nerr);
	CHECK(s && strstr(s, "\"fingerprint\": \"fnv1a64:fd78e6a4399cfb65\""));
	CHECK(s && strstr(s, "\"fingerprint\": \"fnv1a64:d8272ba5ab1b7e89\""));
	/* The conversation's 32debb0bcb677a0b, then the model "m1". */
	CHECK(s && strstr(s, "  \"fingerprint\": \"fnv1a64:353b42d1a650f249\",\n"));
	CHECK(s && strstr(s, "\"profile\": \"p.toml\""));
	CHECK(s && strstr(s, "\"tokens\": 3,"));      /* "Be brief.": 9/4 */
	free(s);
	/* Parameters count: then the params' compact JSON, then
	 * max_tokens. */
	c.params = json_input(&run, "{\"temperature\": 0.5}");
	c.max_tokens = 100;
	s = emit(emit_json, &c, &nerr);
	CHECK(s && strstr(s, "  \"fingerprint\": \"fnv1a64:4eb4d72222c83176\",\n"));
	free(s);
	free(c.msgs);
}

/* The debug view, without a terminal: no colour. */
static void
test_debug(void)
{
	struct chat c;
	struct entry *e;
	unsigned nerr;
	char *s;

	basic(&c, FORMAT_OPENAI);
	e = entry_new(&run.arena, "persona", "persona");
	e->content = "Be brief.";
	e->len = 9;
	stack_add(&c.stack, e);
	e = entry_new(&run.arena, "gone", "inject");
	e->content = "";
	stack_add(&c.stack, e);
	c.msgs[0].entries = c.stack.all;
	c.msgs[0].nentries = 1;
	s = emit(emit_debug, &c, &nerr);
	CHECK(s && !strchr(s, '\033'));
	CHECK(s && strstr(s, "profile p.toml  format openai  model m1  "
	    "style plain\n"));
	CHECK(s && strstr(s, "\nmessage 1: system (system)  9 bytes  "
	    "~3 tokens\n"));
	CHECK(s && strstr(s, "          100  persona       persona  system "
	    "   turn           9       3  -\n"));
	CHECK(s && strstr(s, "\nnot included: 1\n  gone          inject   "
	    "empty            -\n"));
	free(s);
	free(c.msgs);
}

/* The inspector's pieces: escaping, links, the word diff, and a page
 * of the basic chat that holds its text escaped and nothing that loads. */
static char *
html_diff(const char *a, const char *b, enum emit_html_side side)
{
	struct buf out = BUF_INIT;

	emit_html_diff(&out, a, strlen(a), b, strlen(b), side);
	buf_putc(&out, '\0');
	return buf_detach(&out);
}

static void
test_html(void)
{
	struct buf out = BUF_INIT;
	struct chat c;
	unsigned nerr;
	char *s;

	emit_html_esc(&out, "<a href='x'>&\"</a>\0!", 20);
	buf_putc(&out, '\0');
	CHECK_STR(out.data, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
	    "\xef\xbf\xbd!");
	buf_reset(&out);
	emit_html_url(&out, "javascript:alert(1)", 19);
	emit_html_url(&out, "/a b/c#d?e\"f.md", 15);
	buf_putc(&out, '\0');
	CHECK_STR(out.data, "./javascript:alert(1)/a%20b/c%23d%3Fe%22f.md");
	buf_free(&out);
	/* A macro replaced: the deletion is titled with it. */
	s = html_diff("Hi {{char}}!", "Hi Mira!", EMIT_HTML_BOTH);
	CHECK_STR(s, "Hi <del title=\"macro {{char}}\">{{char}}</del>"
	    "<ins>Mira</ins>!");
	free(s);
	/* One side each; a trimmed newline is made visible. */
	s = html_diff("a lamp <b>\n", "a LAMP <b>", EMIT_HTML_OLD);
	CHECK_STR(s, "a <del>lamp</del> &lt;b&gt;<del class=\"ws\" "
	    "title=\"white space\">\xe2\x86\xb5\n</del>");
	free(s);
	s = html_diff("a lamp <b>\n", "a LAMP <b>", EMIT_HTML_NEW);
	CHECK_STR(s, "a <ins>LAMP</ins> &lt;b&gt;");
	free(s);
	/* CJK text differs character by character. */
	s = html_diff("灯塔在港口", "灯塔在海边", EMIT_HTML_BOTH);
	CHECK_STR(s, "灯塔在<del>港口</del><ins>海边</ins>");
	free(s);
	s = html_diff("same", "same", EMIT_HTML_BOTH);
	CHECK_STR(s, "same");
	free(s);
	CHECK_STR(emit_html_hue("persona"), "L0");
	CHECK_STR(emit_html_slug(&run.arena, "World Info's"), "world-info-s");

	basic(&c, FORMAT_OPENAI);
	c.msgs[1].content = "<script>alert(1)</script>";
	c.msgs[1].len = strlen(c.msgs[1].content);
	s = emit(emit_html, &c, &nerr);
	CHECK_INT(nerr, 0);
	CHECK(s && strncmp(s, "<!DOCTYPE html>\n", 16) == 0);
	CHECK(s && strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(s && !strstr(s, "<script>alert"));
	CHECK(s && strstr(s, "content=\"default-src 'none';"));
	CHECK(s && strstr(s, "<li class=\"msg f r-user\" id=\"m2\""));
	free(s);
	free(c.msgs);
}

int
main(void)
{
	run_init(&run);
	profile.src = run_source_mem(&run, "p.toml", "", 0);
	profile.root = tree_table(&run.arena);
	/* No terminal and no colour, whatever runs the test. */
	setenv("NO_COLOR", "1", 1);
	CHECK(!emit_color(STDOUT_FILENO, NULL));
	CHECK(!emit_color(STDOUT_FILENO, "auto"));
	CHECK(emit_color(STDOUT_FILENO, "always"));
	CHECK(!emit_color(STDOUT_FILENO, "never"));
	test_basic();
	test_developer();
	test_tools();
	test_params();
	test_errors();
	test_tokens();
	test_fingerprint();
	test_debug();
	test_html();
	run_free(&run);
	return check_done("test_emit");
}
