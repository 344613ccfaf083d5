/*
 * media: images and files for content parts -- a local file read whole,
 * capped at MEDIA_MAX_MB, its media type sniffed from its first bytes and
 * its bytes base64-encoded; a URL kept as written; a data: URL split into
 * its media type and base64 bytes.  Parts live in the run's arena.
 *
 * The trust boundary (strata(1), SECURITY): only the user names local
 * files.  media_part() serves --image; media_data_part() serves parts
 * that arrive as data (histories, batch lines), which are URLs only
 * unless --allow-history-files names a directory to read from.
 */
#define _DEFAULT_SOURCE             /* realpath() */
#include "pipeline/stages.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/buf.h"
#include "base/path.h"
#include "diag/run.h"

/* The media type of bytes p[0..n), or NULL. */
static const char *
sniff(const unsigned char *p, size_t n)
{
	if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
		return "image/png";
	if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
		return "image/jpeg";
	if (n >= 6 && (memcmp(p, "GIF87a", 6) == 0 ||
	    memcmp(p, "GIF89a", 6) == 0))
		return "image/gif";
	if (n >= 12 && memcmp(p, "RIFF", 4) == 0 &&
	    memcmp(p + 8, "WEBP", 4) == 0)
		return "image/webp";
	if (n >= 5 && memcmp(p, "%PDF-", 5) == 0)
		return "application/pdf";
	return NULL;
}

bool
media_is_url(const char *s, size_t n)
{
	return (n > 7 && memcmp(s, "http://", 7) == 0) ||
	    (n > 8 && memcmp(s, "https://", 8) == 0) ||
	    (n > 5 && memcmp(s, "data:", 5) == 0) ||
	    (n > 5 && memcmp(s, "gs://", 5) == 0);
}

/*
 * Read the regular file at path into b, capped; false with errno set on
 * failure, *special when it is not a regular file.  The open never
 * blocks (a FIFO with no writer would block in open() for ever), and a
 * symbolic link as the last component is refused when nofollow is set.
 */
static bool
read_capped(const char *path, struct buf *b, bool *big, bool *special,
    bool nofollow)
{
	char chunk[65536];
	struct stat st;
	ssize_t k;
	int fd, e;

	*big = *special = false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
	    (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		*special = true;
		close(fd);
		return false;
	}
	while ((k = read(fd, chunk, sizeof(chunk))) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		buf_put(b, chunk, (size_t)k);
		if (b->len > (size_t)MEDIA_MAX_MB * 1024 * 1024) {
			*big = true;
			break;
		}
	}
	close(fd);
	return true;
fail:
	e = errno;
	close(fd);
	errno = e;
	return false;
}

static bool from_file(struct run *run, const struct source *src,
    struct span sp, enum part_kind kind, const char *path, const char *shown,
    bool nofollow, const char *media_type, struct part *out);

bool
media_part(struct run *run, const struct source *src, struct span sp,
    enum part_kind kind, const char *ref, size_t reflen, const char *dir,
    const char *media_type, struct part *out)
{
	const char *path, *shown = diag_shown(run, ref, reflen);

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->media_type = media_type;
	if (media_is_url(ref, reflen)) {
		if (memcmp(ref, "data:", 5) != 0) {
			out->data = arena_strndup(&run->arena, ref, reflen);
			out->len = reflen;
			out->url = true;
		} else if (!part_data_url(&run->arena, ref, reflen, out)) {
			diag_error(run, src, sp, MSG_PART_DATA_URL, shown);
			return false;
		} else if (!part_media_ok(kind, out->media_type)) {
			diag_error(run, src, sp, MSG_PART_MEDIA_TYPE, shown,
			    out->media_type, kind == PART_IMAGE ? "image/png, "
			    "image/jpeg, image/gif or image/webp" :
			    "a type/subtype");
			return false;
		}
		if (media_type && out->url == false &&
		    strcmp(media_type, out->media_type) != 0) {
			diag_error(run, src, sp, MSG_IMAGE_MEDIA, shown,
			    out->media_type, media_type);
			return false;
		}
		return true;
	}
	path = ref[0] == '/' || !dir || !*dir ? arena_strndup(&run->arena,
	    ref, reflen) : arena_printf(&run->arena, "%s/%.*s", dir,
	    (int)reflen, ref);
	return from_file(run, src, sp, kind, path, shown, false, media_type,
	    out);
}

/* The file at path as a part (see media_part()). */
static bool
from_file(struct run *run, const struct source *src, struct span sp,
    enum part_kind kind, const char *path, const char *shown, bool nofollow,
    const char *media_type, struct part *out)
{
	struct buf b = BUF_INIT, enc = BUF_INIT;
	const char *sniffed;
	bool big, special;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->media_type = media_type;
	if (!read_capped(path, &b, &big, &special, nofollow)) {
		if (special)
			diag_error(run, src, sp, MSG_MEDIA_SPECIAL, shown);
		else
			diag_error(run, src, sp, kind == PART_IMAGE ?
			    MSG_IMAGE_READ : MSG_FILE_READ, shown);
		buf_free(&b);
		return false;
	}
	if (big) {
		diag_error(run, src, sp, MSG_IMAGE_BIG, shown, MEDIA_MAX_MB);
		buf_free(&b);
		return false;
	}
	sniffed = sniff((const unsigned char *)b.data, b.len);
	if (kind == PART_IMAGE && (!sniffed ||
	    strncmp(sniffed, "image/", 6) != 0)) {
		diag_error(run, src, sp, MSG_IMAGE_TYPE, shown);
		buf_free(&b);
		return false;
	}
	if (sniffed && media_type && strcmp(sniffed, media_type) != 0) {
		diag_error(run, src, sp, MSG_IMAGE_MEDIA, shown, sniffed,
		    media_type);
		buf_free(&b);
		return false;
	}
	if (!sniffed && !media_type) {
		diag_error(run, src, sp, MSG_FILE_MEDIA, shown);
		buf_free(&b);
		return false;
	}
	if (sniffed)
		out->media_type = sniffed;
	if (kind == PART_FILE) {
		out->filename = path_base(path);
	}
	base64_encode(&enc, b.data ? b.data : "", b.len);
	buf_free(&b);
	out->len = enc.len;
	out->data = enc.len ? arena_adopt(&run->arena, buf_detach(&enc)) : "";
	buf_free(&enc);
	return true;
}

/* Whether the resolved path p lies inside the resolved directory d. */
static bool
inside(const char *p, const char *d)
{
	size_t n = strlen(d);

	if (strcmp(d, "/") == 0)
		return p[0] == '/';
	return strncmp(p, d, n) == 0 && p[n] == '/';
}

bool
media_data_part(struct run *run, const struct source *src, struct span sp,
    enum part_kind kind, const char *ref, size_t reflen, const char *dir,
    const char *allow, const char *media_type, struct part *out)
{
	const char *path, *shown;
	char *real, *top;
	bool ok;

	if (media_is_url(ref, reflen))
		return media_part(run, src, sp, kind, ref, reflen, NULL,
		    media_type, out);
	shown = diag_shown(run, ref, reflen);
	memset(out, 0, sizeof(*out));
	if (!allow) {
		diag_error(run, src, sp, MSG_MEDIA_DATA_PATH, shown);
		return false;
	}
	if (memchr(ref, '\0', reflen)) {
		errno = ENOENT;
		diag_error(run, src, sp, kind == PART_IMAGE ? MSG_IMAGE_READ :
		    MSG_FILE_READ, shown);
		return false;
	}
	path = ref[0] == '/' || !dir || !*dir ? arena_strndup(&run->arena,
	    ref, reflen) : arena_printf(&run->arena, "%s/%.*s", dir,
	    (int)reflen, ref);
	if (!(top = realpath(allow, NULL))) {
		diag_plain(run, DIAG_ERROR, MSG_ALLOW_DIR, allow);
		return false;
	}
	if (!(real = realpath(path, NULL))) {
		diag_error(run, src, sp, kind == PART_IMAGE ? MSG_IMAGE_READ :
		    MSG_FILE_READ, shown);
		free(top);
		return false;
	}
	if (!inside(real, top)) {
		diag_error(run, src, sp, MSG_MEDIA_OUTSIDE, shown, allow);
		ok = false;
	} else
		ok = from_file(run, src, sp, kind, arena_strdup(&run->arena,
		    real), shown, true, media_type, out);
	if (ok && kind == PART_FILE) {      /* the name as given */
		out->filename = path_base(path);
	}
	free(real);
	free(top);
	return ok;
}
