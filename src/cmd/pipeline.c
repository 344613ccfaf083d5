/*
 * The driver build and debug share: assemble, emit into a buffer, and
 * write stdout only when everything succeeded; then what the build keeps
 * (the session's turn, the global variables, through the variables
 * hooks) and the --log-level debug trace.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "emit/emit.h"
#include "emit/emit_html.h"
#include "pipeline/assemble.h"
#include "pipeline/hook.h"
#include "session/globals.h"
#include "session/session.h"
#include "tavern/titem.h"
#include "text/templates.h"

/*
 * build --session: once the request is built, the session takes the
 * turn (session_save_turn(), under the lock held since before anything
 * was read).  --dry-run, debug and a regenerated turn write nothing.
 */
static bool
save_turn(struct run *run, const struct options *opt, const struct chat *c,
    const struct assemble_out *res, struct session_hold *hold,
    const char **thread)
{
	const struct tavern_state *ts = &res->tavern;
	struct session_turn t;
	const char **images = arena_array(&run->arena, opt->nimages + 1,
	    sizeof(*images));
	size_t i;

	memset(&t, 0, sizeof(t));
	t.chat = c;
	t.seed = opt->tavern.seed;
	t.now = opt->now;
	t.now_ms = res->has_now ? res->now_ms : clock_now_ms();
	t.greeting = ts->greeting;
	t.char_name = ts->char_name;
	t.more_greetings = ts->more_greetings;
	t.more_names = ts->more_names;
	t.nmore = ts->nmore;
	t.vars_changed = ts->vars_changed;
	t.timed = ts->timed;
	t.user = ts->user;
	t.user_name = ts->user_name;
	for (i = 0; i < opt->nimages; i++)
		images[i] = opt->images[i].arg;
	t.images = images;
	t.nimages = opt->nimages;
	if (!session_save_turn(run, hold, &t))
		return false;
	*thread = t.thread;
	return true;
}

/*
 * --log-level debug: what Alice's debug trace holds -- profile, model,
 * session, the templates used and where each came from, then the full
 * rendered request.  It holds the prompt: the man page says so.
 */
static void
trace(struct run *run, const struct options *opt, const struct chat *c,
    const struct assemble_out *res, const struct buf *out,
    const char *thread)
{
	const struct profile *p = c->profile;
	size_t i;

	/* Nothing was written (debug, --dry-run, regenerate): the thread is
	 * the one the session file had as the build read it, if any. */
	if (!thread)
		thread = res->thread;

	fprintf(stderr, "%s: debug: profile %s (%s)\n", progname,
	    p->name.s ? p->name.s : "-", p->src ? p->src->path : "(default)");
	fprintf(stderr, "%s: debug: format %s, model %s\n", progname,
	    names_format(c->format), c->model ? c->model : "-");
	fprintf(stderr, "%s: debug: session %s, thread %s, turn %lld, %s\n",
	    progname, opt->session ? opt->session : "-", thread ? thread : "-",
	    (long long)c->turn, c->first_turn ? "first turn" : "resumed");
	for (i = 0; c->templates && i < c->templates->n; i++)
		fprintf(stderr, "%s: debug: template %s (%s) from %s\n",
		    progname, c->templates->v[i].name,
		    templates_language(c->templates->v[i].name),
		    c->templates->v[i].where);
	fprintf(stderr, "%s: debug: rendered input (%zu bytes):\n", progname,
	    out->len);
	if (out->len)
		fwrite(out->data, 1, out->len, stderr);
}

/*
 * beforeVariablesSave / afterVariablesSave: the variables the build is
 * about to save (after: has saved), {"local": {...}, "global": {...}},
 * through the user's hooks; before the save, what the hook returns is
 * what is saved.
 */
static bool
vars_hook(struct run *run, const struct hooks *hooks, struct tavern_state *ts,
    const char *point, struct node **vars)
{
	struct arena *a = &run->arena;
	struct node *d;
	size_t i;
	int k;

	if (!hook_wanted(hooks, point))
		return true;
	if (!*vars) {
		*vars = tree_table(a);
		tree_put(a, *vars, "local", ts->vars_changed ?
		    tree_copy(a, ts->vars_changed) : tree_table(a));
		tree_put(a, *vars, "global", ts->globals_changed ?
		    tree_copy(a, ts->globals_changed) : tree_table(a));
	}
	d = *vars;
	if (!hook_run(run, hooks, point, &d))
		return false;
	for (k = 0; k < 2; k++) {
		const struct node *t = tree_get(d, k ? "global" : "local");

		for (i = 0; i < t->u.table.n; i++)
			if (t->u.table.items[i].value->kind != NODE_STRING) {
				diag_plain(run, DIAG_ERROR, MSG_HOOK_VALUE,
				    point, t->u.table.items[i].key,
				    tree_kind_article(
				    t->u.table.items[i].value->kind));
				return false;
			}
	}
	*vars = d;
	if (strcmp(point, "beforeVariablesSave") == 0) {
		const struct node *l = tree_get(d, "local");
		const struct node *g = tree_get(d, "global");

		ts->vars_changed = l->u.table.n ? l : NULL;
		ts->globals_changed = g->u.table.n ? g : NULL;
	}
	return true;
}

/* The request is built: the session takes the turn (build --session,
 * not --dry-run or regenerate), the trace goes to stderr, the request to
 * stdout. */
static void
finish(struct run *run, const struct cmd_pipeline_args *args,
    struct assemble_out *res, struct session_hold *hold,
    const struct chat *c, const struct buf *out, bool debug, bool human)
{
	const struct options *opt = &args->build;
	const char *thread = NULL;
	struct tavern_state *ts = &res->tavern;
	bool saves = !debug && ts && (hold || (!args->dry_run &&
	    ts->globals_file));
	struct node *vars = NULL;

	if (saves && !vars_hook(run, res->hooks, ts, "beforeVariablesSave",
	    &vars))
		return;
	if (hold && !save_turn(run, opt, c, res, hold, &thread))
		return;
	/* The global variables the build changed, unless --dry-run. */
	if (!debug && !args->dry_run && ts && ts->globals_file &&
	    !globals_update(run, ts->globals_file, ts->globals_changed))
		return;
	if (saves && !vars_hook(run, res->hooks, ts, "afterVariablesSave",
	    &vars))
		return;
	if (args->log_debug)
		trace(run, opt, c, res, out, thread);
	if (human) {
		/* A human view: the text escaped, the view's own colours
		 * kept (strata(1), SECURITY). */
		struct buf t = BUF_INIT;

		buf_put_term_styled(&t, out->data ? out->data : "", out->len,
		    c->color);
		if (t.len && fwrite(t.data, 1, t.len, stdout) != t.len)
			diag_system(run);
		buf_free(&t);
		return;
	}
	if (out->len && fwrite(out->data, 1, out->len, stdout) != out->len)
		diag_system(run);
}

/* --since FILE: the fingerprints of a previous -f result. */
static bool
since(struct run *run, const char *path, struct emit_result *r)
{
	struct source *src = run_read(run, path, NULL, span_make(0, 0));
	struct node *n;
	const struct node *fp, *vh, *vf;

	if (!src || !json_parse(run, src, &n))
		return false;
	fp = tree_get(n, "fingerprints");
	vh = tree_get(n, "variables_hash");
	vf = tree_get(n, "variables_fingerprints");
	if (n->kind != NODE_TABLE || !fp || fp->kind != NODE_TABLE || !vh ||
	    vh->kind != NODE_STRING || !vf || vf->kind != NODE_TABLE) {
		diag_error(run, src, n->span, MSG_SINCE_NOT_RESULT);
		return false;
	}
	r->fingerprints = fp;
	r->vars_hash = vh->u.str.s;
	r->vars_fingerprints = vf;
	return true;
}

/*
 * -f result: seed 002's BuildResult of a SillyTavern build, with what
 * --output delta compares against (--since FILE, or --params' own
 * fingerprints).
 */
static bool
result(struct run *run, const struct options *opt,
    const struct assemble_out *res, const struct chat *c, struct buf *out)
{
	struct emit_result r;

	memset(&r, 0, sizeof(r));
	r.output = opt->output ? opt->output : "full";
	r.stages = opt->include_stages;
	r.per_item = opt->include_per_item;
	r.fingerprints = opt->fingerprints;
	r.vars_fingerprints = opt->vars_fingerprints;
	r.vars_hash = opt->vars_hash;
	if (opt->since && !since(run, opt->since, &r))
		return false;
	r.locals = res->tavern.locals;
	r.globals = res->tavern.globals;
	return emit_result(run, c, &r, out);
}

static int
run_pipeline(const struct cmd_pipeline_args *args, bool debug)
{
	struct run run;
	int status;

	run_init(&run);
	run.diag.color = emit_color(STDERR_FILENO, args->color);
	status = cmd_pipeline_run(&run, args, debug);
	run_free(&run);
	return status;
}

/*
 * Seed 002's thinking messages go into a request only where its format
 * carries them (Ollama's thinking; -f json and -f result show them):
 * elsewhere each is an error at the message, never a silent drop.
 */
static bool
thinking_fits(struct run *run, const struct chat *c)
{
	const struct item_report *r = c->items;
	size_t i;
	bool ok = true;

	/* -f system and -f user print no message of the chat at all. */
	if (!r || c->format == FORMAT_OLLAMA || c->format == FORMAT_JSON ||
	    c->format == FORMAT_SYSTEM || c->format == FORMAT_USER)
		return true;
	for (i = 0; i < r->n; i++) {
		const struct item *it = &r->items[i];
		const char *why;

		if (!it->thinking || it->message < 0)
			continue;
		why = emit_reasoning_fate(c, &c->msgs[it->message]);
		if (why && strncmp(why, "left out: ", 10) == 0)
			why += 10;
		diag_error(run, run_source(run, it->thinking_src),
		    it->thinking_span, MSG_THINKING_FORMAT, arena_printf(
		    &run->arena, "-f %s", names_format(c->format)), why ?
		    why : "it has no place for it");
		ok = false;
	}
	return ok;
}

int
cmd_pipeline_run(struct run *run, const struct cmd_pipeline_args *args,
    bool debug)
{
	struct chat chat;
	struct buf out = BUF_INIT;
	struct options o = args->build;
	const struct options *opt = &o;
	struct assemble_out res;
	struct session_hold hold;
	emit_fn *fn;
	int status;
	/* The session is held locked from before it is read until the turn
	 * is written, so concurrent builds serialise (strata(1), SESSIONS). */
	bool held = opt->session && !debug && !args->dry_run &&
	    !opt->regenerate;

	/* A request body shows no message the budget left out. */
	o.tavern.skip_unsent = !debug && !args->log_debug && opt->format &&
	    strcmp(opt->format, "json") != 0;
	o.run_hooks = !debug;
	/* The session is read once, under the lock: the build reads these
	 * bytes, and the turn is written over them. */
	if (held && (!session_hold(run, opt->session, &hold) ||
	    !session_hold_read(run, &hold, opt->session))) {
		if (hold.lk.fd >= 0)
			session_release(&hold);
		return diag_status(run);
	}
	if (held)
		o.session_src = hold.src;
	if (assemble(run, opt, &chat, &res)) {
		emit_shape(run, &chat);
		chat.color = emit_color(STDOUT_FILENO, args->color);
		chat.stage = args->stage;
		if (args->stage && chat.dialect != DIALECT_TAVERN)
			diag_plain(run, DIAG_ERROR, MSG_TAVERN_STAGE_NONE,
			    args->stage);
		if (debug)
			fn = args->html ? emit_html : args->json ?
			    emit_json : emit_debug;
		else
			fn = emit_for(chat.format);
		if ((debug || opt->result || thinking_fits(run, &chat)) &&
		    (opt->result ? result(run, opt, &res, &chat, &out) :
		    fn(run, &chat, &out)) && run->diag.errors == 0)
			finish(run, args, &res, held ? &hold : NULL, &chat,
			    &out, debug, (debug && !args->json) || (!debug &&
			    chat.format == FORMAT_TEXT &&
			    isatty(STDOUT_FILENO)));
	}
	if (held)
		session_release(&hold);
	status = diag_status(run);
	buf_free(&out);
	return status;
}

int
cmd_pipeline(int argc, char **argv, const char *verb, bool debug)
{
	struct cmd_pipeline_args args;
	int status = cmd_parse_options(argc, argv, verb, debug, &args);

	if (status < 0)
		status = args.params ? cmd_params(&args) :
		    run_pipeline(&args, debug);
	cmd_options_free(&args.build);
	return status;
}
