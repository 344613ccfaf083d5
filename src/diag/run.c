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

/*
 * What a file names (a profile's persona, the profile it extends) must
 * be a regular file: a profile is written once and used many times, and
 * a FIFO or device in it would hang or flood every build.  What the
 * command line names (from is NULL, or an argument's in-memory source)
 * may be a pipe or a device -- the user is there, and <(cmd) is a pipe --
 * read up to SOURCE_STREAM_MAX bytes.
 */
struct source *
run_read(struct run *run, const char *path, const struct source *from,
    struct span at)
{
	const char *shown = strcmp(path, "-") == 0 ? "standard input" : path;
	const char *type;
	bool cache = run->readcache && strcmp(path, "-") != 0;
	struct source *src = cache ? map_get(run->readcache, path,
	    strlen(path)) : NULL;

	if (src)
		return src;
	switch (sources_read(&run->sources, path, from && from->file, &src,
	    &type)) {
	case SOURCE_OK:
		/* batch reads a profile's files once for all its lines */
		if (cache && run->readcache_fill)
			map_put(run->readcache, src->path, strlen(src->path),
			    src);
		return src;
	case SOURCE_ERRNO:
		diag_error(run, from, at, MSG_CANNOT_READ, shown);
		break;
	case SOURCE_SPECIAL:
		diag_error(run, from, at, MSG_SOURCE_SPECIAL, shown, type);
		break;
	case SOURCE_STREAM_LONG:
		diag_error(run, from, at, MSG_SOURCE_STREAM_LONG, shown, type,
		    SOURCE_STREAM_MAX >> 20);
		break;
	}
	return NULL;
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
