/*
 * labels: the fixed strings strata writes into a prompt -- the tools
 * section's intro and words, the outline's header and footer, the
 * section titles -- in each language [prompt] lang can name.  A profile
 * picks a language and may override any single string by its name in
 * [prompt.labels]; the profile layer resolves the table once and the
 * layers only read it.  The strings returned are static.
 */
#ifndef LABELS_H
#define LABELS_H

#include <stddef.h>

enum lang {
	LANG_EN,
	LANG_ZH,
};

enum label {
	LABEL_TOOLS_INTRO,
	LABEL_PARAMETERS,
	LABEL_NONE,
	LABEL_REQUIRED,
	LABEL_OPTIONAL,
	LABEL_ONE_OF,
	LABEL_DEFAULT,
	LABEL_WHEN_TO_USE,
	LABEL_STOP,
	LABEL_OUTLINE_HEADER,
	LABEL_OUTLINE_FOOTER,
	LABEL_PREFIX,
	LABEL_PERSONA,
	LABEL_FORMAT,
	LABEL_SKILLS,
	LABEL_TOOLS,
	LABEL_COUNT,
};

/* NULL-terminated language names ("en", "zh"), indexed by enum lang. */
extern const char *const labels_langs[];
/* NULL-terminated label names, indexed by enum label. */
extern const char *const labels_names[];

/* The default text of label l in language lang. */
const char *labels_default(enum lang lang, enum label l);
/* The label named s[0..len), or -1. */
int labels_find(const char *s, size_t len);

#endif
