/*
 * layer_int: what the files of layers/ share and nothing else sees --
 * one function per layer (layer_*.c, named for what it makes) and the
 * helpers that give an entry its raw text.  Same ownership as layer.h.
 */
#ifndef LAYER_INT_H
#define LAYER_INT_H

#include "layers/layer.h"

/* Built-in priorities of the generated layers (DESIGN.md). */
enum {
	PRIO_PERSONA = 30,
	PRIO_FORMAT = 35,
	PRIO_MEMORIES = 60,
	PRIO_SKILLS = 75,
	PRIO_TOOLS = 80,
};

const struct source *layer_src_of(struct run *run, const struct node *n);
/* Raw text of e: a prompt file's body from offset body, or a profile
 * string; both marked for placeholders and tidying. */
void layer_file_text(struct run *run, struct entry *e,
    const struct source *src, size_t body);
void layer_string_text(struct run *run, struct entry *e,
    const struct pstr *p);
void layer_push(struct run *run, struct entry_vec *out, struct entry *e);

bool layer_prefix(struct run *run, const struct profile *p,
    struct entry_vec *out);
bool layer_persona(struct run *run, const struct profile *p,
    struct entry_vec *out);
bool layer_skills(struct run *run, const struct profile *p,
    struct entry_vec *out);
bool layer_tools(struct run *run, const struct profile *p,
    struct entry_vec *out, struct tool_list *list);
bool layer_injects(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out);
bool layer_agent(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out,
    struct tool_list *list);
bool layer_contexts(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out);

#endif
