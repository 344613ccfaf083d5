/*
 * test_tokenizer_sp: the SentencePiece models against every value of
 * tokenizer/sp/expected.txt (written once by sp/gen-expected.mjs from the
 * library and the model files SillyTavern 1.15 counts with), then the
 * names, the model-name map and the chat count.  Run from tests/
 * (meson's workdir).
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "check.h"
#include "text/tokenizer.h"
#include "base/util.h"

static bool
read_file(const char *path, struct buf *b)
{
	char chunk[8192];
	FILE *f = fopen(path, "rb");
	size_t n;

	buf_reset(b);
	if (!f)
		return false;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_put(b, chunk, n);
	fclose(f);
	return true;
}

/* The ids of text[0..len) by k are the count and ids at p. */
static void
check_ids(enum tokenizer_kind k, const char *what, const char *text,
    size_t len, char *p)
{
	struct tokenizer_ids ids = TOKENIZER_IDS_INIT;
	unsigned long want, id;
	char *end;
	size_t i;

	want = strtoul(p, &end, 10);
	CHECK_INT(tokenizer_count(k, text, len), want);
	tokenizer_encode(k, text, len, &ids);
	if (ids.len != want)
		fprintf(stderr, "%s %s: %zu tokens, want %lu\n",
		    tokenizer_name(k), what, ids.len, want);
	CHECK_INT(ids.len, want);
	for (i = 0; ids.len == want && i < ids.len; i++) {
		id = strtoul(end, &end, 10);
		if (ids.v[i] != id) {
			fprintf(stderr, "%s %s: token %zu is %lu, want %lu\n",
			    tokenizer_name(k), what, i,
			    (unsigned long)ids.v[i], id);
			CHECK(!"a token differs");
			break;
		}
	}
	tokenizer_ids_free(&ids);
}

static void
check_expected(void)
{
	struct buf all = BUF_INIT, json = BUF_INIT, text = BUF_INIT;
	char *line, *next, *kind, *model, *name, *rest, *hex, path[512];
	cJSON *texts = NULL, *t;
	enum tokenizer_kind k;
	int counts[4] = { 0 };
	unsigned long i, repeat;

	if (!read_file("tokenizer/sp/expected.txt", &all) ||
	    !read_file("tokenizer/sp/texts.json", &json) ||
	    !(texts = cJSON_Parse(json.data))) {
		CHECK(!"cannot read tokenizer/sp/");
		goto out;
	}
	for (line = all.data; line && *line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (line[0] == '#')
			continue;
		kind = strtok(line, " ");
		model = strtok(NULL, " ");
		name = strtok(NULL, " ");
		rest = strtok(NULL, "");
		if (!kind || !model || !name || !rest ||
		    !tokenizer_by_name(model, &k) || !tokenizer_is_sp(k)) {
			CHECK(!"malformed line in sp/expected.txt");
			continue;
		}
		t = cJSON_GetArrayItem(texts, atoi(name));
		if (strcmp(kind, "text") == 0 || strcmp(kind, "more") == 0) {
			CHECK(cJSON_IsString(t));
			if (!cJSON_IsString(t))
				continue;
			if (kind[0] == 't') {
				check_ids(k, name, t->valuestring,
				    strlen(t->valuestring), rest);
				counts[0]++;
			} else {
				CHECK_INT(tokenizer_count_more(k,
				    t->valuestring, strlen(t->valuestring)),
				    strtoul(rest, NULL, 10));
				counts[1]++;
			}
		} else if (strcmp(kind, "file") == 0) {
			snprintf(path, sizeof(path), "tokenizer/corpus/%s",
			    name);
			CHECK(read_file(path, &text));
			check_ids(k, name, text.data ? text.data : "",
			    text.len, rest);
			counts[2]++;
		} else if (strcmp(kind, "run") == 0) {
			char unit[64];
			size_t ulen = 0;

			repeat = strtoul(name, NULL, 10);
			hex = strtok(rest, " ");
			rest = strtok(NULL, "");
			for (; hex && hex[0] && hex[1] && ulen < sizeof(unit);
			    hex += 2)
				unit[ulen++] = (char)(hex_value(hex[0]) * 16 +
				    hex_value(hex[1]));
			buf_reset(&text);
			for (i = 0; i < repeat; i++)
				buf_put(&text, unit, ulen);
			CHECK_INT(tokenizer_count(k, text.data, text.len),
			    strtoul(rest ? rest : "", NULL, 10));
			counts[3]++;
		} else
			CHECK(!"unknown line in sp/expected.txt");
	}
	CHECK(counts[0] >= 3 * 400);
	CHECK(counts[1] >= 3 * 100);
	CHECK(counts[2] >= 3 * 15);
	CHECK(counts[3] >= 3 * 8);
out:
	cJSON_Delete(texts);
	buf_free(&all);
	buf_free(&json);
	buf_free(&text);
}

static void
check_names(void)
{
	static const struct {
		const char *model;
		enum tokenizer_kind kind;
	} m[] = {
		{ "llama-2-70b-chat", TOKENIZER_LLAMA },
		{ "meta-llama/Llama-2-13b", TOKENIZER_LLAMA },
		{ "Llama-2-13b", TOKENIZER_CL100K },    /* case matters */
		{ "codellama-13b", TOKENIZER_LLAMA },
		{ "codellama-34b", TOKENIZER_CL100K },  /* "llama-3" */
		{ "llama3-70b", TOKENIZER_CL100K },     /* Llama 3's */
		{ "meta-llama-3-8b", TOKENIZER_CL100K },
		{ "llama-3.1-8b", TOKENIZER_CL100K },
		{ "deepseek-r1-distill-llama-70b", TOKENIZER_LLAMA },
		{ "mistral-large", TOKENIZER_MISTRAL },
		{ "open-mistral-nemo", TOKENIZER_MISTRAL }, /* before nemo */
		{ "mistral-7b-llama", TOKENIZER_LLAMA },    /* llama first */
		{ "yi-34b-chat", TOKENIZER_YI },
		{ "nous-hermes-2-yi-34b", TOKENIZER_YI },
		{ "claude-yi", TOKENIZER_CLAUDE },
		{ "gpt-4o-yi", TOKENIZER_O200K },
		{ "gemma-2-9b", TOKENIZER_CL100K },
		{ "gemini-2.5-pro", TOKENIZER_CL100K },
		{ "jamba-1.5-large", TOKENIZER_CL100K },
		{ "qwen2-72b", TOKENIZER_CL100K },
		{ "command-r-plus", TOKENIZER_CL100K },
		{ "deepseek-chat", TOKENIZER_CL100K },
		{ "Mistral-7B", TOKENIZER_CL100K },     /* case matters */
		{ "oracle-model", TOKENIZER_CL100K },
	};
	enum tokenizer_kind k;
	size_t i, n;

	for (i = 0; i < LEN(m); i++)
		if (tokenizer_for_model(m[i].model) != m[i].kind) {
			fprintf(stderr, "%s: %s\n", m[i].model,
			    tokenizer_name(tokenizer_for_model(m[i].model)));
			CHECK(!"a model name maps elsewhere");
		}
	CHECK(tokenizer_by_name("llama", &k) && k == TOKENIZER_LLAMA);
	CHECK(tokenizer_by_name("mistral", &k) && k == TOKENIZER_MISTRAL);
	CHECK(tokenizer_by_name("yi", &k) && k == TOKENIZER_YI);
	CHECK(!tokenizer_by_name("jamba", &k));
	CHECK(tokenizer_is_sp(TOKENIZER_YI) &&
	    !tokenizer_is_sp(TOKENIZER_CLAUDE));
	CHECK(!tokenizer_model_known("llama-2-70b"));
	CHECK(tokenizer_token(TOKENIZER_LLAMA, 100, &n) == NULL);
}

/* SillyTavern's server for a sentencepiece model counts the values of
 * the messages joined by two line breaks: "user\n\nHi\n\nBob" is
 * ▁user <0x0A> <0x0A> Hi <0x0A> <0x0A> B ob for llama. */
static void
check_chat(void)
{
	struct tokenizer_message msgs[2] = {
		{ "system", NULL, "Be brief." },
		{ "user", "Bob", "Hi" },
	};
	const char *joined = "system\n\nBe brief.\n\nuser\n\nHi\n\nBob";

	CHECK_INT(tokenizer_count_chat("llama-2", msgs, 2),
	    tokenizer_count(TOKENIZER_LLAMA, joined, strlen(joined)));
	CHECK_INT(tokenizer_count_chat("yi-34b", msgs + 1, 1),
	    tokenizer_count(TOKENIZER_YI, "user\n\nHi\n\nBob", 13));
	CHECK_INT(tokenizer_count_chat("mistral", msgs, 0), 0);
}

int
main(void)
{
	progname = "test_tokenizer_sp";
	check_expected();
	check_names();
	check_chat();
	/* Again, with the count cache full of the first pass's texts. */
	check_expected();
	tokenizer_release();
	return check_done("test_tokenizer_sp");
}
