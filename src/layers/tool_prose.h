/*
 * tool_prose: the tools section of the system prompt, in words, from the
 * tool model (prompt/tool.h): each tool's name, description, one line
 * per parameter with its type and whether it is required, and the usage
 * hint.  The text is appended to a buffer the caller owns; the tools are
 * only read.  The format is described at the top of tool_prose.c and in
 * strata-profile(5).
 */
#ifndef TOOL_PROSE_H
#define TOOL_PROSE_H

struct buf;
struct tool_list;

/* The prose section for the tools of list, in list order, appended to
 * out; nothing for an empty list.  labels (indexed by enum label,
 * prompt/labels.h) gives its words; NULL means English. */
void tool_prose(struct buf *out, const struct tool_list *list,
    const char *const *labels);

#endif
