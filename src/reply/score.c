/*
 * The importance score of seed 004's memory prompt ("rate 0 to 10"), and
 * of generative-agents templates ("Rating: <fill in>").  See decide.h for
 * the order of the rules; the aim is never to guess: a reply with
 * several numbers and nothing to say which is the score is an error.
 */
#include "reply/decide.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/jsonish.h"
#include "data/tree.h"
#include "diag/run.h"

#define REJECT(run, why, src, sp, ...) do { \
	if ((why) && !*(why)) \
		*(why) = diag_format(&(run)->arena, __VA_ARGS__); \
	diag_error((run), (src), (sp), __VA_ARGS__); \
} while (0)

/* A number as written: its span, and whether it is whole. */
struct num {
	size_t off, len;
	double value;
	bool whole;
};

static const char *const labels[] = {
	"score", "importance", "rating", "poignancy", "rate",
	"\xe8\xaf\x84\xe5\x88\x86",     /* 评分 */
	"\xe5\x88\x86\xe6\x95\xb0",     /* 分数 */
	"\xe9\x87\x8d\xe8\xa6\x81\xe6\x80\xa7", /* 重要性 */
	"\xe6\x89\x93\xe5\x88\x86",     /* 打分 */
	"\xe5\xbe\x97\xe5\x88\x86",     /* 得分 */
	NULL,
};

static bool
hidden(const struct decide_range *r, size_t nr, size_t off)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (off >= r[i].off && off < r[i].end)
			return true;
	return false;
}

/* Read the number at s[i] (a digit, maybe after '-'). */
static struct num
read_num(const char *s, size_t n, size_t i)
{
	struct num x = { i, 0, 0, true };
	size_t k = i;

	if (k < n && s[k] == '-')
		k++;
	while (k < n && isdigit((unsigned char)s[k]))
		k++;
	if (k + 1 < n && s[k] == '.' && isdigit((unsigned char)s[k + 1])) {
		x.whole = false;
		for (k++; k < n && isdigit((unsigned char)s[k]); k++)
			;
	}
	x.len = k - i;
	x.value = strtod(s + i, NULL);
	return x;
}

/* Does a label end just before off (skipping *, :, ：, spaces, "is")? */
static bool
labelled(const char *s, size_t off)
{
	size_t k = off, j;

	while (k > 0) {
		unsigned char c = (unsigned char)s[k - 1];

		if (c == ' ' || c == ':' || c == '*' || c == '=' || c == '"' ||
		    c == '\t')
			k--;
		else if (k >= 3 && memcmp(s + k - 3, "\xef\xbc\x9a", 3) == 0)
			k -= 3;         /* ： */
		else if (k >= 3 && memcmp(s + k - 3, "\xe4\xb8\xba", 3) == 0)
			k -= 3;         /* 为 */
		else if (k >= 2 && (memcmp(s + k - 2, "is", 2) == 0))
			k -= 2;
		else
			break;
	}
	for (j = 0; labels[j]; j++) {
		size_t len = strlen(labels[j]), i;

		if (k < len)
			continue;
		for (i = 0; i < len; i++)
			if (tolower((unsigned char)s[k - len + i]) !=
			    (unsigned char)labels[j][i])
				break;
		if (i == len)
			return true;
	}
	return false;
}

static bool
take(struct run *run, const struct source *src, const struct num *x, int lo,
    int hi, int *out, const char **why)
{
	const char *shown = diag_shown(run, src->text + x->off, x->len);

	if (!x->whole) {
		REJECT(run, why, src, span_make(x->off, x->len),
		    MSG_SCORE_NOT_INT, shown);
		return false;
	}
	if (x->value < lo || x->value > hi) {
		REJECT(run, why, src, span_make(x->off, x->len),
		    MSG_SCORE_RANGE, shown, lo, hi);
		return false;
	}
	*out = (int)x->value;
	return true;
}

/* A JSON object in the reply with a score-like field. */
static const struct node *
json_score(struct run *run, const struct source *src,
    const struct decide_range *think, size_t nthink)
{
	static const char *const keys[] = { "score", "importance", "rating",
		"poignancy", NULL };
	size_t i, k, stop;

	for (i = 0; i < src->len; i++) {
		struct jsonish_error err;
		struct node *v;

		if (src->text[i] != '{' || hidden(think, nthink, i))
			continue;
		if (!jsonish_parse(run, src, i, src->len, &v, &stop, &err))
			continue;
		for (k = 0; keys[k]; k++) {
			const struct node *f = tree_get(v, keys[k]);

			if (f && (f->kind == NODE_INT || f->kind == NODE_FLOAT))
				return f;
		}
		i = stop - 1;
	}
	return NULL;
}

bool
decide_score(struct run *run, const struct source *src, int lo, int hi,
    int *out, const char **why)
{
	const char *s = src->text;
	size_t n = src->len, i, nthink, nnums = 0, k;
	struct decide_range *think;
	struct num *nums = NULL, x;
	const struct node *j;
	struct buf list = BUF_INIT;
	bool ok;

	*why = NULL;
	nthink = decide_think_ranges(&run->arena, s, n, &think);
	if ((j = json_score(run, src, think, nthink))) {
		x.off = j->span.off;
		x.len = j->span.len;
		x.value = j->kind == NODE_INT ? (double)j->u.i : j->u.f;
		x.whole = x.value == (double)(long long)x.value;
		return take(run, src, &x, lo, hi, out, why);
	}
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]) || hidden(think, nthink, i) ||
		    (i > 0 && (isalnum((unsigned char)s[i - 1]) ||
		    s[i - 1] == '.')))
			continue;
		x = read_num(s, n, i > 0 && s[i - 1] == '-' ? i - 1 : i);
		i = x.off + x.len - 1;
		if (labelled(s, x.off) || (x.off + x.len + 3 <= n &&
		    memcmp(s + x.off + x.len, "/10", 3) == 0)) {
			free(nums);
			return take(run, src, &x, lo, hi, out, why);
		}
		nums = xreallocarray(nums, nnums + 1, sizeof(*nums));
		nums[nnums++] = x;
	}
	if (nnums == 0) {
		free(nums);
		REJECT(run, why, src, span_make(0, 0), MSG_SCORE_NONE, lo, hi);
		return false;
	}
	for (k = 1; k < nnums; k++)
		if (nums[k].value != nums[0].value)
			break;
	if (k == nnums) {       /* one number, maybe repeated */
		ok = take(run, src, &nums[0], lo, hi, out, why);
		free(nums);
		return ok;
	}
	for (k = 0; k < nnums && k < 6; k++)
		buf_printf(&list, "%s%.*s", k ? ", " : "", (int)nums[k].len,
		    s + nums[k].off);
	if (nnums > 6)
		buf_puts(&list, ", ...");
	REJECT(run, why, src, span_make(nums[1].off, nums[1].len),
	    MSG_SCORE_AMBIGUOUS, list.data);
	buf_free(&list);
	free(nums);
	return false;
}
