/*
 * part: the checks on an image or file part's data: URL and media type
 * (prompt/chat.h), shared by the pipeline (--image, history files) and
 * the session layer, so every way a part arrives is held to one rule.
 */
#include "prompt/chat.h"

#include <string.h>

#include "base/arena.h"

bool
part_data_url(struct arena *a, const char *s, size_t n, struct part *p)
{
	const char *comma, *semi;

	if (n < 5 || memcmp(s, "data:", 5) != 0 ||
	    !(comma = memchr(s, ',', n)))
		return false;
	/* The last ';' before the comma: a parameter stays in the type,
	 * where part_media_ok refuses it. */
	for (semi = comma; semi > s + 5 && semi[-1] != ';'; semi--)
		;
	if (semi == s + 5 || (size_t)(comma - semi) != 6 ||
	    memcmp(semi, "base64", 6) != 0 || comma + 1 == s + n)
		return false;
	semi--;
	p->media_type = arena_strndup(a, s + 5, (size_t)(semi - s - 5));
	p->data = comma + 1;
	p->len = n - (size_t)(comma + 1 - s);
	p->url = false;
	return true;
}

bool
part_media_ok(enum part_kind kind, const char *t)
{
	static const char *const images[] = {
		"image/png", "image/jpeg", "image/gif", "image/webp",
	};
	const char *slash;
	size_t i;

	if (!t)
		return false;
	if (kind == PART_IMAGE) {
		for (i = 0; i < sizeof(images) / sizeof(images[0]); i++)
			if (strcmp(t, images[i]) == 0)
				return true;
		return false;
	}
	slash = strchr(t, '/');
	return slash && slash != t && slash[1] && !strchr(slash + 1, '/') &&
	    !strpbrk(t, "; \t,");
}
