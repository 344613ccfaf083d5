/*
 * The frame every inspector page shares: the head with its policy,
 * style and script, escaping, the inline word diff, layer colours and
 * the filter bar.  The page of a build is emit_html_build.c; the page
 * of a diff is review/diff_html.c.
 */
#include "emit/emit_html.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/util.h"
#include "base/vec.h"

/*
 * No load of any kind: only the page's own inline style and its one
 * script, named by its hash, so that no other script could run even if
 * some text were not escaped (no inline handler, no javascript: link).
 * SCRIPT_SHA256 is the base64 SHA-256 of the script element's text
 * ("\n" and script[]); tests/browser/csp.py checks it against the
 * golden pages, so a change to the script that forgets it fails there.
 */
#define SCRIPT_SHA256 "zhUcfk27IzesAGkxO0WzJOurzBZKDQr98mvl546iQ4A="
#define CSP "default-src 'none'; style-src 'unsafe-inline'; " \
	"script-src 'sha256-" SCRIPT_SHA256 "'; base-uri 'none'; " \
	"form-action 'none'"

/* The table of the word diff, in cells, at most (then: all replaced). */
#define LCS_MAX 2000000u

static const char *const style[] = {
":root{color-scheme:light dark;--bg:#f6f6f4;--fg:#1c1d21;--mut:#63656d;"
"--line:#d9d9de;--card:#fff;--acc:#2454c7;--del:#ffd9d6;--delfg:#8a1c12;"
"--ins:#d2f2d6;--insfg:#175c24;--warn:#9a5200;--warnbg:#fff1dc;--s:75%;"
"--l:90%;--sw:46%}\n",
"@media (prefers-color-scheme:dark){:root{--bg:#141518;--fg:#e4e4e7;"
"--mut:#9d9fa8;--line:#33353b;--card:#1d1e22;--acc:#8fb0ff;--del:#5a2220;"
"--delfg:#ffc2bb;--ins:#1d4626;--insfg:#b8f0c2;--warn:#f2b25c;"
"--warnbg:#3a2a12;--s:35%;--l:24%;--sw:62%}}\n",
"*{box-sizing:border-box}[hidden]{display:none!important}\n",
"body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 "
"system-ui,-apple-system,\"Segoe UI\",\"Noto Sans\",\"Noto Sans CJK SC\","
"\"PingFang SC\",\"Microsoft YaHei\",\"WenQuanYi Micro Hei\",sans-serif,"
"\"Apple Color Emoji\","
"\"Segoe UI Emoji\",\"Noto Color Emoji\"}\n",
"header.top{padding:1.2rem 1.5rem .6rem;border-bottom:1px solid var(--line);"
"background:var(--card)}\n",
"h1{font-size:1.3rem;margin:0 0 .2rem}h2{font-size:1.1rem;margin:1.6rem 0 "
".6rem}h3{font-size:1rem;margin:.8rem 0 .3rem}h4{font-size:.9rem;margin:"
".6rem 0 .2rem}\n",
".meta{color:var(--mut);margin:.1rem 0;font-size:.9rem}\n",
"main{max-width:72rem;margin:0 auto;padding:0 1.5rem 4rem}\n",
"main.wide{max-width:110rem}\n",
"pre,code,.mono{font-family:ui-monospace,\"SF Mono\",Menlo,Consolas,"
"\"DejaVu Sans Mono\",\"Noto Sans Mono CJK SC\",\"WenQuanYi Micro Hei Mono\","
"monospace,"
"\"Noto Color Emoji\";font-size:.82rem}\n",
"pre.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:.4rem 0;"
"padding:.55rem .75rem;background:var(--bg);border:1px solid var(--line);"
"border-radius:6px;line-height:1.5}\n",
"a{color:var(--acc)}a.src{color:var(--mut);text-decoration:none;"
"border-bottom:1px dotted}a.src:hover{color:var(--acc)}\n",
":focus-visible{outline:2px solid var(--acc);outline-offset:2px}\n",
".filters{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;"
"gap:.5rem .8rem;align-items:center;padding:.55rem 1.5rem;"
"background:var(--card);border-bottom:1px solid var(--line);"
"font-size:.88rem}\n",
".filters input[type=search]{width:11rem}\n",
".filters select,.filters input,.filters button{font:inherit;color:inherit;"
"background:var(--bg);border:1px solid var(--line);border-radius:5px;"
"padding:.15rem .4rem}\n",
".filters button{cursor:pointer}.filters output{color:var(--mut);"
"margin-left:auto}\n",
"ol.msgs{list-style:none;margin:0;padding:0}\n",
"li.msg{margin:.45rem 0;background:var(--card);border:1px solid "
"var(--line);border-left:4px solid var(--rc);border-radius:7px;"
"content-visibility:auto;contain-intrinsic-size:auto 2.6rem}\n",
"main>section{content-visibility:auto;contain-intrinsic-size:auto 30rem}\n",
"li.msg>details>summary{cursor:pointer;padding:.4rem .75rem;display:flex;"
"flex-wrap:wrap;gap:.25rem .8rem;align-items:baseline}\n",
"li.msg>details>div{padding:0 .75rem .6rem}\n",
".r-system{--rc:#8a8f99}.r-developer{--rc:#6b7280}.r-user{--rc:#2f7ae5}"
".r-assistant{--rc:#1f9d63}.r-tool{--rc:#b7791f}\n",
".n{font-weight:600;min-width:2.2rem}.role{font-weight:600}"
".num{color:var(--mut);font-size:.85rem;font-variant-numeric:tabular-nums}"
"\n.chip{display:inline-block;font-size:.75rem;padding:0 .4rem;"
"border-radius:9px;background:hsl(var(--h) var(--s) var(--l));"
"border:1px solid hsl(var(--h) 40% var(--sw))}\n",
".pc{background:hsl(var(--h) var(--s) var(--l));border-radius:3px}\n",
".sw{display:inline-block;width:.7rem;height:.7rem;border-radius:2px;"
"background:hsl(var(--h) var(--c,55%) var(--sw));margin-right:.3rem;"
"vertical-align:-.05rem}\n",
".L0{--h:212}.L1{--h:28}.L2{--h:140}.L3{--h:275}.L4{--h:178}.L5{--h:350}"
".L6{--h:318}.L7{--h:50}.L8{--h:95}.L9{--h:195}.L10{--h:245}.L11{--h:12}"
".Ln{--h:220;--s:0%;--c:0%}\n",
"ul.pieces{list-style:none;margin:.3rem 0;padding:0;font-size:.86rem}\n",
"ul.pieces li{padding:.1rem 0;display:flex;flex-wrap:wrap;gap:0 .7rem}\n",
".gone{color:var(--mut)}.gone .key{text-decoration:line-through}\n",
".why{color:var(--warn);background:var(--warnbg);padding:0 .35rem;"
"border-radius:4px;font-size:.8rem}\n",
"li.out{margin:.2rem 0 .2rem 1.2rem;padding:.2rem .7rem;border:1px dashed "
"var(--line);border-radius:6px;color:var(--mut);font-size:.86rem}\n",
"li.cut{margin:.6rem 0;text-align:center;font-size:.8rem;color:var(--acc);"
"border-top:2px dashed var(--acc);line-height:0}\n",
"li.cut span{background:var(--bg);padding:0 .6rem}\n",
"del{background:var(--del);color:var(--delfg);text-decoration:"
"line-through;border-radius:2px}ins{background:var(--ins);color:"
"var(--insfg);text-decoration:none;border-radius:2px}\n",
".stages{margin-top:.5rem;border-top:1px solid var(--line);"
"padding-top:.3rem}\n",
".stage h4 small,.same{color:var(--mut);font-weight:normal}\n",
".same{font-size:.82rem;margin:.3rem 0}\n",
".by{font-size:.82rem;margin:.3rem 0 0}\n",
"del.ws,ins.ws{padding:0 .15rem}\n",
".tablist{display:flex;gap:.2rem;flex-wrap:wrap;margin:.3rem 0}\n",
".tablist button{font:inherit;font-size:.82rem;color:inherit;cursor:"
"pointer;background:var(--bg);border:1px solid var(--line);"
"border-radius:5px 5px 0 0;padding:.1rem .6rem}\n",
".tablist button[aria-selected=true]{background:var(--card);"
"border-bottom-color:var(--card);font-weight:600}\n",
".tablist button.changed::after{content:\" \\25CF\";color:var(--acc)}\n",
".js .stage>h4{display:none}\n",
".bar{display:flex;height:1.4rem;border-radius:5px;overflow:hidden;"
"border:1px solid var(--line);background:var(--card);position:relative}\n",
".bar>span{display:block;height:100%;min-width:1px;"
"background:hsl(var(--h) var(--c,55%) var(--sw))}\n",
".bar>span+span{border-left:1px solid var(--card)}\n",
".bar .mark{position:absolute;top:0;bottom:0;width:0;min-width:0;"
"border-left:3px solid var(--fg);box-shadow:0 0 0 1px var(--card);"
"background:none;border-radius:0}\n",
"ul.legend{list-style:none;padding:0;margin:.4rem 0;display:flex;"
"flex-wrap:wrap;gap:.2rem 1.2rem;font-size:.86rem}\n",
"table{border-collapse:collapse;width:100%;font-size:.85rem;"
"background:var(--card)}\n",
"th,td{border-bottom:1px solid var(--line);padding:.25rem .45rem;"
"text-align:left;vertical-align:top}\n",
"th{font-weight:600;background:var(--bg)}\n",
"td.num,th.num{text-align:right;white-space:nowrap}\n",
"tr.off td{color:var(--mut)}.yes{color:var(--insfg);font-weight:600}\n",
".tw{overflow-x:auto;border:1px solid var(--line);border-radius:7px}\n",
".sides{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}\n",
".sides>div{min-width:0}\n",
".side-h{display:grid;grid-template-columns:1fr 1fr;gap:.6rem;"
"font-weight:600;color:var(--mut);font-size:.85rem}\n",
".empty{color:var(--mut);font-style:italic}\n",
".kind{font-size:.75rem;font-weight:600;text-transform:uppercase;"
"letter-spacing:.03em}\n",
".k-added{color:var(--insfg)}.k-removed{color:var(--delfg)}\n",
"@media (max-width:50rem){.sides,.side-h{grid-template-columns:1fr}}\n",
NULL,
};

static const char *const script[] = {
"(function(){\"use strict\";\n",
"var d=document;d.documentElement.classList.add(\"js\");\n",
"function tabs(box,n){var ps=box.querySelectorAll(\":scope>.stage\"),"
"bs=[],l=d.createElement(\"div\");\n",
"l.className=\"tablist\";l.setAttribute(\"role\",\"tablist\");"
"l.setAttribute(\"aria-label\",\"Stages\");box.insertBefore(l,ps[0]);\n",
"function pick(k,f){for(var i=0;i<ps.length;i++){var on=i===k;"
"bs[i].setAttribute(\"aria-selected\",on?\"true\":\"false\");"
"bs[i].tabIndex=on?0:-1;ps[i].hidden=!on;}if(f)bs[k].focus();}\n",
"ps.forEach(function(p,i){var b=d.createElement(\"button\");"
"b.type=\"button\";b.setAttribute(\"role\",\"tab\");b.id=p.id+\"-t\";"
"b.setAttribute(\"aria-controls\",p.id);b.textContent=p.dataset.label;\n",
"if(p.classList.contains(\"changed\"))b.className=\"changed\";"
"p.setAttribute(\"role\",\"tabpanel\");"
"p.setAttribute(\"aria-labelledby\",b.id);\n",
"b.addEventListener(\"click\",function(){pick(i);});\n",
"b.addEventListener(\"keydown\",function(e){var k=e.key===\"ArrowRight\"?"
"i+1:e.key===\"ArrowLeft\"?i-1:e.key===\"Home\"?0:e.key===\"End\"?"
"ps.length-1:-2;if(k===-2)return;e.preventDefault();"
"pick((k+ps.length)%ps.length,true);});\n",
"bs.push(b);l.appendChild(b);});var k=ps.length-1;"
"while(k>0&&!ps[k].classList.contains(\"changed\"))k--;pick(k);}\n",
"function later(x){var s=x.querySelectorAll(\".stages\");"
"for(var i=0;i<s.length;i++)if(!s[i].dataset.on){s[i].dataset.on=1;"
"tabs(s[i]);}}\n",
"d.querySelectorAll(\"details[open]\").forEach(later);\n",
"d.addEventListener(\"toggle\",function(e){if(e.target.open)"
"later(e.target);},true);\n",
"var f=d.getElementById(\"filters\");if(!f)return;f.hidden=false;\n",
"var role=d.getElementById(\"f-role\"),layer=d.getElementById(\"f-layer\"),"
"q=d.getElementById(\"f-q\"),ch=d.getElementById(\"f-changed\"),"
"out=d.getElementById(\"f-count\"),els=d.querySelectorAll(\".f\"),"
"total=d.querySelectorAll(\".msg\").length;\n",
"function apply(){var r=role.value,y=layer.value,"
"s=q.value.trim().toLowerCase(),c=ch&&ch.checked,n=0;\n",
"els.forEach(function(e){var ok=(!r||!e.dataset.role||"
"e.dataset.role===r)&&(!y||(\" \"+(e.dataset.layers||\"\")+\" \")"
".indexOf(\" \"+y+\" \")>=0)&&(!c||e.classList.contains(\"changed\"))&&"
"(!s||e.textContent.toLowerCase().indexOf(s)>=0);\n",
"e.hidden=!ok;if(ok&&s){var x=e.querySelector(\"details\");"
"if(x)x.open=true;}if(ok&&e.classList.contains(\"msg\"))n++;});\n",
"out.value=n+\" of \"+total+\" \"+out.dataset.what;}\n",
"[role,layer,ch].forEach(function(e){if(e)e.addEventListener(\"change\","
"apply);});q.addEventListener(\"input\",apply);\n",
"f.addEventListener(\"submit\",function(e){e.preventDefault();});\n",
"function all(o){d.querySelectorAll(\"li.msg>details\").forEach("
"function(x){x.open=o;});}\n",
"d.getElementById(\"f-open\").addEventListener(\"click\",function(){"
"all(true);});\n",
"d.getElementById(\"f-close\").addEventListener(\"click\",function(){"
"all(false);});\n",
"d.addEventListener(\"keydown\",function(e){if(e.key===\"/\"&&"
"d.activeElement.tagName!==\"INPUT\"){e.preventDefault();q.focus();}});\n",
"out.value=total+\" of \"+total+\" \"+out.dataset.what;})();\n",
NULL,
};

void
emit_html_esc(struct buf *out, const char *s, size_t len)
{
	size_t i, from = 0;
	const char *rep;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case '\0': rep = "\xef\xbf\xbd"; break;  /* U+FFFD */
		default: continue;
		}
		buf_put(out, s + from, i - from);
		buf_puts(out, rep);
		from = i + 1;
	}
	buf_put(out, s + from, len - from);
}

void
emit_html_escs(struct buf *out, const char *s)
{
	emit_html_esc(out, s, strlen(s));
}

void
emit_html_url(struct buf *out, const char *path, size_t len)
{
	size_t i;

	if (!len || path[0] != '/')
		buf_puts(out, "./");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c <= ' ' || c == 0x7f || strchr("%#?\"'<>\\&`", c))
			buf_printf(out, "%%%02X", c);
		else
			buf_putc(out, c);
	}
}

void
emit_html_head(struct buf *out, const char *title)
{
	size_t i;

	buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP
	    "\">\n<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light "
	    "dark\">\n<meta name=\"generator\" content=\"strata\">\n<title>");
	emit_html_escs(out, title);
	buf_puts(out, "</title>\n<style>\n");
	for (i = 0; style[i]; i++)
		buf_puts(out, style[i]);
	buf_puts(out, "</style>\n</head>\n<body>\n");
}

void
emit_html_foot(struct buf *out)
{
	size_t i;

	buf_puts(out, "<script>\n");
	for (i = 0; script[i]; i++)
		buf_puts(out, script[i]);
	buf_puts(out, "</script>\n</body>\n</html>\n");
}

/* --- the word diff --- */

struct tok {
	const char *s;
	size_t len;
};

/* Words (ASCII letters, digits, _), runs of spaces, and single other
 * characters: a CJK text differs character by character. */
static struct tok *
tokens(const char *s, size_t len, size_t *n)
{
	struct tok *v = NULL;
	size_t cap = 0, i = 0, j;
	uint32_t cp;

	*n = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		j = i + 1;
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
		    (c >= 'A' && c <= 'Z') || c == '_') {
			while (j < len && ((s[j] >= '0' && s[j] <= '9') ||
			    (s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' &&
			    s[j] <= 'Z') || s[j] == '_'))
				j++;
		} else if (c == ' ' || c == '\t') {
			while (j < len && (s[j] == ' ' || s[j] == '\t'))
				j++;
		} else if (c >= 0x80) {
			size_t k = utf8_decode(s + i, len - i, &cp);

			j = i + (k ? k : 1);
		}
		v = vec_grow(v, &cap, *n + 1, sizeof(*v));
		v[*n].s = s + i;
		v[(*n)++].len = j - i;
		i = j;
	}
	return v;
}

static bool
tok_eq(const struct tok *a, const struct tok *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static bool
blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' &&
		    s[i] != '\r')
			return false;
	return true;
}

/* A changed run; white space alone is made visible (a trimmed newline
 * would show nothing). */
static void
put_run(struct buf *out, const char *s, size_t len)
{
	size_t i;

	if (!blank(s, len)) {
		emit_html_esc(out, s, len);
		return;
	}
	for (i = 0; i < len; i++)
		buf_puts(out, s[i] == '\n' ? "\xe2\x86\xb5\n" :    /* ↵ */
		    s[i] == '\t' ? "\xe2\x86\x92" :                 /* → */
		    s[i] == '\r' ? "\xe2\x90\x8d" : "\xc2\xb7");   /* ␍ · */
}

/* A run of deleted text; titled with the macro it holds, if any. */
static void
put_del(struct buf *out, const char *s, size_t len)
{
	const char *m = NULL, *e = NULL;
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if (s[i] == '{' && s[i + 1] == '{') {
			m = s + i;
			break;
		}
	if (m)
		e = strstr(m, "}}");
	if (m && e && e + 2 <= s + len) {
		buf_puts(out, "<del title=\"macro ");
		emit_html_esc(out, m, (size_t)(e + 2 - m));
		buf_puts(out, "\">");
	} else if (blank(s, len)) {
		buf_puts(out, "<del class=\"ws\" title=\"white space\">");
	} else {
		buf_puts(out, "<del>");
	}
	put_run(out, s, len);
	buf_puts(out, "</del>");
}

static void
put_ins(struct buf *out, const char *s, size_t len)
{
	buf_puts(out, blank(s, len) ? "<ins class=\"ws\" title=\"white "
	    "space\">" : "<ins>");
	put_run(out, s, len);
	buf_puts(out, "</ins>");
}

/* The middle of a diff: a[0..n) went, b[0..m) came, as a run each
 * (the pieces of one side are contiguous in their text). */
static void
put_change(struct buf *out, const struct tok *a, size_t n,
    const struct tok *b, size_t m, enum emit_html_side side)
{
	if (n && side != EMIT_HTML_NEW)
		put_del(out, a[0].s, (size_t)(a[n - 1].s + a[n - 1].len -
		    a[0].s));
	if (m && side != EMIT_HTML_OLD)
		put_ins(out, b[0].s, (size_t)(b[m - 1].s + b[m - 1].len -
		    b[0].s));
}

void
emit_html_diff(struct buf *out, const char *a, size_t alen, const char *b,
    size_t blen, enum emit_html_side side)
{
	size_t na, nb, pre = 0, suf = 0, n, m, i, j, ia, ib;
	struct tok *ta = tokens(a, alen, &na), *tb = tokens(b, blen, &nb);
	uint32_t *t;

	while (pre < na && pre < nb && tok_eq(&ta[pre], &tb[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	    tok_eq(&ta[na - 1 - suf], &tb[nb - 1 - suf]))
		suf++;
	/* the shared start */
	if (pre)
		emit_html_esc(out, side == EMIT_HTML_OLD ? a : b,
		    (size_t)(ta[pre - 1].s + ta[pre - 1].len - a));
	n = na - pre - suf;
	m = nb - pre - suf;
	if (n && m && (n + 1) * (m + 1) <= LCS_MAX) {
		/* t[i][j]: the longest common run of the middles from
		 * a's token i and b's token j on */
		t = xcalloc((n + 1) * (m + 1), sizeof(*t));
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				t[i * (m + 1) + j] = tok_eq(&ta[pre + i],
				    &tb[pre + j]) ? t[(i + 1) * (m + 1) + j +
				    1] + 1 : t[(i + 1) * (m + 1) + j] >
				    t[i * (m + 1) + j + 1] ? t[(i + 1) *
				    (m + 1) + j] : t[i * (m + 1) + j + 1];
		i = j = 0;
		while (i < n || j < m) {
			ia = i;
			ib = j;
			while (i < n && j < m && tok_eq(&ta[pre + i],
			    &tb[pre + j])) {
				i++;
				j++;
			}
			if (i > ia) {
				const struct tok *k = side == EMIT_HTML_OLD ?
				    &ta[pre + ia] : &tb[pre + ib];
				const struct tok *z = side == EMIT_HTML_OLD ?
				    &ta[pre + i - 1] : &tb[pre + j - 1];

				emit_html_esc(out, k->s, (size_t)(z->s +
				    z->len - k->s));
				continue;
			}
			while (i < n || j < m) {
				if (i < n && j < m && tok_eq(&ta[pre + i],
				    &tb[pre + j]))
					break;
				if (j >= m || (i < n && t[(i + 1) * (m + 1) +
				    j] >= t[i * (m + 1) + j + 1]))
					i++;
				else
					j++;
			}
			put_change(out, ta + pre + ia, i - ia, tb + pre + ib,
			    j - ib, side);
		}
		free(t);
	} else {
		put_change(out, ta + pre, n, tb + pre, m, side);
	}
	if (suf) {
		const struct tok *k = side == EMIT_HTML_OLD ? &ta[na - suf] :
		    &tb[nb - suf];
		const char *end = side == EMIT_HTML_OLD ? a + alen : b + blen;

		emit_html_esc(out, k->s, (size_t)(end - k->s));
	}
	free(ta);
	free(tb);
}

/* --- names, colours, the filter bar --- */

const char *
emit_html_slug(struct arena *a, const char *name)
{
	char *s = arena_strdup(a, name), *p;

	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 'A' && c <= 'Z')
			*p = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c >= 0x80))
			*p = '-';
	}
	return s;
}

const char *
emit_html_hue(const char *name)
{
	static const struct {
		const char *name, *cls;
	} known[] = {
		/* profile layers */
		{ "persona", "L0" }, { "prompt", "L10" }, { "format", "L1" },
		{ "skill", "L2" }, { "tools", "L3" }, { "context", "L4" },
		{ "inject", "L5" }, { "agent", "L6" }, { "cli", "L7" },
		{ "template", "L8" }, { "session", "L11" },
		{ "history", "Ln" }, { "turn", "L9" },
		/* SillyTavern sources */
		{ "preset", "L10" }, { "card", "L0" }, { "world info", "L2" },
		{ "chat", "Ln" }, { "settings", "L4" }, { "strata", "L6" },
		{ "profile", "L5" }, { "author's note", "L1" },
	};
	static const char *const spread[] = { "L3", "L6", "L8", "L11" };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(name, known[i].name) == 0)
			return known[i].cls;
	return spread[hash_fnv1a64(HASH_FNV_INIT, name, strlen(name)) %
	    (sizeof(spread) / sizeof(spread[0]))];
}

const char *
emit_html_source(const char *id, const char *source)
{
	return strncmp(id, "authorsNote", 11) == 0 ? "author's note" : source;
}

void
emit_html_names_add(struct emit_html_names *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return;
	l->v = vec_grow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = name;
}

void
emit_html_names_free(struct emit_html_names *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static void
options(struct buf *out, struct arena *a, const struct emit_html_names *l,
    bool slug)
{
	size_t i;

	buf_puts(out, "<option value=\"\">all</option>");
	for (i = 0; i < l->n; i++) {
		buf_puts(out, "<option value=\"");
		emit_html_escs(out, slug ? emit_html_slug(a, l->v[i]) :
		    l->v[i]);
		buf_puts(out, "\">");
		emit_html_escs(out, l->v[i]);
		buf_puts(out, "</option>");
	}
}

void
emit_html_filters(struct buf *out, struct arena *a,
    const struct emit_html_names *roles,
    const struct emit_html_names *layers, const char *what, bool changed)
{
	buf_puts(out, "<form id=\"filters\" class=\"filters\" hidden "
	    "role=\"search\" aria-label=\"Filter\">\n<label>Role <select "
	    "id=\"f-role\">");
	options(out, a, roles, false);
	buf_puts(out, "</select></label>\n<label>Layer or source <select "
	    "id=\"f-layer\">");
	options(out, a, layers, true);
	buf_puts(out, "</select></label>\n<label>Text <input type=\"search\" "
	    "id=\"f-q\" placeholder=\"search (press /)\"></label>\n");
	if (changed)
		buf_puts(out, "<label><input type=\"checkbox\" "
		    "id=\"f-changed\"> changed only</label>\n");
	buf_printf(out, "<button type=\"button\" id=\"f-open\">Expand all"
	    "</button> <button type=\"button\" id=\"f-close\">Collapse all"
	    "</button>\n<output id=\"f-count\" data-what=\"%s\"></output>\n"
	    "</form>\n", what);
}
