/*
 * tree: the config tree every reader produces (TOML, YAML, JSON) and every
 * later stage reads.  A node is a table (keys in document order), an
 * array, or a scalar; each node and each table key keeps the source it
 * came from and its byte span there, so a semantic error found much later
 * is still reported on the right line.  All nodes and strings live in the
 * run's arena; nothing in a tree is freed on its own.
 */
#ifndef TREE_H
#define TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"

struct arena;

enum node_kind {
	NODE_TABLE,
	NODE_ARRAY,
	NODE_STRING,
	NODE_INT,
	NODE_FLOAT,
	NODE_BOOL,
	NODE_DATETIME,          /* see struct datetime: four TOML kinds */
	NODE_NULL,              /* YAML null, JSON null; never from TOML */
};

enum datetime_kind {
	DT_OFFSET,              /* 1979-05-27T07:32:00Z, ...+09:00 */
	DT_LOCAL,               /* 1979-05-27T07:32:00 */
	DT_DATE,                /* 1979-05-27 */
	DT_TIME,                /* 07:32:00 */
};

struct datetime {
	enum datetime_kind kind;
	int year, month, day;
	int hour, minute, second;
	uint32_t nanosecond;
	int offset_minutes;     /* DT_OFFSET only; Z is 0 */
};

struct node;

struct member {
	const char *key;        /* NUL-terminated; keylen is the truth */
	size_t keylen;
	uint32_t keysrc;        /* source id of the key */
	struct span keyspan;
	struct node *value;
};

/* Reader bookkeeping on tables and arrays (TOML's redefinition rules). */
enum node_flag {
	NODE_IMPLICIT = 1 << 0, /* created as a parent by a header or dotted key */
	NODE_DEFINED = 1 << 1,  /* opened by its own [header] */
	NODE_DOTTED = 1 << 2,   /* created by a dotted key in a key/value */
	NODE_FROZEN = 1 << 3,   /* inline table or array literal: closed */
	NODE_AOT = 1 << 4,      /* array of tables made by [[header]] */
};

struct tree_index;

struct node {
	enum node_kind kind;
	unsigned flags;         /* enum node_flag */
	uint32_t src;           /* source id */
	struct span span;       /* the value's text */
	union {
		struct {
			char *s;        /* NUL-terminated, may hold NULs */
			size_t len;
		} str;
		int64_t i;
		double f;
		bool b;
		struct datetime dt;
		struct {
			struct member *items;
			size_t n, cap;
			struct tree_index *index;  /* hash, for big tables */
		} table;
		struct {
			struct node **items;
			size_t n, cap;
		} array;
	} u;
};

struct node *tree_new(struct arena *a, enum node_kind kind, uint32_t src,
    struct span span);
struct node *tree_new_string(struct arena *a, const char *s, size_t len,
    uint32_t src, struct span span);

/* Look a key up in a table; NULL if absent (or t is not a table). */
struct node *tree_get(const struct node *t, const char *key);
struct node *tree_getn(const struct node *t, const char *key, size_t len);
struct member *tree_member(const struct node *t, const char *key, size_t len);
/* Append a key that must not exist yet (callers check with tree_getn). */
struct member *tree_add(struct arena *a, struct node *t, const char *key,
    size_t keylen, uint32_t keysrc, struct span keyspan, struct node *value);
/* Replace the value of an existing member, or add it. */
void tree_set(struct arena *a, struct node *t, const char *key,
    size_t keylen, uint32_t keysrc, struct span keyspan, struct node *value);
void tree_push(struct arena *a, struct node *arr, struct node *value);
/* Put value in place of element i (< n) of array arr. */
void tree_replace(struct node *arr, size_t i, struct node *value);
/* Remove key from table t, keeping the order of the others; false if it
 * was not there.  The removed value is left to the arena. */
bool tree_remove(struct arena *a, struct node *t, const char *key,
    size_t keylen);

/* "table", "array", "string", "integer", "float", "boolean", "datetime",
 * "null": the words used in messages. */
const char *tree_kind_name(enum node_kind kind);
/* The same with its article, for messages: "an integer", "a table". */
/* The same in JSON's words (a table is "an object"), for JSON files. */
const char *tree_kind_json(enum node_kind kind);
const char *tree_kind_article(enum node_kind kind);

/*
 * Building trees for output (json_write): nodes with no source (src and
 * span 0).  tree_put() appends key -> v to table t and returns v; the key
 * must not be present yet.
 */
struct node *tree_table(struct arena *a);
struct node *tree_array(struct arena *a);
struct node *tree_str(struct arena *a, const char *s);
struct node *tree_strn(struct arena *a, const char *s, size_t len);
/* A string node that borrows s (which must outlive the tree): for big
 * texts already in the arena. */
struct node *tree_strref(struct arena *a, const char *s, size_t len);
struct node *tree_int(struct arena *a, int64_t i);
struct node *tree_float(struct arena *a, double f);
struct node *tree_bool(struct arena *a, bool b);
struct node *tree_put(struct arena *a, struct node *t, const char *key,
    struct node *v);

/* Does arr, when it is an array, hold the string s? */
bool tree_has_string(const struct node *arr, const char *s);

/* A deep copy into arena a (spans kept). */
struct node *tree_copy(struct arena *a, const struct node *n);

#endif
