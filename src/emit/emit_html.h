/*
 * emit_html: the stage inspector, one self-contained HTML5 page (strata
 * debug -f html, strata diff -f html).  emit_html() writes the page of a
 * build (emit_html_build.c) from the data the text debug view reads:
 * messages and their entries or SillyTavern items, what was left out and
 * why, each message's stages, the world-info records, tokens per layer
 * and the cache prefix.  The page frame, escaping, the inline diff and
 * the filter bar (emit_html.c) are shared with the diff page that
 * review/diff_html.c writes.
 *
 * A page is safe to open whatever the input: every text is escaped, the
 * Content-Security-Policy forbids every load (no fonts, images, frames
 * or connections; only the page's own inline style and script run), and
 * the page reads the same with scripting off (everything is in the
 * document; the script only adds tab switching and filters).  Output is
 * stable: no time, no random ids, so pages can be golden files.
 *
 * Ownership: out belongs to the caller; scratch strings come from the
 * run's arena; nothing else is kept.
 */
#ifndef EMIT_HTML_H
#define EMIT_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "emit/emit.h"

struct arena;
struct buf;

emit_fn emit_html;

/* The document up to and including <body>, with title (escaped). */
void emit_html_head(struct buf *out, const char *title);
/* The script, then </body></html>. */
void emit_html_foot(struct buf *out);

/* Text and attribute values, escaped: & < > " ' and NUL. */
void emit_html_esc(struct buf *out, const char *s, size_t len);
void emit_html_escs(struct buf *out, const char *s);

/* A file path as a relative URL in an attribute: percent-encoded where
 * a URL or an attribute would read it otherwise, and starting with ./
 * unless absolute, so no path can become a javascript: link. */
void emit_html_url(struct buf *out, const char *path, size_t len);

/* An inline word-level diff of a into b: the text with <del> for what
 * went and <ins> for what came (both), or one side of it (old: the text
 * of a with <del>; new: b with <ins>).  A deletion that holds a {{macro}}
 * is titled with it.  Large texts that differ throughout fall back to
 * "all of a went, all of b came". */
enum emit_html_side { EMIT_HTML_BOTH, EMIT_HTML_OLD, EMIT_HTML_NEW };
void emit_html_diff(struct buf *out, const char *a, size_t alen,
    const char *b, size_t blen, enum emit_html_side side);

/* A layer or source name as a class and data-layers token
 * ("world info" -> "world-info"), in a. */
const char *emit_html_slug(struct arena *a, const char *name);
/* The colour of a layer or source: "L0" .. "L11" (known names have
 * fixed colours; others are spread by a hash). */
const char *emit_html_hue(const char *name);

/* The source a SillyTavern item is coloured and filtered by on either
 * page: its own (preset, card, world info, chat, ...), but the Author's
 * Note, which the build counts under chat, is a source of its own. */
const char *emit_html_source(const char *id, const char *source);

/* Names in order of first appearance (roles, layers), for the filter
 * bar.  The array is on the heap: emit_html_names_free(). */
struct emit_html_names {
	const char **v;
	size_t n, cap;
};
void emit_html_names_add(struct emit_html_names *l, const char *name);
void emit_html_names_free(struct emit_html_names *l);
/* The filter bar: role and layer choices, a search box, expand and
 * collapse, the count of messages shown; what says what is counted
 * ("messages").  Hidden until the script runs. */
void emit_html_filters(struct buf *out, struct arena *a,
    const struct emit_html_names *roles,
    const struct emit_html_names *layers, const char *what, bool changed);

#endif
