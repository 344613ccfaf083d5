/*
 * diag: every message strata prints to stderr.  Errors are reported where
 * they are found -- with the source and span of the offending text -- and
 * the function that found them returns false; callers pass false up and
 * print nothing more.  All message texts sit in one catalogue below
 * (DIAG_MESSAGES), so the manual can list each one.  The diag state counts
 * what was reported and turns it into the exit status.
 *
 * Format: "path:line:col: error: message", then the source line and a
 * caret under the span.  Messages with no location read
 * "strata: error: message".  A catalogue text ending in ':' gets
 * ": strerror(errno)" appended, with errno as it was at the call.  In a
 * binary source (source.h: binary) the place is a byte offset instead:
 * "card.png: error: message at byte 1234", 0-based as hexdump counts,
 * with no source line echoed.
 */
#ifndef DIAG_H
#define DIAG_H

#include <stdbool.h>
#include <stdio.h>

#include "diag/source.h"

struct buf;

struct arena;

/* Exit statuses, documented in strata(1). */
enum exit_status {
	EXIT_OK = 0,
	EXIT_INPUT = 1,         /* bad input: diagnostics were printed */
	EXIT_USAGE = 2,         /* bad command line */
	EXIT_SYSTEM = 3,        /* I/O or system error */
};

enum diag_level {
	DIAG_NOTE,
	DIAG_WARNING,
	DIAG_ERROR,
};

/*
 * The catalogue.  Keep each module's messages together; the name says the
 * module.  X(NAME, "printf format")
 */
#define DIAG_MESSAGES \
	/* general */ \
	X(MSG_CANNOT_READ, "cannot read %s:") \
	X(MSG_CANNOT_WRITE, "cannot write %s:") \
	X(MSG_SOURCE_SPECIAL, "cannot read %s: it is %s, and a file named in a profile must be a regular file") \
	X(MSG_SOURCE_STREAM_LONG, "cannot read %s: %s longer than %zu MiB (the limit for pipes and devices)") \
	X(MSG_TOO_MANY, "more than %d messages; the rest are counted but not shown") \
	X(MSG_UNKNOWN_FILE_TYPE, "cannot tell the format of '%s': name it .toml, .yaml or .yml") \
	X(MSG_INVALID_UTF8, "invalid UTF-8") \
	X(MSG_NUL_BYTE, "NUL byte in text") \
	X(MSG_TOO_DEEP, "nesting deeper than %d levels") \
	X(MSG_FIRST_HERE, "first defined here") \
	/* toml */ \
	X(MSG_TOML_EXPECTED_KEY, "expected a key, found %s") \
	X(MSG_TOML_NONASCII_KEY, "'%.*s' cannot be a bare key: TOML 1.0 bare keys are ASCII letters, digits, '_' and '-'; quote it: \"%.*s\"") \
	X(MSG_TOML_EXPECTED_EQUALS, "expected '=' after key, found %s") \
	X(MSG_TOML_EXPECTED_VALUE, "expected a value, found %s") \
	X(MSG_TOML_EXPECTED_EOL_VALUE, "expected end of line after value, found %s") \
	X(MSG_TOML_EXPECTED_EOL_HEADER, "expected end of line after table header, found %s") \
	X(MSG_TOML_EXPECTED_HEADER_CLOSE, "expected ']' to close table header, found %s") \
	X(MSG_TOML_EXPECTED_AOT_CLOSE, "expected ']]' to close array-of-tables header, found %s") \
	X(MSG_TOML_EXPECTED_ARRAY_SEP, "expected ',' or ']' in array, found %s") \
	X(MSG_TOML_EXPECTED_INLINE_SEP, "expected ',' or '}' in inline table, found %s") \
	X(MSG_TOML_INLINE_NEWLINE, "line break in inline table (an inline table must fit on one line)") \
	X(MSG_TOML_INLINE_TRAILING_COMMA, "trailing comma in inline table") \
	X(MSG_TOML_BARE_WORD, "'%s' is not a value (strings must be quoted)") \
	X(MSG_TOML_MULTILINE_KEY, "a multi-line string cannot be a key") \
	X(MSG_TOML_UNTERMINATED_STRING, "unterminated string") \
	X(MSG_TOML_UNTERMINATED_MULTILINE, "unterminated multi-line string") \
	X(MSG_TOML_BAD_ESCAPE, "invalid escape sequence '\\%.*s'") \
	X(MSG_TOML_SHORT_UNICODE_ESCAPE, "'\\%c' escape needs %d hex digits") \
	X(MSG_TOML_BAD_CODEPOINT, "'\\%.*s' is not a Unicode scalar value") \
	X(MSG_TOML_CONTROL_CHAR, "control character U+%04X is not allowed %s") \
	X(MSG_TOML_BARE_CR, "carriage return not followed by a line feed") \
	X(MSG_TOML_LEADING_ZERO, "leading zero in a decimal number") \
	X(MSG_TOML_UNDERSCORE, "'_' in a number must sit between two digits") \
	X(MSG_TOML_SIGNED_PREFIX, "a hexadecimal, octal or binary integer cannot have a sign") \
	X(MSG_TOML_INT_OVERFLOW, "integer does not fit in 64 bits") \
	X(MSG_TOML_FLOAT_OVERFLOW, "float is too large for a 64-bit double") \
	X(MSG_TOML_DOT_DIGITS, "a decimal point needs digits on both sides") \
	X(MSG_TOML_EXP_DIGITS, "an exponent needs digits") \
	X(MSG_TOML_BAD_NUMBER, "invalid number '%s'") \
	X(MSG_TOML_BAD_DATETIME, "invalid date or time '%s' (expected YYYY-MM-DD, HH:MM:SS or both)") \
	X(MSG_TOML_BAD_MONTH, "month %02d is out of range") \
	X(MSG_TOML_BAD_DAY, "day %02d is out of range for %04d-%02d") \
	X(MSG_TOML_BAD_TIME_FIELD, "%s %02d is out of range") \
	X(MSG_TOML_DUPLICATE_KEY, "duplicate key '%s' (first defined at line %u)") \
	X(MSG_TOML_TABLE_REDEFINED, "table '%s' is already defined (at line %u)") \
	X(MSG_TOML_NOT_TABLE, "'%s' is %s (line %u), not %s") \
	X(MSG_TOML_INLINE_EXTEND, "cannot extend inline table '%s' (defined at line %u)") \
	X(MSG_TOML_STATIC_ARRAY, "cannot append to array '%s' with [[...]]: it was given as a value at line %u") \
	X(MSG_TOML_HEADER_ON_DOTTED, "cannot define table '%s' with a header: dotted keys created it at line %u") \
	X(MSG_TOML_DOTTED_ON_HEADER, "cannot add to table '%s' with dotted keys: a header defined it at line %u") \
	X(MSG_TOML_TOO_MANY_ERRORS, "too many errors in %s; stopping") \
	/* yaml */ \
	X(MSG_YAML_SYNTAX, "yaml: %s") \
	X(MSG_YAML_CONTEXT, "%s that started here") \
	X(MSG_YAML_TAB, "a tab cannot indent YAML: use spaces") \
	X(MSG_YAML_SECOND_DOC, "a second YAML document: a profile is one document") \
	X(MSG_YAML_NO_ANCHOR, "undefined alias '*%s'") \
	X(MSG_YAML_ALIAS_CYCLE, "alias '*%s' refers to a node that contains it") \
	X(MSG_YAML_ALIAS_BUDGET, "aliases expand to more than %zu nodes (a \"billion laughs\" document?)") \
	X(MSG_YAML_ALIAS_BYTES, "aliases copy more than %zu bytes of text (4 MiB plus 16 times the file's size)") \
	X(MSG_YAML_DUP_KEY, "duplicate key '%s'") \
	X(MSG_YAML_FIRST_KEY, "'%s' first appears here") \
	X(MSG_YAML_COMPLEX_KEY, "a mapping key must be a scalar, not a %s") \
	X(MSG_YAML_UNKNOWN_TAG, "unknown tag '%s'") \
	X(MSG_YAML_TAG_KIND, "tag '%s' cannot be used on a %s") \
	X(MSG_YAML_BAD_VALUE, "'%s' is not a valid %s (tagged '%s')") \
	X(MSG_YAML_INT_RANGE, "integer out of range (64-bit signed)") \
	X(MSG_YAML_FLOAT_RANGE, "float out of range") \
	/* json */ \
	X(MSG_JSON_EMPTY, "empty JSON document") \
	X(MSG_JSON_UNEXPECTED, "unexpected character %s, expected %s") \
	X(MSG_JSON_EOF, "unexpected end of input, expected %s") \
	X(MSG_JSON_TRAILING, "unexpected character %s after the JSON value") \
	X(MSG_JSON_UNTERMINATED, "unterminated string") \
	X(MSG_JSON_ESCAPE, "invalid escape '%s' in string") \
	X(MSG_JSON_SURROGATE, "unpaired surrogate escape '%s' in string") \
	X(MSG_JSON_CONTROL, "control character %s in string: write it as an escape") \
	X(MSG_JSON_WORD, "unknown word '%s': JSON has true, false and null") \
	X(MSG_JSON_NUMBER, "invalid number: %s") \
	X(MSG_JSON_NUMBER_RANGE, "number out of range") \
	X(MSG_JSON_DUP_KEY, "duplicate key '%s'") \
	X(MSG_JSON_FIRST_KEY, "'%s' first appears here") \
	X(MSG_JSON_SYNTAX, "invalid JSON") \
	/* tool */ \
	X(MSG_TOOL_NOT_TABLE, "expected a tool definition (a table), found %s") \
	X(MSG_TOOL_NOT_ARRAY, "'%s' must be an array (found %s)") \
	X(MSG_TOOL_KEY_NOT_TABLE, "'%s' must be a table (found %s)") \
	X(MSG_TOOL_UNKNOWN_KEY, "unknown key '%s' in %s") \
	X(MSG_TOOL_UNKNOWN_KEY_HINT, "unknown key '%s' in %s; did you mean '%s'?") \
	X(MSG_TOOL_MISSING, "tool definition has no '%s'") \
	X(MSG_TOOL_NOT_STRING, "'%s' must be a string (found %s)") \
	X(MSG_TOOL_NOT_BOOL, "'%s' must be true or false (found %s)") \
	X(MSG_TOOL_EMPTY, "'%s' is empty") \
	X(MSG_TOOL_BAD_NAME, "tool name '%s' is not allowed: use 1 to 64 ASCII letters, digits, '_' or '-'") \
	X(MSG_TOOL_NOT_FUNCTION, "unsupported tool type '%s': only \"function\" tools can be read") \
	X(MSG_TOOL_TWICE, "'%s' is given twice") \
	X(MSG_TOOL_GIVEN_HERE, "first given here") \
	X(MSG_TOOL_DUPLICATE, "tool '%s' is defined twice") \
	X(MSG_TOOL_NOT_SCHEMA, "%s must be a JSON Schema object (found %s)") \
	X(MSG_TOOL_TOP_TYPE, "the parameters schema must have \"type\": \"object\"") \
	X(MSG_TOOL_TYPE_KIND, "'type' must be a type name or a non-empty array of them (found %s)") \
	X(MSG_TOOL_BAD_TYPE, "unknown type '%s': JSON Schema types are string, number, integer, boolean, object, array and null") \
	X(MSG_TOOL_REQUIRED_KIND, "'required' must list property names (found %s)") \
	X(MSG_TOOL_REQUIRED_UNKNOWN, "required property '%s' is not in 'properties'") \
	X(MSG_TOOL_EMPTY_ALTERNATIVES, "'%s' needs at least one schema") \
	/* profile */ \
	X(MSG_UNKNOWN_KEY, "unknown key '%s'%s") \
	X(MSG_WRONG_TYPE, "'%s' must be %s, not %s") \
	X(MSG_BAD_CHOICE, "'%s' must be %s, not '%s'") \
	X(MSG_BAD_PRIORITY, "'%s' must be an integer or a priority name (safety, behavior, persona, format, state, relationship, memories, world_book, knowledge, skills, tools, reaction_plan), not '%s'") \
	X(MSG_MISSING_KEY, "%s needs '%s'") \
	X(MSG_NUL_IN_STRING, "'%s' holds a NUL byte") \
	X(MSG_EMPTY_VALUE, "'%s' must not be empty") \
	X(MSG_TOOL_FILE_INLINE, "a [[tools]] entry takes 'file' or an inline definition (name, description, parameters, usage_hint), not both") \
	X(MSG_EXTENDS_CYCLE, "extends cycle: %s") \
	X(MSG_EXTENDS_DEPTH, "extends chain deeper than %d profiles") \
	X(MSG_SET_SYNTAX, "expected %s=VALUE") \
	X(MSG_SET_NO_ENTRY, "no '%s' entry named '%s'") \
	X(MSG_SET_WHOLE_ENTRY, "cannot set a whole '%s' entry: name one of its keys, e.g. %s.file=...") \
	X(MSG_PRIORITY_RANGE, "'%s' is out of range (a priority is between -1073741824 and 1073741823)") \
	X(MSG_SET_NOT_TABLE, "cannot set '%s': '%.*s' is %s, not a table") \
	X(MSG_SET_BAD_VALUE, "'%s' expects %s; '%s' is not one") \
	X(MSG_DUPLICATE_ENTRY, "%s '%s' is defined twice") \
	X(MSG_NEEDS_ONE_OF, "%s needs %s") \
	X(MSG_BOTH_GIVEN, "%s takes '%s' or '%s', not both") \
	/* layer */ \
	X(MSG_FRONT_MATTER_UNCLOSED, "front matter opened here is never closed with a '---' line") \
	X(MSG_FRONT_MATTER_TABLE, "front matter must be a mapping of keys to values") \
	X(MSG_OUTLINE_NO_DESCRIPTION, "outline skill '%s' needs a description (in the profile or the file's front matter)") \
	X(MSG_NO_SUCH_CONTEXT, "the profile has no [[context]] named '%s'") \
	X(MSG_CONTEXT_REQUIRED, "context '%s' is required: give it with -c %s=FILE") \
	/* assemble */ \
	X(MSG_HISTORY_NOT_ARRAY, "the history must be a JSON array of messages, not %s") \
	X(MSG_HISTORY_ITEM, "a history message must be an object with role and content, not %s") \
	X(MSG_HISTORY_KEY, "unknown key '%s' in a history message (expected role, content, name, tool_calls, tool_call_id, is_error, parts, reasoning, reasoning_content, strata)") \
	X(MSG_HISTORY_MISSING, "history message has no '%s'") \
	X(MSG_HISTORY_ROLE, "unknown role '%s' (expected system, developer, user, assistant or tool)") \
	X(MSG_HISTORY_CONTENT, "a message's content must be a string, not %s") \
	/* the conversation model: parts, tool calls and results (issue 7) */ \
	X(MSG_HISTORY_CONTENT_PARTS, "a message's content must be a string or an array of parts, not %s") \
	X(MSG_HISTORY_PART_TYPE, "unknown content part '%s' (expected text, image, image_url, file, document, tool_use or tool_result)") \
	X(MSG_HISTORY_PART_BAD, "this %s part needs %s") \
	X(MSG_HISTORY_PART_ROLE, "a part of type '%s' cannot be in a%s %s message") \
	X(MSG_HISTORY_ONLY_FOR, "'%s' is only for %s messages") \
	X(MSG_HISTORY_REPLAY_KEY, "unknown provider '%s' in 'strata' (expected anthropic, responses or gemini)") \
	X(MSG_HISTORY_REASONING_ALONE, "reasoning with no assistant message right after it: left out") \
	X(MSG_HISTORY_CALL_BAD, "a tool call needs %s") \
	X(MSG_HISTORY_CALL_ARGS, "a tool call's arguments must be a JSON object, not %s") \
	X(MSG_HISTORY_CALL_ARGS_TEXT, "a tool call's arguments string must hold a JSON object") \
	X(MSG_HISTORY_CALL_DUP, "tool call id '%s' is used twice") \
	X(MSG_HISTORY_RESULT_ID, "a tool result needs 'tool_call_id', the id of the call it answers") \
	X(MSG_HISTORY_RESULT_UNKNOWN, "tool result for '%s', which no earlier tool call has") \
	X(MSG_HISTORY_RESULT_NAME, "function response '%s' answers no earlier unanswered function call of that name") \
	X(MSG_IMAGE_READ, "cannot read image '%s':") \
	X(MSG_IMAGE_TYPE, "'%s' is not a PNG, JPEG, GIF or WebP image") \
	X(MSG_IMAGE_BIG, "'%s' is larger than the %d MB cap on an attached file") \
	X(MSG_IMAGE_MEDIA, "'%s' is %s, but its media_type says %s") \
	X(MSG_FILE_READ, "cannot read file '%s':") \
	X(MSG_FILE_MEDIA, "file '%s' needs a media_type") \
	X(MSG_MEDIA_SPECIAL, "'%s' is not a regular file") \
	X(MSG_MEDIA_DATA_PATH, "this part names the local file '%s': history data may not name files for strata to read (give a data: URL, or --allow-history-files DIR)") \
	X(MSG_MEDIA_OUTSIDE, "'%s' is outside the --allow-history-files directory '%s'") \
	X(MSG_ALLOW_DIR, "--allow-history-files '%s':") \
	X(MSG_PROVIDER_CANNOT, "%s message %zu: %s cannot take %s") \
	X(MSG_IMAGE_URL_TYPE, "%s message %zu: %s cannot take a URL whose media type it cannot tell (no .jpg, .png, .webp, .gif or .pdf at its end): %s") \
	X(MSG_IMAGE_ARG_TYPE, "--image '%s': '%.*s' is not image/png, image/jpeg, image/gif or image/webp (the form is --image TYPE=URL)") \
	X(MSG_PROVIDER_NAME, "%s message %zu: %s does not accept the name '%s' (it must match %s)") \
	X(MSG_PROVIDER_EMPTY, "%s message %zu: %s rejects an empty %s message") \
	X(MSG_USER_EMPTY, "-u '' is an empty user message: give text, or --image FILE for an image alone") \
	X(MSG_INJECT_REPLACED, "injection '%s' replaces one defined earlier") \
	X(MSG_NO_MESSAGE, "the %s format needs at least one message: the profile composes no system prompt, so give -u TEXT or -H FILE") \
	X(MSG_NO_USER_MESSAGE, "the %s format needs at least one user or assistant message: give -u TEXT or -H FILE") \
	X(MSG_FIRST_NOT_USER, "the %s format needs the conversation to start with a user message, but the history starts with an assistant message") \
	X(MSG_MODEL_OTHER_PROVIDER, "model '%s' is %s model, but the %s format sends to %s: set output.model in the profile or pass --set output.model=NAME") \
	X(MSG_NO_MODEL, "the %s format needs a model: set output.model in the profile or pass --set output.model=NAME") \
	X(MSG_PARAM_RESERVED, "output.params.%s is set by strata itself and cannot be overridden") \
	/* in-chat entries, -i, --remove, --scope, params (issue 7, part 2) */ \
	X(MSG_INCHAT_ROLE, "an in-chat entry's role is system, user or assistant, not '%s'") \
	X(MSG_INJECT_NEEDS_DEPTH, "role = \"%s\" puts an injection into the conversation: give depth = N (or position = \"user-context\" for a context block)") \
	X(MSG_INJECT_POSITION, "'%s' does not go with position = \"%s\"") \
	X(MSG_INJECT_SYNTAX, "expected KEY=TEXT or KEY@ATTR=VALUE[:ATTR=VALUE...]=TEXT") \
	X(MSG_INJECT_ATTR, "unknown -i attribute '%.*s' (expected depth, role, position, priority or scope)") \
	X(MSG_INJECT_ATTR_VALUE, "-i %s must be %s, not '%.*s'") \
	X(MSG_INJECT_ATTR_TWICE, "-i %s is given twice") \
	X(MSG_REMOVE_NONE, "no entry '%s' to remove") \
	X(MSG_FIRST_INCHAT, "the %s format needs the conversation to start with a user message, but an in-chat assistant entry comes first") \
	X(MSG_PARAM_UNKNOWN, "output.params.%s is not a parameter strata translates: put it under [output.params.%s] to send it to that provider as written") \
	X(MSG_PARAM_UNSUPPORTED, "the %s format has no parameter '%s' (to send a provider's own, put it under [output.params.%s])") \
	X(MSG_PARAM_VALUE, "output.params.%s must be %s") \
	X(MSG_PARAM_NO_TOOL, "tool_choice names no tool '%s' (expected auto, none, required or a tool's name)") \
	/* template */ \
	X(MSG_UNKNOWN_PLACEHOLDER, "unknown placeholder '{{%.*s}}': define it in [vars] or with -v, or set prompt.keep_unknown_vars") \
	X(MSG_UNUSED_VAR, "variable '%s' is not used by any prompt file") \
	/* template: blocks, includes, the agent templates (issue 11) */ \
	X(MSG_TEMPLATE_STRAY, "'{{%s}}' does not belong to an open block") \
	X(MSG_TEMPLATE_UNCLOSED, "'%.*s' is never closed with '{{%s}}'") \
	X(MSG_TEMPLATE_NOT_LIST, "'%.*s' is not a list ({{each}} takes one: -v NAME=@FILE.json or --input FILE.json)") \
	X(MSG_TEMPLATE_INCLUDE_PATH, "template path '%s' leaves the prompt directory (it must be relative, without '..')") \
	X(MSG_TEMPLATE_INCLUDE_CYCLE, "'%s' includes itself") \
	X(MSG_TEMPLATE_DEPTH, "templates nested deeper than %d") \
	X(MSG_TEMPLATE_INCLUDE_TOTAL, "includes expand to more than %zu bytes in all (see strata(1), SECURITY)") \
	X(MSG_TEMPLATE_NOT_FOUND, "no template '%s' in the prompt directory %s or built in") \
	X(MSG_TEMPLATE_SYMLINK_OUT, "template '%s' is a symbolic link out of the prompt directory") \
	X(MSG_TEMPLATE_EXISTS, "%s exists already: not overwritten") \
	X(MSG_INPUT_NOT_OBJECT, "template inputs must be a JSON object, not %s") \
	/* gotmpl: Go's text/template, whose own error texts are kept */ \
	X(MSG_GOTMPL_PARSE, "%s") \
	X(MSG_GOTMPL_EXEC, "executing \"%s\" at <%s>: %s") \
	X(MSG_GOTMPL_REFUSED, "function \"%s\" is not available: it reads %s, and a prompt must come out the same every time") \
	X(MSG_GOTMPL_OUTPUT, "template output longer than %zu MiB") \
	X(MSG_GOTMPL_DATA, "template data must be a JSON object, not %s") \
	X(MSG_LLM_PROFILE_NONE, "--llm-profile %s: the profile has no [llm_profiles.%s] (it has: %s)") \
	/* template: SillyTavern's macros in strata's own files (issue 9) */ \
	X(MSG_MACRO_TAVERN_VAR, "'{{%.*s}}' is a SillyTavern macro that needs a card, chat or persona, which only a tavern build has (define %.*s in [vars] or with -v to give it a value here)") \
	X(MSG_MACRO_TAVERN_ONLY, "'{{%.*s}}' is a SillyTavern macro that needs a card, chat or persona, which only a tavern build has") \
	X(MSG_MACRO_ARGS, "'{{%.*s}}' %s") \
	/* session: chat files */ \
	X(MSG_CHAT_LINE_NOT_OBJECT, "line %u of a chat file must be a JSON object") \
	X(MSG_SESSION_LOCK, "cannot lock the session %s:") \
	X(MSG_SESSION_DANGLING, "the session %s is a symbolic link to a file that does not exist (strata follows a link to an existing session only)") \
	X(MSG_SESSION_EMPTY, "the session %s has no %s to %s") \
	X(MSG_SESSION_EXISTS, "the session %s exists already") \
	X(MSG_SESSION_CHANGED, "the session %s changed during the build (a program that does not take strata's lock wrote it): the turn is not written") \
	X(MSG_SESSION_NO_CALL, "tool call '%s': no assistant message of the session %s made it") \
	X(MSG_SESSION_BAD_TIME, "--now '%s' is not an RFC 3339 date-time (2026-11-23T09:30:00Z)") \
	X(MSG_SESSION_PROFILE, "the session %s was built with another profile (fingerprint %s, now %s)") \
	/* session: media parts and the thread id (sessfix) */ \
	X(MSG_PART_DATA_URL, "'%s' is not a data URL of the form data:TYPE;base64,BYTES") \
	X(MSG_PART_MEDIA_TYPE, "'%s' has media type '%s', which is not %s") \
	X(MSG_SESSION_MEDIA_KIND, "a media entry's 'type' must be a string, not %s") \
	X(MSG_SESSION_THREAD, "thread_id must be a string, not %s: a new thread id replaces it") \
	X(MSG_SESSION_TURN, "turn must be a whole number from 0, not %s: counting starts again at 1") \
	X(MSG_SESSION_FP, "profile_fingerprint must be a string, not %s: this build's replaces it") \
	X(MSG_TAVERN_IMAGE, "--image cannot go with a SillyTavern build (%s): it does not send images") \
	/* tavern: SillyTavern presets, settings, assembly */ \
	X(MSG_TAVERN_NOT_OBJECT, "%s must be a JSON object, not %s") \
	X(MSG_TAVERN_WRONG_TYPE, "'%s' must be %s, not %s") \
	X(MSG_TAVERN_UNKNOWN_PROMPT, "prompt_order names '%s', which is not one of the preset's prompts: skipped, as SillyTavern skips it") \
	X(MSG_TAVERN_NAMES_BEHAVIOR, "unknown names_behavior %s (expected -1, 0, 1 or 2)") \
	X(MSG_TAVERN_POST_PROCESSING, "unknown custom_prompt_post_processing '%s' (expected merge, semi, strict or single)") \
	X(MSG_TAVERN_TYPE, "unknown generation type '%s' (expected normal, continue, impersonate, swipe, regenerate or quiet)") \
	X(MSG_TAVERN_GREETING, "--greeting %s: the card has %zu greeting(s), numbered from 0") \
	X(MSG_TAVERN_NO_CARD, "%s needs a character card: give --card FILE or [tavern] card") \
	X(MSG_TAVERN_SEED, "--seed '%s' is not a non-negative integer") \
	/* tavern: group chats (tavern/group.c) */ \
	X(MSG_GROUP_NO_MEMBERS, "a group needs 'members': a non-empty array of its members' card file names") \
	X(MSG_GROUP_STRATEGY, "activation_strategy %lld: expected 0 (natural), 1 (list), 2 (manual) or 3 (pooled)") \
	X(MSG_GROUP_MODE, "generation_mode %lld: expected 0 (swap), 1 (append) or 2 (append with muted members)") \
	X(MSG_GROUP_NO_CARD, "member '%s' has no card: neither %s nor %s exists") \
	X(MSG_GROUP_SPEAKER, "--speaker '%s' is not a member of group %s (its members: %s)") \
	X(MSG_GROUP_NO_AUTHOR, "--type %s in group %s: the last reply's author is not a member (name one with --speaker)") \
	X(MSG_GROUP_ALL_MUTED, "every member of group %s is muted: nobody replies (name one with --speaker)") \
	X(MSG_GROUP_MANUAL, "group %s activates its members manually: nobody replies to a message (name one with --speaker)") \
	X(MSG_GROUP_AND_CARD, "--group and --card both given: the group names its members' cards") \
	X(MSG_GROUP_GREETING, "--greeting picks one card's greeting: a new group chat opens with every member's") \
	X(MSG_GROUP_NEEDS, "--speaker needs a group chat (--group FILE or [tavern] group)") \
	X(MSG_TAVERN_YAML_BODY, "%s is not YAML: SillyTavern ignores it, and so does strata") \
	X(MSG_TAVERN_BIAS_TOKENIZER, "logit_bias: model %s is tokenized with SillyTavern's %s tokenizer, which strata does not have: no logit_bias is sent") \
	X(MSG_TAVERN_NOT_NUMBER, "%s is a string that is not a number: SillyTavern sends null, strata leaves it out") \
	X(MSG_TAVERN_STOPS, "custom_stopping_strings is not a JSON array: SillyTavern sends no stopping strings then, and neither does strata") \
	X(MSG_TAVERN_BUDGET, "the prompts that must be sent need %zu tokens, more than the budget of %ld (openai_max_context - openai_max_tokens - 3)") \
	/* tavern stages: debug --stage (emit/emit_tavern.c) */ \
	X(MSG_TAVERN_STAGE_NONE, "--stage %s: only a SillyTavern build has stages (give --card FILE or a [tavern] section)") \
	/* reply: decide and score */ \
	X(MSG_DECIDE_EMPTY, "the reply is empty") \
	X(MSG_DECIDE_ALL_THINKING, "the reply is all thinking: <think> is never closed") \
	X(MSG_DECIDE_NO_JSON, "no JSON object with an \"action\" key in the reply") \
	X(MSG_DECIDE_BAD_JSON, "the decision is not readable JSON: %s") \
	X(MSG_DECIDE_TRUNCATED, "the decision is cut off: the reply ends inside its JSON") \
	X(MSG_DECIDE_OPENED_HERE, "the value that is not closed starts here") \
	X(MSG_DECIDE_ACTION_TYPE, "\"action\" must be a string, not %s") \
	X(MSG_DECIDE_UNKNOWN_ACTION, "unknown action '%s': expected \"tool\" or \"finish\"") \
	X(MSG_DECIDE_NO_MESSAGE, "a finish decision needs a \"message\"") \
	X(MSG_DECIDE_MESSAGE_TYPE, "\"message\" must be a string, not %s") \
	X(MSG_DECIDE_NO_TOOL, "a tool decision needs a \"tool\" name") \
	X(MSG_DECIDE_TOOL_TYPE, "\"tool\" must be a string, not %s") \
	X(MSG_DECIDE_UNKNOWN_TOOL, "unknown tool '%s'%s") \
	X(MSG_DECIDE_ARGS_TYPE, "\"args\" must be an object, not %s") \
	X(MSG_ARGS_MISSING, "tool '%s': missing required argument '%s'") \
	X(MSG_ARGS_TYPE, "tool '%s': %s must be %s, not %s") \
	X(MSG_ARGS_ENUM, "tool '%s': %s must be one of %s") \
	X(MSG_ARGS_UNKNOWN, "tool '%s': unknown argument %s (the schema allows no others)") \
	X(MSG_ARGS_LIMIT, "tool '%s': %s must have %s %s %lld") \
	X(MSG_ARGS_NO_MATCH, "tool '%s': %s matches none of the schema's alternatives") \
	X(MSG_SCORE_NONE, "no score in the reply: expected a whole number from %d to %d") \
	X(MSG_SCORE_AMBIGUOUS, "the reply has several numbers (%s) and nothing says which is the score") \
	X(MSG_SCORE_RANGE, "score %s is outside %d..%d") \
	X(MSG_SCORE_NOT_INT, "score %s is not a whole number") \
	/* reply: provider response bodies */ \
	X(MSG_RESPONSE_API_ERROR, "the API answered with an error: %s") \
	X(MSG_RESPONSE_NO_REPLY, "no reply in this response (%s): %s") \
	X(MSG_RESPONSE_CUT, "the reply was cut short (%s)") \
	X(MSG_RESPONSE_REFUSED, "the model refused: its refusal is the reply's text") \
	X(MSG_RESPONSE_BAD_ARGS, "the arguments of tool call '%s' are not a JSON object") \
	X(MSG_RESPONSE_BLOCKED, "the provider blocked the reply (%s)") \
	X(MSG_RESPONSE_EMPTY, "empty input: no reply to read (did the request fail?)") \
	X(MSG_RESPONSE_HTML, "an HTML page, not a reply (an error page from a server or proxy?)") \
	X(MSG_RESPONSE_UNKNOWN, "%s that is no provider's response body or stream (--from text takes it as the reply's text)") \
	X(MSG_RESPONSE_MISMATCH, "this is %s, not %s (--from %s)") \
	X(MSG_RESPONSE_BAD_JSON, "%s is not whole JSON: %s (cut short?)") \
	X(MSG_RESPONSE_STREAM_CUT, "the %s stream ended before its end (%s): the reply is incomplete") \
	/* png */ \
	X(MSG_PNG_SIGNATURE, "not a PNG file (the 8-byte PNG signature is missing)") \
	X(MSG_PNG_TRUNCATED, "file ends inside chunk '%s' (%lu bytes missing)") \
	X(MSG_PNG_TRUNCATED_HEADER, "file ends inside a chunk header") \
	X(MSG_PNG_BAD_TYPE, "invalid chunk type '%s'") \
	X(MSG_PNG_TOO_LONG, "chunk '%s' is %lu bytes long, more than the %lu strata reads") \
	X(MSG_PNG_BAD_CRC, "bad CRC in chunk '%s' (stored %08lx, computed %08lx)") \
	X(MSG_PNG_IHDR_FIRST, "the first chunk is '%s', not 'IHDR'") \
	X(MSG_PNG_NO_IEND, "no 'IEND' chunk: the file is truncated") \
	X(MSG_PNG_TEXT_TOO_LONG, "tEXt chunk '%s' would be %lu bytes long, more than the %lu strata writes") \
	/* card */ \
	X(MSG_CARD_NO_CHUNK, "%s has no character card: no tEXt chunk is named 'ccv3' or 'chara'") \
	X(MSG_CARD_BASE64, "bad base64 in tEXt chunk '%s': %s") \
	X(MSG_CARD_NOT_OBJECT, "a character card must be a JSON object, not %s") \
	X(MSG_CARD_WRONG_TYPE, "'%s' must be %s, not %s") \
	X(MSG_CARD_COERCED, "'%s' should be a string; %s is read as \"%s\"") \
	X(MSG_CARD_SPEC, "unknown card spec '%s'; reading it as a V2 card") \
	X(MSG_CARD_NO_FIELD, "the card has no field '%s'") \
	X(MSG_CARD_TTY, "refusing to write a PNG to a terminal: give -o FILE or redirect standard output") \
	X(MSG_CARD_WRITE, "cannot write %s:") \
	X(MSG_CARD_BOOK_UNLINKED, "the card's embedded lorebook is not sent: SillyTavern imports it as the world '%s', which extensions.world (%s) does not name") \
	/* jsregex */ \
	X(MSG_JSREGEX_PCRE2, "%s: the pattern cannot be compiled: %s") \
	X(MSG_JSREGEX_TRAILING_BACKSLASH, "%s: '\\' at the end of the pattern") \
	X(MSG_JSREGEX_BAD_ESCAPE, "%s: invalid escape (the u flag allows only escapes with a meaning)") \
	X(MSG_JSREGEX_BAD_PROPERTY, "%s: invalid property name: write \\p{Name}") \
	X(MSG_JSREGEX_CLASS_RANGE, "%s: invalid character class range") \
	X(MSG_JSREGEX_RANGE_ORDER, "%s: range out of order in character class") \
	X(MSG_JSREGEX_UNTERMINATED_CLASS, "%s: unterminated character class") \
	X(MSG_JSREGEX_BAD_NAMED_REF, "%s: invalid named reference") \
	X(MSG_JSREGEX_BAD_BACKREF, "%s: reference to a group that does not exist") \
	X(MSG_JSREGEX_TOO_DEEP, "%s: groups nested too deeply") \
	X(MSG_JSREGEX_BEHIND_REF, "%s: this look-behind is not of a fixed length and refers to a group outside it; strata cannot run it") \
	X(MSG_JSREGEX_DUP_NAME, "%s: duplicate capture group name") \
	X(MSG_JSREGEX_BAD_GROUP, "%s: invalid group") \
	X(MSG_JSREGEX_UNMATCHED, "%s: unmatched ')'") \
	X(MSG_JSREGEX_UNTERMINATED_GROUP, "%s: unterminated group") \
	X(MSG_JSREGEX_NOTHING_TO_REPEAT, "%s: nothing to repeat") \
	X(MSG_JSREGEX_QUANT_ORDER, "%s: numbers out of order in {} quantifier") \
	X(MSG_JSREGEX_LONE_BRACKET, "%s: lone quantifier bracket (not allowed with the u flag)") \
	/* regex scripts */ \
	X(MSG_REGEX_NOT_SCRIPT, "a regex script must be an object, not %s") \
	X(MSG_REGEX_FIELD_TYPE, "'%s' of a regex script must be %s, not %s") \
	X(MSG_REGEX_COERCED, "'%s' is %s; SillyTavern reads it as %s") \
	X(MSG_REGEX_DUPLICATE, "regex script '%s' has the %s of the script at %s; the merge keeps that one and drops this one") \
	X(MSG_REGEX_INERT, "%s: flag '%c' is not a JavaScript flag; SillyTavern ignores this script") \
	X(MSG_REGEX_NOT_FLAGS, "%s: the letters after the last '/' are not a set of flags, so SillyTavern takes the whole string, slashes included, as the pattern") \
	X(MSG_REGEX_LIMIT, "match limit exceeded in script '%s'") \
	X(MSG_MACRO_OUTPUT, "the macros of %s would make more text than the cap on %s (%zu bytes; see strata(1), SECURITY)") \
	X(MSG_MACRO_VAR_BIG, "variable '%s' would hold %zu bytes, more than the cap of %zu") \
	X(MSG_MACRO_VAR_BIG_IN, "the macros of %s would set variable '%s' to %zu bytes, more than the cap of %zu (see strata(1), SECURITY)") \
	X(MSG_REGEX_RUN_BUDGET, "script '%s' ran out of its budget of match steps for one text (see strata(1), SECURITY)") \
	X(MSG_REGEX_BUILD_BUDGET, "script '%s' ran out of the build's budget of regex match steps (see strata(1), SECURITY)") \
	X(MSG_REGEX_MATCH_FAILED, "matching failed in script '%s'") \
	/* world info (world/world.c, world/wi*.c, cmd/wi.c) */ \
	X(MSG_WI_WRONG_TYPE, "'%s' must be %s, not %s (%s)") \
	X(MSG_WI_NOT_WORLD, "a world file must be a JSON object with \"entries\", not %s") \
	X(MSG_WI_NO_ENTRIES, "no \"entries\": neither a world file nor a character_book") \
	X(MSG_WI_EMPTY_KEY, "uid %lld: %s key %zu is empty and never matches") \
	X(MSG_WI_BLANK_KEY, "uid %lld: %s key %zu is only white space and matches every text (SillyTavern looks for the empty string)") \
	X(MSG_WI_BAD_REGEX, "uid %lld: regex key '%s' does not compile (%s at offset %zu); SillyTavern matches it as plain text") \
	X(MSG_WI_WORD_EDGE, "uid %lld: key '%s' starts or ends with a non-word character; as a whole-word key it needs one more non-word character beside it") \
	X(MSG_WI_DUP_UID, "duplicate uid %lld: timed effects and debug views cannot tell the entries apart") \
	X(MSG_WI_LONE_GROUP, "uid %lld: inclusion group '%s' has a single member") \
	X(MSG_WI_REGEX_LIMIT, "%s uid %lld: regex key '%s' hit the match limit and counts as not matching") \
	X(MSG_WI_SETTINGS, "'%s' must be %s; the default is used") \
	X(MSG_WI_NO_CHAT, "--seed and --json need --chat") \
	/* agent: [agent] sections and the loop state */ \
	X(MSG_STATE_NOT_OBJECT, "the state must be a JSON object, not %s") \
	X(MSG_STATE_MEMORIES, "'memories' must be a string or an array of strings, not %s") \
	X(MSG_STATE_MEMORY, "a memory must be a string, not %s") \
	X(MSG_STATE_PROFILE, "'profile' must be a string or an object, not %s") \
	X(MSG_AGENT_SOURCE, "unknown section source '%s' (expected user_text, persona, context.NAME, prestart, tools, tool_history, history, observation, memories or profile)") \
	X(MSG_AGENT_NO_CONTEXT, "no [[agent.sections]] reads context '%s' (source = \"context.%s\")") \
	X(MSG_AGENT_FLAG, "expected %s=FILE") \
	X(MSG_STATE_NO_AGENT, "%s needs a profile with an [agent] table") \
	/* plugins, labels, seed fidelity (issue 8) */ \
	X(MSG_PLUGIN_NOT_FOUND, "no plugin '%s': neither %s/plugin.toml nor %s/plugin.yaml exists") \
	X(MSG_PLUGIN_TWICE, "plugin '%s' is enabled twice") \
	X(MSG_BAD_VAR_NAME, "'%.*s' is not a variable name: a letter or '_', then letters, digits, '_', '.' or '-'") \
	X(MSG_INJECT_TOOLS_KEY, "an injection cannot take the key 'tools': the tool prose must agree with the request's tools, so change [[tools]] instead") \
	X(MSG_PROFILE_FORMAT, "cannot tell the format of profile '%s': name it .toml, .yaml or .yml, or give --profile-format toml|yaml") \
	X(MSG_CONTEXT_EMPTY, "context '%s' is required, and %s is empty: empty content is no content") \
	X(MSG_NOT_EXPANDED, "'%s' holds a placeholder, but it is not expanded: it is sent as written") \
	X(MSG_SOUL_UNSENT, "'soul' is sent by the agent prompt only, and this build has none: set [prompt] agent = true (or give --input FILE.json), or read it in a prompt file with {{soul_body}}") \
	X(MSG_ANCHOR_UNUSED, "anchor places an entry among a SillyTavern preset's prompts; without a SillyTavern build (a [tavern] table, --card) it is ignored") \
	X(MSG_OUTLINE_PRIORITY, "outline skill '%s' has a priority, which outline skills ignore (the outline is at priority 75)") \
	X(MSG_SKILL_EMPTY, "skill '%s' is empty: it adds nothing to the prompt") \
	X(MSG_HISTORY_NAME, "history name '%s' is not one OpenAI takes: %s") \
	X(MSG_BAD_TAG, "'%s' cannot hold %s: it would break the [tag]...[/tag] block") \
	/* batch */ \
	X(MSG_BATCH_NOT_OBJECT, "a request line must be a JSON object, not %s") \
	X(MSG_BATCH_KEY, "unknown key '%s' (expected id, user, history, context, vars or inject)") \
	X(MSG_BATCH_NO_USER, "a request line needs \"user\"") \
	X(MSG_BATCH_TYPE, "'%s' must be %s, not %s") \
	X(MSG_BATCH_SKIPPED, "%s (id %s): line skipped") \
	X(MSG_BATCH_ID_EMPTY, "an empty custom_id: the batch APIs need one of 1 character or more") \
	X(MSG_BATCH_ID_ANTHROPIC, "custom_id '%s' (%zu bytes) is not one the Anthropic Message Batches API takes: 1 to 64 of a-z, A-Z, 0-9, '_' and '-'") \
	X(MSG_BATCH_ID_LINE, "custom_id '%s' has the form line-N that strata gives a line without an id: choose another (line-%zu, this line's own, is allowed)") \
	X(MSG_BATCH_ID_TWICE, "custom_id '%s' is already the id of line %zu: ids must be unique within a batch") \
	X(MSG_BATCH_OVER_LIMIT, "more than %llu %s in one output, over the %s limit of one batch: give -o PREFIX to write files within it") \
	X(MSG_BATCH_LINE_TOO_BIG, "this request is %llu bytes, more than the %llu bytes a file may hold") \
	/* diff, test */ \
	X(MSG_REVIEW_NOT_BUILD, "not a build result (save one with strata build -f json)") \
	X(MSG_TEST_KEY, "unknown key '%s' in a test case (expected profile, user, history, format, now, seed, context, vars, set, inject, expect, contains, not_contains, max_tokens, max_message_tokens or prefix_stable_with)") \
	X(MSG_TEST_TYPE, "'%s' must be %s, not %s") \
	X(MSG_TEST_NO_PROFILE, "a test case needs 'profile'") \
	/* tavern: the profile's own entries among the preset's prompts */ \
	X(MSG_BAD_ANCHOR, "'%s' must be \"before:IDENTIFIER\" or \"after:IDENTIFIER\" (a prompt of the preset's prompt_order), not '%s'") \
	X(MSG_ANCHOR_PLACE, "'anchor' places an injection among a SillyTavern preset's prompts, so it does not go with %s") \
	X(MSG_TAVERN_ANCHOR_UNKNOWN, "anchor '%s' names no prompt of the preset's prompt_order%s") \
	/* params (--params) and fast-tavern's engine */ \
	X(MSG_FTAV_THROW, "%s: fast-tavern 0.1.8 throws on this input") \
	X(MSG_FTAV_REGEX_LIMIT, "%s: the regex ran past its match limit (fast-tavern would not finish)") \
	X(MSG_PARAMS_NOT_OBJECT, "the parameters must be one JSON object, not %s") \
	X(MSG_PARAMS_FORMAT, "fast-tavern's parameters print with -f fast-tavern, not -f %s") \
	X(MSG_SANDBOX_TWO_CHATS, "-H gives the chat's messages and so does %s: give one of them") \
	X(MSG_SANDBOX_THINKING, "a thinking message is the reasoning of the assistant message right after it, and this one has none") \
	X(MSG_THINKING_FORMAT, "a thinking message has no place in %s: %s; -f result, -f json and -f ollama carry it") \
	X(MSG_SANDBOX_ROLE, "a SillyTavern build takes user, assistant, system and thinking messages of text, not tool calls, tool results or images") \
	X(MSG_SANDBOX_EXTRA, "%s needs a SillyTavern build (--card FILE or a [tavern] table)") \
	X(MSG_PERSONA_FILE, "a persona file in JSON is an object with a string 'name', a string 'description' or both") \
	X(MSG_PARAMS_KEY, "unknown build parameter '%s' (seed 002's BuildParams: conversation_file, character_file, preset_file, persona_file, llm_config_file, worldbook_files, regex_files, messages, extra_system, view, output, target_node_id, fingerprints, variables_hash, variables_fingerprints, variables, global_variables, macros, include_stages, include_per_item, dry_run)") \
	X(MSG_PARAMS_TYPE, "'%s' must be %s, not %s") \
	X(MSG_PARAMS_WORD, "'%s' must be %s, not '%s'") \
	X(MSG_PARAMS_LLM_CONFIG, "llm_config_file: strata takes the model and its sampling parameters from the preset and the profile ([llm_profiles], --llm-profile), not from an LLM config file") \
	X(MSG_PARAMS_TARGET_NODE, "target_node_id names where a reply is written: strata build writes no reply (strata reply and --session do), so it is not used") \
	X(MSG_HOOK_FAILED, "hook %s (%s): %s") \
	X(MSG_HOOK_COUNT, "%zu messages went in and %zu came out; a hook may change their texts and names, not add or remove messages") \
	X(MSG_HOOK_TYPE, "%s must be %s") \
	X(MSG_HOOK_KEY, "a message holds role, content and name, not '%s'") \
	X(MSG_HOOK_ROLE, "message %zu must keep its role '%s'") \
	X(MSG_HOOK_POINT, "strata build reaches %s only in a SillyTavern build (--card, --params or a profile's [tavern]); this build is not one") \
	X(MSG_HOOK_NOT_REACHED, "strata build does not reach the hook point '%s' (see strata(1), HOOKS)") \
	X(MSG_HOOK_TIMEOUT, "the hooks' timeout must be a positive number of seconds, at most 999999") \
	X(MSG_HOOK_REPLY, "a hook may change the reply's content and reasoning, not its '%s'") \
	X(MSG_HOOK_VALUE, "hook %s: the variable '%s' must be a string, not %s") \
	X(MSG_PARAMS_TWO_CHATS, "messages are the chat's messages and so is %s: give one of them") \
	X(MSG_PARAMS_NO_CARD, "seed 002's parameters build for a character: give character_file") \
	X(MSG_PARAMS_RESULT_FORMAT, "seed 002's parameters print its BuildResult (-f result) or a request body, not -f %s") \
	X(MSG_SINCE_NOT_RESULT, "not a BuildResult with fingerprints (save one with strata build -f result)") \
	X(MSG_GLOBALS_NOT_OBJECT, "a global variables file holds one JSON object, not %s") \
	X(MSG_GLOBAL_VAR_ARG, "%s '%s' is not NAME=VALUE") \
	/* budget */ \
	X(MSG_BUDGET_PROTECTED, "what the budget may not cut needs %zu tokens, more than the %lld the budget allows (%s): %s") \
	X(MSG_BUDGET_NO_ROOM, "the reply's %lld tokens leave no room in a context window of %lld tokens") \
	X(MSG_BUDGET_CUT, "budget: %s; strata debug lists each cut") \
	X(MSG_BUDGET_TAVERN, "a SillyTavern build keeps SillyTavern's token budget (openai_max_context): %s is not used") \
	/* end */

#define X(name, text) name,
enum diag_msg {
	DIAG_MESSAGES
	MSG__COUNT
};
#undef X

struct diag {
	unsigned errors, warnings;
	bool system_error;      /* an I/O or system failure: exit 3 */
	bool color;             /* colour the level words */
	bool capped;            /* DIAG_MAX_SHOWN reached */
	/* When set, messages are appended here instead of going to
	 * stderr (strata test puts them in its report); borrowed. */
	struct buf *to;
};

/* Messages printed per run; later ones are only counted. */
#define DIAG_MAX_SHOWN 50

void diag_init(struct diag *d);

/* Report at span sp of src; src may be NULL for no location. */
void diag_at(struct diag *d, enum diag_level level, const struct source *src,
    struct span sp, enum diag_msg msg, ...);
/* Mark the run as failed by an I/O or system error (exit 3). */
void diag_set_system(struct diag *d);
/* EXIT_OK, EXIT_INPUT or EXIT_SYSTEM, from what was reported. */
int diag_exit(const struct diag *d);

const char *diag_text(enum diag_msg msg);
/* The text of msg with its arguments, in arena a: what a report would
 * say, for a caller that also hands the reason on as data. */
const char *diag_format(struct arena *a, enum diag_msg msg, ...);
/* Text fit to quote in a message: control characters and invalid bytes
 * escaped, cut after DIAG_SHOWN_MAX code points.  In arena a. */
const char *diag_quote(struct arena *a, const char *s, size_t n);
#define DIAG_SHOWN_MAX 40

#endif
