/*
 * Harnesses for the rest of the untrusted-input surface (issue 18);
 * FUZZ_SURFACE picks one at compile time.  Where an input has several
 * parts they are separated by NUL bytes (a missing part is empty):
 *  1 card: a character card, PNG (chara/ccv3 tEXt chunks) or JSON (V1,
 *    V2, V3), normalised and written back as V3 and V2 JSON, a PNG card
 *    also rewritten as PNG; its character_book read as a world;
 *  2 wi: a flags byte, a world book (world file, character_book or a
 *    card), NUL, world_info settings JSON, NUL, the chat, one message a
 *    line (alternately user and character): the whole scan, recursion
 *    and budgets included;
 *  3 gotmpl: a Go template, NUL, the JSON data it runs with;
 *  4 template: a strata template, NUL, a JSON object of its variables;
 *  5 tavern: a SillyTavern preset, NUL, a settings.json (read from a
 *    private temporary directory, as from a user's files): both read,
 *    the settings' world_info settings and regex scripts too;
 *  6 reply: a flags byte (low 3 bits: the response format, bit 3: a
 *    tool list), then a model's output, read as `strata reply`,
 *    `strata decide` and `strata decide --score` read it.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

#if FUZZ_SURFACE == 1
#include "data/png.h"
#include "tavern/card.h"
#include "world/world.h"
#elif FUZZ_SURFACE == 2
#include "world/wi.h"
#include "world/world.h"
#elif FUZZ_SURFACE == 3
#include "text/gotmpl.h"
#elif FUZZ_SURFACE == 4
#include "text/edit.h"
#include "text/template.h"
#elif FUZZ_SURFACE == 5
#include "tavern/preset.h"
#include "tavern/settings.h"
#include "world/wi.h"
#include "text/regex.h"
#elif FUZZ_SURFACE == 6
#include "prompt/tool.h"
#include "reply/decide.h"
#include "reply/response.h"
#else
#error "FUZZ_SURFACE must be 1 to 6"
#endif

#if FUZZ_SURFACE >= 2 && FUZZ_SURFACE <= 5
/* The next NUL-separated part of [*s, end): its start and length. */
static const char *
part(const char **s, const char *end, size_t *len)
{
	const char *p = *s;
	const char *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;

	*len = nul ? (size_t)(nul - p) : (size_t)(end - p);
	*s = nul ? nul + 1 : end;
	return p;
}
#endif

#if FUZZ_SURFACE == 1
static void
card(struct run *run, struct source *src, struct buf *out)
{
	struct card *c;
	struct world w;
	struct card_depth_prompt dp;
	struct png png;

	if (png_is_png(src->text, src->len)) {
		if (!card_from_png(run, src, &c))
			return;
		if (png_read(run, src, &png)) {
			struct png_text_in t = { "chara", "e30=", 4 };
			size_t toolong = 0;

			(void)png_write(out, &png, &t, 1, &toolong);
		}
	} else {
		struct node *root;

		if (!json_parse(run, src, &root) ||
		    !card_from_tree(run, src, root, &c))
			return;
	}
	json_write(out, card_v3_tree(run, c), 2);
	json_write(out, card_v2_tree(run, c), -1);
	(void)card_talkativeness(c);
	(void)card_world(c);
	(void)card_depth_prompt(c, &dp);
	(void)card_regex_scripts(c);
	if (c->character_book &&
	    world_from_node(run, c->character_book, "card", &w))
		json_write(out, world_to_file(&run->arena, &w), -1);
}
#endif

#if FUZZ_SURFACE == 5
static char dir[64];
static char preset_path[96], settings_path[96];

static void
cleanup(void)
{
	remove(preset_path);
	remove(settings_path);
	rmdir(dir);
}

static void
put(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(s, 1, n, f) != n || fclose(f) != 0)
		die("%s:", path);
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run run;
	struct buf out = BUF_INIT;
	const char *s = (const char *)data, *end = s + size;

	run_init(&run);
	(void)end;
#if FUZZ_SURFACE == 1
	card(&run, run_source_mem(&run, "card", s, size), &out);
#elif FUZZ_SURFACE == 2
	if (size > 0) {
		unsigned flags = (unsigned char)*s++;
		size_t nb, ns, nc, i, n = 0;
		const char *book = part(&s, end, &nb);
		const char *set = part(&s, end, &ns);
		const char *chat = part(&s, end, &nc), *p, *q;
		struct world w;
		struct wi_settings st;
		struct wi_book b;
		struct wi_message *msgs;
		struct wi_input in;
		struct wi_result r;
		int64_t ctx = 3795;
		struct node *sn;

		wi_settings_default(&st);
		if (ns && !(json_parse(&run, run_source_mem(&run,
		    "settings.json", set, ns), &sn) &&
		    wi_settings_from_node(&run, sn, &st, &ctx)))
			goto done;
		st.recursive = st.recursive || (flags & 1);
		st.case_sensitive = st.case_sensitive || (flags & 2);
		st.match_whole_words = st.match_whole_words || (flags & 4);
		if (!world_read(&run, run_source_mem(&run, "book.json", book,
		    nb), "book", &w))
			goto done;
		for (p = chat, i = 0; p < chat + nc; p = q + 1, i++) {
			q = memchr(p, '\n', (size_t)(chat + nc - p));
			if (!q)
				q = chat + nc;
		}
		msgs = arena_array(&run.arena, i + 1, sizeof(*msgs));
		for (p = chat; p < chat + nc; p = q + 1) {
			q = memchr(p, '\n', (size_t)(chat + nc - p));
			if (!q)
				q = chat + nc;
			msgs[n].is_user = n % 2 == 0;
			msgs[n].name = msgs[n].is_user ? "User" : "Pip";
			msgs[n++].text = arena_strndup(&run.arena, p,
			    (size_t)(q - p));
		}
		b.world = &w;
		b.source = (enum wi_source)((flags >> 3) & 3);
		memset(&in, 0, sizeof(in));
		in.books = &b;
		in.nbooks = 1;
		in.messages = msgs;
		in.nmessages = n;
		in.settings = &st;
		in.max_context = ctx;
		in.seed = 1;
		if (wi_run(&run, &in, &r))
			json_write(&out, wi_result_to_node(&run.arena, &r), -1);
	}
done:
#elif FUZZ_SURFACE == 3
	{
		size_t nt, nd;
		const char *tmpl = part(&s, end, &nt);
		const char *dat = part(&s, end, &nd);
		struct node *root = NULL;
		struct gotmpl *t = gotmpl_new(&run);

		if ((nd == 0 || json_parse(&run, run_source_mem(&run,
		    "data.json", dat, nd), &root)) &&
		    gotmpl_parse(t, "t.tmpl", run_source_mem(&run, "t.tmpl",
		    tmpl, nt)))
			(void)gotmpl_execute(t, "t.tmpl", root, &out);
		gotmpl_free(t);
	}
#elif FUZZ_SURFACE == 4
	{
		size_t nt, nd, i;
		const char *tmpl = part(&s, end, &nt);
		const char *dat = part(&s, end, &nd);
		struct node *root = NULL;
		struct tvars v;
		struct etext in, res;

		template_vars_init(&run, &v);
		v.seed = "7";
		v.now = "2025-01-02T03:04:05Z";
		if (nd && json_parse(&run, run_source_mem(&run, "vars.json",
		    dat, nd), &root) && root->kind == NODE_TABLE)
			for (i = 0; i < root->u.table.n; i++) {
				const struct member *m = &root->u.table.items[i];

				template_var_node(&run, &v, m->key, m->value,
				    run_source(&run, m->keysrc), m->keyspan);
			}
		etext_of_source(&run, run_source_mem(&run, "t.md", tmpl, nt),
		    &in);
		if (template_expand(&run, &v, &in, &res))
			buf_put(&out, res.s, res.len);
	}
#elif FUZZ_SURFACE == 5
	{
		size_t np, ns;
		const char *pre = part(&s, end, &np);
		const char *set = part(&s, end, &ns);
		struct preset *p;
		struct settings st;

		if (!dir[0]) {
			const char *tmp = getenv("TMPDIR");

			snprintf(dir, sizeof(dir), "%s/strata-fuzz-XXXXXX",
			    tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
			if (!mkdtemp(dir))
				die("mkdtemp:");
			snprintf(preset_path, sizeof(preset_path),
			    "%s/preset.json", dir);
			snprintf(settings_path, sizeof(settings_path),
			    "%s/settings.json", dir);
			atexit(cleanup);
		}
		put(preset_path, pre, np);
		put(settings_path, set, ns);
		if (preset_read(&run, preset_path, NULL, &p)) {
			const struct preset_prompt *pp = preset_find(p, "main");

			if (pp)
				(void)preset_triggered(pp, "normal");
		}
		if (settings_read(&run, settings_path, NULL, &st)) {
			struct wi_settings ws;
			int64_t ctx;
			struct regex_set rs;

			if (st.world_info)
				(void)wi_settings_from_node(&run,
				    st.world_info, &ws, &ctx);
			regex_set_init(&rs);
			if (st.regex)
				(void)regex_set_add(&run, &rs, REGEX_GLOBAL,
				    st.regex);
			regex_set_free(&rs);
		}
	}
#elif FUZZ_SURFACE == 6
	if (size > 0) {
		static const char tools_json[] =
		    "[{\"name\": \"search\", \"description\": \"look\", "
		    "\"parameters\": {\"type\": \"object\", \"properties\": "
		    "{\"q\": {\"type\": \"string\"}}, \"required\": [\"q\"]}},"
		    " {\"name\": \"done\", \"description\": \"stop\"}]";
		unsigned flags = (unsigned char)*s++;
		size_t n = size - 1;
		struct source *src = run_source_mem(&run, "reply", s, n);
		struct response r;
		struct decision d;
		struct tool_list tools;
		struct node *tn;
		const char *why;
		int score;

		memset(&tools, 0, sizeof(tools));
		if ((flags & 7) <= RESPONSE_OLLAMA &&
		    response_read(&run, src, (enum response_format)(flags & 7),
		    &r)) {
			json_write(&out, response_message(&run.arena, &r), -1);
			json_write(&out, response_calls(&run.arena, &r), -1);
		}
		if ((flags & 8) && json_parse(&run, run_source_mem(&run,
		    "tools.json", tools_json, sizeof(tools_json) - 1), &tn))
			(void)tool_read(&run, tn, &tools);
		if (decide_parse(&run, src, flags & 8 ? &tools : NULL, &d))
			json_write(&out, decide_tree(&run.arena, &d), -1);
		(void)decide_score(&run, src, 1, 10, &score, &why);
	}
#endif
	buf_free(&out);
	run_free(&run);
	return 0;
}
