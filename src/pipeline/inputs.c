/* The command line's inputs: NAME=VALUE arguments, variables, -c files,
 * the user's text and the history. */
#include "pipeline/stages.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "text/macros.h"
#include "base/clock.h"

const char *
assemble_stdin_clash(const struct options *opt)
{
	int n = 0;
	size_t i;

	if (opt->profile && strcmp(opt->profile, "-") == 0)
		n++;
	if (opt->user && strcmp(opt->user, "-") == 0 && ++n > 1)
		return "--user";
	if (opt->history && strcmp(opt->history, "-") == 0 && ++n > 1)
		return "--history";
	if (opt->state && strcmp(opt->state, "-") == 0 && ++n > 1)
		return "--state";
	if (opt->data && strcmp(opt->data, "-") == 0 && ++n > 1)
		return "--data";
	for (i = 0; i < opt->ncontexts; i++) {
		const char *eq = strchr(opt->contexts[i].arg, '=');

		if (eq && strcmp(eq + 1, "-") == 0 && ++n > 1)
			return "--context";
	}
	return NULL;
}

/*
 * A NAME=VALUE argument becomes a source of its own (named after the
 * option), so a message about it can point into it.
 */
static bool
split_kv(struct run *run, const struct kv *kv, const char *what,
    struct setting *out)
{
	struct source *src = run_source_mem(run, kv->opt, kv->arg,
	    strlen(kv->arg));
	const char *eq = strchr(src->text, '=');

	out->src = src;
	out->json = strcmp(kv->opt, "--set-json") == 0;
	if (!eq || eq == src->text) {
		diag_error(run, src, span_make(0, src->len), MSG_SET_SYNTAX,
		    what);
		return false;
	}
	out->name = span_make(0, (size_t)(eq - src->text));
	out->value = span_make(out->name.len + 1,
	    src->len - out->name.len - 1);
	return true;
}

static bool
split_all(struct run *run, const struct kv *kvs, size_t n, const char *what,
    struct setting **out)
{
	size_t i;
	bool ok = true;

	*out = arena_array(&run->arena, n + 1, sizeof(**out));
	for (i = 0; i < n; i++)
		if (!split_kv(run, &kvs[i], what, &(*out)[i]))
			ok = false;
	return ok;
}

bool
inputs_split(struct run *run, const struct options *opt,
    struct setting **sets, struct setting **vars, struct setting **ctxs,
    struct setting **injs)
{
	size_t i;
	bool ok = true;

	ok = split_all(run, opt->sets, opt->nsets, "KEY", sets) && ok;
	ok = split_all(run, opt->vars, opt->nvars, "NAME", vars) && ok;
	ok = split_all(run, opt->contexts, opt->ncontexts, "NAME", ctxs) &&
	    ok;
	/* -i has a syntax of its own: inputs_read() parses it. */
	*injs = arena_array(&run->arena, opt->ninjects + 1, sizeof(**injs));
	for (i = 0; i < opt->ninjects; i++)
		(*injs)[i].src = run_source_mem(run, opt->injects[i].opt,
		    opt->injects[i].arg, strlen(opt->injects[i].arg));
	return ok;
}

/* The attributes -i takes between KEY@ and =TEXT. */
enum { ATTR_DEPTH, ATTR_ROLE, ATTR_POSITION, ATTR_PRIORITY, ATTR_SCOPE };
static const char *const inject_attrs[] = { "depth", "role", "position",
	"priority", "scope", NULL };

/* One ATTR=VALUE of an -i argument into ci; false after reporting. */
static bool
inject_attr(struct run *run, const struct source *src, struct span name,
    struct span val, struct cli_inject *ci, int *position)
{
	const char *v = src->text + val.off;
	int a = names_index(inject_attrs, src->text + name.off, name.len);
	int k = 0;
	char *end;
	long d;

	switch (a) {
	case ATTR_DEPTH:
		d = val.len && v[0] >= '0' && v[0] <= '9' ?
		    strtol(v, &end, 10) : -1;
		if (d < 0 || end != v + val.len || d > INT_MAX / 2)
			break;
		ci->depth = (int)d;
		return true;
	case ATTR_ROLE:
		if ((k = names_index(names_roles, v, val.len)) < 0)
			break;
		ci->role = (enum role)k;
		return true;
	case ATTR_POSITION:
		if ((*position = names_index(names_positions, v, val.len)) < 0)
			break;
		return true;
	case ATTR_PRIORITY:
		if (!names_priority_parse(v, val.len, &ci->priority))
			break;
		return true;
	case ATTR_SCOPE:
		if ((k = names_index(names_scopes, v, val.len)) < 0)
			break;
		ci->scope = (enum scope)k;
		return true;
	default:
		diag_error(run, src, name, MSG_INJECT_ATTR, (int)name.len,
		    src->text + name.off);
		return false;
	}
	diag_error(run, src, val, MSG_INJECT_ATTR_VALUE, inject_attrs[a],
	    a == ATTR_DEPTH ? "an integer from 0 to 1073741823" :
	    a == ATTR_ROLE ? "system, developer, user or assistant" :
	    a == ATTR_POSITION ? "system, developer, user-context or depth" :
	    a == ATTR_PRIORITY ? "an integer or a priority name" :
	    "global, session or turn", (int)val.len, v);
	return false;
}

/*
 * -i KEY=TEXT, or KEY@ATTR=VALUE[:ATTR=VALUE...]=TEXT: the key ends at
 * the first '@' or '='; a value ends at the next ':' or '='; the text
 * is the rest, and may hold both.
 */
bool
inputs_inject(struct run *run, const struct source *src,
    struct cli_inject *ci)
{
	const char *t = src->text;
	size_t i = strcspn(t, "@="), k;
	struct span spans[5];
	unsigned seen = 0;
	int position = -1, a;

	memset(ci, 0, sizeof(*ci));
	ci->arg = src;
	ci->priority = PRIORITY_DEFAULT;
	ci->role = ROLE_SYSTEM;
	ci->scope = SCOPE_TURN;
	if (i == 0 || i == src->len) {
		diag_error(run, src, span_make(0, src->len), MSG_INJECT_SYNTAX);
		return false;
	}
	ci->key = span_make(0, i);
	while (t[i] == '@' || t[i] == ':') {
		struct span name, val;

		k = strcspn(t + i + 1, "=:");
		name = span_make(i + 1, k);
		i += 1 + k;
		if (t[i] != '=') {
			diag_error(run, src, name, MSG_INJECT_SYNTAX);
			return false;
		}
		k = strcspn(t + i + 1, "=:");
		val = span_make(i + 1, k);
		i += 1 + k;
		if (!t[i]) {
			diag_error(run, src, span_make(0, src->len),
			    MSG_INJECT_SYNTAX);
			return false;
		}
		if (!inject_attr(run, src, name, val, ci, &position))
			return false;
		a = names_index(inject_attrs, t + name.off, name.len);
		if (seen & (1u << a)) {
			diag_error(run, src, name, MSG_INJECT_ATTR_TWICE,
			    inject_attrs[a]);
			return false;
		}
		seen |= 1u << a;
		spans[a] = val;
	}
	ci->text = span_make(i + 1, src->len - i - 1);
	if (seen & (1u << ATTR_PRIORITY))
		ci->given |= ENTRY_GIVEN_PRIORITY;
	if (seen & (1u << ATTR_SCOPE))
		ci->given |= ENTRY_GIVEN_SCOPE;
	if (!(seen & (1u << ATTR_ROLE | 1u << ATTR_DEPTH |
	    1u << ATTR_POSITION)))
		return true;
	ci->given |= ENTRY_GIVEN_PLACE;
	switch (entry_place(position, seen & (1u << ATTR_ROLE), &ci->role,
	    seen & (1u << ATTR_DEPTH), &ci->placement)) {
	case ENTRY_PLACE_OK:
		return true;
	case ENTRY_PLACE_INCHAT_ROLE:
		diag_error(run, src, spans[ATTR_ROLE], MSG_INCHAT_ROLE,
		    names_role(ci->role));
		break;
	case ENTRY_PLACE_NEEDS_DEPTH:
		diag_error(run, src, spans[ATTR_ROLE], MSG_INJECT_NEEDS_DEPTH,
		    names_role(ci->role));
		break;
	case ENTRY_PLACE_DEPTH:
		diag_error(run, src, spans[ATTR_DEPTH], MSG_INJECT_POSITION,
		    "depth", names_positions[position]);
		break;
	case ENTRY_PLACE_ROLE:
		diag_error(run, src, spans[ATTR_ROLE], MSG_INJECT_POSITION,
		    "role", names_positions[position]);
		break;
	}
	return false;
}

/* [vars], a session's chat variables, --data, then -v (each winning
 * over the one before); a -v name no placeholder could use is an
 * error. */
static void
variables(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars,
    const struct chatfile *sess, struct tvars *tv, bool *ok)
{
	const struct node *meta = sess ? chatfile_metadata(sess) : NULL;
	size_t i;

	template_vars_init(run, tv);
	tv->keep_unknown = p->keep_unknown_vars;
	tv->now = opt->now;
	tv->seed = opt->tavern.seed;
	if (p->vars)
		for (i = 0; i < p->vars->u.table.n; i++) {
			const struct member *m = &p->vars->u.table.items[i];

			if (!template_name_ok(m->key, m->keylen)) {
				diag_error(run, run_source(run, m->keysrc),
				    m->keyspan, MSG_BAD_VAR_NAME,
				    (int)m->keylen, m->key);
				*ok = false;
			}
		}
	template_vars_from(run, tv, p->vars);
	if (meta)
		template_vars_from(run, tv, tree_get(meta, "variables"));
	if (opt->data && !inputs_json_vars(run, opt->data, MSG_GOTMPL_DATA,
	    tree_kind_json, tv))
		*ok = false;
	for (i = 0; i < opt->nvars; i++) {
		const struct setting *s = &vars[i];
		const char *name = arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len);
		const char *val = s->src->text + s->value.off;
		struct node *json;

		if (!template_name_ok(name, s->name.len)) {
			diag_error(run, s->src, s->name, MSG_BAD_VAR_NAME,
			    (int)s->name.len, name);
			*ok = false;
			continue;
		}
		/* NAME=@FILE.json: a list or an object. */
		if (s->value.len > 1 && val[0] == '@') {
			if (load_file(run, val + 1, LOAD_JSON, s->src,
			    s->value, &json, NULL))
				template_var_node(run, tv, name, json, NULL,
				    s->name);
			else
				*ok = false;
			continue;
		}
		template_var(run, tv, name, val, s->value.len, NULL, s->name);
	}
}

static bool
contexts(struct run *run, const struct options *opt,
    const struct setting *ctxs, struct inputs *in)
{
	size_t i;
	bool ok = true;

	in->contexts = arena_array(&run->arena, opt->ncontexts + 1,
	    sizeof(*in->contexts));
	for (i = 0; i < opt->ncontexts; i++) {
		const struct setting *s = &ctxs[i];
		struct context_input *ci = &in->contexts[i];
		const char *file = arena_strndup(&run->arena,
		    s->src->text + s->value.off, s->value.len);

		ci->name = arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len);
		ci->arg = s->src;
		ci->namespan = s->name;
		ci->text = run_read(run, file, s->src, s->value);
		if (!ci->text)
			ok = false;
	}
	return ok;
}

static const struct source *
user_text(struct run *run, const char *user)
{
	struct source *s;

	if (strcmp(user, "-") != 0)
		return run_source_mem(run, "--user", user, strlen(user));
	s = run_read(run, "-", NULL, span_make(0, 0));
	/* Like $(...) in the shell: a piped message loses its final line
	 * endings. */
	while (s && s->len && (s->text[s->len - 1] == '\n' ||
	    s->text[s->len - 1] == '\r'))
		s->text[--s->len] = '\0';
	return s;
}

/* What every text may use about the turn. */
static void
turn_vars(struct run *run, struct inputs *in)
{
	const char *t = arena_printf(&run->arena, "%lld",
	    (long long)in->turn);

	if (!template_var_get(&in->vars, "first_turn", 10)) {
		const char *f = in->first_turn ? "true" : "false";

		template_var(run, &in->vars, "first_turn", f, strlen(f), NULL,
		    span_make(0, 0));
	}
	if (!template_var_get(&in->vars, "turn", 4))
		template_var(run, &in->vars, "turn", t, strlen(t), NULL,
		    span_make(0, 0));
}

/*
 * --image TYPE=URL: the media type given before a URL (strata(1)).  The
 * prefix is one only when a URL follows the first '=' and no ':' comes
 * before it, so a URL or file name with '=' in it is read as written.
 * Moves *ref past the prefix and sets *type, or leaves both; false after
 * reporting a TYPE that is not an image type.
 */
static bool
image_type(struct run *run, const struct source *s, const char **ref,
    const char **type)
{
	const char *arg = *ref, *eq = strchr(arg, '=');
	size_t n;

	if (!eq || !media_is_url(eq + 1, strlen(eq + 1)))
		return true;
	n = (size_t)(eq - arg);
	if (memchr(arg, ':', n))
		return true;
	*type = arena_strndup(&run->arena, arg, n);
	if (!part_media_ok(PART_IMAGE, *type)) {
		diag_error(run, s, span_make(0, n), MSG_IMAGE_ARG_TYPE, arg,
		    (int)n, arg);
		return false;
	}
	*ref = eq + 1;
	return true;
}

bool
inputs_read(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars,
    const struct setting *ctxs, const struct setting *injs,
    struct inputs *in)
{
	size_t i;
	bool ok;
	int64_t ms;
	uint64_t seed;

	memset(in, 0, sizeof(*in));
	in->allow_files = opt->allow_history_files;
	/* --now and --seed pin what the macros read: a bad one is an error
	 * for every build, whether or not a macro would have read it. */
	if (opt->now && !clock_parse(opt->now, &ms)) {
		diag_plain(run, DIAG_ERROR, MSG_SESSION_BAD_TIME, opt->now);
		return false;
	}
	in->has_now = opt->now != NULL;
	in->now_ms = in->has_now ? ms : 0;
	if (opt->tavern.seed && !macros_seed(opt->tavern.seed, &seed)) {
		diag_plain(run, DIAG_ERROR, MSG_TAVERN_SEED, opt->tavern.seed);
		return false;
	}
	if (!inputs_session_load(run, opt, in))
		return false;
	if (in->sess)
		session_check_profile(run, in->sess, opt->session,
		    session_profile_fp(&run->arena, p->root));
	ok = true;
	variables(run, opt, p, vars, in->sess, &in->vars, &ok);
	if (in->has_now) {
		in->vars.now_set = true;
		in->vars.now_ms = in->now_ms;
	}
	ok = contexts(run, opt, ctxs, in) && ok;
	in->injects = arena_array(&run->arena, opt->ninjects + 1,
	    sizeof(*in->injects));
	for (i = 0; i < opt->ninjects; i++)
		if (!inputs_inject(run, injs[i].src, &in->injects[i]))
			ok = false;
	if (opt->user) {
		in->user = user_text(run, opt->user);
		if (!in->user)
			ok = false;
		/* An empty -u is a mistake, not "no user turn" (strata(1)). */
		else if (!in->user->len && !opt->nimages) {
			diag_plain(run, DIAG_ERROR, MSG_USER_EMPTY);
			ok = false;
		}
	}
	if (opt->user_src)
		in->user = opt->user_src;
	in->images = arena_array(&run->arena, opt->nimages + 1,
	    sizeof(*in->images));
	for (i = 0; i < opt->nimages; i++) {
		const char *arg = opt->images[i].arg, *ref = arg;
		const char *type = NULL;
		struct source *s = run_source_mem(run, "--image", arg,
		    strlen(arg));
		struct part *pt = &in->images[in->nimages];
		struct span sp;

		if (!image_type(run, s, &ref, &type)) {
			ok = false;
			continue;
		}
		sp = span_make((uint32_t)(ref - arg), (uint32_t)strlen(ref));
		if (media_part(run, s, sp, PART_IMAGE, ref, strlen(ref), NULL,
		    type, pt)) {
			pt->has_src = true;
			pt->src = s->id;
			pt->span = sp;
			in->nimages++;
		} else
			ok = false;
	}
	if (opt->history && !history_read(run, opt->history, in))
		ok = false;
	/* --params' messages: read as -H reads a file. */
	if (opt->history_src && !history_parse(run, opt->history_src, in))
		ok = false;
	if (ok && !inputs_session_merge(run, opt, in))
		ok = false;
	/* A SillyTavern build takes the messages as given (a sandbox). */
	if (ok && in->hist && !tavern_wanted(&opt->tavern,
	    profile_tavern(p))) {
		cleanup_history(run, p, in, &in->hist, &in->nhist);
		in->histroom = in->nhist + 1;
	}
	if (ok && !state_read(run, opt, p, in))
		ok = false;
	if (ok)
		turn_vars(run, in);
	if (ok && !inputs_turn(run, opt, p, in))
		ok = false;
	/* The SillyTavern files are inputs too, read once here. */
	if (ok && tavern_wanted(&opt->tavern, profile_tavern(p)) &&
	    !inputs_tavern(run, opt, p, in))
		ok = false;
	return ok;
}

void
inputs_free(struct inputs *in)
{
	buf_free(&in->base);
	buf_free(&in->devbase);
}
