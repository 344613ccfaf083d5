#include "tavern/seam.h"

#include <string.h>

size_t
tavern_tokens_estimate(void *ctx, const char *role, const char *name,
    const char *text, size_t len)
{
	return 3 + (name ? 1 : 0) + (len + 3) / 4;
}

static bool
no_world_info(void *ctx, struct run *run, const struct tavern_wi_scan *in,
    struct tavern_wi_result *out)
{
	return true;
}

static const char *
no_regex(void *ctx, struct run *run, enum tavern_regex_place place,
    bool is_prompt, int depth, const char *text)
{
	return text;
}

static bool
no_regex_pure(void *ctx, enum tavern_regex_place place, const char *text)
{
	return true;
}

void
tavern_seams_default(struct tavern_seams *s)
{
	memset(s, 0, sizeof(*s));
	s->tokens.count = tavern_tokens_estimate;
	s->wi.scan = no_world_info;
	s->regex.apply = no_regex;
	s->regex.pure = no_regex_pure;
}

bool
tavern_hooked(const struct tavern_hooks *h, const char *point)
{
	return h && h->run && h->wanted && h->wanted(h->ctx, point);
}
