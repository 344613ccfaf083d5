/*
 * The budget's fitting (pipeline/budget.h): a property test over random
 * item sets and budgets -- what is kept never exceeds the budget, a
 * protected item is never cut, no item is cut while a lower-ranked one
 * is kept when it would have fitted in what was left at its turn, the
 * turns are cut as a suffix (oldest), and an old turn past the budget
 * is never counted -- then the model table against the tokenizer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "check.h"
#include "pipeline/budget.h"
#include "text/tokenizer.h"

#define ROUNDS 3000

static size_t counted;

static size_t
lazy(void *ctx, struct budget_item *it)
{
	size_t *real = ctx;

	counted++;
	return real[(size_t)(uintptr_t)it->ref];
}

static int
rank(const struct budget_item *x, const struct budget_item *y)
{
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
property(struct rng *r)
{
	struct budget_item v[40];
	size_t real[40];
	size_t n = 1 + rng_next(r) % 40, i, j, room, used, need, sum = 0;
	size_t nturn = rng_next(r) % 8, kept = 0, psum = 0;
	bool ok, lazy_on = rng_next(r) % 2;

	if (nturn > n)
		nturn = n;
	memset(v, 0, sizeof(v));
	for (i = 0; i < n; i++) {
		struct budget_item *it = &v[i];
		bool turn = i >= n - nturn;

		it->turn = turn;
		it->priority = turn ? 500 : (int)(rng_next(r) % 6) * 100;
		it->seq = turn ? 1000 + i : i;
		it->protect = !turn && rng_next(r) % 7 == 0;
		it->cut = turn ? CUT_DROP : (enum cut_how)(rng_next(r) % 3);
		it->cost = 1 + rng_next(r) % 60;
		it->extra = 1 + rng_next(r) % 5;
		if (it->extra > it->cost)
			it->extra = it->cost;
		it->fallback = !turn && rng_next(r) % 3 == 0 ?
		    rng_next(r) % (it->cost + 1) : SIZE_MAX;
		it->ref = (void *)(uintptr_t)i;
		real[i] = it->cost;
		if (turn && lazy_on)
			it->cost = SIZE_MAX;
		if (it->protect)
			psum += real[i];
		sum += real[i];
	}
	room = rng_next(r) % (sum + 10);
	counted = 0;
	ok = budget_order(v, n, room, &used, &need, lazy, real);
	CHECK_INT(need, psum);
	if (!ok) {
		CHECK(psum > room);
		return;
	}
	CHECK(psum <= room);
	/* Never over the budget; used is what the kept items cost. */
	for (i = 0; i < n; i++) {
		kept += v[i].kept;
		CHECK(v[i].kept <= real[i] || v[i].fate == BUDGET_FALLBACK);
		if (v[i].fate == BUDGET_KEPT)
			CHECK_INT(v[i].kept, real[i]);
		if (v[i].fate == BUDGET_DROPPED)
			CHECK_INT(v[i].kept, 0);
		if (v[i].protect)
			CHECK(v[i].fate == BUDGET_KEPT);
		if (v[i].turn)
			CHECK(v[i].fate == BUDGET_KEPT ||
			    v[i].fate == BUDGET_DROPPED);
	}
	CHECK(kept <= room);
	CHECK_INT(used, kept);
	/* An item cut (whole or in part) would not have fitted whole in
	 * what the items ranked before it (and the protected) left. */
	for (i = 0; i < n; i++) {
		size_t before = 0;

		if (v[i].fate == BUDGET_KEPT)
			continue;
		for (j = 0; j < n; j++)
			if (j != i && (v[j].protect || rank(&v[j], &v[i]) < 0))
				before += v[j].kept;
		if (v[i].turn) {
			/* Dropped: it, or a newer turn, did not fit. */
			size_t k;
			bool blocked = real[i] > room - before;

			for (k = n - nturn; !blocked && k < i; k++)
				blocked = v[k].fate == BUDGET_DROPPED;
			CHECK(blocked);
			continue;
		}
		CHECK(real[i] > room - before);
		if (v[i].fate == BUDGET_FALLBACK)
			CHECK(v[i].fallback <= room - before);
		if (v[i].fate == BUDGET_TRUNCATED)
			CHECK(v[i].cut != CUT_DROP && v[i].kept == room -
			    before && v[i].kept > v[i].extra);
		if (v[i].fate == BUDGET_DROPPED && v[i].fallback != SIZE_MAX)
			CHECK(v[i].fallback > room - before);
	}
	/* The turns kept are the newest: no turn kept after one cut. */
	for (i = n - nturn; i + 1 < n; i++)
		if (v[i].fate == BUDGET_DROPPED)
			CHECK(v[i + 1].fate == BUDGET_DROPPED);
	/* Lazily counted turns: at most one past those kept. */
	if (lazy_on) {
		size_t keptturns = 0;

		for (i = n - nturn; i < n; i++)
			keptturns += v[i].fate == BUDGET_KEPT;
		CHECK(counted <= keptturns + 1);
	}
}

static void
table(void)
{
	size_t n, i;
	const struct budget_model *m = budget_models(&n);

	for (i = 0; i < n; i++) {
		CHECK(budget_model(m[i].prefix) == &m[i]);
		CHECK(m[i].context > 0 && m[i].reply > 0);
		/* Exact exactly where the tokenizer has the model, and
		 * with the encoding it picks. */
		CHECK(tokenizer_model_known(m[i].prefix) == (m[i].tokenizer !=
		    NULL));
		if (m[i].tokenizer)
			CHECK_STR(tokenizer_name(tokenizer_for_model(
			    m[i].prefix)), m[i].tokenizer);
	}
	CHECK_STR(budget_model("gpt-4o-mini")->prefix, "gpt-4o");
	CHECK_STR(budget_model("openai/gpt-4.1-nano")->prefix, "gpt-4.1");
	CHECK_STR(budget_model("gpt-4-0613")->prefix, "gpt-4");
	CHECK_STR(budget_model("claude-3-5-sonnet-20241022")->prefix,
	    "claude-3-5");
	CHECK_STR(budget_model("llama3.1:8b")->prefix, "llama3.1");
	CHECK(budget_model("gpt-4x") == NULL);
	CHECK(budget_model("my-model") == NULL);
	CHECK(budget_model(NULL) == NULL);
}

/* strata-profile(5) prints the table: every row, as it is here. */
static void
manual(void)
{
	FILE *f = fopen("../man/strata-profile.5", "rb");
	static char text[1 << 18];
	char line[256];
	size_t n, i, len;
	const struct budget_model *m = budget_models(&n);

	CHECK(f != NULL);
	if (!f)
		return;
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = '\0';
	fclose(f);
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "\n.It %s Ta %lld Ta %lld Ta %s\n",
		    m[i].prefix, (long long)m[i].context,
		    (long long)m[i].reply, m[i].tokenizer ? m[i].tokenizer :
		    "estimate");
		if (!strstr(text, line))
			fprintf(stderr, "strata-profile.5 lacks: %s", line + 1);
		CHECK(strstr(text, line) != NULL);
	}
}

int
main(void)
{
	struct rng r;
	int i;

	rng_seed(&r, 24);
	for (i = 0; i < ROUNDS; i++)
		property(&r);
	table();
	manual();
	return check_done("budget");
}
