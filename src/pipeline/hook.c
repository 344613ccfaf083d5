#include "pipeline/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/diag.h"
#include "diag/run.h"

const char *const hook_points[] = {
	"beforeNormalizeAssets", "afterNormalizeAssets",
	"beforeRaw", "afterInsert", "afterRaw",
	"beforePostprocessUser", "afterPostprocessUser",
	"beforePostprocessAssistant", "afterPostprocessAssistant",
	"beforeVariablesSave", "afterVariablesSave",
	"beforeLLMCall", "afterLLMCall",
	"beforeStreamChunk", "afterStreamChunk",
	"beforeSaveResponse", "afterSaveResponse",
	NULL,
};

/* The points that belong to a command calling a model. */
static const char *const model_points[] = {
	"beforeLLMCall", "afterLLMCall", "beforeStreamChunk",
	"afterStreamChunk", "beforeSaveResponse", "afterSaveResponse", NULL,
};

static bool
listed(const char *const *v, const char *s)
{
	for (; *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

bool
hook_point_runs(const char *point)
{
	return listed(hook_points, point) && !listed(model_points, point);
}

bool
hook_in_assembly(const char *point)
{
	return hook_point_runs(point) && strcmp(point,
	    "beforeVariablesSave") && strcmp(point, "afterVariablesSave");
}

struct hooks *
hook_merge(struct run *run, const struct node *table, struct hooks *cli)
{
	struct arena *a = &run->arena;
	struct hooks *h;
	struct hook *v;
	size_t n = cli ? cli->n : 0, i, j, k = 0;
	const struct node *to;
	bool ok = true;

	if (!table)
		return cli;
	for (i = 0; i < table->u.table.n; i++) {
		const struct node *x = table->u.table.items[i].value;

		n += x->kind == NODE_ARRAY ? x->u.array.n : 1;
	}
	h = arena_alloc(a, sizeof(*h));
	v = arena_array(a, n + 1, sizeof(*v));
	for (i = 0; i < table->u.table.n; i++) {
		const struct member *m = &table->u.table.items[i];
		const struct node *x = m->value;
		const char *point = NULL;

		if (strcmp(m->key, "timeout") == 0)
			continue;
		for (j = 0; hook_points[j]; j++)
			if (strcmp(hook_points[j], m->key) == 0)
				point = hook_points[j];
		if (!point || !hook_point_runs(point)) {
			diag_error(run, run_source(run, table->src),
			    m->keyspan, MSG_HOOK_NOT_REACHED, m->key);
			ok = false;
			continue;
		}
		if (x->kind == NODE_STRING) {
			v[k].point = point;
			v[k++].command = x->u.str.s;
		}
		for (j = 0; x->kind == NODE_ARRAY && j < x->u.array.n; j++) {
			v[k].point = point;
			v[k++].command = x->u.array.items[j]->u.str.s;
		}
	}
	for (i = 0; cli && i < cli->n; i++)
		v[k++] = cli->v[i];
	h->v = v;
	h->n = k;
	h->timeout_ms = cli ? cli->timeout_ms : 0;
	if ((to = tree_get(table, "timeout")) != NULL) {
		if (to->kind != NODE_INT || to->u.i < 1 || to->u.i > 999999) {
			diag_error(run, run_source(run, to->src), to->span,
			    MSG_HOOK_TIMEOUT);
			ok = false;
		} else if (!h->timeout_ms)
			h->timeout_ms = (unsigned)to->u.i * 1000u;
	}
	return ok ? h : NULL;
}

bool
hook_wanted(const struct hooks *hooks, const char *point)
{
	size_t i;

	for (i = 0; hooks && i < hooks->n; i++)
		if (strcmp(hooks->v[i].point, point) == 0)
			return true;
	return false;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Run command with in on its standard input; its standard output into
 * out.  Returns 0, or the message to report: the exit status, the
 * signal, the timeout.
 */
static const char *
spawn(struct run *run, const char *command, const struct buf *in,
    struct buf *out, unsigned timeout_ms)
{
	int to[2], from[2], status;
	size_t off = 0;
	long end = now_ms() + (long)timeout_ms;
	bool timed_out = false;
	pid_t pid;
	struct sigaction ign, old;
	char chunk[4096];

	if (pipe(to) < 0)
		return arena_printf(&run->arena, "cannot make a pipe: %s",
		    strerror(errno));
	if (pipe(from) < 0) {
		close(to[0]);
		close(to[1]);
		return arena_printf(&run->arena, "cannot make a pipe: %s",
		    strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		return arena_printf(&run->arena, "cannot start it: %s",
		    strerror(errno));
	}
	if (pid == 0) {
		/* Its own process group, so a timeout ends its children
		 * too. */
		setpgid(0, 0);
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	/* A command that does not read its input must not end strata. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	close(to[0]);
	close(from[1]);
	fcntl(to[1], F_SETFL, O_NONBLOCK);
	fcntl(from[0], F_SETFL, O_NONBLOCK);
	if (!in->len) {
		close(to[1]);
		to[1] = -1;
	}
	for (;;) {
		struct pollfd p[2];
		int np = 0, left = (int)(end - now_ms());
		ssize_t k;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		p[np].fd = from[0];
		p[np++].events = POLLIN;
		if (to[1] >= 0) {
			p[np].fd = to[1];
			p[np++].events = POLLOUT;
		}
		if (poll(p, (nfds_t)np, left) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (np > 1 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			k = write(to[1], in->data + off, in->len - off);
			if (k > 0)
				off += (size_t)k;
			if ((k < 0 && errno != EAGAIN) || off == in->len) {
				close(to[1]);
				to[1] = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			k = read(from[0], chunk, sizeof chunk);
			if (k > 0)
				buf_put(out, chunk, (size_t)k);
			else if (k == 0 || errno != EAGAIN)
				break;
		}
	}
	if (to[1] >= 0)
		close(to[1]);
	close(from[0]);
	sigaction(SIGPIPE, &old, NULL);
	if (timed_out)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return arena_printf(&run->arena, "it ran past %u ms and was "
		    "stopped", timeout_ms);
	if (WIFSIGNALED(status))
		return arena_printf(&run->arena, "it was killed by signal %d",
		    WTERMSIG(status));
	if (WEXITSTATUS(status))
		return arena_printf(&run->arena, "it exited with status %d",
		    WEXITSTATUS(status));
	return NULL;
}

/* Does out keep in's shape: an object, the same keys, each value of the
 * same JSON type?  NULL, or what differs. */
static const char *
shape(struct arena *a, const struct node *in, const struct node *out)
{
	size_t i;

	if (out->kind != NODE_TABLE)
		return arena_printf(a, "it printed %s, not an object",
		    tree_kind_article(out->kind));
	for (i = 0; i < in->u.table.n; i++) {
		const struct member *m = &in->u.table.items[i];
		const struct node *v = tree_get(out, m->key);

		if (!v)
			return arena_printf(a, "its output lacks '%s'",
			    m->key);
		if (v->kind != m->value->kind && m->value->kind != NODE_NULL)
			return arena_printf(a, "its '%s' is %s, not %s",
			    m->key, tree_kind_article(v->kind),
			    tree_kind_article(m->value->kind));
	}
	for (i = 0; i < out->u.table.n; i++)
		if (!tree_get(in, out->u.table.items[i].key))
			return arena_printf(a, "its output adds '%s'",
			    out->u.table.items[i].key);
	return NULL;
}

bool
hook_run(struct run *run, const struct hooks *hooks, const char *point,
    struct node **data)
{
	size_t i;

	for (i = 0; hooks && i < hooks->n; i++) {
		const struct hook *h = &hooks->v[i];
		struct buf in = BUF_INIT, out = BUF_INIT;
		const char *why;
		struct source *src;
		struct node *res;

		if (strcmp(h->point, point))
			continue;
		json_write(&in, *data, 0);
		buf_putc(&in, '\n');
		why = spawn(run, h->command, &in, &out, hooks->timeout_ms ?
		    hooks->timeout_ms : HOOK_TIMEOUT_MS);
		buf_free(&in);
		if (why) {
			buf_free(&out);
			diag_plain(run, DIAG_ERROR, MSG_HOOK_FAILED, point,
			    h->command, why);
			return false;
		}
		src = run_source_mem(run, arena_printf(&run->arena,
		    "hook %s", point), out.data ? out.data : "", out.len);
		buf_free(&out);
		/* What it printed is reported as the source "hook POINT". */
		if (!json_parse(run, src, &res))
			return false;
		if ((why = shape(&run->arena, *data, res)) != NULL) {
			diag_plain(run, DIAG_ERROR, MSG_HOOK_FAILED, point,
			    h->command, why);
			return false;
		}
		*data = res;
	}
	return true;
}
