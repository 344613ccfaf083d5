/*
 * names: the enumerations of the prompt model -- roles, scopes, join
 * styles, output formats -- and the built-in priorities, each defined
 * once with its spelling.  Every reader (profile, -i, history) parses
 * through these tables and every writer (emitters, debug) prints through
 * them, so a name can only be spelled one way.  The returned strings are
 * static.
 */
#ifndef NAMES_H
#define NAMES_H

#include <stdbool.h>
#include <stddef.h>

enum role {
	ROLE_SYSTEM,
	ROLE_DEVELOPER,
	ROLE_USER,
	ROLE_ASSISTANT,
	ROLE_TOOL,              /* a tool result: history only, never an
				 * entry's role, so not in names_roles */
};

enum scope {
	SCOPE_GLOBAL,
	SCOPE_SESSION,
	SCOPE_TURN,
};

enum style {
	STYLE_PLAIN,
	STYLE_MARKDOWN,
	STYLE_SECTIONS,
	STYLE_TAGGED,
};

enum out_format {
	FORMAT_OPENAI,
	FORMAT_ANTHROPIC,
	FORMAT_GEMINI,
	FORMAT_MESSAGES,
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_RESPONSES,       /* OpenAI Responses */
	FORMAT_OLLAMA,          /* Ollama /api/chat */
	FORMAT_PROMPT,          /* agent CLIs: one text (emit_prompt.c) */
	FORMAT_SYSTEM,
	FORMAT_USER,
	FORMAT_REVIEW,
};

/* Where an output message came from (struct message, chat.h). */
enum origin {
	ORIGIN_SYSTEM,          /* the system prompt */
	ORIGIN_DEVELOPER,       /* the developer message */
	ORIGIN_HISTORY,         /* a message of the conversation (-H) */
	ORIGIN_SESSION,         /* a message a session kept */
	ORIGIN_TURN,            /* this turn's user message */
	ORIGIN_IN_CHAT,         /* an entry injected at a depth */
};

/*
 * The dialects of the one pipeline: a profile's own build, and
 * SillyTavern's (a card, a preset, a chat: tavern/tbuild.h), whose
 * entries of strata's own go among the preset's prompts.  Both share
 * the front half -- load, inputs, collect, rewrite, the stack -- and
 * differ in what arranges the messages.  A chat says which made it;
 * the emitters key on that alone: the tavern dialect's items and
 * stages in the views, and its provider shaping (emit/emit_shape.c).
 */
enum dialect {
	DIALECT_PROFILE,
	DIALECT_TAVERN,
};

/* NULL-terminated spellings, indexed by the enum (for choices lists). */
extern const char *const names_roles[];
extern const char *const names_scopes[];
extern const char *const names_styles[];
extern const char *const names_formats[];
/* Where an injection goes ([[inject]] position, -i position=). */
extern const char *const names_positions[];

const char *names_role(enum role r);
const char *names_scope(enum scope s);
const char *names_style(enum style s);
const char *names_format(enum out_format f);
const char *names_origin(enum origin o);
bool names_format_parse(const char *s, enum out_format *out);
/* The index of s in a NULL-terminated list, or -1. */
int names_index(const char *const *list, const char *s, size_t len);

/* The priority of an entry given none. */
#define PRIORITY_DEFAULT 100
/*
 * A built-in priority name ("safety", "persona", ...), one of seed 000's
 * ("knowledge_rag", or its constant PRIORITY_KNOWLEDGE_RAG), or a
 * decimal integer within +-INT_MAX/2; false if s[0..len) is none.
 */
bool names_priority_parse(const char *s, size_t len, int *out);

#endif
