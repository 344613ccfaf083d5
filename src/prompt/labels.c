#include "prompt/labels.h"

#include <string.h>

const char *const labels_langs[] = { "en", "zh", NULL };

const char *const labels_names[] = {
	"tools_intro", "parameters", "none", "required", "optional",
	"one_of", "default", "when_to_use", "stop", "outline_header",
	"outline_footer", "prefix", "persona", "format", "skills", "tools",
	NULL,
};

/* Indexed by enum label; strata-profile(5) lists both columns. */
static const char *const en[LABEL_COUNT] = {
	"You can call the following tools.",
	"Parameters:",
	"none.",
	"required",
	"optional",
	"One of:",
	"Default:",
	"When to use:",
	".",
	"You can use these skills on demand:",
	"Read a skill's file when you need its details.",
	"Prefix",
	"Persona",
	"Format",
	"Skills",
	"Tools",
};

/* The outline's header and footer are seed 001's own words. */
static const char *const zh[LABEL_COUNT] = {
	"你可以调用以下工具。",
	"参数:",
	"（无）",
	"必填",
	"可选",
	"可选值:",
	"默认值:",
	"使用时机:",
	"。",
	"你有以下技能可按需使用:",
	"需要时读取对应文件获取详细指引。",
	"前缀",
	"角色",
	"格式",
	"技能",
	"工具",
};

const char *
labels_default(enum lang lang, enum label l)
{
	return lang == LANG_ZH ? zh[l] : en[l];
}

int
labels_find(const char *s, size_t len)
{
	int i;

	for (i = 0; labels_names[i]; i++)
		if (strlen(labels_names[i]) == len &&
		    memcmp(labels_names[i], s, len) == 0)
			return i;
	return -1;
}
