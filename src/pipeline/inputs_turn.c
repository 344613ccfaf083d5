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

/* --input FILE: one JSON object of template inputs. */
static bool
input_file(struct run *run, const char *path, struct tvars *v)
{
	struct node *root;
	size_t i;

	if (!load_file(run, path, LOAD_JSON, NULL, span_make(0, 0), &root,
	    NULL))
		return false;
	if (root->kind != NODE_TABLE) {
		diag_error(run, run_source(run, root->src), root->span,
		    MSG_INPUT_NOT_OBJECT, tree_kind_article(root->kind));
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

/* Expand template name with the variables into *out (trimmed). */
static bool
render(struct run *run, struct inputs *in, const char *name,
    struct etext *out)
{
	struct source *src = templates_open(run, in->vars.dir, name, NULL,
	    span_make(0, 0));
	struct etext t;

	if (!src)
		return false;
	etext_of_source(run, src, &t);
	if (!template_expand(run, &in->vars, &t, out))
		return false;
	out->len = entry_trim(&out->s, out->len);
	return true;
}

/* The user's message through current_user_input, then reply_context. */
static bool
user_turn(struct run *run, struct inputs *in)
{
	struct etext u, r;
	struct source *s;

	if (!render(run, in, "current_user_input.md", &u))
		return false;
	template_var(run, &in->vars, "input", u.s, u.len, NULL,
	    span_make(0, 0));
	if (!render(run, in, "reply_context.md", &r))
		return false;
	s = run_source_mem(run, "--user", r.s, r.len);
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
	if (opt->input && !input_file(run, opt->input, v))
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
	if (ok && in->agent && in->user)
		ok = user_turn(run, in);
	return ok;
}

/* One template as a system entry, expanded by the rewrite stage. */
static void
add(struct run *run, const struct inputs *in, const char *name,
    const char *key, int priority, struct entry_vec *out)
{
	struct source *src = templates_open(run, in->vars.dir, name, NULL,
	    span_make(0, 0));
	struct entry *e;

	if (!src)
		return;
	e = entry_new(&run->arena, key, "template");
	e->priority = priority;
	e->scope = SCOPE_SESSION;
	entry_set_raw(&run->arena, e, src->text, src->len, src->id,
	    span_make(0, src->len), true);
	e->rewrite = ENTRY_TEMPLATE | ENTRY_TIDY | ENTRY_CRLF;
	avec_push(&run->arena, out, e);
}

void
collect_agent(struct run *run, const struct profile *p,
    const struct inputs *in, struct entry_vec *out)
{
	const struct tvar *t;
	int persona = 0, behavior = 0, skills = 0;

	if (!in->agent)
		return;
	names_priority_parse("persona", 7, &persona);
	names_priority_parse("behavior", 8, &behavior);
	names_priority_parse("skills", 6, &skills);
	add(run, in, "initial_prompt.md", "initial_prompt", INT_MIN + 2, out);
	t = template_var_get(&in->vars, "soul_body", 9);
	if (strcmp(in->scene, "chat") == 0 && t && t->len)
		add(run, in, "soul.md", "soul", persona + 1, out);
	t = template_var_get(&in->vars, "sender_name", 11);
	if (p->identity_hints && t && t->len)
		add(run, in, "identity_hint.md", "identity_hint", behavior + 1,
		    out);
	t = template_var_get(&in->vars, "skill_descriptions", 18);
	if (t && t->len)
		add(run, in, "skill_hint.md", "skill_hint", skills + 1, out);
}
