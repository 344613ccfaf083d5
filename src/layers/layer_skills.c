/* Skills: inline ones are entries of their own; outline ones are listed
 * together in one entry, "skills". */
#include "layers/layer_int.h"

#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/path.h"
#include "data/frontmatter.h"
#include "data/tree.h"
#include "diag/run.h"

/*
 * Append file path's text (after its front matter, trimmed) to inline
 * skill e, after a blank line; its runs keep pointing at their file.
 */
static bool
more_file(struct run *run, const struct profile *p, struct entry *e,
    const struct pstr *path)
{
	struct arena *a = &run->arena;
	struct source *src = profile_open(run, p, path);
	struct frontmatter fm;
	struct seg *segs;
	const char *body;
	char *text;
	size_t n, off, old = e->raw.len;

	if (!src || !frontmatter_read(run, src, &fm))
		return false;
	body = src->text + fm.body;
	n = entry_trim(&body, src->len - fm.body);
	if (n == 0)
		return true;
	off = (size_t)(body - src->text);
	while (old && strchr(" \t\r\n\f\v", e->raw.s[old - 1]))
		old--;
	text = arena_alloc(a, old + 2 + n + 1);
	memcpy(text, e->raw.s, old);
	memcpy(text + old, "\n\n", 2);
	memcpy(text + old + 2, body, n);
	text[old + 2 + n] = '\0';
	segs = arena_array(a, e->raw.nsegs + 2, sizeof(*segs));
	memcpy(segs, e->raw.segs, e->raw.nsegs * sizeof(*segs));
	segs[e->raw.nsegs].at = old;    /* the blank line between */
	segs[e->raw.nsegs].src = src->id;
	segs[e->raw.nsegs].span = span_make(off, 0);
	segs[e->raw.nsegs].exact = false;
	segs[e->raw.nsegs + 1].at = old + 2;
	segs[e->raw.nsegs + 1].src = src->id;
	segs[e->raw.nsegs + 1].span = span_make(off, n);
	segs[e->raw.nsegs + 1].exact = true;
	e->raw.s = text;
	e->raw.len = old + 2 + n;
	e->raw.segs = segs;
	e->raw.nsegs += 2;
	e->content = e->raw.s;
	e->len = e->raw.len;
	return true;
}

struct outline {
	struct buf text;
	const struct node *first;       /* the first outline skill */
};

/* One [[skills]] element; false after reporting. */
static bool
skill(struct run *run, const struct profile *p, const struct pskill *sk,
    struct map *names, struct outline *ol, struct entry_vec *out)
{
	struct arena *a = &run->arena;
	struct source *src = profile_open(run, p, &sk->file);
	const struct node *dup;
	struct frontmatter fm;
	const char *name, *desc;
	size_t i;
	bool ok = true;

	if (!src || !frontmatter_read(run, src, &fm))
		return false;
	name = sk->name.s ? sk->name.s :
	    frontmatter_string(run, &fm, "name", &ok);
	desc = sk->description.s ? sk->description.s :
	    frontmatter_string(run, &fm, "description", &ok);
	if (!ok)
		return false;
	if (!name)
		name = path_stem(a, sk->file.s);
	/* Names may come from front matter or the file name, where the
	 * profile check cannot see them. */
	dup = map_get(names, name, strlen(name));
	if (dup) {
		diag_error(run, layer_src_of(run, sk->node), sk->node->span,
		    MSG_DUPLICATE_ENTRY, "skill", name);
		diag_note(run, layer_src_of(run, dup), dup->span,
		    MSG_FIRST_HERE);
		return false;
	}
	map_put(names, name, strlen(name), (void *)sk->node);
	if (sk->mode == SKILL_INLINE) {
		struct entry *e = entry_new(a, arena_printf(a, "skill.%s",
		    name), "skill");

		e->title = name;
		e->priority = sk->priority;
		e->scope = SCOPE_GLOBAL;
		layer_file_text(run, e, src, fm.body);
		for (i = 0; i < sk->nfiles; i++)
			ok = more_file(run, p, e, &sk->files[i]) && ok;
		layer_push(run, out, e);
		return ok;
	}
	if (!desc) {
		diag_error(run, layer_src_of(run, sk->node), sk->node->span,
		    MSG_OUTLINE_NO_DESCRIPTION, name);
		return false;
	}
	if (!ol->first)
		ol->first = sk->node;
	buf_printf(&ol->text, "\n- %s: %s", name, desc);
	if (!sk->show_path.s)
		buf_printf(&ol->text, " -> %s", sk->file.s);
	else if (sk->show_path.len)
		buf_printf(&ol->text, " -> %s", sk->show_path.s);
	return true;
}

bool
layer_skills(struct run *run, const struct profile *p, struct entry_vec *out)
{
	struct arena *a = &run->arena;
	struct outline ol = { BUF_INIT, NULL };
	struct map names;       /* name -> its [[skills]] node */
	size_t i;
	bool ok = true;

	map_init(&names, a);
	for (i = 0; i < p->nskills; i++)
		ok = skill(run, p, &p->skills[i], &names, &ol, out) && ok;
	if (ol.first) {
		struct entry *e = entry_new(a, "skills", "skill");
		const char *head = p->outline_header.s ? p->outline_header.s :
		    p->labels[LABEL_OUTLINE_HEADER];
		const char *foot = p->outline_footer.s ? p->outline_footer.s :
		    p->labels[LABEL_OUTLINE_FOOTER];
		char *text = arena_printf(a, "%s%s%s%s", head, ol.text.data,
		    *foot ? "\n" : "", foot);
		const char *t = text;
		size_t n = entry_trim(&t, strlen(text));

		e->title = p->labels[LABEL_SKILLS];
		e->priority = PRIO_SKILLS;
		e->scope = SCOPE_GLOBAL;
		entry_set_raw(a, e, t, n, ol.first->src, ol.first->span,
		    false);
		layer_push(run, out, e);
	}
	buf_free(&ol.text);
	return ok;
}
