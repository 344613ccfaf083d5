/*
 * test_load: the format a file name implies, each reader through
 * load_source() and load_file(), and the errors: an unknown extension, a
 * missing file, a directory, and (run_read()'s rule) a FIFO named by a
 * file, which is refused without blocking.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"

static char dir[] = "/tmp/strata-test-load-XXXXXX";

static const char *
put(const char *name, const char *text)
{
	static char path[sizeof(dir) + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static const char *
in_dir(const char *name)
{
	static char path[sizeof(dir) + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* Parse text from memory as fmt; the value of key "a", or NULL. */
static const struct node *
parse(struct run *run, enum load_format fmt, const char *text)
{
	struct source *src = run_source_mem(run, "mem", text, strlen(text));
	struct node *root;

	if (!load_source(run, src, fmt, &root))
		return NULL;
	return tree_get(root, "a");
}

int
main(void)
{
	struct run run;
	struct node *root;
	struct source *src, *named;
	const struct node *a;
	char *fifo;

	/* The format by name. */
	CHECK_INT(load_format_of("p.toml"), LOAD_TOML);
	CHECK_INT(load_format_of("dir.d/p.yaml"), LOAD_YAML);
	CHECK_INT(load_format_of("p.yml"), LOAD_YAML);
	CHECK_INT(load_format_of("h.json"), LOAD_JSON);
	CHECK_INT(load_format_of("p.TOML"), LOAD_GUESS);
	CHECK_INT(load_format_of("p.toml.bak"), LOAD_GUESS);
	CHECK_INT(load_format_of("toml"), LOAD_GUESS);
	CHECK_INT(load_format_of(""), LOAD_GUESS);

	run_init(&run);
	/* Each reader, from memory. */
	a = parse(&run, LOAD_TOML, "a = 1\n");
	CHECK(a && a->kind == NODE_INT && a->u.i == 1);
	a = parse(&run, LOAD_YAML, "a: [x, y]\n");
	CHECK(a && a->kind == NODE_ARRAY && a->u.array.n == 2);
	a = parse(&run, LOAD_JSON, "{\"a\": \"s\"}");
	CHECK(a && a->kind == NODE_STRING && strcmp(a->u.str.s, "s") == 0);
	CHECK_INT(run.diag.errors, 0);
	/* A reader's error is reported once, and load_source says false. */
	CHECK(parse(&run, LOAD_JSON, "{\"a\": }") == NULL);
	CHECK_INT(run.diag.errors, 1);
	/* No format: an error, not a guess. */
	CHECK(parse(&run, LOAD_GUESS, "a = 1\n") == NULL);
	CHECK_INT(run.diag.errors, 2);
	run_free(&run);

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	run_init(&run);
	/* From files, by extension. */
	CHECK(load_file(&run, put("p.toml", "a = \"t\"\n"), LOAD_GUESS, NULL,
	    span_make(0, 0), &root, &src));
	CHECK(tree_get(root, "a") && tree_get(root, "a")->kind == NODE_STRING);
	CHECK(src && src->file && strstr(src->path, "p.toml"));
	named = src;
	CHECK(load_file(&run, put("p.yml", "a: 2\n"), LOAD_GUESS, NULL,
	    span_make(0, 0), &root, NULL));
	CHECK(tree_get(root, "a") && tree_get(root, "a")->u.i == 2);
	CHECK(load_file(&run, put("h.json", "[1, 2]"), LOAD_GUESS, NULL,
	    span_make(0, 0), &root, NULL));
	CHECK(root->kind == NODE_ARRAY);
	/* A format given overrides the name. */
	CHECK(load_file(&run, put("h.txt", "{\"a\": true}"), LOAD_JSON, NULL,
	    span_make(0, 0), &root, NULL));
	CHECK(tree_get(root, "a") && tree_get(root, "a")->kind == NODE_BOOL);
	CHECK_INT(run.diag.errors, 0);
	/* An unknown extension is refused before the file is read. */
	CHECK(!load_file(&run, in_dir("no-such.ini"), LOAD_GUESS, NULL,
	    span_make(0, 0), &root, NULL));
	CHECK_INT(run.diag.errors, 1);
	CHECK(!load_file(&run, put("p.txt", "a = 1\n"), LOAD_GUESS, named,
	    span_make(0, 1), &root, NULL));
	CHECK_INT(run.diag.errors, 2);
	/* A missing file and a directory. */
	CHECK(!load_file(&run, in_dir("missing.toml"), LOAD_GUESS, NULL,
	    span_make(0, 0), &root, NULL));
	CHECK_INT(run.diag.errors, 3);
	CHECK(!load_file(&run, "/", LOAD_TOML, NULL, span_make(0, 0), &root,
	    NULL));
	CHECK_INT(run.diag.errors, 4);
	/* A FIFO named by a file is refused at once (no writer ever comes:
	 * a blocking open would hang here); /dev/null named by the command
	 * line (no from) reads as an empty document. */
	fifo = strdup(in_dir("fifo.toml"));
	if (mkfifo(fifo, 0600) == 0) {
		CHECK(!load_file(&run, fifo, LOAD_GUESS, named,
		    span_make(0, 1), &root, NULL));
		CHECK_INT(run.diag.errors, 5);
		unlink(fifo);
	}
	free(fifo);
	CHECK(load_file(&run, "/dev/null", LOAD_TOML, NULL, span_make(0, 0),
	    &root, NULL));
	CHECK(root->kind == NODE_TABLE && root->u.table.n == 0);
	CHECK(!load_file(&run, "/dev/null", LOAD_TOML, named, span_make(0, 1),
	    &root, NULL));
	CHECK_INT(diag_status(&run), 1);
	run_free(&run);

	unlink(in_dir("p.toml"));
	unlink(in_dir("p.yml"));
	unlink(in_dir("h.json"));
	unlink(in_dir("h.txt"));
	unlink(in_dir("p.txt"));
	rmdir(dir);
	return check_done("test_load");
}
