#include "base/path.h"

#include <string.h>

#include "base/arena.h"

const char *
path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

size_t
path_dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return 0;
	return slash == path ? 1 : (size_t)(slash - path);
}

char *
path_dir(struct arena *a, const char *path)
{
	size_t n = path_dir_len(path);

	return n ? arena_strndup(a, path, n) : arena_strdup(a, ".");
}

size_t
path_stem_len(const char *path)
{
	const char *b = path_base(path), *dot = strrchr(b, '.');

	return dot && dot != b ? (size_t)(dot - b) : strlen(b);
}

char *
path_stem(struct arena *a, const char *path)
{
	return arena_strndup(a, path_base(path), path_stem_len(path));
}

char *
path_name(struct arena *a, const char *path, const char *ext)
{
	const char *b = path_base(path);
	size_t n = strlen(b), e = strlen(ext);

	if (n > e && strcmp(b + n - e, ext) == 0)
		n -= e;
	return arena_strndup(a, b, n);
}

const char *
path_join(struct arena *a, const char *dir, const char *name)
{
	if (!*name)
		return dir;
	if (!*dir || strcmp(dir, ".") == 0 || name[0] == '/')
		return name;
	return arena_printf(a, "%s/%s", dir, name);
}
