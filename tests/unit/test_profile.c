/*
 * The profile layer on real files written to a temporary directory: the
 * schema checker (types, choices, suggestions, required and exclusive
 * keys, another asset's table), extends merging (tables, arrays of tables
 * by name/key/file stem, order, the spans of merged keys, exclusive
 * groups), --set typing and entry lookup, and path resolution.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "check.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/extends.h"
#include "prompt/labels.h"
#include "profile/profile.h"
#include "profile/schema.h"

static struct run run;
static char dir[] = "/tmp/test_profile.XXXXXX";
static char *made[64];          /* files and directories, to remove */
static size_t nmade;
static struct buf errs;         /* what the last capture printed */

static const char *
at(const char *name)
{
	return arena_printf(&run.arena, "%s/%s", dir, name);
}

static void
mkdir_in(const char *name)
{
	CHECK(mkdir(at(name), 0700) == 0);
	made[nmade++] = xstrdup(at(name));
}

static void
write_in(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	if (!f || fputs(text, f) == EOF || fclose(f) != 0)
		die("cannot write %s:", at(name));
	made[nmade++] = xstrdup(at(name));
}

/* Start capturing stderr (diagnostics) into errs. */
static int saved_fd = -1;
static FILE *cap;

static void
capture(void)
{
	diag_init(&run.diag);
	fflush(stderr);
	cap = tmpfile();
	saved_fd = dup(2);
	dup2(fileno(cap), 2);
}

static void
release(void)
{
	char chunk[512];
	size_t k;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	rewind(cap);
	buf_free(&errs);
	while ((k = fread(chunk, 1, sizeof(chunk), cap)) > 0)
		buf_put(&errs, chunk, k);
	buf_putc(&errs, '\0');
	errs.len--;
	fclose(cap);
}

static bool
printed(const char *s)
{
	bool found = errs.data && strstr(errs.data, s);

	if (!found)
		fprintf(stderr, "expected in the messages: %s\ngot:\n%s\n", s,
		    errs.data ? errs.data : "");
	return found;
}

/* Load profile file name with --set settings (NULL-terminated). */
static struct profile *
load(const char *name, const char *const *sets)
{
	struct setting s[16];
	size_t n = 0;
	struct profile *p;

	for (; sets && sets[n]; n++) {
		const char *eq = strchr(sets[n], '=');

		if (n == LEN(s))
			die("too many settings");

		s[n].json = false;
		s[n].src = run_source_mem(&run, "--set", sets[n],
		    strlen(sets[n]));
		s[n].name = span_make(0, (size_t)(eq - sets[n]));
		s[n].value = span_make((size_t)(eq - sets[n] + 1),
		    strlen(eq + 1));
	}
	capture();
	p = profile_load(&run, name ? at(name) : NULL, s, n);
	release();
	return p;
}

static unsigned
line_of(const struct node *n)
{
	return source_lineno(run_source(&run, n->src), n->span.off);
}

static const char *
file_of(const struct node *n)
{
	const char *path = run_source(&run, n->src)->path;
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void
test_suggest(void)
{
	struct suggest sg;
	const struct schema *prompt = schema_sub(&schema_profile, "prompt", 6);

	suggest_init(&sg, "usage");
	suggest_add(&sg, "name");
	suggest_add(&sg, "usage_hint");
	CHECK_STR(suggest_best(&sg), "usage_hint");     /* by prefix */
	suggest_init(&sg, "fromat");
	suggest_add(&sg, "style");
	suggest_add(&sg, "format");
	CHECK_STR(suggest_best(&sg), "format");         /* by distance */
	suggest_init(&sg, "zz");
	suggest_add(&sg, "dir");
	CHECK(suggest_best(&sg) == NULL);
	CHECK_STR(schema_suggest(&run.arena, "styel", prompt),
	    "; did you mean 'style'?");
	CHECK_STR(schema_suggest(&run.arena, "wholly", prompt), "");
}

static void
test_checker(void)
{
	write_in("types.toml",
	    "[promt]\n"
	    "x = 1\n"
	    "[prompt]\n"
	    "style = \"fancy\"\n"
	    "keep_unknown_vars = \"yes\"\n"
	    "[[inject]]\n"
	    "key = \"a\"\n"
	    "priority = \"soon\"\n"
	    "[output]\n"
	    "max_tokens = 1.5\n");
	CHECK(load("types.toml", NULL) == NULL);
	CHECK(printed("types.toml:1:2: error: unknown key 'promt'; "
	    "did you mean 'prompt'?"));
	CHECK(printed("types.toml:4:9: error: 'prompt.style' must be "
	    "'plain', 'markdown', 'sections' or 'tagged'"));
	CHECK(printed("types.toml:5:21: error: 'prompt.keep_unknown_vars' "
	    "must be a boolean, not a string"));
	CHECK(printed("types.toml:8:12: error:"));
	CHECK(printed("'output.max_tokens' must be an integer, not a float"));
	/* Shapes first: with a wrong type, rules are not reported. */
	CHECK(!strstr(errs.data, "needs"));
	CHECK_INT(run.diag.errors, 5);

	write_in("rules.toml",
	    "[[skills]]\n"
	    "name = \"s\"\n"
	    "[[skills]]\n"
	    "name = \"s\"\n"
	    "file = \"x.md\"\n"
	    "[[tools]]\n"
	    "file = \"\"\n"
	    "[[tools]]\n"
	    "description = \"no name\"\n"
	    "[[context]]\n"
	    "tag = \"t\"\n"
	    "[[inject]]\n"
	    "key = \"a\"\n"
	    "content = \"c\"\n"
	    "file = \"f.md\"\n"
	    "[[inject]]\n"
	    "key = \"b\"\n");
	CHECK(load("rules.toml", NULL) == NULL);
	CHECK(printed("rules.toml:1:1: error: a skill needs 'file'"));
	CHECK(printed("rules.toml:4:8: error: skill 's' is defined twice"));
	CHECK(printed("rules.toml:2:8: note: first defined here"));
	CHECK(printed("rules.toml:7:8: error: 'file' must not be empty"));
	CHECK(printed("rules.toml:8:1: error: a tool needs 'file' or an "
	    "inline 'name'"));
	CHECK(printed("rules.toml:10:1: error: a context needs 'name'"));
	CHECK(printed("rules.toml:15:8: error: an injection takes 'content' "
	    "or 'file', not both"));
	CHECK(printed("rules.toml:16:1: error: an injection needs 'content' "
	    "or 'file'"));
	CHECK_INT(run.diag.errors, 7);
}

/* Another asset, its own table: the checker is not the profile's. */
static const char *const card_alt[] = { "text", NULL };
static const char *const card_need[] = { "text", "image", NULL };
static const char *const card_sizes[] = { "small", "large", NULL };
static const struct schema_field card_fields[] = {
	{ "title", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "size", SCHEMA_STRING, 0, NULL, card_sizes },
	{ "image", SCHEMA_STRING, 0, NULL, NULL },
	{ "text", SCHEMA_STRING, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};
static const struct schema_group card_groups[] = {
	{ "image", card_alt, MSG_BOTH_GIVEN, card_need, "'text' or 'image'" },
	{ NULL, NULL, 0, NULL, NULL },
};
static const struct schema card = { "a card", card_fields, card_groups,
	NULL, NULL };

static bool
check_card(const char *json)
{
	struct source *src = run_source_mem(&run, "card.json", json,
	    strlen(json));
	struct node *t;
	bool ok;

	capture();
	ok = json_parse(&run, src, &t) && schema_check(&run, t, &card, "");
	release();
	return ok;
}

static void
test_other_asset(void)
{
	CHECK(check_card("{\"title\": \"t\", \"text\": \"x\"}"));
	CHECK(!check_card("{\"title\": \"t\", \"sise\": \"small\"}"));
	CHECK(printed("unknown key 'sise'; did you mean 'size'?"));
	CHECK(!check_card("{\"title\": \"t\", \"size\": \"huge\"}"));
	CHECK(printed("'size' must be 'small' or 'large'"));
	CHECK(!check_card("{\"title\": \"t\", \"text\": \"x\", "
	    "\"image\": \"i.png\"}"));
	CHECK(printed("a card takes 'text' or 'image', not both"));
	CHECK(!check_card("{\"text\": \"x\"}"));
	CHECK(printed("a card needs 'title'"));
	CHECK(!check_card("{\"title\": \"t\"}"));
	CHECK(printed("a card needs 'text' or 'image'"));
}

static void
test_extends(void)
{
	struct profile *p;
	const struct node *r, *n;

	mkdir_in("ext");
	mkdir_in("ext/prompts");
	write_in("ext/base.toml",
	    "[profile]\n"
	    "name = \"base\"\n"
	    "description = \"kept\"\n"
	    "[prompt]\n"
	    "style = \"markdown\"\n"
	    "[[skills]]\n"
	    "file = \"skills/diary.md\"\n"
	    "mode = \"inline\"\n"
	    "[[skills]]\n"
	    "name = \"quiz\"\n"
	    "file = \"quiz.md\"\n"
	    "[[inject]]\n"
	    "key = \"a.b\"\n"
	    "file = \"ab.md\"\n"
	    "priority = 5\n"
	    "[[inject]]\n"
	    "key = \"c\"\n"
	    "content = \"base c\"\n"
	    "[output]\n"
	    "model = \"base\"\n");
	write_in("ext/child.toml",
	    "extends = \"base.toml\"\n"
	    "[profile]\n"
	    "name = \"child\"\n"
	    "[[skills]]\n"
	    "name = \"diary\"\n"
	    "mode = \"outline\"\n"
	    "description = \"by file stem\"\n"
	    "[[skills]]\n"
	    "name = \"new\"\n"
	    "file = \"new.md\"\n"
	    "[[inject]]\n"
	    "key = \"a.b\"\n"
	    "content = \"child a.b\"\n"
	    "[output.params]\n"
	    "top_p = 0.5\n");
	p = load("ext/child.toml", NULL);
	CHECK(p != NULL);
	if (!p)
		return;
	r = p->root;
	/* extends is spent; base keys keep their place, new ones follow. */
	CHECK(tree_get(r, "extends") == NULL);
	CHECK_STR(r->u.table.items[0].key, "profile");
	CHECK_STR(r->u.table.items[r->u.table.n - 1].key, "output");
	CHECK_STR(p->name.s, "child");
	CHECK_STR(p->description.s, "kept");
	CHECK_STR(file_of(p->name.node), "child.toml");
	CHECK_INT(line_of(p->name.node), 3);
	CHECK_STR(file_of(p->description.node), "base.toml");
	CHECK_INT(line_of(p->description.node), 3);
	/* Skills by name or file stem, in the base's order, then new. */
	CHECK_INT(p->nskills, 3);
	CHECK_STR(p->skills[0].name.s, "diary");
	CHECK_STR(p->skills[0].file.s, "skills/diary.md");
	CHECK_STR(file_of(p->skills[0].file.node), "base.toml");
	CHECK_INT(p->skills[0].mode, SKILL_OUTLINE);
	CHECK_STR(file_of(p->skills[0].description.node), "child.toml");
	CHECK_INT(line_of(p->skills[0].description.node), 7);
	CHECK_STR(p->skills[1].name.s, "quiz");
	CHECK_STR(p->skills[2].name.s, "new");
	/* Injections by key; the child's content drops the base's file. */
	CHECK_INT(p->ninjects, 2);
	CHECK_STR(p->injects[0].key.s, "a.b");
	CHECK_STR(p->injects[0].content.s, "child a.b");
	CHECK(p->injects[0].file.node == NULL);
	CHECK_INT(p->injects[0].priority, 5);
	CHECK_STR(p->injects[1].content.s, "base c");
	/* Tables merge. */
	n = tree_get(p->params, "top_p");
	CHECK(n && n->kind == NODE_FLOAT);
	CHECK_STR(p->model.s, "base");

	/* An error in a merged key is reported in the file that wrote it. */
	write_in("ext/bad.toml",
	    "extends = \"base.toml\"\n"
	    "[[skills]]\n"
	    "name = \"quiz\"\n"
	    "mode = \"sideways\"\n");
	CHECK(load("ext/bad.toml", NULL) == NULL);
	CHECK(printed("bad.toml:4:8: error: 'skills.quiz.mode' must be"));
}

static struct node *
parse(const char *name, const char *json)
{
	struct node *n = NULL;

	capture();
	if (!json_parse(&run, run_source_mem(&run, name, json, strlen(json)),
	    &n))
		die("cannot parse %s", json);
	release();
	return n;
}

static void
test_merge(void)
{
	const struct schema *inj = schema_sub(&schema_profile, "inject", 6);
	struct node *b, *o, *m;

	/* merge by hand: the tool group drops a whole inline definition. */
	b = parse("b.json",
	    "{\"name\": \"w\", \"description\": \"d\", \"usage_hint\": \"u\"}");
	o = parse("o.json", "{\"file\": \"tools/w.json\"}");
	m = extends_merge(&run.arena, b, o,
	    schema_sub(&schema_profile, "tools", 5));
	CHECK(m == b);
	CHECK_INT(m->u.table.n, 1);
	CHECK_STR(m->u.table.items[0].key, "file");
	/* Without a schema nothing is dropped. */
	b = parse("b.json", "{\"content\": \"c\", \"x\": [1]}");
	o = parse("o.json", "{\"file\": \"f\", \"x\": [2, 3]}");
	m = extends_merge(&run.arena, b, o, NULL);
	CHECK_INT(m->u.table.n, 3);
	/* Arrays of scalars are replaced. */
	CHECK_INT(tree_get(m, "x")->u.array.n, 2);
	CHECK(extends_merge(&run.arena, b, o, inj) == b);
	CHECK(tree_get(b, "content") == NULL);
	/* tree_remove keeps the order and the index of a big table. */
	{
		struct node *t = tree_table(&run.arena);
		char key[16];
		int i;

		for (i = 0; i < 100; i++) {
			snprintf(key, sizeof(key), "k%d", i);
			tree_put(&run.arena, t, key, tree_int(&run.arena, i));
		}
		CHECK(tree_remove(&run.arena, t, "k10", 3));
		CHECK(!tree_remove(&run.arena, t, "k10", 3));
		CHECK_INT(t->u.table.n, 99);
		CHECK_STR(t->u.table.items[10].key, "k11");
		CHECK_INT(tree_get(t, "k99")->u.i, 99);
		t = tree_array(&run.arena);
		tree_push(&run.arena, t, tree_int(&run.arena, 1));
		tree_replace(t, 0, tree_int(&run.arena, 2));
		tree_replace(t, 1, tree_int(&run.arena, 3));    /* ignored */
		CHECK_INT(t->u.array.n, 1);
		CHECK_INT(t->u.array.items[0]->u.i, 2);
	}
}

static void
test_set(void)
{
	static const char *const sets[] = {
		"output.max_tokens=12",
		"output.params.temperature=0.5",
		"output.params.stream=true",
		"output.params.seed=7",
		"output.params.stop=END",
		"vars.n=12",
		"inject.a.b.priority=3",
		"inject.c.key=d",
		"inject.d.enabled=false",
		NULL,
	};
	static const char *const bad[] = {
		"inject.c.enabled=maybe",
		"output.modle=x",
		"inject.zz.priority=1",
		"inject.c=x",
		NULL,
	};
	struct profile *p = load("ext/child.toml", sets);
	const struct node *n;

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_INT(p->max_tokens, 12);
	CHECK(tree_get(p->params, "temperature")->kind == NODE_FLOAT);
	CHECK(tree_get(p->params, "stream")->kind == NODE_BOOL);
	CHECK(tree_get(p->params, "seed")->kind == NODE_INT);
	CHECK(tree_get(p->params, "stop")->kind == NODE_STRING);
	n = tree_get(p->vars, "n");
	CHECK(n && n->kind == NODE_STRING);
	/* A dotted identity, and a renamed entry found by its new key. */
	CHECK_INT(p->injects[0].priority, 3);
	CHECK_STR(p->injects[1].key.s, "d");
	CHECK(!p->injects[1].enabled);
	CHECK_STR(run_source(&run, p->injects[1].key.node->src)->path,
	    "--set");

	CHECK(load("ext/child.toml", bad) == NULL);
	CHECK(printed("'inject.c.enabled' expects true or false; 'maybe' "
	    "is not one"));
	CHECK(printed("unknown key 'output.modle'; did you mean 'model'?"));
	CHECK(printed("no 'inject' entry named 'zz'"));
	CHECK(printed("cannot set a whole 'inject' entry"));
}

static void
test_paths(void)
{
	static const char *const sets[] = { "prompt.dir=elsewhere", NULL };
	struct profile *p;
	struct source *src;

	mkdir_in("pp");
	mkdir_in("pp/profiles");
	mkdir_in("pp/prompts");
	mkdir_in("pp/other");
	mkdir_in("pp/other/texts");
	write_in("pp/prompts/persona.md", "Hello from prompts.\n");
	write_in("pp/other/base.toml",
	    "[prompt]\n"
	    "dir = \"texts\"\n"
	    "format = \"format.md\"\n");
	write_in("pp/profiles/p.toml",
	    "extends = \"../other/base.toml\"\n"
	    "[prompt]\n"
	    "persona = \"persona.md\"\n");
	p = load("pp/profiles/p.toml", NULL);
	CHECK(p != NULL);
	if (!p)
		return;
	/* ../prompts beside the profile; the base's own prompt.dir. */
	CHECK_STR(profile_resolve(&run, p, &p->persona),
	    at("pp/prompts/persona.md"));
	CHECK_STR(profile_resolve(&run, p, &p->format),
	    at("pp/other/texts/format.md"));
	src = profile_open(&run, p, &p->persona);
	CHECK(src && strcmp(src->text, "Hello from prompts.\n") == 0);
	capture();
	CHECK(profile_open(&run, p, &p->format) == NULL);
	release();
	CHECK(printed("base.toml:3:10: error: cannot read "));
	CHECK(printed("pp/other/texts/format.md"));
	/* --set prompt.dir is relative to the current directory. */
	p = load("pp/profiles/p.toml", sets);
	CHECK(p != NULL);
	if (p)
		CHECK_STR(profile_resolve(&run, p, &p->persona),
		    "elsewhere/persona.md");
	/* The embedded profile reads its files from the binary. */
	p = load(NULL, NULL);
	CHECK(p != NULL && p->embedded);
	if (p) {
		src = profile_open(&run, p, &p->persona);
		CHECK(src && strstr(src->path, "(default)/") == src->path);
	}
}

/* [prompt.labels] in the schema names exactly prompt/labels.c's labels. */
static void
test_labels(void)
{
	const struct schema *pr = schema_sub(&schema_profile, "prompt", 6);
	const struct schema *lb = pr ? schema_sub(pr, "labels", 6) : NULL;
	const struct schema_field *f;
	size_t i, n = 0;

	CHECK(lb != NULL);
	if (!lb)
		return;
	for (i = 0; labels_names[i]; i++)
		CHECK(schema_field(lb, labels_names[i],
		    strlen(labels_names[i])) != NULL);
	for (f = lb->fields; f->name; f++)
		n++;
	CHECK(n == LABEL_COUNT && i == LABEL_COUNT);
}

int
main(void)
{
	int status;

	run_init(&run);
	if (!mkdtemp(dir))
		die("mkdtemp:");
	test_suggest();
	test_checker();
	test_other_asset();
	test_extends();
	test_merge();
	test_set();
	test_paths();
	test_labels();
	while (nmade > 0) {
		nmade--;
		if (remove(made[nmade]) != 0)
			fprintf(stderr, "cannot remove %s\n", made[nmade]);
		free(made[nmade]);
	}
	rmdir(dir);
	buf_free(&errs);
	status = check_done("profile");
	run_free(&run);
	return status;
}
