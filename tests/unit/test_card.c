/*
 * card: V1, V2 and V3 JSON normalised into one model; the text and list
 * coercions and the type errors; the extension accessors; the V3 and V2
 * trees; PNG reading (ccv3 over chara), writing and a fuzz loop over a
 * small card PNG with bytes changed and CRCs fixed so that the damage
 * reaches the base64 and JSON readers.  The real Seraphina card is
 * checked when ../shared is there.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/buf.h"
#include "tavern/card.h"
#include "check.h"
#include "diag/diag.h"
#include "data/json.h"
#include "data/png.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"

#define SAMPLES "../../shared/samples/sillytavern/cards/"

static struct run run;
static char *err;
static FILE *errf;
static int saved_fd;

static void
capture(void)
{
	free(err);
	err = NULL;
	errf = tmpfile();
	saved_fd = dup(2);
	fflush(stderr);
	dup2(fileno(errf), 2);
}

static void
release(void)
{
	struct buf b = BUF_INIT;
	char part[4096];
	size_t k;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	rewind(errf);
	while ((k = fread(part, 1, sizeof(part), errf)) > 0)
		buf_put(&b, part, k);
	fclose(errf);
	buf_putc(&b, '\0');
	err = buf_detach(&b);
}

/* A card from JSON text; NULL when refused (messages in err). */
static struct card *
parse(const char *text)
{
	struct source *src = run_source_mem(&run, "t.json", text,
	    strlen(text));
	struct node *root;
	struct card *card = NULL;

	capture();
	if (json_parse(&run, src, &root))
		card_from_tree(&run, src, root, &card);
	release();
	return card;
}

/* The compact JSON of a tree, in a static buffer. */
static const char *
compact(const struct node *n)
{
	static struct buf b;

	if (!n) {
		buf_free(&b);
		return NULL;
	}
	buf_reset(&b);
	json_write(&b, n, -1);
	return b.data;
}

static char *
text(struct card_text t)
{
	return arena_strndup(&run.arena, t.s, t.len);
}

static void
test_v1(void)
{
	struct card *c = parse("{\"name\":\"A\",\"description\":\"d\","
	    "\"personality\":\"p\",\"scenario\":\"s\",\"first_mes\":\"hi\","
	    "\"mes_example\":\"ex\",\"creatorcomment\":\"note\","
	    "\"talkativeness\":\"0.8\",\"tags\":\" a, b,,c \","
	    "\"avatar\":\"none\"}");

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_STR(err, "");
	CHECK_INT(c->spec, CARD_V1);
	CHECK_STR(text(c->name), "A");
	CHECK_STR(text(c->creator_notes), "note");
	CHECK_STR(text(c->system_prompt), "");
	CHECK_INT(c->tags.n, 3);
	CHECK_STR(text(c->tags.items[2]), "c");
	CHECK(c->character_book == NULL);
	CHECK(card_talkativeness(c) == 0.8);
	CHECK_STR(compact(card_v3_tree(&run, c)),
	    "{\"spec\":\"chara_card_v3\",\"spec_version\":\"3.0\",\"data\":"
	    "{\"name\":\"A\",\"description\":\"d\",\"personality\":\"p\","
	    "\"scenario\":\"s\",\"first_mes\":\"hi\",\"mes_example\":\"ex\","
	    "\"creator_notes\":\"note\",\"system_prompt\":\"\","
	    "\"post_history_instructions\":\"\",\"alternate_greetings\":[],"
	    "\"tags\":[\"a\",\"b\",\"c\"],\"creator\":\"\","
	    "\"character_version\":\"\",\"extensions\":{\"talkativeness\":"
	    "\"0.8\"},\"group_only_greetings\":[]},\"avatar\":\"none\"}");
	CHECK_STR(compact(card_v2_tree(&run, c)),
	    "{\"name\":\"A\",\"description\":\"d\",\"personality\":\"p\","
	    "\"scenario\":\"s\",\"first_mes\":\"hi\",\"mes_example\":\"ex\","
	    "\"spec\":\"chara_card_v2\",\"spec_version\":\"2.0\",\"data\":"
	    "{\"name\":\"A\",\"description\":\"d\",\"personality\":\"p\","
	    "\"scenario\":\"s\",\"first_mes\":\"hi\",\"mes_example\":\"ex\","
	    "\"creator_notes\":\"note\",\"system_prompt\":\"\","
	    "\"post_history_instructions\":\"\",\"alternate_greetings\":[],"
	    "\"tags\":[\"a\",\"b\",\"c\"],\"creator\":\"\","
	    "\"character_version\":\"\",\"extensions\":{\"talkativeness\":"
	    "\"0.8\"},\"group_only_greetings\":[]},\"avatar\":\"none\"}");
}

static void
test_v1_data(void)
{
	/* Without a spec, "data" is not the card's: kept as unknown. */
	struct card *c = parse("{\"name\":\"x\",\"data\":{\"name\":\"y\"},"
	    "\"spec_version\":\"1\"}");

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_STR(text(c->name), "x");
	CHECK_STR(compact(c->top_extra), "{\"data\":{\"name\":\"y\"}}");
	/* A spec with a NUL inside is not chara_card_v3. */
	c = parse("{\"spec\":\"chara_card_v3\\u0000x\",\"data\":{}}");
	CHECK(c && c->spec == CARD_V2);
}

static void
test_v2(void)
{
	struct card_depth_prompt dp;
	struct card *c = parse("{\"name\":\"Top\",\"scenario\":\"top s\","
	    "\"fav\":true,\"spec\":\"chara_card_v2\",\"spec_version\":\"2.0\","
	    "\"data\":{\"zzz\":1,\"name\":\"Data\",\"description\":null,"
	    "\"alternate_greetings\":[\"g1\",null,\"g2\"],"
	    "\"extensions\":{\"world\":\"W\",\"chub\":{\"id\":7},"
	    "\"depth_prompt\":{\"prompt\":\"note\",\"depth\":2,"
	    "\"role\":\"user\"},\"regex_scripts\":[{}]},"
	    "\"character_book\":{\"entries\":[]}},\"chat\":\"x\"}");

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_STR(err, "");
	CHECK_INT(c->spec, CARD_V2);
	CHECK_STR(text(c->name), "Data");
	CHECK_STR(text(c->scenario), "top s");
	CHECK_STR(text(c->description), "");
	CHECK_INT(c->alternate_greetings.n, 2);
	CHECK_STR(text(c->alternate_greetings.items[1]), "g2");
	CHECK_STR(text(card_world(c)), "W");
	CHECK(card_talkativeness(c) == 0.5);
	CHECK(card_depth_prompt(c, &dp));
	CHECK_STR(text(dp.prompt), "note");
	CHECK_INT(dp.depth, 2);
	CHECK_STR(dp.role, "user");
	CHECK(card_regex_scripts(c) != NULL);
	CHECK(c->character_book != NULL);
	CHECK_STR(compact(c->extensions), "{\"world\":\"W\",\"chub\":"
	    "{\"id\":7},\"depth_prompt\":{\"prompt\":\"note\",\"depth\":2,"
	    "\"role\":\"user\"},\"regex_scripts\":[{}],\"fav\":true}");
	CHECK_STR(compact(c->extra), "{\"zzz\":1}");
	CHECK_STR(compact(c->top_extra), "{\"chat\":\"x\"}");
	/* Unknown keys go last, in document order. */
	CHECK(strstr(compact(card_v3_tree(&run, c)),
	    "\"group_only_greetings\":[],\"zzz\":1},\"chat\":\"x\"}") != NULL);
}

static void
test_v3(void)
{
	struct card_depth_prompt dp;
	struct card *c = parse("{\"spec\":\"chara_card_v3\","
	    "\"spec_version\":\"3.0\",\"data\":{\"name\":\"N\","
	    "\"nickname\":\"Nick\",\"group_only_greetings\":[\"hey\"],"
	    "\"creation_date\":1700000000,\"assets\":[{\"type\":\"icon\","
	    "\"uri\":\"ccdefault:\",\"name\":\"main\",\"ext\":\"png\"}],"
	    "\"source\":[\"s\"],\"extensions\":{\"talkativeness\":0.25,"
	    "\"depth_prompt\":{\"prompt\":\"p\",\"depth\":\"x\","
	    "\"role\":\"narrator\"}}}}");

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(c->spec, CARD_V3);
	CHECK(card_talkativeness(c) == 0.25);
	CHECK(card_depth_prompt(c, &dp));
	CHECK_INT(dp.depth, 4);
	CHECK_STR(dp.role, "system");
	CHECK(strstr(compact(card_v3_tree(&run, c)),
	    "\"group_only_greetings\":[\"hey\"],\"nickname\":\"Nick\","
	    "\"source\":[\"s\"],\"creation_date\":1700000000,\"assets\":"
	    "[{\"type\":\"icon\",\"uri\":\"ccdefault:\",\"name\":\"main\","
	    "\"ext\":\"png\"}]}}") != NULL);
}

static void
test_coerce(void)
{
	struct card *c = parse("{\"name\":42,\"first_mes\":true,"
	    "\"tags\":[1.5,\"x\"]}");

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_STR(text(c->name), "42");
	CHECK_STR(text(c->first_mes), "true");
	CHECK_STR(text(c->tags.items[0]), "1.5");
	CHECK(strstr(err, "t.json:1:9: warning: 'name' should be a string; "
	    "an integer is read as \"42\"\n") == err);
	CHECK(strstr(err, "'tags[0]' should be a string; a float is read "
	    "as \"1.5\""));
	CHECK(run.diag.errors == 0);
}

static void
test_errors(void)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{ "[1]", "t.json:1:1: error: a character card must be a JSON "
		    "object, not an array\n" },
		{ "{\"description\":[]}", "t.json:1:16: error: 'description' "
		    "must be a string, not an array\n" },
		{ "{\"spec\":\"chara_card_v2\",\"data\":{\"name\":{}}}",
		    "t.json:1:40: error: 'data.name' must be a string, not an "
		    "object\n" },
		{ "{\"spec\":2}", "t.json:1:9: error: 'spec' must be a string, "
		    "not an integer\n" },
		{ "{\"spec\":\"chara_card_v2\",\"data\":[]}", "t.json:1:32: "
		    "error: 'data' must be an object, not an array\n" },
		{ "{\"extensions\":\"x\"}", "t.json:1:15: error: 'extensions' "
		    "must be an object, not a string\n" },
		{ "{\"character_book\":1}", "t.json:1:19: error: "
		    "'character_book' must be an object, not an integer\n" },
		{ "{\"alternate_greetings\":\"x\"}", "t.json:1:24: error: "
		    "'alternate_greetings' must be an array of strings, not a "
		    "string\n" },
		{ "{\"tags\":[[1]]}", "t.json:1:10: error: 'tags[0]' must be "
		    "a string, not an array\n" },
	};
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		CHECK(parse(cases[i].json) == NULL);
		/* The first line only: the source echo follows. */
		CHECK(err && strncmp(err, cases[i].msg,
		    strlen(cases[i].msg)) == 0);
		if (err && strncmp(err, cases[i].msg, strlen(cases[i].msg)))
			fprintf(stderr, "  case %zu printed: %s", i, err);
	}
	/* Every wrong field is reported, not just the first. */
	CHECK(parse("{\"name\":[],\"scenario\":{}}") == NULL);
	CHECK(strstr(err, "'name'") && strstr(err, "'scenario'"));
	/* An unknown spec is read as V2, with a warning. */
	CHECK(parse("{\"spec\":\"chara_card_v9\",\"data\":{\"name\":\"n\"}}"));
	CHECK(strstr(err, "warning: unknown card spec 'chara_card_v9'"));
}

/* Small PNG files on disk, for card_read and card_write_png. */
static char dir[] = "/tmp/strata-test-card-XXXXXX";

static void
put32(struct buf *b, uint32_t v)
{
	char x[4] = { (char)(v >> 24), (char)(v >> 16), (char)(v >> 8),
	    (char)v };

	buf_put(b, x, 4);
}

static uint32_t
crc(const char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= (unsigned char)*p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

static void
chunk(struct buf *b, const char *type, const char *data, size_t n)
{
	size_t at;

	put32(b, (uint32_t)n);
	at = b->len;
	buf_put(b, type, 4);
	buf_put(b, data, n);
	put32(b, crc(b->data + at, n + 4));
}

/* A 1x1 PNG with tEXt chunks kw -> base64(json) (kw NULL: none). */
static void
card_png(struct buf *b, const char *kw1, const char *json1,
    const char *kw2, const char *json2)
{
	struct buf t = BUF_INIT;

	buf_reset(b);
	buf_put(b, PNG_SIGNATURE, 8);
	chunk(b, "IHDR", "\0\0\0\1\0\0\0\1\10\0\0\0\0", 13);
	chunk(b, "IDAT", "\x78\x01\x63\x60\x00\x00\x00\x02\x00\x01", 10);
	if (kw1) {
		buf_puts(&t, kw1);
		buf_putc(&t, '\0');
		base64_encode(&t, json1, strlen(json1));
		chunk(b, "tEXt", t.data, t.len);
	}
	if (kw2) {
		buf_reset(&t);
		buf_puts(&t, kw2);
		buf_putc(&t, '\0');
		base64_encode(&t, json2, strlen(json2));
		chunk(b, "tEXt", t.data, t.len);
	}
	chunk(b, "IEND", "", 0);
	buf_free(&t);
}

static const char *
save(const char *name, const struct buf *b)
{
	char *path = arena_printf(&run.arena, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (f) {
		fwrite(b->data, 1, b->len, f);
		fclose(f);
	}
	return path;
}

static struct card *
read_card(const char *path)
{
	struct card *c = NULL;

	capture();
	card_read(&run, path, NULL, &c);
	release();
	return c;
}

static void
test_png(void)
{
	struct buf b = BUF_INIT, out = BUF_INIT;
	struct card *c, *c2;
	const char *p;
	char *v3;

	card_png(&b, "chara", "{\"name\":\"Old\"}", "CCV3",
	    "{\"spec\":\"chara_card_v3\",\"data\":{\"name\":\"New\"}}");
	c = read_card(save("both.png", &b));
	CHECK(c && strcmp(text(c->name), "New") == 0);
	card_png(&b, "chara", "{\"name\":\"Old\"}", NULL, NULL);
	c = read_card(save("chara.png", &b));
	CHECK(c && strcmp(text(c->name), "Old") == 0);
	CHECK(c && strcmp(c->src->path + strlen(c->src->path) - 7,
	    "[chara]") == 0);
	card_png(&b, "Comment", "{}", NULL, NULL);
	CHECK(read_card(save("none.png", &b)) == NULL);
	CHECK(strstr(err, "none.png has no character card"));
	card_png(&b, "chara", "{\"name\":", NULL, NULL);
	CHECK(read_card(save("badjson.png", &b)) == NULL);
	CHECK(strstr(err, "badjson.png[chara]:1:9: error: unexpected end"));
	/* Writing: the card into the image, and back. */
	card_png(&b, "Comment", "{}", NULL, NULL);
	p = save("image.png", &b);
	c = parse("{\"name\":\"W\",\"tags\":[\"t\"],\"extra\":[1]}");
	CHECK(c != NULL);
	if (!c)
		goto done;
	v3 = arena_strdup(&run.arena, compact(card_v3_tree(&run, c)));
	capture();
	CHECK(card_write_png(&run, c, p, &out));
	release();
	c2 = read_card(save("out.png", &out));
	CHECK(c2 != NULL);
	if (c2)
		CHECK_STR(compact(card_v3_tree(&run, c2)), v3);
	CHECK(c2 && strstr(c2->src->path, "[ccv3]"));
	/* Not an image to write into. */
	capture();
	buf_reset(&out);
	CHECK(!card_write_png(&run, c, save("not.png", &b) /* ok */, &out) ==
	    false);
	CHECK(!card_write_png(&run, c, "/nonexistent/x.png", &out));
	release();
	CHECK(strstr(err, "cannot read /nonexistent/x.png"));
done:
	buf_free(&b);
	buf_free(&out);
}

/* Every byte of a small card PNG's tEXt data changed, CRC fixed: the
 * damage reaches base64 and JSON.  Each read is a card or an error. */
static void
test_fuzz(void)
{
	struct buf b = BUF_INIT;
	static const unsigned char flips[] = { 0x01, 0x20, 0x7f, 0x80, 0xff };
	size_t k, f, good = 0, bad = 0, start, end;
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	card_png(&b, "ccv3", "{\"spec\":\"chara_card_v3\",\"data\":{\"name\":"
	    "\"F\",\"tags\":[\"a\"],\"extensions\":{\"x\":1}}}", NULL, NULL);
	start = 8 + 25 + 22;    /* the tEXt chunk */
	end = b.len - 12;
	fflush(stderr);
	dup2(null, 2);
	close(null);
	for (k = start + 8; k < end - 4; k++) {
		for (f = 0; f < LEN(flips); f++) {
			struct source *src;
			struct card *c;
			uint32_t v;

			b.data[k] ^= (char)flips[f];
			v = crc(b.data + start + 4, end - 4 - start - 4);
			b.data[end - 4] = (char)(v >> 24);
			b.data[end - 3] = (char)(v >> 16);
			b.data[end - 2] = (char)(v >> 8);
			b.data[end - 1] = (char)v;
			src = run_source_mem(&run, "f.png", b.data, b.len);
			if (card_from_png(&run, src, &c))
				good++;
			else
				bad++;
			b.data[k] ^= (char)flips[f];
		}
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CHECK(good > 0);
	CHECK(bad > 0);
	CHECK_INT(good + bad, (end - 4 - start - 8) * LEN(flips));
	buf_free(&b);
}

static void
test_sample(void)
{
	struct card *c, *j;
	struct card_depth_prompt dp;

	if (access(SAMPLES "default_Seraphina.png", R_OK) != 0) {
		printf("test_card: ../shared is absent; the Seraphina checks "
		    "are skipped\n");
		return;
	}
	c = read_card(SAMPLES "default_Seraphina.png");
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_STR(text(c->name), "Seraphina");
	CHECK_STR(text(card_world(c)), "Eldoria");
	CHECK(card_talkativeness(c) == 0.5);
	CHECK(!card_depth_prompt(c, &dp));
	CHECK(c->character_book != NULL);
	CHECK_INT(c->spec, CARD_V3);
	/* The PNG's ccv3 chunk is the sample's ccv3 JSON. */
	j = read_card(SAMPLES "default_Seraphina.ccv3.json");
	CHECK(j != NULL);
	if (j) {
		char *a = arena_strdup(&run.arena,
		    compact(card_v3_tree(&run, c)));

		CHECK_STR(compact(card_v3_tree(&run, j)), a);
	}
}

int
main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	run_init(&run);
	test_v1();
	test_v1_data();
	test_v2();
	test_v3();
	test_coerce();
	test_errors();
	test_png();
	test_fuzz();
	test_sample();
	run_free(&run);
	free(err);
	compact(NULL);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return check_done("test_card");
}
