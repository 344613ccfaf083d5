/*
 * run: the state of one invocation.  main() creates one struct run per
 * command and passes it, explicitly and first, to every stage.  The run
 * owns its arena (all pipeline data), its diagnostics, and every source
 * text it has read; run_free() releases all of it.
 *
 * The stages report through the spellings below, which take the run:
 * diag_error(run, src, span, MSG_..., ...) and its kin.
 */
#ifndef RUN_H
#define RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/map.h"
#include "diag/diag.h"
#include "diag/source.h"

struct run {
	struct arena arena;
	struct diag diag;
	struct sources sources;
	/* strata batch: files read once, path -> source (NULL: no cache;
	 * borrowed, its owner frees it).
	 * Filled only while readcache_fill is set; the cached sources must
	 * outlive every later lookup. */
	struct map *readcache;
	bool readcache_fill;
};

void run_init(struct run *run);
void run_free(struct run *run);

/*
 * Read a whole file ("-" is standard input) as a source of the run.  On
 * failure report it -- at `at` inside `from` when from is not NULL (the
 * place that named the file), else without a location -- and return
 * NULL.
 */
struct source *run_read(struct run *run, const char *path,
    const struct source *from, struct span at);
/* A source from memory (embedded defaults, tests); the text is copied. */
struct source *run_source_mem(struct run *run, const char *name,
    const char *text, size_t len);
/* The source with id, or NULL. */
struct source *run_source(const struct run *run, uint32_t id);

#define diag_report(run, level, src, sp, ...) \
	diag_at(&(run)->diag, (level), (src), (sp), __VA_ARGS__)
#define diag_error(run, src, sp, ...) \
	diag_at(&(run)->diag, DIAG_ERROR, (src), (sp), __VA_ARGS__)
#define diag_warning(run, src, sp, ...) \
	diag_at(&(run)->diag, DIAG_WARNING, (src), (sp), __VA_ARGS__)
#define diag_note(run, src, sp, ...) \
	diag_at(&(run)->diag, DIAG_NOTE, (src), (sp), __VA_ARGS__)
/* A message with no location. */
#define diag_plain(run, level, ...) \
	diag_at(&(run)->diag, (level), NULL, span_make(0, 0), __VA_ARGS__)
/* Mark the run as failed by an I/O or system error (exit 3). */
#define diag_system(run) diag_set_system(&(run)->diag)
/* The exit status the run's reports call for. */
#define diag_status(run) diag_exit(&(run)->diag)
/* Untrusted text fit to quote in a message, in the run's arena. */
#define diag_shown(run, s, n) diag_quote(&(run)->arena, (s), (n))

#endif
