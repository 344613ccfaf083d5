/* The command line's inputs: NAME=VALUE arguments, variables, -c files,
 * the user's text and the history. */
#include "pipeline/stages.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

const char *
assemble_stdin_clash(const struct options *opt)
{
	int n = 0;
	size_t i;

	if (opt->user && strcmp(opt->user, "-") == 0)
		n++;
	if (opt->history && strcmp(opt->history, "-") == 0 && ++n > 1)
		return "--history";
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
	bool ok = true;

	ok = split_all(run, opt->sets, opt->nsets, "KEY", sets) && ok;
	ok = split_all(run, opt->vars, opt->nvars, "NAME", vars) && ok;
	ok = split_all(run, opt->contexts, opt->ncontexts, "NAME", ctxs) &&
	    ok;
	ok = split_all(run, opt->injects, opt->ninjects, "KEY", injs) && ok;
	return ok;
}

static void
variables(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars, struct tvars *tv)
{
	size_t i;

	template_vars_init(run, tv);
	tv->keep_unknown = p->keep_unknown_vars;
	template_vars_from(run, tv, p->vars);
	for (i = 0; i < opt->nvars; i++) {
		const struct setting *s = &vars[i];

		template_var(run, tv, arena_strndup(&run->arena,
		    s->src->text + s->name.off, s->name.len),
		    s->src->text + s->value.off, s->value.len, NULL,
		    s->name);
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

bool
inputs_read(struct run *run, const struct options *opt,
    const struct profile *p, const struct setting *vars,
    const struct setting *ctxs, const struct setting *injs,
    struct inputs *in)
{
	size_t i;
	bool ok;

	memset(in, 0, sizeof(*in));
	variables(run, opt, p, vars, &in->vars);
	ok = contexts(run, opt, ctxs, in);
	in->injects = arena_array(&run->arena, opt->ninjects + 1,
	    sizeof(*in->injects));
	for (i = 0; i < opt->ninjects; i++) {
		in->injects[i].arg = injs[i].src;
		in->injects[i].key = injs[i].name;
		in->injects[i].text = injs[i].value;
	}
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
	in->images = arena_array(&run->arena, opt->nimages + 1,
	    sizeof(*in->images));
	for (i = 0; i < opt->nimages; i++) {
		const char *arg = opt->images[i].arg;
		struct source *s = run_source_mem(run, "--image", arg,
		    strlen(arg));

		if (media_part(run, s, span_make(0, (uint32_t)strlen(arg)),
		    PART_IMAGE, arg, strlen(arg), NULL, NULL,
		    &in->images[in->nimages]))
			in->nimages++;
		else
			ok = false;
	}
	if (opt->history && !history_read(run, opt->history, in))
		ok = false;
	return ok;
}

void
inputs_free(struct inputs *in)
{
	buf_free(&in->base);
	buf_free(&in->devbase);
}
