/*
 * The agent layer: [[agent.sections]] into entries, one per section in
 * the profile's order, placed in the user turn.  A section's text comes
 * from its source -- the loop state (agent.h), the persona, a -c
 * context, the tool definitions -- or from a prompt file or a template
 * string; an empty source gives the section's placeholder.  Data from
 * the state is not expanded as a template: only the profile's own texts
 * (persona, file, text, system, instructions) are.
 *
 * Defaults follow seed 004: without [[agent.sections]], a planner or a
 * final prompt gets the seed's sections; a planner ends with the seed's
 * JSON-answer instructions and has the seed's system message.
 */
#include "layers/agent.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/util.h"
#include "data/frontmatter.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "layers/layer_int.h"
#include "profile/schema.h"
#include "prompt/tool.h"

/* The words of each language: [agent] lang. */
struct words {
	const char *empty, *user, *assistant, *params, *system, *answer;
	const char *colon;      /* after a speaker's name */
};

static const struct words lang_words[] = {
	{ "(none)", "User", "Assistant", "Parameters",
	  "You plan the next step. Answer with valid JSON only.",
	  "Answer with JSON in one of these forms:\n"
	  "- to call a tool:\n"
	  "    {\"action\": \"tool\", \"tool\": \"tool name\", \"args\": "
	  "{...}}\n"
	  "- to answer directly (with the reply's text):\n"
	  "    {\"action\": \"finish\", \"message\": \"your reply\"}", ":" },
	{ "（无）", "用户", "助手", "参数",
	  "你负责规划下一步行动，请严格输出合法 JSON。",
	  "请返回 JSON，格式如下：\n"
	  "- 若需要调用工具：\n"
	  "    {\"action\": \"tool\", \"tool\": \"工具名\", \"args\": "
	  "{...}}\n"
	  "- 若直接回复（需附带回复内容）：\n"
	  "    {\"action\": \"finish\", \"message\": \"你的回复内容\"}", "：" },
};

/* The default sections of a kind: title per language, source. */
struct dsection {
	const char *title[2];
	const char *source;
	const char *empty[2];   /* NULL: the language's placeholder */
	const char *after;      /* NULL: the default */
};

static const struct dsection planner_sections[] = {
	{ { "Question", "提问内容" }, "user_text", { NULL, NULL }, "\n---\n" },
	{ { "System", "系统设定" }, "persona", { NULL, NULL }, NULL },
	{ { "Observations", "额外观察" }, "observation",
	  { "(nothing to add)", "（无补充）" }, NULL },
	{ { "Related memories", "关联记忆" }, "memories",
	  { "(no related memories)", "（无相关记忆）" }, NULL },
	{ { "Prestart tool results", "预启动工具结果" }, "prestart",
	  { NULL, NULL }, NULL },
	{ { "Available tools", "可用工具" }, "tools", { NULL, NULL }, NULL },
	{ { "Tools run so far", "历史工具执行" }, "tool_history",
	  { NULL, NULL }, NULL },
	{ { "Recent dialogue", "最近对话" }, "history", { NULL, NULL }, NULL },
	{ { NULL, NULL }, NULL, { NULL, NULL }, NULL },
};

static const struct dsection final_sections[] = {
	{ { "Question", "提问内容" }, "user_text", { NULL, NULL }, "\n---\n" },
	{ { "System", "系统设定" }, "persona", { NULL, NULL }, NULL },
	{ { "Related memories", "关联记忆" }, "memories",
	  { "(no related memories)", "（无相关记忆）" }, NULL },
	{ { "Other observations", "其他观察" }, "observation",
	  { "(nothing to add)", "（无补充）" }, NULL },
	{ { "Tool results", "工具执行摘要" }, "tool_history",
	  { NULL, NULL }, NULL },
	{ { "Recent dialogue", "最近对话" }, "history", { NULL, NULL }, NULL },
	{ { NULL, NULL }, NULL, { NULL, NULL }, NULL },
};

/* What the section builders share. */
struct actx {
	struct run *run;
	const struct profile *p;
	const struct layer_input *in;
	const struct node *agent;       /* [agent] */
	int lang;                       /* index into lang_words */
	const char *kind;
	const char *user, *assistant, *params;
	struct tool_list *tools;        /* the build's list */
	bool tools_read;
	struct map used;                /* context names sections read */
};

static const struct dsection *
default_sections(const char *kind)
{
	if (kind && strcmp(kind, "planner") == 0)
		return planner_sections;
	if (kind && strcmp(kind, "final") == 0)
		return final_sections;
	return NULL;
}

bool
agent_enabled(const struct profile *p)
{
	return tree_get(p->root, "agent") != NULL;
}

static const char *
sget(const struct node *t, const char *key)
{
	const struct node *v = tree_get(t, key);

	return v && v->kind == NODE_STRING ? v->u.str.s : NULL;
}

static struct pstr
pget(const struct node *t, const char *key)
{
	struct pstr ps = { NULL, 0, NULL };
	const struct node *v = tree_get(t, key);

	if (v && v->kind == NODE_STRING) {
		ps.s = v->u.str.s;
		ps.len = v->u.str.len;
		ps.node = v;
	}
	return ps;
}

/* "k=v, k=v": strings as they are, other values as JSON. */
static void
put_args(struct buf *b, const struct node *args)
{
	size_t i;

	if (!args || args->kind != NODE_TABLE)
		return;
	for (i = 0; i < args->u.table.n; i++) {
		const struct member *m = &args->u.table.items[i];

		if (i)
			buf_puts(b, ", ");
		buf_put(b, m->key, m->keylen);
		buf_putc(b, '=');
		if (m->value->kind == NODE_STRING)
			buf_put(b, m->value->u.str.s, m->value->u.str.len);
		else
			json_write(b, m->value, -1);
	}
}

static void
fenced(struct buf *b, const char *s, size_t n)
{
	buf_puts(b, "```\n");
	buf_put(b, s, n);
	buf_puts(b, "\n```");
}

static void
src_prestart(struct actx *a, struct buf *b)
{
	const struct agent_state *st = a->in->state;
	size_t i;

	for (i = 0; st && i < st->nprestart; i++) {
		const struct agent_call *c = &st->prestart[i];

		if (i)
			buf_putc(b, '\n');
		buf_printf(b, "【%s】(", c->tool);
		put_args(b, c->args);
		buf_puts(b, ")\n");
		fenced(b, c->result ? c->result : "", c->rlen);
	}
}

static void
src_tool_history(struct actx *a, struct buf *b)
{
	const struct agent_state *st = a->in->state;
	size_t i;

	for (i = 0; st && i < st->ntools; i++) {
		const struct agent_call *c = &st->tools[i];

		if (i)
			buf_putc(b, '\n');
		buf_printf(b, "%s(", c->tool);
		put_args(b, c->args);
		buf_puts(b, ") → ");
		buf_put(b, c->result ? c->result : "", c->rlen);
	}
}

static void
src_history(struct actx *a, struct buf *b)
{
	const struct agent_state *st = a->in->state;
	size_t i;

	for (i = 0; st && i < st->ndialogue; i++) {
		const struct agent_turn *t = &st->dialogue[i];

		if (i)
			buf_putc(b, '\n');
		buf_printf(b, "%s%s\n", t->name ? t->name :
		    t->role == ROLE_USER ? a->user : a->assistant,
		    lang_words[a->lang].colon);
		fenced(b, t->content, t->len);
	}
}

static void
src_user_text(struct actx *a, struct buf *b)
{
	const struct agent_state *st = a->in->state;
	const char *q = NULL;
	size_t n = 0;

	if (a->in->user) {
		q = a->in->user->text;
		n = a->in->user->len;
	} else if (st && st->question) {
		q = st->question;
		n = st->qlen;
	}
	if (!q || !n)
		return;
	buf_printf(b, "%s%s\n", a->user, lang_words[a->lang].colon);
	fenced(b, q, n);
}

/* The type of a property schema, for the tool list: "string",
 * "string|null", "any". */
static void
put_type(struct buf *b, const struct node *prop)
{
	const struct node *t = tree_get(prop, "type");
	size_t i;

	if (t && t->kind == NODE_STRING) {
		buf_put(b, t->u.str.s, t->u.str.len);
	} else if (t && t->kind == NODE_ARRAY && t->u.array.n) {
		for (i = 0; i < t->u.array.n; i++) {
			if (i)
				buf_putc(b, '|');
			if (t->u.array.items[i]->kind == NODE_STRING)
				buf_puts(b, t->u.array.items[i]->u.str.s);
		}
	} else {
		buf_puts(b, "any");
	}
}

/* "- name: description\n  参数: a (string) - what, b (integer)". */
static void
src_tools(struct actx *a, struct buf *b)
{
	size_t i, k;

	for (i = 0; i < a->tools->n; i++) {
		const struct tool *t = a->tools->items[i];
		const struct node *props = tree_get(t->parameters,
		    "properties");
		const char *d = t->description;
		size_t dn = strlen(d);

		if (i)
			buf_putc(b, '\n');
		buf_printf(b, "- %s: ", t->name);
		dn = entry_trim(&d, dn);
		buf_put(b, d, dn);
		if (!props || props->kind != NODE_TABLE || !props->u.table.n)
			continue;
		buf_printf(b, "\n  %s: ", a->params);
		for (k = 0; k < props->u.table.n; k++) {
			const struct member *m = &props->u.table.items[k];
			const char *pd = sget(m->value, "description");

			if (k)
				buf_puts(b, ", ");
			buf_put(b, m->key, m->keylen);
			buf_puts(b, " (");
			put_type(b, m->value);
			buf_putc(b, ')');
			if (pd && *pd)
				buf_printf(b, " - %s", pd);
		}
	}
}

static void
src_memories(struct actx *a, struct buf *b)
{
	const struct node *m = a->in->state ? a->in->state->memories : NULL;
	size_t i;

	if (!m)
		return;
	if (m->kind == NODE_STRING) {
		buf_put(b, m->u.str.s, m->u.str.len);
		return;
	}
	for (i = 0; i < m->u.array.n; i++)
		buf_printf(b, "%s- %s", i ? "\n" : "",
		    m->u.array.items[i]->u.str.s);
}

static void
src_profile(struct actx *a, struct buf *b)
{
	const struct node *pr = a->in->state ? a->in->state->profile : NULL;
	size_t i;

	if (!pr)
		return;
	if (pr->kind == NODE_STRING) {
		buf_put(b, pr->u.str.s, pr->u.str.len);
		return;
	}
	for (i = 0; i < pr->u.table.n; i++) {
		const struct member *m = &pr->u.table.items[i];

		if (i)
			buf_putc(b, '\n');
		buf_put(b, m->key, m->keylen);
		buf_puts(b, ": ");
		if (m->value->kind == NODE_STRING)
			buf_put(b, m->value->u.str.s, m->value->u.str.len);
		else
			json_write(b, m->value, -1);
	}
}

/* -c NAME, else the [[context]]'s file. */
static bool
src_context(struct actx *a, const char *name, struct buf *b)
{
	size_t i;

	map_put(&a->used, name, strlen(name), (void *)name);
	for (i = a->in->ncontexts; i-- > 0;)
		if (strcmp(a->in->contexts[i].name, name) == 0) {
			buf_put(b, a->in->contexts[i].text->text,
			    a->in->contexts[i].text->len);
			return true;
		}
	for (i = 0; i < a->p->ncontexts; i++) {
		const struct pcontext *c = &a->p->contexts[i];
		struct source *src;

		if (strcmp(c->name.s, name) != 0 || !c->file.s)
			continue;
		src = profile_open(a->run, a->p, &c->file);
		if (!src)
			return false;
		buf_put(b, src->text, src->len);
		return true;
	}
	return true;
}

static bool
read_tools(struct actx *a)
{
	struct entry_vec scratch = { NULL, 0, 0 };

	if (a->tools_read)
		return true;
	a->tools_read = true;
	/* The planner lists the tools in words and answers in JSON: the
	 * pipeline keeps them out of the request (assemble.c). */
	return layer_tools(a->run, a->p, &scratch, a->tools);
}

static struct entry *
section_entry(struct actx *a, size_t i, const char *title)
{
	struct entry *e = entry_new(&a->run->arena,
	    arena_printf(&a->run->arena, "agent.%zu", i + 1), "agent");

	e->title = title ? title : "";
	e->base = !title || !*title;
	e->role = ROLE_USER;
	e->placement = PLACE_USER;
	e->priority = (int)i;
	return e;
}

/* The entry's text is b's, generated: no template, no origin runs
 * but the section's node. */
static void
set_generated(struct actx *a, struct entry *e, struct buf *b,
    const struct node *at)
{
	const char *s = b->data ? b->data : "";
	size_t n = entry_trim(&s, b->len);

	entry_set_raw(&a->run->arena, e, arena_strndup(&a->run->arena,
	    s, n), n, at ? at->src : 0,
	    at ? at->span : span_make(0, 0), false);
	e->rewrite = 0;
}

static bool
persona_text(struct actx *a, struct entry *e)
{
	struct frontmatter fm;
	struct source *src;

	src = profile_open(a->run, a->p, &a->p->persona);
	if (!src || !frontmatter_read(a->run, src, &fm))
		return false;
	layer_file_text(a->run, e, src, fm.body);
	return true;
}

/*
 * One section: title, source (or file, or text), empty.  sec is the
 * profile's table, or NULL for a default section (d).
 */
static bool
section(struct actx *a, size_t i, const struct node *sec,
    const struct dsection *d, struct entry_vec *out)
{
	struct pstr file = sec ? pget(sec, "file") : (struct pstr){ 0 };
	struct pstr text = sec ? pget(sec, "text") : (struct pstr){ 0 };
	const struct node *srcnode = sec ? tree_get(sec, "source") : NULL;
	const char *source = sec ? sget(sec, "source") : d->source;
	const char *title = sec ? sget(sec, "title") : d->title[a->lang];
	const char *empty = sec ? sget(sec, "empty") : d->empty[a->lang];
	struct entry *e = section_entry(a, i, title);
	struct buf b = BUF_INIT;
	bool ok = true;

	if (!empty)
		empty = sget(a->agent, "empty");
	if (!empty)
		empty = lang_words[a->lang].empty;
	if (file.s) {
		struct source *src = profile_open(a->run, a->p, &file);
		struct frontmatter fm;

		if (!src || !frontmatter_read(a->run, src, &fm))
			return false;
		layer_file_text(a->run, e, src, fm.body);
		layer_push(a->run, out, e);
		return true;
	}
	if (text.s) {
		layer_string_text(a->run, e, &text);
		layer_push(a->run, out, e);
		return true;
	}
	if (strcmp(source, "persona") == 0 && a->p->persona.s) {
		if (!persona_text(a, e))
			return false;
		layer_push(a->run, out, e);
		return true;
	}
	if (strcmp(source, "persona") == 0)
		;
	else if (strcmp(source, "user_text") == 0)
		src_user_text(a, &b);
	else if (strncmp(source, "context.", 8) == 0 && source[8])
		ok = src_context(a, source + 8, &b);
	else if (strcmp(source, "prestart") == 0)
		src_prestart(a, &b);
	else if (strcmp(source, "tools") == 0)
		ok = read_tools(a) && (src_tools(a, &b), true);
	else if (strcmp(source, "tool_history") == 0)
		src_tool_history(a, &b);
	else if (strcmp(source, "history") == 0)
		src_history(a, &b);
	else if (strcmp(source, "observation") == 0) {
		if (a->in->state && a->in->state->observation)
			buf_put(&b, a->in->state->observation,
			    a->in->state->olen);
	} else if (strcmp(source, "memories") == 0)
		src_memories(a, &b);
	else if (strcmp(source, "profile") == 0)
		src_profile(a, &b);
	else {
		diag_error(a->run, layer_src_of(a->run, srcnode),
		    srcnode->span, MSG_AGENT_SOURCE, diag_shown(a->run,
		    source, strlen(source)));
		ok = false;
	}
	if (ok) {
		if (str_blank(b.data, b.len)) {
			b.len = 0;
			buf_puts(&b, empty);
		}
		set_generated(a, e, &b, sec);
		layer_push(a->run, out, e);
	}
	buf_free(&b);
	return ok;
}

/* An [agent] string (system, instructions) as an entry, or def. */
static void
text_entry(struct actx *a, const char *key, const char *def,
    struct entry *e, struct entry_vec *out)
{
	struct pstr ps = pget(a->agent, key);

	if (ps.s) {
		layer_string_text(a->run, e, &ps);
	} else if (def) {
		entry_set_raw(&a->run->arena, e, def, strlen(def),
		    a->agent->src, a->agent->span, false);
		e->rewrite = 0;
	} else {
		return;
	}
	layer_push(a->run, out, e);
}

/* Every -c must be read by a section. */
static bool
check_contexts(struct actx *a)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < a->in->ncontexts; i++) {
		const struct context_input *ci = &a->in->contexts[i];

		if (map_get(&a->used, ci->name, strlen(ci->name)))
			continue;
		diag_error(a->run, ci->arg, ci->namespan,
		    MSG_AGENT_NO_CONTEXT, ci->name, ci->name);
		ok = false;
	}
	return ok;
}

bool
layer_agent(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out,
    struct tool_list *list)
{
	struct actx a;
	const struct node *secs;
	const struct dsection *d = NULL;
	const char *lang;
	struct entry *e;
	size_t i;
	bool ok = true, planner;

	memset(&a, 0, sizeof(a));
	a.run = run;
	a.p = p;
	a.in = in;
	a.tools = list;
	a.agent = tree_get(p->root, "agent");
	lang = sget(a.agent, "lang");
	a.lang = lang && strcmp(lang, "zh") == 0 ? 1 : 0;
	a.kind = sget(a.agent, "kind");
	if (!a.kind)
		a.kind = "chat";
	planner = strcmp(a.kind, "planner") == 0;
	a.user = sget(a.agent, "user_label");
	if (!a.user)
		a.user = lang_words[a.lang].user;
	a.assistant = sget(a.agent, "assistant_label");
	if (!a.assistant)
		a.assistant = lang_words[a.lang].assistant;
	a.params = sget(a.agent, "params_label");
	if (!a.params)
		a.params = lang_words[a.lang].params;
	map_init(&a.used, &run->arena);

	e = entry_new(&run->arena, "agent.system", "agent");
	e->title = "System";
	e->priority = INT_MIN + 2;
	e->scope = SCOPE_GLOBAL;
	text_entry(&a, "system", planner ? lang_words[a.lang].system : NULL,
	    e, out);

	secs = tree_get(a.agent, "sections");
	if (!secs)
		d = default_sections(a.kind);
	if (secs)
		for (i = 0; i < secs->u.array.n; i++)
			ok = section(&a, i, secs->u.array.items[i], NULL,
			    out) && ok;
	for (i = 0; d && d[i].source; i++)
		ok = section(&a, i, NULL, &d[i], out) && ok;

	e = entry_new(&run->arena, "agent.instructions", "agent");
	e->title = "";
	e->base = true;
	e->role = ROLE_USER;
	e->placement = PLACE_USER;
	e->priority = INT_MAX - 1;
	text_entry(&a, "instructions", planner ? lang_words[a.lang].answer :
	    NULL, e, out);
	ok = layer_injects(run, p, in, out) && ok;
	return check_contexts(&a) && ok;
}

void
agent_compose(struct buf *out, const struct profile *p, struct entry **v,
    size_t n)
{
	const struct node *agent = tree_get(p->root, "agent");
	const struct node *secs = tree_get(agent, "sections");
	const struct dsection *d = secs ? NULL :
	    default_sections(sget(agent, "kind"));
	const char *def = sget(agent, "after"), *after;
	size_t i, idx, nd = 0;

	while (d && d[nd].source)
		nd++;

	if (!def)
		def = "\n---\n\n";
	for (i = 0; i < n; i++) {
		const struct entry *e = v[i];

		if (!e->base)
			buf_printf(out, "**%s**\n", e->title);
		buf_put(out, e->content, e->len);
		if (e->base)
			after = "\n\n";
		else
			after = def;
		/* Section N's key is agent.N. */
		idx = strncmp(e->key, "agent.", 6) == 0 ?
		    strtoul(e->key + 6, NULL, 10) : 0;
		if (secs && idx > 0 && idx <= secs->u.array.n) {
			const char *s = sget(secs->u.array.items[idx - 1],
			    "after");

			if (s)
				after = s;
		} else if (idx > 0 && idx <= nd && d[idx - 1].after) {
			after = d[idx - 1].after;
		}
		buf_puts(out, after);
	}
	while (out->len && (out->data[out->len - 1] == '\n' ||
	    out->data[out->len - 1] == '\r'))
		out->len--;
	if (out->data)
		out->data[out->len] = '\0';
}
