/*
 * The turn's template inputs and the agent prompt (seed 003, Alice).
 *
 * Every text may use user_text, bot_name, sender_name, mentioned_users,
 * reply_context, attachments, scene, session_key, soul_body, soul.*,
 * skill_descriptions, identity_hints, first_turn and turn; --input FILE
 * (one JSON object) sets any of them, and wins over -v, which wins over
 * the defaults set here.  With [prompt] agent = true or --input, the
 * user's message goes through the current_user_input and reply_context
 * templates, and the system part gains the first-turn instructions, the
 * soul (chat scene only), the identity hint and the skill hint, each an
 * entry whose text is its template (text/templates.h), expanded by the
 * rewrite stage like any prompt file.
 */
#include "pipeline/stages.h"

#include <limits.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/frontmatter.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "text/edit.h"
#include "text/templates.h"

/* name = value, unless the command line or --input set it. */
static void
dflt(struct run *run, struct tvars *v, const char *name, const char *value)
{
	if (!template_var_get(v, name, strlen(name)))
		template_var(run, v, name, value, strlen(value), NULL,
		    span_make(0, 0));
}

static void
dflt_node(struct run *run, struct tvars *v, const char *name,
    const struct node *value)
{
	if (!template_var_get(v, name, strlen(name)))
		template_var_node(run, v, name, value, NULL, span_make(0, 0));
}

/* --input FILE or --data FILE: one JSON object, each member a variable
 * with its JSON value; else not_object, with kind's name for what it
 * was. */
bool
inputs_json_vars(struct run *run, const char *path, enum diag_msg not_object,
    const char *(*kind)(enum node_kind), struct tvars *v)
{
	struct node *root;
	size_t i;

	if (!load_file(run, path, LOAD_JSON, NULL, span_make(0, 0), &root,
	    NULL))
		return false;
	if (root->kind != NODE_TABLE) {
		diag_error(run, run_source(run, root->src), root->span,
		    not_object, kind(root->kind));
		return false;
	}
	for (i = 0; i < root->u.table.n; i++) {
		const struct member *m = &root->u.table.items[i];

		template_var_node(run, v, m->key, m->value, run_source(run,
		    m->keysrc), m->keyspan);
	}
	return true;
}

/* SOUL.md: its front matter as soul.* variables, its body as soul_body. */
static bool
soul(struct run *run, const struct profile *p, struct inputs *in)
{
	struct tvars *v = &in->vars;
	struct source *src;
	struct frontmatter fm;
	const char *body;
	size_t i, n;

	if (!p->soul.s) {
		dflt(run, v, "soul_body", "");
		return true;
	}
	if (!(src = profile_open(run, p, &p->soul)) ||
	    !frontmatter_read(run, src, &fm))
		return false;
	body = src->text + fm.body;
	n = entry_trim(&body, src->len - fm.body);
	if (!template_var_get(v, "soul_body", 9))
		template_var(run, v, "soul_body", body, n, NULL,
		    span_make(0, 0));
	if (fm.meta) {
		in->soul = fm.meta;
		dflt_node(run, v, "soul", fm.meta);
		for (i = 0; i < fm.meta->u.table.n; i++) {
			const struct member *m = &fm.meta->u.table.items[i];

			dflt_node(run, v, arena_printf(&run->arena, "soul.%s",
			    m->key), m->value);
		}
	}
	return true;
}

static const char *
skill_descriptions(struct run *run, const struct profile *p)
{
	struct buf b = BUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < p->nskills; i++) {
		const struct pskill *k = &p->skills[i];

		if (!k->description.s)
			continue;
		buf_printf(&b, "%s- %s: %s", b.len ? "\n" : "",
		    k->name.s ? k->name.s : k->file.s, k->description.s);
	}
	s = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* The trace's list: name, once, with where it came from. */
static void
used(struct run *run, const struct inputs *in, const char *name)
{
	struct chat_templates *t = in->templates;
	const char *where;
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return;
	where = templates_where(run, in->vars.dir, name);
	if (t->n == t->cap) {
		t->v = arena_grow(&run->arena, t->v, t->cap, t->cap ? t->cap * 2 :
		    8, sizeof(*t->v));
		t->cap = t->cap ? t->cap * 2 : 8;
	}
	t->v[t->n].name = name;
	t->v[t->n].where = where ? where : "(built-in)";
	t->n++;
}

static struct node *
var_node(struct run *run, const struct tvar *t)
{
	return t->node ? (struct node *)t->node : tree_strn(&run->arena,
	    t->value, t->len);
}

/* An object with each key also under its capitalised name (Alice's
 * structs: name -> Name), for the attachments strata's inputs spell in
 * lower case. */
static struct node *
capitalised(struct run *run, const struct node *n)
{
	struct node *t, *r;
	size_t i;

	if (n->kind == NODE_ARRAY) {
		r = tree_array(&run->arena);
		for (i = 0; i < n->u.array.n; i++)
			tree_push(&run->arena, r, capitalised(run,
			    n->u.array.items[i]));
		return r;
	}
	if (n->kind != NODE_TABLE)
		return (struct node *)n;
	t = tree_table(&run->arena);
	for (i = 0; i < n->u.table.n; i++) {
		const struct member *m = &n->u.table.items[i];

		tree_add(&run->arena, t, m->key, m->keylen, 0, span_make(0, 0),
		    m->value);
	}
	for (i = 0; i < n->u.table.n; i++) {
		const struct member *m = &n->u.table.items[i];
		char *k;

		if (!m->keylen || m->key[0] < 'a' || m->key[0] > 'z')
			continue;
		k = arena_strndup(&run->arena, m->key, m->keylen);
		k[0] = (char)(k[0] - 'a' + 'A');
		if (!tree_getn(t, k, m->keylen))
			tree_add(&run->arena, t, k, m->keylen, 0,
			    span_make(0, 0), m->value);
	}
	return t;
}

/*
 * The dot of Alice's Go templates: every template input under its own
 * name ([vars], -v, --input), and Alice's names for the turn's values
 * (.UserText, .BotName, ...), unless an input of that name exists.
 */
static struct node *
agent_dot(struct run *run, const struct profile *p, const struct inputs *in)
{
	static const char *const alias[][2] = {
		{ "UserText", "user_text" }, { "BotName", "bot_name" },
		{ "SenderName", "sender_name" },
		{ "ReplyContext", "reply_context" }, { "Scene", "scene" },
		{ "SessionKey", "session_key" }, { "SoulBody", "soul_body" },
		{ "Goal", "goal" },
	};
	struct arena *a = &run->arena;
	struct node *d = tree_table(a), *l;
	const struct tvar *t;
	size_t i;

	for (i = 0; i < template_nvars(&in->vars); i++) {
		t = template_var_at(&in->vars, i);
		if (!tree_get(d, t->name))
			tree_put(a, d, t->name, var_node(run, t));
	}
	for (i = 0; i < LEN(alias); i++)
		if (!tree_get(d, alias[i][0]) && (t = template_var_get(
		    &in->vars, alias[i][1], strlen(alias[i][1]))))
			tree_put(a, d, alias[i][0], var_node(run, t));
	if (!tree_get(d, "MentionedUsers") && (t = template_var_get(
	    &in->vars, "mentioned_users", 15))) {
		l = var_node(run, t);
		if (l->kind != NODE_ARRAY) {
			l = tree_array(a);
			if (t->len)
				tree_push(a, l, var_node(run, t));
		}
		tree_put(a, d, "MentionedUsers", l);
	}
	if (!tree_get(d, "Attachments") && (t = template_var_get(&in->vars,
	    "attachments", 11)))
		tree_put(a, d, "Attachments", capitalised(run,
		    var_node(run, t)));
	if (!tree_get(d, "SkillDescriptions")) {
		l = tree_array(a);
		for (i = 0; i < p->nskills; i++) {
			const struct pskill *k = &p->skills[i];
			struct node *o;

			if (!k->description.s)
				continue;
			o = tree_table(a);
			tree_put(a, o, "Name", tree_str(a, k->name.s ?
			    k->name.s : k->file.s));
			tree_put(a, o, "Description", tree_str(a,
			    k->description.s));
			tree_push(a, l, o);
		}
		tree_put(a, d, "SkillDescriptions", l);
	}
	if (!tree_get(d, "IdentityHints"))
		tree_put(a, d, "IdentityHints", tree_bool(a, (t =
		    template_var_get(&in->vars, "identity_hints", 14)) &&
		    template_truthy(t)));
	if (!tree_get(d, "FirstTurn"))
		tree_put(a, d, "FirstTurn", tree_bool(a, in->first_turn));
	return d;
}

/* Expand template name (strata's language) with the variables into
 * *out (trimmed). */
static bool
render(struct run *run, struct inputs *in, const char *name,
    struct etext *out)
{
	struct source *src = templates_open(run, in->vars.dir, name, NULL,
	    span_make(0, 0));
	struct etext t;

	if (!src)
		return false;
	used(run, in, name);
	etext_of_source(run, src, &t);
	if (!template_expand(run, &in->vars, &t, out))
		return false;
	out->len = entry_trim(&out->s, out->len);
	return true;
}

/* Render Go template name (entry: one it defines, or NULL) with dot
 * into *s, *len (trimmed, in the arena). */
static bool
render_go(struct run *run, const struct inputs *in, const char *name,
    const char *entry, const struct node *dot, const char **s, size_t *len)
{
	struct buf b = BUF_INIT;
	const char *t;
	size_t n;
	bool ok = entry ? templates_render_go_entry(run, in->vars.dir, name,
	    entry, dot, &b) : templates_render_go(run, in->vars.dir, name, dot,
	    &b, NULL);

	if (ok) {
		used(run, in, name);
		t = b.data ? b.data : "";
		n = entry_trim(&t, b.len);
		*s = arena_strndup(&run->arena, t, n);
		*len = n;
	}
	buf_free(&b);
	return ok;
}

/* One piece of the user's message: strata's md or Alice's tmpl. */
static bool
piece(struct run *run, struct inputs *in, const struct profile *p,
    const char *md, const char *tmpl, const char *input, size_t ilen,
    const char **s, size_t *len)
{
	const char *name = templates_agent_pick(run, in->vars.dir, md, tmpl);
	struct node *dot;
	struct etext e;

	if (name == md) {
		if (!render(run, in, md, &e))
			return false;
		*s = e.s;
		*len = e.len;
		return true;
	}
	dot = agent_dot(run, p, in);
	if (input && !tree_get(dot, "Input"))
		tree_put(&run->arena, dot, "Input", tree_strn(&run->arena,
		    input, ilen));
	return render_go(run, in, tmpl, NULL, dot, s, len);
}

/* The user's message through current_user_input, then reply_context. */
static bool
user_turn(struct run *run, const struct profile *p, struct inputs *in)
{
	const char *u, *r;
	size_t ulen, rlen;
	struct source *s;

	if (!piece(run, in, p, "current_user_input.md",
	    "connector/current_user_input.md.tmpl", NULL, 0, &u, &ulen))
		return false;
	template_var(run, &in->vars, "input", u, ulen, NULL,
	    span_make(0, 0));
	if (!piece(run, in, p, "reply_context.md",
	    "connector/reply_context.md.tmpl", u, ulen, &r, &rlen))
		return false;
	s = run_source_mem(run, "--user", r, rlen);
	in->rawuser = in->user;
	in->user = s;
	return true;
}

bool
inputs_turn(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in)
{
	struct tvars *v = &in->vars;
	const char *scene = opt->scene ? opt->scene : p->scene.s ?
	    p->scene.s : "chat";
	bool ok = true;

	v->dir = profile_prompt_dir(p);
	if (opt->input && !inputs_json_vars(run, opt->input,
	    MSG_INPUT_NOT_OBJECT, tree_kind_article, v))
		return false;
	if (in->user)
		template_var(run, v, "user_text", in->user->text,
		    in->user->len, NULL, span_make(0, 0));
	else
		dflt(run, v, "user_text", "");
	dflt(run, v, "bot_name", in->sess ? session_last_name(in->sess, false,
	    p->name.s ? p->name.s : "Assistant") : p->name.s ? p->name.s :
	    "Assistant");
	dflt(run, v, "sender_name", "");
	dflt_node(run, v, "mentioned_users", tree_array(&run->arena));
	dflt(run, v, "reply_context", "");
	dflt_node(run, v, "attachments", tree_array(&run->arena));
	dflt(run, v, "scene", scene);
	dflt(run, v, "session_key", opt->session ? opt->session : "");
	dflt(run, v, "skill_descriptions", skill_descriptions(run, p));
	dflt(run, v, "identity_hints", p->identity_hints ? "true" : "false");
	in->scene = template_var_get(v, "scene", 5)->value;
	ok = soul(run, p, in);
	in->agent = p->agent || opt->input;
	in->templates = arena_alloc(&run->arena, sizeof(*in->templates));
	/* A resumed thread sends the user's text as typed (seed 003). */
	if (ok && in->agent && in->user && in->first_turn)
		ok = user_turn(run, p, in);
	return ok;
}

/* One template (strata's language) as a system entry, expanded by the
 * rewrite stage. */
static void
add(struct run *run, const struct inputs *in, const char *name,
    const char *key, int priority, struct entry_vec *out)
{
	struct source *src = templates_open(run, in->vars.dir, name, NULL,
	    span_make(0, 0));
	struct entry *e;

	if (!src)
		return;
	used(run, in, name);
	e = entry_new(&run->arena, key, "template");
	e->priority = priority;
	e->scope = SCOPE_SESSION;
	entry_set_raw(&run->arena, e, src->text, src->len, src->id,
	    span_make(0, src->len), true);
	e->rewrite = ENTRY_TEMPLATE | ENTRY_TIDY | ENTRY_CRLF;
	avec_push(&run->arena, out, e);
}

/* One of Alice's Go templates, rendered now, as a system entry (none
 * when it renders to nothing: its own conditions said no).  False when
 * it failed (reported). */
static bool
add_go(struct run *run, const struct inputs *in, const char *name,
    const char *entry, const struct node *dot, const char *key,
    int priority, struct entry_vec *out)
{
	const char *s;
	size_t len;
	struct source *src;
	struct entry *e;

	if (!render_go(run, in, name, entry, dot, &s, &len))
		return false;
	if (!len)
		return true;
	src = run_source_mem(run, arena_printf(&run->arena, "(rendered) %s",
	    name), s, len);
	e = entry_new(&run->arena, key, "template");
	e->priority = priority;
	e->scope = SCOPE_SESSION;
	entry_set_raw(&run->arena, e, src->text, src->len, src->id,
	    span_make(0, src->len), true);
	e->rewrite = ENTRY_TIDY;
	avec_push(&run->arena, out, e);
	return true;
}

/*
 * The first turn's system part.  Each piece is strata's .md template
 * when the prompt directory has that file, else Alice's .tmpl; a Go
 * template decides for itself whether it says anything (the soul in
 * the chat scene only, the skills when there are any).  A resumed
 * thread has none of them (seed 003).
 */
void
collect_agent(struct run *run, const struct profile *p,
    const struct inputs *in, struct entry_vec *out)
{
	const struct tvar *t;
	int persona = 0, behavior = 0, skills = 0;
	const char *dir = in->vars.dir;
	struct node *dot;

	if (!in->agent || !in->first_turn)
		return;
	names_priority_parse("persona", 7, &persona);
	names_priority_parse("behavior", 8, &behavior);
	names_priority_parse("skills", 6, &skills);
	dot = agent_dot(run, p, in);
	if (templates_where(run, dir, "initial_prompt.md") ||
	    templates_where(run, dir, "identity_hint.md")) {
		add(run, in, "initial_prompt.md", "initial_prompt",
		    INT_MIN + 2, out);
		t = template_var_get(&in->vars, "sender_name", 11);
		if (p->identity_hints && t && t->len)
			add(run, in, "identity_hint.md", "identity_hint",
			    behavior + 1, out);
	} else if (!add_go(run, in, "llm/initial_prompt.md.tmpl", NULL, dot,
	    "initial_prompt", INT_MIN + 2, out) ||
	    !add_go(run, in, "llm/initial_prompt.md.tmpl", "identity_hint",
	    dot, "identity_hint", behavior + 1, out)) {
		return;         /* one report of a template's error */
	}
	if (templates_where(run, dir, "soul.md")) {
		t = template_var_get(&in->vars, "soul_body", 9);
		if (strcmp(in->scene, "chat") == 0 && t && t->len)
			add(run, in, "soul.md", "soul", persona + 1, out);
	} else if (!add_go(run, in, "connector/bot_soul.md.tmpl", NULL, dot,
	    "soul", persona + 1, out)) {
		return;
	}
	if (templates_where(run, dir, "skill_hint.md")) {
		t = template_var_get(&in->vars, "skill_descriptions", 18);
		if (t && t->len)
			add(run, in, "skill_hint.md", "skill_hint", skills + 1,
			    out);
	} else {
		add_go(run, in, "connector/runtime_skill_hint.md.tmpl", NULL,
		    dot, "skill_hint", skills + 1, out);
	}
}
