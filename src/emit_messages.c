/* The bare messages array, in the OpenAI shape. */
#include "emit.h"

#include "arena.h"
#include "buf.h"
#include "chat.h"
#include "json.h"
#include "run.h"
#include "tree.h"

bool
emit_messages(struct run *run, const struct chat *c, struct buf *out)
{
	struct arena *a = &run->arena;
	struct node *msgs = tree_array(a);
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct message *m = &c->msgs[i];
		struct node *o = tree_table(a);

		tree_put(a, o, "role", tree_str(a, profile_role_name(m->role)));
		tree_put(a, o, "content", tree_strref(a, m->content, m->len));
		if (m->name)
			tree_put(a, o, "name", tree_str(a, m->name));
		tree_push(a, msgs, o);
	}
	json_write(out, msgs, 2);
	buf_putc(out, '\n');
	return true;
}
