#include "diag/run.h"

#include <string.h>

void
run_init(struct run *run)
{
	arena_init(&run->arena);
	diag_init(&run->diag);
	memset(&run->sources, 0, sizeof(run->sources));
	run->readcache = NULL;
	run->readcache_fill = false;
}

void
run_free(struct run *run)
{
	sources_free(&run->sources);
	arena_free(&run->arena);
}

struct source *
run_read(struct run *run, const char *path, const struct source *from,
    struct span at)
{
	bool cache = run->readcache && strcmp(path, "-") != 0;
	struct source *src = cache ? map_get(run->readcache, path,
	    strlen(path)) : NULL;

	if (src)
		return src;
	src = sources_read(&run->sources, path);
	if (!src)
		diag_error(run, from, at, MSG_CANNOT_READ,
		    strcmp(path, "-") == 0 ? "standard input" : path);
	else if (cache && run->readcache_fill)
		map_put(run->readcache, src->path, strlen(src->path), src);
	return src;
}

struct source *
run_source_mem(struct run *run, const char *name, const char *text,
    size_t len)
{
	return sources_add_mem(&run->sources, name, text, len);
}

struct source *
run_source(const struct run *run, uint32_t id)
{
	return sources_get(&run->sources, id);
}
