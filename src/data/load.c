#include "data/load.h"

#include <string.h>

#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "data/toml.h"
#include "base/util.h"
#include "data/yamltree.h"

enum load_format
load_format_of(const char *path)
{
	if (str_has_suffix(path, ".toml"))
		return LOAD_TOML;
	if (str_has_suffix(path, ".yaml") || str_has_suffix(path, ".yml"))
		return LOAD_YAML;
	if (str_has_suffix(path, ".json"))
		return LOAD_JSON;
	return LOAD_GUESS;
}

bool
load_source(struct run *run, struct source *src, enum load_format fmt,
    struct node **out)
{
	switch (fmt) {
	case LOAD_TOML:
		return toml_parse(run, src, out);
	case LOAD_YAML:
		return yamltree_parse(run, src, out);
	case LOAD_JSON:
		return json_parse(run, src, out);
	case LOAD_GUESS:
		break;
	}
	diag_plain(run, DIAG_ERROR, MSG_UNKNOWN_FILE_TYPE, src->path);
	return false;
}

bool
load_file(struct run *run, const char *path, enum load_format fmt,
    const struct source *from, struct span at, struct node **out,
    struct source **srcp)
{
	struct source *src;

	if (fmt == LOAD_GUESS)
		fmt = load_format_of(path);
	if (fmt == LOAD_GUESS) {
		if (from)
			diag_error(run, from, at, MSG_UNKNOWN_FILE_TYPE, path);
		else
			diag_plain(run, DIAG_ERROR, MSG_UNKNOWN_FILE_TYPE, path);
		return false;
	}
	src = run_read(run, path, from, at);
	if (!src)
		return false;
	if (srcp)
		*srcp = src;
	return load_source(run, src, fmt, out);
}
