/*
 * emit: one emitter per output format, each in its own file, all with the
 * same signature: read the chat, append the bytes to out, return false
 * (after reporting) when the chat cannot be expressed in that format.
 * Bodies are built as trees and printed by json_write(), so key order is
 * fixed and the bytes are deterministic; the messages array is written
 * one message's tree at a time (emit_write()), so memory does not grow
 * with a tree of the whole conversation.  Emitters allocate from the
 * run's arena; out belongs to the caller.
 */
#ifndef EMIT_H
#define EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/span.h"
#include "prompt/names.h"

struct arena;
struct buf;
struct chat;
struct item;
struct message;
struct node;
struct part;
struct run;
struct tool;

typedef bool emit_fn(struct run *run, const struct chat *c, struct buf *out);

emit_fn emit_openai;
emit_fn emit_anthropic;
emit_fn emit_gemini;
emit_fn emit_responses;
emit_fn emit_ollama;
emit_fn emit_messages;
emit_fn emit_text;
emit_fn emit_review;
emit_fn emit_json;
emit_fn emit_debug;
emit_fn emit_prompt;
emit_fn emit_system;
emit_fn emit_user;
/* The debug view's world-info section (emit_debug_wi.c): nothing unless
 * the chat has a SillyTavern build's world-info outcome. */
void emit_debug_wi(struct run *run, const struct chat *c, struct buf *out,
    const char *bold, const char *off);

/* A SillyTavern build's message i at stage k (enum item_stage): its
 * items' texts, one per line, an item joined into another (item.h)
 * only by it from the macros stage on (emit_tavern.c; in a's memory). */
const char *emit_tavern_stage(struct arena *a, const struct chat *c,
    size_t i, int k);

/*
 * The tavern dialect's request as the chat's format takes it
 * (emit_shape.c): Claude's and Google's reshaping, names into the text
 * where messages carry none, and the body fields (samplers, stop
 * strings, a custom source's body) in c->params.  Nothing for a profile
 * build.  Every command that builds calls it once, after assemble()
 * and before any emitter.  It only warns (a custom body that is not
 * YAML).
 */
void emit_shape(struct run *run, struct chat *c);

/* The emitter of a format. */
emit_fn *emit_for(enum out_format f);

/* What the emitter of the chat's format would refuse, short of a
 * conversation (strata check). */
bool emit_check(struct run *run, const struct chat *c);

/* Shared by the emitters (emit.c, emit_params.c). */
/* The body keys the emitter of format f sets itself, which
 * [output.params] may not (NULL-terminated; NULL for none). */
const char *const *emit_reserved(enum out_format f);
/* [output.params] translated for format f (emit_params.c): body keys
 * into body, sampling keys into sampling (Gemini's generationConfig,
 * Ollama's options; body for the others).  A key the format has no
 * parameter for, or one it sets itself, is an error. */
bool emit_params(struct run *run, const struct chat *c, enum out_format f,
    struct node *body, struct node *sampling);
/* The model, or an error when the format needs one and there is none. */
bool emit_model(struct run *run, const struct chat *c, const char *format,
    const char **model);
/* System text for providers that have one system prompt: the system
 * message, then the developer message. */
const char *emit_system_text(struct run *run, const struct chat *c,
    size_t *len);
/*
 * Streaming the messages array: a body is built as a tree whose messages
 * member is a placeholder (hole); emit_write() prints it with indent 2,
 * writing the hole as an array of the nodes item() returns for the
 * messages from index from on.  Each item is built in a scratch arena
 * that is dropped as the array goes, so a million messages never stand
 * as a tree at once.  item() returns one node for the messages at *i
 * and after (a provider may merge several) and advances *i, or reports
 * and returns NULL.  body == hole writes a bare array.
 */
typedef struct node *emit_item_fn(struct run *run, const struct chat *c,
    size_t *i, struct arena *scratch);
bool emit_write(struct run *run, const struct chat *c, const struct node *body,
    const struct node *hole, size_t from, emit_item_fn *item,
    struct buf *out);
/* A message as OpenAI Chat Completions spells it (openai, messages). */
emit_item_fn emit_openai_message;
/* Report that provider cannot take what is in message i, at the
 * message's place. */
void emit_cannot(struct run *run, const struct chat *c, size_t i,
    const char *provider, const char *what);
/* Has message m nothing at all: no text, parts, calls or result. */
bool emit_empty(const struct message *m);
/* A part's URL, or its bytes as a data: URL. */
struct node *emit_data_url(struct arena *a, const struct part *p);
/* The parts other than text and the tool calls of m, a line each, for
 * the text and debug views. */
void emit_extra_text(struct buf *out, const struct message *m);
/* The media type of a URL by its path's extension (.jpg, .jpeg, .png,
 * .webp, .gif, .pdf, any case; the query and fragment aside), or NULL. */
const char *emit_url_type(const char *url, size_t len);
/* The array of what provider ("anthropic", "responses", "gemini")
 * signed in message m's reasoning, to send back as it came, or NULL. */
const struct node *emit_replay(const struct message *m,
    const char *provider);
/* What the chat's format does with message m's reasoning, in words
 * ("sent back as ...", "left out: ..."), or NULL when m has none. */
const char *emit_reasoning_fate(const struct chat *c,
    const struct message *m);
/* Arguments as compact JSON text (OpenAI's tool call arguments). */
struct node *emit_args_text(struct arena *a, const struct node *args);
/* A tool as {name, description, <schema_key>: parameters}, the shape
 * every provider builds on.  It shares the tool's parameters node. */
struct node *emit_tool(struct arena *a, const struct tool *t,
    const char *schema_key);
/* "path:line" of span sp in source src, in the run's arena; NULL when
 * has is false or the source is unknown. */
const char *emit_where(struct run *run, bool has, uint32_t src,
    struct span sp);
/* The same in arena a, for a source that is known to be there. */
const char *emit_where_in(struct run *run, struct arena *a, uint32_t src,
    struct span sp);
/* The index of the first conversation message (after system and
 * developer messages). */
size_t emit_first_turn(const struct chat *c);

/* Estimated tokens: a CJK character is about one token, other text about
 * four characters per token.  An estimate, and documented as one. */
size_t emit_tokens(const char *s, size_t len);

/*
 * How a chat's tokens are counted everywhere strata reports them (debug,
 * -f json, diff, test): exactly, with the encoding of a SillyTavern build
 * (the one its budgets used) or of an OpenAI model name strata knows
 * (tokenizer_model_known), else estimated by emit_tokens().
 */
struct emit_counter {
	bool exact;
	int kind;                       /* enum tokenizer_kind when exact */
};

void emit_counter_init(struct emit_counter *k, const struct chat *c);
size_t emit_count(const struct emit_counter *k, const char *s, size_t len);
/* "cl100k_base", "o200k_base", or "estimate". */
const char *emit_counter_name(const struct emit_counter *k);
/* FNV-1a 64 (hash.h) over role, a NUL byte, then the content. */
uint64_t emit_fingerprint(const char *role, const char *s, size_t len);
/* The fingerprint of a conversation: f starts as HASH_FNV_INIT and takes
 * each message's fingerprint h in order as (f XOR h) * the FNV prime.
 * Returns the new f.  strata(1) documents both. */
uint64_t emit_fingerprint_fold(uint64_t f, uint64_t h);

/* A SillyTavern build (chat.tavern, emit_tavern.c): under debug message
 * i, its items; after the debug view, every item with why it is in or
 * out and the stages that changed it; debug --stage (chat.stage), one
 * stage of every message; in -f json, message i's items and stages and
 * the array of every item. */
void emit_debug_tavern_items(struct buf *out, const struct chat *c,
    size_t i);
void emit_debug_tavern(struct run *run, const struct chat *c,
    struct buf *out);
emit_fn emit_debug_stage;
void emit_json_tavern_message(struct arena *a, const struct chat *c,
    size_t i, struct node *o);
struct node *emit_json_tavern_items(struct run *run, const struct chat *c);
/* A SillyTavern group chat's speaker and why, or NULL (tavern/titem.h). */
const char *emit_tavern_speaker(const struct chat *c);
/* Where a SillyTavern item's text was read: "preset.json:12", a card
 * field's "card.json:6 (description)" or, in a PNG card, "card.png
 * (description)"; or NULL (made by the build, typed on
 * the command line); and the same as {file, line, field} for -f json
 * (line null where there is none; field only for card fields), or a
 * JSON null.  In the run's arena. */
const char *emit_tavern_where(struct run *run, const struct item *it);
struct node *emit_tavern_source(struct run *run, const struct item *it);

/*
 * -f result (emit_result.c): seed 002's BuildResult of a SillyTavern
 * build.  output is full, history or delta; delta compares with the
 * fingerprints of the previous result (NULL: none, everything is new).
 * locals and globals are the variables as the build left them.
 */
struct emit_result {
	const char *output;
	bool stages, per_item;
	const struct node *fingerprints, *vars_fingerprints;
	const char *vars_hash;
	const struct node *locals, *globals;
};
bool emit_result(struct run *run, const struct chat *c,
    const struct emit_result *r, struct buf *out);

/* May output to descriptor fd be coloured?  when is --color's word:
 * "always", "never", or "auto" (or NULL): a terminal, and NO_COLOR unset
 * or empty (https://no-color.org).  For every colour strata prints:
 * diagnostics and the debug view. */
bool emit_color(int fd, const char *when);

#endif
