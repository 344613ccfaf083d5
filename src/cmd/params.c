/*
 * build --params FILE|-: one JSON object of build parameters.  Its keys
 * say whose they are: fast-tavern's buildPrompt parameters (preset,
 * character, globals, history, ...) run fast-tavern's engine
 * (tavern/ftav.h) and print its BuildPromptResult with -f fast-tavern;
 * any other object is seed 002's BuildParams, each field the command
 * line option it stands for (strata-params(5)), and the SillyTavern
 * build prints seed 002's BuildResult (-f result) unless -f names a
 * request body.  Paths are relative to the params file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/path.h"
#include "base/vec.h"
#include "cmd/cmd.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "pipeline/assemble.h"
#include "tavern/ftav.h"

static bool
fast_tavern(struct run *run, const struct options *opt,
    const struct node *params, struct buf *out)
{
	struct node *res;

	if ((opt->format && strcmp(opt->format, "fast-tavern") != 0) ||
	    opt->result) {
		diag_plain(run, DIAG_ERROR, MSG_PARAMS_FORMAT, opt->result ?
		    "result" : opt->format);
		return false;
	}
	if (!ftav_build(run, params, &res))
		return false;
	json_write(out, res, 2);
	buf_putc(out, '\n');
	return true;
}

/* ---- seed 002's BuildParams ---- */

/* The translation's own arrays (heap; freed by the caller). */
struct seed {
	struct run *run;
	const struct source *src;
	const char *dir;                /* the params file's directory, or
	                                 * NULL: the current one */
	struct cmd_pipeline_args a;     /* the build: the command line's,
	                                 * with the params file's fields */
	size_t capv, capg, capm, capw, capr;
};

static bool
want(struct seed *s, const struct member *m, enum node_kind kind,
    const char *what)
{
	if (m->value->kind == kind)
		return true;
	diag_error(s->run, s->src, m->value->span, MSG_PARAMS_TYPE, m->key,
	    what, tree_kind_json(m->value->kind));
	return false;
}

/* A path of the params file, relative to its directory. */
static const char *
path_of(struct seed *s, const struct node *v)
{
	return s->dir ? path_join(&s->run->arena, s->dir, v->u.str.s) :
	    v->u.str.s;
}

static bool
path_field(struct seed *s, const struct member *m, const char **to)
{
	if (m->value->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_STRING, "a string (a path)"))
		return false;
	*to = path_of(s, m->value);
	return true;
}

static bool
path_list(struct seed *s, const struct member *m, const char ***arr,
    size_t *n, size_t *cap)
{
	size_t i;

	if (m->value->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_ARRAY, "a list of paths"))
		return false;
	for (i = 0; i < m->value->u.array.n; i++) {
		const struct node *v = m->value->u.array.items[i];

		if (v->kind != NODE_STRING) {
			diag_error(s->run, s->src, v->span, MSG_PARAMS_TYPE,
			    m->key, "a list of paths (strings)",
			    tree_kind_json(v->kind));
			return false;
		}
		*arr = vec_grow(*arr, cap, *n + 1, sizeof(**arr));
		(*arr)[(*n)++] = path_of(s, v);
	}
	return true;
}

/* A JSON value as a variable's text: strings as they are, everything
 * else as its JSON (SillyTavern keeps numbers and strings as text). */
static const char *
var_text(struct arena *a, const struct node *v)
{
	struct buf b = BUF_INIT;
	const char *r;

	if (v->kind == NODE_STRING)
		return v->u.str.s;
	json_write(&b, v, 0);
	buf_putc(&b, '\0');
	r = arena_strdup(a, b.data);
	buf_free(&b);
	return r;
}

/* An object of NAME: VALUE as NAME=VALUE arguments of the option optname
 * (only strings when strings_only). */
static bool
name_values(struct seed *s, const struct member *m, struct kv **arr,
    size_t *n, size_t *cap, const char *optname, bool strings_only)
{
	size_t i;

	if (m->value->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_TABLE, strings_only ? "an object of strings" :
	    "an object"))
		return false;
	for (i = 0; i < m->value->u.table.n; i++) {
		const struct member *e = &m->value->u.table.items[i];

		if ((strings_only && e->value->kind != NODE_STRING) ||
		    !e->keylen || memchr(e->key, '=', e->keylen)) {
			if (!e->keylen || memchr(e->key, '=', e->keylen))
				diag_error(s->run, s->src, e->keyspan,
				    MSG_PARAMS_WORD, m->key,
				    "a name without '='", e->key);
			else
				diag_error(s->run, s->src, e->value->span,
				    MSG_PARAMS_TYPE, m->key,
				    "an object of strings",
				    tree_kind_json(e->value->kind));
			return false;
		}
		*arr = vec_grow(*arr, cap, *n + 1, sizeof(**arr));
		(*arr)[*n].opt = optname;
		(*arr)[(*n)++].arg = arena_printf(&s->run->arena, "%s=%s",
		    e->key, var_text(&s->run->arena, e->value));
	}
	return true;
}

static bool
string_table(struct seed *s, const struct member *m,
    const struct node **to)
{
	size_t i;

	if (m->value->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_TABLE, "an object of strings"))
		return false;
	for (i = 0; i < m->value->u.table.n; i++)
		if (m->value->u.table.items[i].value->kind != NODE_STRING) {
			diag_error(s->run, s->src,
			    m->value->u.table.items[i].value->span,
			    MSG_PARAMS_TYPE, m->key, "an object of strings",
			    tree_kind_json(
			    m->value->u.table.items[i].value->kind));
			return false;
		}
	*to = m->value;
	return true;
}

static bool
word(struct seed *s, const struct member *m, const char *a, const char *b,
    const char *c, const char **to)
{
	const char *v;

	if (m->value->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_STRING, "a string"))
		return false;
	v = m->value->u.str.s;
	if (strcmp(v, a) && strcmp(v, b) && (!c || strcmp(v, c))) {
		diag_error(s->run, s->src, m->value->span, MSG_PARAMS_WORD,
		    m->key, c ? arena_printf(&s->run->arena, "%s, %s or %s",
		    a, b, c) : arena_printf(&s->run->arena, "%s or %s", a, b),
		    v);
		return false;
	}
	*to = v;
	return true;
}

static bool
flag(struct seed *s, const struct member *m, bool *to)
{
	if (m->value->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_BOOL, "true or false"))
		return false;
	*to = m->value->u.b;
	return true;
}

/*
 * messages: the sandbox's own, read exactly as -H reads a file.  The
 * reader gets a copy of the params text in which everything but the
 * list is blank (a space per character, the newlines kept), so that
 * what it reports points at the params file's own line and column.
 */
static bool
messages(struct seed *s, const struct member *m)
{
	const struct node *v = m->value;
	struct arena *a = &s->run->arena;
	const char *t = s->src->text;
	char *copy;
	size_t i, k = 0;

	if (v->kind == NODE_NULL)
		return true;
	if (!want(s, m, NODE_ARRAY, "a list of messages"))
		return false;
	copy = arena_alloc(a, s->src->len + 1);
	for (i = 0; i < s->src->len; i++) {
		if (i >= v->span.off && i < v->span.off + v->span.len)
			copy[k++] = t[i];
		else if (t[i] == '\n' || t[i] == '\r')
			copy[k++] = t[i];
		else if (((unsigned char)t[i] & 0xc0) != 0x80)
			copy[k++] = ' ';
	}
	copy[k] = '\0';
	s->a.build.history_src = run_source_mem(s->run, s->src->path, copy, k);
	return s->a.build.history_src != NULL;
}

static bool
field(struct seed *s, const struct member *m)
{
	struct options *o = &s->a.build;
	struct tavern_input *tv = &o->tavern;
	const char *k = m->key;

	if (strcmp(k, "conversation_file") == 0)
		return path_field(s, m, &tv->chat);
	if (strcmp(k, "character_file") == 0)
		return path_field(s, m, &tv->card);
	if (strcmp(k, "preset_file") == 0)
		return path_field(s, m, &tv->preset);
	if (strcmp(k, "persona_file") == 0)
		return path_field(s, m, &o->persona_file);
	if (strcmp(k, "llm_config_file") == 0) {
		if (m->value->kind == NODE_NULL)
			return true;
		diag_error(s->run, s->src, m->value->span,
		    MSG_PARAMS_LLM_CONFIG);
		return false;
	}
	if (strcmp(k, "worldbook_files") == 0) {
		tv->worlds_active = true;
		return path_list(s, m, (const char ***)&tv->worlds,
		    &tv->nworlds, &s->capw);
	}
	if (strcmp(k, "regex_files") == 0)
		return path_list(s, m, (const char ***)&tv->regex,
		    &tv->nregex, &s->capr);
	if (strcmp(k, "messages") == 0)
		return messages(s, m);
	if (strcmp(k, "extra_system") == 0) {
		if (m->value->kind == NODE_NULL)
			return true;
		if (!want(s, m, NODE_STRING, "a string"))
			return false;
		o->extra_system = m->value->u.str.s;
		return true;
	}
	if (strcmp(k, "view") == 0)
		return word(s, m, "user_view", "assistant_view", NULL,
		    &o->view);
	if (strcmp(k, "output") == 0)
		return word(s, m, "full", "history", "delta", &o->output);
	if (strcmp(k, "target_node_id") == 0) {
		if (m->value->kind == NODE_NULL)
			return true;
		if (!want(s, m, NODE_STRING, "a string"))
			return false;
		diag_warning(s->run, s->src, m->value->span,
		    MSG_PARAMS_TARGET_NODE);
		return true;
	}
	if (strcmp(k, "fingerprints") == 0)
		return string_table(s, m, &o->fingerprints);
	if (strcmp(k, "variables_fingerprints") == 0)
		return string_table(s, m, &o->vars_fingerprints);
	if (strcmp(k, "variables_hash") == 0) {
		if (m->value->kind == NODE_NULL)
			return true;
		if (!want(s, m, NODE_STRING, "a string"))
			return false;
		o->vars_hash = m->value->u.str.s;
		return true;
	}
	if (strcmp(k, "variables") == 0)
		return name_values(s, m, &o->vars, &o->nvars, &s->capv,
		    "variables", false);
	if (strcmp(k, "global_variables") == 0)
		return name_values(s, m, &o->global_vars, &o->nglobal_vars,
		    &s->capg, "global_variables", false);
	if (strcmp(k, "macros") == 0)
		return name_values(s, m, &o->macros, &o->nmacros, &s->capm,
		    "macros", true);
	if (strcmp(k, "include_stages") == 0)
		return flag(s, m, &o->include_stages);
	if (strcmp(k, "include_per_item") == 0)
		return flag(s, m, &o->include_per_item);
	if (strcmp(k, "dry_run") == 0)
		return flag(s, m, &s->a.dry_run);
	diag_error(s->run, s->src, m->keyspan, MSG_PARAMS_KEY, k);
	return false;
}

/* A heap copy of n elements of size sz (the command line's own arrays
 * stay the command line's). */
static void *
copy_arr(const void *v, size_t n, size_t sz, size_t *cap)
{
	void *r = NULL;

	*cap = 0;
	if (!n)
		return NULL;
	r = vec_grow(NULL, cap, n, sz);
	memcpy(r, v, n * sz);
	return r;
}

static int
seed_build(struct run *run, const struct cmd_pipeline_args *args,
    const struct source *src, const struct node *params)
{
	struct seed s;
	const struct node *msgs;
	size_t i;
	bool ok = true;
	int status;
	const struct options *opt = &args->build;

	memset(&s, 0, sizeof(s));
	s.run = run;
	s.src = src;
	s.a = *args;
	s.a.params = NULL;
	if (strcmp(args->params, "-") != 0)
		s.dir = path_dir(&run->arena, args->params);
	s.a.build.vars = copy_arr(opt->vars, opt->nvars, sizeof(*opt->vars),
	    &s.capv);
	s.a.build.global_vars = copy_arr(opt->global_vars, opt->nglobal_vars,
	    sizeof(*opt->global_vars), &s.capg);
	s.a.build.macros = copy_arr(opt->macros, opt->nmacros,
	    sizeof(*opt->macros), &s.capm);
	s.a.build.tavern.worlds = copy_arr(opt->tavern.worlds, opt->tavern.nworlds,
	    sizeof(*opt->tavern.worlds), &s.capw);
	s.a.build.tavern.regex = copy_arr(opt->tavern.regex, opt->tavern.nregex,
	    sizeof(*opt->tavern.regex), &s.capr);
	for (i = 0; i < params->u.table.n; i++)
		ok &= field(&s, &params->u.table.items[i]);
	msgs = tree_get(params, "messages");
	if (ok && s.a.build.history_src && (opt->history || s.a.build.tavern.chat)) {
		diag_error(run, src, msgs->span, MSG_PARAMS_TWO_CHATS,
		    opt->history ? "-H" : s.a.build.tavern.chat);
		ok = false;
	}
	if (ok && !s.a.build.tavern.card && !opt->profile) {
		diag_error(run, src, params->span, MSG_PARAMS_NO_CARD);
		ok = false;
	}
	if (ok && opt->format && strcmp(opt->format, "fast-tavern") == 0) {
		diag_plain(run, DIAG_ERROR, MSG_PARAMS_RESULT_FORMAT,
		    opt->format);
		ok = false;
	}
	if (ok && !opt->format)
		s.a.build.result = true;
	status = ok ? cmd_pipeline_run(run, &s.a, false) : diag_status(run);
	free(s.a.build.vars);
	free(s.a.build.global_vars);
	free(s.a.build.macros);
	free((void *)s.a.build.tavern.worlds);
	free((void *)s.a.build.tavern.regex);
	return status;
}

int
cmd_params(const struct cmd_pipeline_args *args)
{
	const struct options *opt = &args->build;
	struct run run;
	struct buf out = BUF_INIT;
	struct source *src;
	struct node *params = NULL;
	bool ok = false;
	int status;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, args->color);
	src = run_read(&run, args->params, NULL, span_make(0, 0));
	if (src && json_parse(&run, src, &params)) {
		if (params->kind != NODE_TABLE) {
			diag_error(&run, src, params->span,
			    MSG_PARAMS_NOT_OBJECT,
			    tree_kind_json(params->kind));
		} else if (ftav_recognise(params)) {
			ok = fast_tavern(&run, opt, params, &out);
		} else {
			/* The pipeline prints and frees what it made. */
			status = seed_build(&run, args, src, params);
			run_free(&run);
			return status;
		}
	}
	if (ok && run.diag.errors == 0 && out.len &&
	    fwrite(out.data, 1, out.len, stdout) != out.len)
		diag_system(&run);
	status = diag_status(&run);
	buf_free(&out);
	run_free(&run);
	return status;
}
