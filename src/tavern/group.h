/*
 * group: a SillyTavern 1.15 group chat (groups/<id>.json): its members'
 * cards, who is muted, how the next speaker is chosen (activation
 * strategy), whether the prompt takes the speaker's card alone (swap)
 * or every member's joined (append), and the join prefix and suffix.
 * group_read() reads the file and every member's card; group_pick()
 * chooses the member who speaks, as SillyTavern's generateGroupWrapper
 * does for the first request of a generation; the rest (the macros, the
 * joined fields, the depth prompts, the nudge) is the build's
 * (tbuild_group.c).
 *
 * Ownership: everything lives in the run's arena; the cards are the
 * members' own, read once.
 */
#ifndef GROUP_H
#define GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct card;
struct node;
struct run;
struct tchat;

/* SillyTavern's group_activation_strategy and group_generation_mode. */
enum group_strategy {
	GROUP_NATURAL = 0,
	GROUP_LIST = 1,
	GROUP_MANUAL = 2,
	GROUP_POOLED = 3,
};

enum group_mode {
	GROUP_SWAP = 0,
	GROUP_APPEND = 1,
	GROUP_APPEND_DISABLED = 2,      /* append, muted members too */
};

struct group_member {
	const char *avatar;             /* as the group names it: X.png */
	const char *path;               /* the card file read */
	struct card *card;
	const char *name;               /* the card's name */
	bool muted;                     /* in disabled_members */
	const struct node *node;        /* its string in members */
};

struct group {
	const char *path;
	const char *name;               /* the group's name ("" if none) */
	struct group_member *m;         /* in the group's order */
	size_t n;
	enum group_strategy strategy;
	enum group_mode mode;
	bool self_responses;            /* allow_self_responses */
	const char *join_prefix, *join_suffix;
};

/*
 * Read the group file at path and every member's card.  A member X.png
 * is read from dir/X.png, else dir/X.json (dir: ../characters beside the
 * group file as SillyTavern's data folder has it, else the group file's
 * own folder).  Errors are reported at their place in the group file.
 */
bool group_read(struct run *run, const char *path, const struct node *named,
    struct group **out);

/* Why the speaker is who it is (debug output and the notes). */
struct group_pick {
	size_t speaker;                 /* index into g->m */
	const char *why;
};

/*
 * The member who speaks: speaker (--speaker: a member's name or its
 * card file name) if given; else for swipe and continue the author of
 * the last reply, for impersonate any member, for quiet the last
 * reply's author or the first member; else by the group's strategy over
 * the members not muted (natural: those the text names, then by
 * talkativeness; list: the first; pooled: one who has not spoken since
 * the user; manual: one at random when no message was typed).  typed is
 * the message sent (NULL or "": none); type the generation type's name;
 * the draws come from *rng.  Errors (no such
 * member, nobody speaks) are reported.
 */
bool group_pick(struct run *run, const struct group *g, const char *speaker,
    const struct tchat *chat, const char *typed, const char *type,
    uint64_t *rng, struct group_pick *out);

/* The members' names joined with ", ": all of them, or only those not
 * muted ({{group}}, {{groupNotMuted}}). */
const char *group_names(struct run *run, const struct group *g,
    bool muted_too);

#endif
