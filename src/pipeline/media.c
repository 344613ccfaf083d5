/*
 * media: images and files for content parts -- a local file read whole,
 * capped at MEDIA_MAX_MB, its media type sniffed from its first bytes and
 * its bytes base64-encoded; a URL kept as written; a data: URL split into
 * its media type and base64 bytes.  Parts live in the run's arena.
 */
#include "pipeline/stages.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/buf.h"
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

static bool
read_capped(const char *path, struct buf *b, bool *big)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t k;

	*big = false;
	if (!f)
		return false;
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_put(b, chunk, k);
		if (b->len > (size_t)MEDIA_MAX_MB * 1024 * 1024) {
			*big = true;
			break;
		}
	}
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		errno = e;
		return false;
	}
	fclose(f);
	return true;
}

bool
media_part(struct run *run, const struct source *src, struct span sp,
    enum part_kind kind, const char *ref, size_t reflen, const char *dir,
    const char *media_type, struct part *out)
{
	struct buf b = BUF_INIT, enc = BUF_INIT;
	const char *path, *sniffed, *shown = diag_shown(run, ref, reflen);
	bool big;

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
	if (!read_capped(path, &b, &big)) {
		diag_error(run, src, sp, kind == PART_IMAGE ? MSG_IMAGE_READ :
		    MSG_FILE_READ, shown);
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
		const char *slash = strrchr(path, '/');

		out->filename = slash ? slash + 1 : path;
	}
	base64_encode(&enc, b.data ? b.data : "", b.len);
	buf_free(&b);
	out->len = enc.len;
	out->data = enc.len ? arena_adopt(&run->arena, buf_detach(&enc)) : "";
	buf_free(&enc);
	return true;
}
