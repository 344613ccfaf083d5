/*
 * card: SillyTavern character cards, read from JSON (V1: no "spec"; V2
 * "chara_card_v2"; V3 "chara_card_v3") or from a PNG's tEXt chunks
 * ("ccv3" preferred over "chara", each base64 of UTF-8 JSON), and
 * normalised into one model.  Everything a card holds lives in the run's
 * arena; the model's trees may share nodes with the tree the JSON reader
 * made, which is never changed.
 *
 * Normalisation (strata(1), CARDS, says the same to users):
 *  - "data.*" wins; a field missing from "data" is taken from the top
 *    level (where V1 cards keep everything, and where SillyTavern repeats
 *    the V1 fields); V1's "creatorcomment" stands for creator_notes, and
 *    top-level "talkativeness" and "fav" go into extensions when
 *    extensions lacks them.
 *  - Text fields: a string is kept; a number or boolean is turned into
 *    its JSON text with a warning (JavaScript would show it so); null is
 *    ""; a table or array is an error.
 *  - List fields (alternate_greetings, tags, group_only_greetings): an
 *    array of texts (null items dropped); null is empty; "tags" may also
 *    be one string of comma-separated tags (old V1 cards); anything else
 *    is an error.
 *  - extensions must be a table (null or absent: {}); character_book a
 *    table or null.  Unknown keys in extensions are kept.
 *  - V3's nickname follows the text rules; creator_notes_multilingual,
 *    source, creation_date, modification_date and assets are kept as
 *    they are (SillyTavern does not use them).
 *  - Unknown keys of "data" are kept after the known ones, and unknown
 *    top-level keys (SillyTavern's "avatar", "chat", "create_date") after
 *    "data", both in document order.
 */
#ifndef CARD_H
#define CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct node;
struct run;
struct source;

enum card_spec {
	CARD_V1 = 1,
	CARD_V2 = 2,
	CARD_V3 = 3,
};

/* A text of the card: never NULL ("" when absent), may hold NULs. */
struct card_text {
	const char *s;
	size_t len;
};

struct card_list {
	struct card_text *items;
	size_t n;
};

struct card {
	enum card_spec spec;            /* what the file said it was */
	const struct source *src;       /* the JSON text it was read from */
	const struct source *file;      /* the file: src, or the PNG that
	                                 * held it (binary: no lines) */
	const struct node *root;        /* the JSON object read */
	const struct node *data;        /* its data object (V2, V3), or NULL */
	struct card_text name, description, personality, scenario,
	    first_mes, mes_example, creator_notes, system_prompt,
	    post_history_instructions, creator, character_version;
	struct card_list alternate_greetings, tags, group_only_greetings;
	struct node *extensions;        /* a table, never NULL */
	struct node *character_book;    /* a table, or NULL */
	/* V3 extras, NULL when absent; nickname is a string node. */
	struct node *nickname, *creator_notes_multilingual, *source,
	    *creation_date, *modification_date, *assets;
	struct node *extra;             /* table: unknown keys of data */
	struct node *top_extra;         /* table: unknown top-level keys */
};

/* extensions.depth_prompt, SillyTavern's Character's Note. */
struct card_depth_prompt {
	struct card_text prompt;
	int64_t depth;                  /* default 4 */
	const char *role;               /* system (default), user, assistant */
};

/*
 * Read a card from path: a PNG when the file starts with the PNG
 * signature, else JSON.  Errors are reported (in a PNG at their byte
 * offset; in JSON embedded in a PNG at line:col of the decoded text,
 * whose name is shown as "PATH[ccv3]" or "PATH[chara]").
 */
bool card_read(struct run *run, const char *path, const struct node *named,
    struct card **out);
/* A card from JSON already parsed from src. */
bool card_from_tree(struct run *run, const struct source *src,
    const struct node *root, struct card **out);
/* A card from a PNG file already read into src (marked binary here). */
bool card_from_png(struct run *run, struct source *src, struct card **out);

/* The node a text field (description, ...) was read from, as card_read
 * looks it up (data first, then the top level), or NULL. */
const struct node *card_field_node(const struct card *card, const char *name);

/* extensions.talkativeness as a number (a numeric string counts); 0.5
 * when absent or not a number. */
double card_talkativeness(const struct card *card);
/* extensions.world, the linked world-info file's name; "" when none. */
struct card_text card_world(const struct card *card);
/* extensions.depth_prompt; false when there is none or its prompt is
 * empty.  Wrong types in depth or role give their defaults. */
bool card_depth_prompt(const struct card *card, struct card_depth_prompt *dp);
/* extensions.regex_scripts when it is an array, else NULL. */
const struct node *card_regex_scripts(const struct card *card);

/*
 * The normalised V3 card: {"spec": "chara_card_v3", "spec_version":
 * "3.0", "data": {...}, unknown top-level keys}.  data's keys: name,
 * description, personality, scenario, first_mes, mes_example,
 * creator_notes, system_prompt, post_history_instructions,
 * alternate_greetings, tags, creator, character_version, extensions,
 * character_book (if any), group_only_greetings, then the V3 extras that
 * are present (nickname, creator_notes_multilingual, source,
 * creation_date, modification_date, assets), then unknown keys.
 */
struct node *card_v3_tree(struct run *run, const struct card *card);
/*
 * The V2 form for the "chara" chunk: the six V1 fields at the top level
 * (for V1 readers), "spec": "chara_card_v2", "spec_version": "2.0", the
 * same data as V3, then unknown top-level keys.
 */
struct node *card_v2_tree(struct run *run, const struct card *card);
/*
 * Append to out the PNG image with the card in it: tEXt "chara" (V2) and
 * "ccv3" (V3), compact JSON in base64, replacing any card chunks the
 * image had (png.h: png_write).  Errors in the image are reported.
 */
bool card_write_png(struct run *run, const struct card *card,
    const char *image, struct buf *out);

#endif
