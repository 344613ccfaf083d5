/*
 * The pipeline driver: load, read the inputs, collect, rewrite the
 * entries, let the stack decide what is in, arrange, rewrite the
 * messages.  Each step reports all its errors; the driver stops after a
 * step that had any.
 */
#include "pipeline/assemble.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "data/tree.h"
#include "diag/run.h"
#include "layers/compose.h"
#include "pipeline/budget.h"
#include "pipeline/hook.h"
#include "pipeline/rewrite.h"
#include "profile/schema.h"
#include "pipeline/stages.h"
#include "tavern/tbuild.h"

/* A profile string that looks templated but is sent as written. */
static void
not_expanded(struct run *run, const struct pstr *s, const char *what)
{
	if (s->s && strstr(s->s, "{{") && strstr(s->s, "}}"))
		diag_warning(run, run_source(run, s->node->src), s->node->span,
		    MSG_NOT_EXPANDED, what);
}

/* What the profile says that has no effect. */
static void
profile_warnings(struct run *run, const struct profile *p)
{
	size_t i;

	not_expanded(run, &p->outline_header, "prompt.outline_header");
	not_expanded(run, &p->outline_footer, "prompt.outline_footer");
	for (i = 0; i < p->nskills; i++) {
		const struct pskill *sk = &p->skills[i];
		const struct node *n = tree_get(sk->node, "priority");

		size_t len;
		const char *id = schema_entry_id(sk->node, &len);

		if (sk->mode == SKILL_OUTLINE && n)
			diag_warning(run, run_source(run, n->src), n->span,
			    MSG_OUTLINE_PRIORITY, arena_strndup(&run->arena,
			    id, len));
	}
}

static void
check_warnings(struct run *run, const struct profile *p,
    const struct stack *st, struct tvars *vars, enum dialect d)
{
	size_t i;

	profile_warnings(run, p);
	/* An anchor names a preset prompt: only a tavern build has one. */
	for (i = 0; d == DIALECT_PROFILE && i < p->ninjects; i++)
		if (p->injects[i].anchor.s)
			diag_warning(run, run_source(run,
			    p->injects[i].anchor.node->src),
			    p->injects[i].anchor.node->span, MSG_ANCHOR_UNUSED);
	for (i = 0; i < template_nvars(vars); i++) {
		const struct tvar *t = template_var_at(vars, i);

		if (!t->used && t->src)
			diag_warning(run, t->src, t->span, MSG_UNUSED_VAR,
			    t->name);
	}
	for (i = 0; i < st->nall; i++) {
		const struct entry *e = st->all[i], *by = e->replaced_by;

		if (e->status == ENTRY_EMPTY && strcmp(e->layer, "skill") == 0 &&
		    e->has_src) {
			diag_warning(run, run_source(run, e->src), e->span,
			    MSG_SKILL_EMPTY, e->title);
			continue;
		}
		if (e->status != ENTRY_REPLACED || strcmp(e->layer, "inject") ||
		    strcmp(by->layer, "inject"))
			continue;
		diag_warning(run, run_source(run, by->src), by->span,
		    MSG_INJECT_REPLACED, e->key);
		diag_note(run, run_source(run, e->src), e->span,
		    MSG_FIRST_HERE);
	}
}

/* --remove KEY: PromptStack remove, after every entry is offered. */
static bool
remove_keys(struct run *run, const struct options *opt, struct stack *st)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < opt->nremoves; i++) {
		const char *key = opt->removes[i].arg;

		if (stack_remove(st, key))
			continue;
		diag_error(run, run_source_mem(run, "--remove", key,
		    strlen(key)), span_make(0, strlen(key)), MSG_REMOVE_NONE,
		    key);
		ok = false;
	}
	return ok;
}

static void
output(struct chat *c, const struct options *opt, const struct profile *p)
{
	c->profile = p;
	c->format = p->has_output ? p->output : FORMAT_OPENAI;
	if (opt->format)
		names_format_parse(opt->format, &c->format);
	c->model = p->model.s;
	c->params = p->params;
	c->max_tokens = p->max_tokens;
}

bool
assemble_load(struct run *run, const struct options *opt,
    struct assembly *as)
{
	struct setting *sets;
	struct profile *p;

	memset(as, 0, sizeof(*as));
	if (!inputs_split(run, opt, &sets, &as->vars, &as->ctxs, &as->injs))
		return false;
	p = profile_load_as(run, opt->profile, opt->profile_format, sets,
	    opt->nsets);
	if (p && opt->llm_profile && !profile_use_llm(run, p, opt->llm_profile))
		return false;
	as->profile = p;
	return p != NULL;
}

/* [prompt] soul names a file only the agent prompt sends (or a
 * template that reads {{soul_body}}): say so when nothing did. */
static void
soul_unsent(struct run *run, const struct profile *p, const struct inputs *in)
{
	const struct tvar *body = template_var_get(&in->vars, "soul_body", 9);
	const struct tvar *meta = template_var_get(&in->vars, "soul", 4);

	if (!p->soul.s || in->agent || (body && body->used) ||
	    (meta && meta->used))
		return;
	diag_warning(run, run_source(run, p->soul.node->src),
	    p->soul.node->span, MSG_SOUL_UNSENT);
}

/*
 * The end of the front half both dialects share: the entries collected
 * are rewritten by the profile's plan, offered to st in order, and
 * --remove and --scope applied; strata check's warnings; the tools go
 * into c (an [agent] layout's as prose).
 */
static bool
offer(struct run *run, const struct options *opt, const struct profile *p,
    struct inputs *in, enum dialect d, struct entry_vec *entries,
    const struct tool_list *tools, struct rewrite_profile *px,
    struct rewrite_plan *plan, struct stack *st, struct chat *c)
{
	size_t i;

	rewrite_profile_init(px, run, p, &in->vars);
	rewrite_plan_for(p, plan);
	if (!rewrite_entries(&px->cx, plan, entries->v, entries->n))
		return false;
	/* Only now is an entry's text final: offer them in order, so an
	 * entry that expands to nothing is skipped, not live. */
	stack_init(st, &run->arena);
	for (i = 0; i < entries->n; i++)
		stack_add(st, entries->v[i]);
	if (!remove_keys(run, opt, st))
		return false;
	if (opt->scopes)
		stack_keep_scopes(st, opt->scopes);
	if (opt->check_only)
		check_warnings(run, p, st, &in->vars, d);
	c->tools = *tools;
	if (agent_enabled(p)) {
		c->prose_tools = c->tools;
		memset(&c->tools, 0, sizeof(c->tools));
	}
	return true;
}

bool
assemble_entries(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct entry_vec *entries,
    const struct tool_list *tools, struct chat *c)
{
	struct rewrite_plan plan;
	struct rewrite_profile px;

	memset(c, 0, sizeof(*c));
	output(c, opt, p);
	if (!offer(run, opt, p, in, DIALECT_PROFILE, entries, tools, &px,
	    &plan, &c->stack, c))
		return false;
	c->cleanups = in->cleanups;
	c->ncleanups = in->ncleanups;
	if (!budget_fit(run, opt, p, in, c))
		return false;
	arrange(run, c, in);
	c->first_turn = in->first_turn;
	c->soul = in->soul;
	c->templates = in->templates;
	c->turn = in->turn;
	if (in->user) {
		const struct source *u = in->rawuser ? in->rawuser : in->user;

		c->user = u->text;
		c->user_len = u->len;
	}
	if (!rewrite_messages(&px.cx, &plan, c))
		return false;
	soul_unsent(run, p, in);
	return true;
}

bool
assemble_turn(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c)
{
	struct entry_vec entries = { NULL, 0, 0 };
	struct tool_list tools;

	memset(c, 0, sizeof(*c));
	memset(&tools, 0, sizeof(tools));
	if (!collect(run, opt, p, in, DIALECT_PROFILE, &entries, &tools))
		return false;
	return assemble_entries(run, opt, p, in, &entries, &tools, c);
}

/* The anchor of live entry e: its [[inject]]'s, or, for a -i that took
 * a key without giving a place of its own, that of the entry it
 * replaced; NULL: none. */
static const struct pinject *
anchor_of(const struct profile *p, const struct stack *st,
    const struct entry *e)
{
	size_t i;

	while (e) {
		if (strcmp(e->layer, "inject") == 0) {
			for (i = p->ninjects; i > 0; i--)
				if (strcmp(p->injects[i - 1].key.s,
				    e->key) == 0)
					break;
			return i && p->injects[i - 1].anchor.s ?
			    &p->injects[i - 1] : NULL;
		}
		if (e->given & ENTRY_GIVEN_PLACE)
			return NULL;
		for (i = 0; i < st->nall && st->all[i]->replaced_by != e; i++)
			;
		e = i < st->nall ? st->all[i] : NULL;
	}
	return NULL;
}

/* System entry e as its system prompt holds it (heading and all). */
static const char *
composed(struct run *run, const struct profile *p, struct entry *e)
{
	struct buf b = BUF_INIT;
	const char *s;

	compose_entries(&b, p->style, &e, 1, NULL);
	s = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* Entry e as the tavern build takes it (tavern_input.entries). */
static void
tavern_entry(struct run *run, const struct profile *p,
    const struct stack *st, struct entry *e, struct tavern_entry *te)
{
	const struct pinject *pi = NULL;
	const char *raw;
	size_t rawlen;

	memset(te, 0, sizeof(*te));
	te->key = e->key;
	te->text = e->content ? arena_strndup(&run->arena, e->content,
	    e->len) : "";
	/* The raw stage: as read, when more than tidying changed it. */
	raw = e->raw.s;
	rawlen = raw ? entry_trim(&raw, e->raw.len) : 0;
	if (raw && (!e->content || rawlen != e->len ||
	    memcmp(raw, e->content, e->len)))
		te->raw = arena_strndup(&run->arena, e->raw.s, e->raw.len);
	te->role = names_role(e->role);
	te->place = e->placement == PLACE_DEPTH ? TAVERN_PLACE_INCHAT :
	    e->placement == PLACE_USER ? TAVERN_PLACE_USER :
	    TAVERN_PLACE_SYSTEM;
	te->depth = e->depth;
	te->has_src = e->has_src;
	te->src = e->src;
	te->span = e->span;
	if (e->status != ENTRY_ACTIVE) {
		te->reason = e->status;
		return;
	}
	if (te->place != TAVERN_PLACE_SYSTEM)
		return;
	/* A system entry reads as its composed system prompt does. */
	if (e->role == ROLE_DEVELOPER) {
		te->role = "system";
		te->note = "developer role: sent as system";
	}
	te->text = composed(run, p, e);
	pi = anchor_of(p, st, e);
	if (pi) {
		te->anchor = pi->anchor_id;
		te->before = pi->anchor_before;
		te->anchor_src = pi->anchor.node->src;
		te->anchor_span = pi->anchor.node->span;
	}
}

/*
 * strata's own entries for a tavern build: a profile the user gave (not
 * the embedded default) and -i, through the front half every build
 * runs (collect, rewrite, the stack), handed over in strata's order for
 * each place (system, then developer; in-chat deepest first; user
 * context), then those the stack left out.  The profile's tools go into
 * the request.
 */
static bool
tavern_own(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c,
    struct tavern_input *tin)
{
	struct entry_vec entries = { NULL, 0, 0 };
	struct tool_list tools;
	struct rewrite_plan plan;
	struct rewrite_profile px;
	struct stack st;
	struct entry **v;
	struct tavern_entry *te;
	static const enum placement places[] = { PLACE_SYSTEM, PLACE_SYSTEM,
		PLACE_USER };
	static const enum role proles[] = { ROLE_SYSTEM, ROLE_DEVELOPER,
		ROLE_USER };
	size_t i, k, n, nte = 0;

	memset(&tools, 0, sizeof(tools));
	if (!collect(run, opt, p, in, DIALECT_TAVERN, &entries, &tools) ||
	    !offer(run, opt, p, in, DIALECT_TAVERN, &entries, &tools, &px,
	    &plan, &st, c))
		return false;
	te = arena_array(&run->arena, st.nall + 1, sizeof(*te));
	for (k = 0; k < 4; k++) {
		/* System, developer, in-chat, the user's context. */
		n = k == 2 ? stack_select_depth(&st, &v) : stack_select(&st,
		    places[k - (k > 2)], proles[k - (k > 2)], &v);
		for (i = 0; i < n; i++)
			tavern_entry(run, p, &st, v[i], &te[nte++]);
	}
	for (i = 0; i < st.nall; i++)
		if (st.all[i]->status != ENTRY_ACTIVE)
			tavern_entry(run, p, &st, st.all[i], &te[nte++]);
	tin->entries = te;
	tin->nentries = nte;
	tin->joiner = p->style == STYLE_SECTIONS ? "\n\n---\n\n" : "\n\n";
	return true;
}

/* A sandbox's --extra-system (seed 002) goes right after the character
 * description as the entry sandbox.extra_system; the sandbox's -H, the
 * chat itself, is an input (inputs_tavern.c). */
static void
extra_system(struct run *run, const struct options *opt,
    struct tavern_input *tin)
{
	struct tavern_entry *te;

	if (opt->extra_system) {
		te = arena_array(&run->arena, tin->nentries + 2, sizeof(*te));
		memcpy(te, tin->entries, tin->nentries * sizeof(*te));
		memset(&te[tin->nentries], 0, sizeof(*te));
		te[tin->nentries].key = "sandbox.extra_system";
		te[tin->nentries].text = opt->extra_system;
		te[tin->nentries].role = "system";
		te[tin->nentries].place = TAVERN_PLACE_SYSTEM;
		te[tin->nentries].anchor = "charDescription";
		tin->entries = te;
		tin->nentries++;
	}
}

/* The user's hooks, as the tavern build calls them. */
static bool
tavern_hook_wanted(void *ctx, const char *point)
{
	return hook_wanted(ctx, point);
}

static bool
tavern_hook_run(void *ctx, struct run *run, const char *point,
    struct node **data)
{
	return hook_run(run, ctx, point, data);
}

/* SillyTavern inputs (read by inputs_tavern()): the tavern assembly
 * fills the chat. */
bool
assemble_tavern(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c,
    struct assemble_out *out)
{
	struct tavern_input tin = *in->tavern;
	bool ok;

	/* The build's state comes back in *out, never through opt. */
	tin.state = out ? &out->tavern : NULL;

	memset(c, 0, sizeof(*c));
	stack_init(&c->stack, &run->arena);
	output(c, opt, p);
	if (!tavern_own(run, opt, p, in, c, &tin))
		return false;
	extra_system(run, opt, &tin);
	/* Never silently: the profile's budget has no say here. */
	if (p->budget.node)
		diag_warning(run, run_source(run, p->budget.node->src),
		    p->budget.node->span, MSG_BUDGET_TAVERN, "[budget]");
	else if (p->context_node)
		diag_warning(run, run_source(run, p->context_node->src),
		    p->context_node->span, MSG_BUDGET_TAVERN,
		    "[output] context");
	tin.user_view = opt->view && strcmp(opt->view, "user_view") == 0;
	if (opt->hooks && opt->hooks->n) {
		tin.hooks.wanted = tavern_hook_wanted;
		tin.hooks.run = tavern_hook_run;
		tin.hooks.ctx = opt->hooks;
	}
	if (out)
		out->hooks = opt->hooks;
	ok = tavern_build(run, &tin, in->tfiles, c);
	if (ok && tin.state)
		tin.state->globals_file = in->tavern_globals;
	return ok;
}

/* The first point of hooks inside the SillyTavern assembly, or NULL. */
static const char *
assembly_hook(const struct hooks *hooks)
{
	size_t i;

	for (i = 0; hooks && i < hooks->n; i++)
		if (hook_in_assembly(hooks->v[i].point))
			return hooks->v[i].point;
	return NULL;
}

bool
assemble(struct run *run, const struct options *opt, struct chat *c,
    struct assemble_out *out)
{
	struct assembly as;
	struct inputs in;
	struct options lopt;
	const char *point;
	bool ok;

	memset(c, 0, sizeof(*c));
	if (out)
		memset(out, 0, sizeof(*out));
	if (!assemble_load(run, opt, &as))
		return false;
	ok = inputs_read(run, opt, as.profile, as.vars, as.ctxs, as.injs,
	    &in);
	if (out) {
		out->has_now = in.has_now;
		out->now_ms = in.now_ms;
		out->thread = in.sess ? session_state_str(in.sess,
		    "thread_id") : NULL;
	}
	/* The profile's hooks join the command line's (strata build);
	 * every command checks them. */
	if (ok && profile_hooks(as.profile)) {
		lopt = *opt;
		lopt.hooks = hook_merge(run, profile_hooks(as.profile),
		    opt->hooks);
		ok = lopt.hooks != NULL;
		if (opt->run_hooks)
			opt = &lopt;
	}
	if (out)
		out->hooks = opt->hooks;
	/* The dialect: SillyTavern's when inputs_read() read its files. */
	if (ok && in.tavern && opt->nimages) {
		/* The tavern build does not take the turn's parts. */
		diag_plain(run, DIAG_ERROR, MSG_TAVERN_IMAGE,
		    "the profile's [tavern]");
		ok = false;
	} else if (ok && in.tavern)
		ok = assemble_tavern(run, opt, as.profile, &in, c, out);
	else if (ok && (opt->extra_system || opt->globals ||
	    opt->nglobal_vars || opt->nmacros || opt->view ||
	    opt->persona_file || opt->result)) {
		diag_plain(run, DIAG_ERROR, MSG_SANDBOX_EXTRA,
		    opt->extra_system ? "--extra-system" : opt->globals ?
		    "--globals" : opt->nglobal_vars ? "--global-var" :
		    opt->nmacros ? "--macro" : opt->view ? "--view" :
		    opt->persona_file ? "--persona-file" : "-f result");
		ok = false;
	} else if (ok && (point = assembly_hook(opt->hooks)) != NULL) {
		diag_plain(run, DIAG_ERROR, MSG_HOOK_POINT, point);
		ok = false;
	} else if (ok)
		ok = assemble_turn(run, opt, as.profile, &in, c);
	inputs_free(&in);
	return ok;
}
