#include <string.h>

#include "check.h"
#include "base/arena.h"
#include "base/path.h"

int
main(void)
{
	struct arena a;
	const char *s = "x";

	arena_init(&a);
	CHECK_STR(path_base("a/b/c.json"), "c.json");
	CHECK_STR(path_base("c.json"), "c.json");
	CHECK_STR(path_base("/c"), "c");
	CHECK_STR(path_base("dir/"), "");

	CHECK_INT(path_dir_len("a/b/c"), 3);
	CHECK_INT(path_dir_len("c"), 0);
	CHECK_INT(path_dir_len("/c"), 1);
	CHECK_STR(path_dir(&a, "a/b/c"), "a/b");
	CHECK_STR(path_dir(&a, "c"), ".");
	CHECK_STR(path_dir(&a, "/c"), "/");
	CHECK_STR(path_dir(&a, "./c"), ".");

	/* The stem keeps a leading dot and drops only the last extension. */
	CHECK_STR(path_stem(&a, "skills/web.search.md"), "web.search");
	CHECK_STR(path_stem(&a, "skills/.hidden"), ".hidden");
	CHECK_STR(path_stem(&a, "README"), "README");
	CHECK_INT(path_stem_len("d.x/y"), 1);   /* a dot in a directory */

	CHECK_STR(path_name(&a, "chats/Ann - 1.jsonl", ".jsonl"), "Ann - 1");
	CHECK_STR(path_name(&a, ".jsonl", ".jsonl"), ".jsonl");
	CHECK_STR(path_name(&a, "w/book.json", ".jsonl"), "book.json");
	CHECK_STR(path_name(&a, "w/book.json", ".json"), "book");

	CHECK_STR(path_join(&a, "a/b", "c.md"), "a/b/c.md");
	CHECK_STR(path_join(&a, ".", "c.md"), "c.md");
	CHECK_STR(path_join(&a, "", "c.md"), "c.md");
	CHECK_STR(path_join(&a, "a", "/etc/c.md"), "/etc/c.md");
	CHECK_STR(path_join(&a, "a", ""), "a");
	CHECK(path_join(&a, s, "") == s);       /* returned as given */
	arena_free(&a);
	return check_done("path");
}
