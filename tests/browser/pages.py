#!/usr/bin/env python3
"""pages.py BIN GOLDEN SHARED OUT: write the inspector pages the browser
suite loads, and print their list (inspect.mjs's PAGES.json).

The pages: the html-profile, html-tavern, html-diff, html-diff-tavern
and html-diff-tavern-items golden cases, run again into OUT; what each
should hold (messages, items) is read from the same build as JSON
(strata debug --json, strata diff --json) or, for a diff of SillyTavern
builds, found here from the two documents, never written down by
hand.  With SHARED's SillyTavern samples, also the stress
page: the Seraphina card, the default preset, a 400-message chat, 40
regex scripts (the 4 samples and 36 made here) and a world of 300
entries, which must be under 3 MB (inspect.mjs) and render in under a
second (render.mjs, a benchmark: tests/bench/inspector.sh).
"""
import json, os, random, shlex, subprocess, sys

bin, golden, shared, out = (os.path.abspath(a) for a in sys.argv[1:5])


def run(args, cwd, ok=(0,)):
    p = subprocess.run([bin] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode not in ok:
        sys.exit("pages.py: strata %s failed (%d): %s" % (
            " ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout


def case_args(name):
    with open(os.path.join(golden, name, "args")) as f:
        return shlex.split(f.read())


def without_html(args):
    i = args.index("-f")
    return args[:i] + args[i + 2:]


def write(name, data):
    path = os.path.join(out, name + ".html")
    with open(path, "wb") as f:
        f.write(data)
    return path


def aligned_rows(old, new):
    """The rows of the diff page's side-by-side view: its alignment of
    equal messages (role and content), done here independently."""
    key = lambda m: (m["role"], m["content"])
    a, b = [key(m) for m in old], [key(m) for m in new]
    n, m = len(a), len(b)
    t = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            t[i][j] = t[i + 1][j + 1] + 1 if a[i] == b[j] else \
                max(t[i + 1][j], t[i][j + 1])
    i = j = rows = 0
    while i < n or j < m:
        if i < n and j < m and a[i] == b[j]:
            rows, i, j = rows + 1, i + 1, j + 1
            continue
        gi, gj = i, j
        while i < n or j < m:
            if i < n and j < m and a[i] == b[j]:
                break
            if j >= m or (i < n and t[i + 1][j] >= t[i][j + 1]):
                i += 1
            else:
                j += 1
        rows += max(i - gi, j - gj)
    return rows


def budget_counts(doc):
    """What SillyTavern's budget counted for each message of one item
    (its text and its overhead), by message number: the page's figures
    for those messages must add up to it."""
    per = {}
    for it in doc["items"]:
        if it["message"] is not None:
            per.setdefault(it["message"], []).append(it["tokens"])
    return {str(m): t[0] for m, t in per.items() if len(t) == 1}


def item_links(doc, cwd):
    """Each SillyTavern item's link as the page must show it, in the
    items' order: what it reads (file:line, a card's field after it, as
    items[].source says) and the file it targets (a text read from
    inside a file, "card.png[ccv3]", targets the file; a relative path
    is cwd's); None for an item with no source, which shows none."""
    links = []
    for it in doc["items"]:
        s = it["source"]
        if s is None:
            links.append({"id": it["id"], "where": None})
            continue
        where = s["file"]
        if s["line"] is not None:
            where += ":%d" % s["line"]
        if s.get("field"):
            where += " (%s)" % s["field"]
        f = s["file"]
        if f.endswith("]") and "[" in f and not os.path.exists(
                os.path.join(cwd, f)):
            f = f[:f.rindex("[")]
        links.append({"id": it["id"], "where": where, "file": f})
    return links


def item_changes(old, new):
    """The item-level changes of a diff of two SillyTavern builds, found
    here from the two documents, independently of strata's review: each
    as [group, kind, id], the group being the item's source (its origin;
    documents saved before items had one name it source) and the
    Author's Note a source of its own, as on the page.  Items match by
    identifier (the n-th of an id with the n-th); an item moved when it
    is in the request on both sides but off a longest common subsequence
    of the two request orders (by message, then place in it); a text
    changed when the texts sent (the last stage) differ and the item is
    in the request on both sides or on neither."""
    def items(doc):
        seen, out = {}, []
        for it in doc["items"]:
            n = seen.get(it["id"], 0)
            seen[it["id"]] = n + 1
            out.append(((it["id"], n), it))
        return out

    def group(it):
        if it["id"].startswith("authorsNote"):
            return "author's note"
        o = it.get("origin")
        return o if isinstance(o, str) else it["source"]

    def order(doc, its):
        place = {}
        for k, it in its:
            m = it["message"]
            if m is not None and it["reason"] is None:
                ids = doc["messages"][m - 1]["items"]
                if it["id"] in ids:
                    place[k] = (m, ids.index(it["id"]))
        return sorted(place, key=place.get)

    o_its, n_its = items(old), items(new)
    o_by = dict(o_its)
    a, b = order(old, o_its), order(new, n_its)
    t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            t[i][j] = t[i + 1][j + 1] + 1 if a[i] == b[j] else \
                max(t[i + 1][j], t[i][j + 1])
    on, i, j = set(), 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            on.add(b[j])
            i, j = i + 1, j + 1
        elif t[i + 1][j] >= t[i][j + 1]:
            i += 1
        else:
            j += 1
    out = []
    for k, n in n_its:
        o = o_by.get(k)
        if o is None:
            out.append([group(n), "added", k[0]])
            continue
        oa, na = o["reason"] is None, n["reason"] is None
        if oa and not na or (not oa and not na and
                             o["reason"] != n["reason"]):
            out.append([group(n), "skipped", k[0]])
        elif na and not oa:
            out.append([group(n), "unskipped", k[0]])
        if oa == na and o["stages"]["regex-post"] != \
                n["stages"]["regex-post"]:
            out.append([group(n), "changed", k[0]])
        if k in b and k in a and k not in on:
            out.append([group(n), "moved", k[0]])
    for k, o in o_its:
        if k not in dict(n_its):
            out.append([group(o), "removed", k[0]])
    return sorted(out)


pages = []

# --- a profile build ---------------------------------------------------
name = "html-profile"
cwd = os.path.join(golden, name)
args = case_args(name)
doc = json.loads(run(without_html(args) + ["--json"], cwd))
pages.append({
    "name": name, "html": write(name, run(args, cwd)),
    "png": os.path.join(out, name + ".png"),
    "messages": len(doc["messages"]),
    "items": [["#left-out ul.pieces > li",
               sum(e["status"] != "active" for e in doc["entries"])],
              ["li.msg ul.pieces > li:not(.gone)",
               sum(max(len(m["entries"]), 1) for m in doc["messages"])]],
    "stages": True, "injected": "<script>alert('chat')</script>",
    "search": "灯塔"})

# --- a profile build whose budget cut entries ---------------------------
# Each entry the budget truncated or gave its fallback: its message's
# stages end with a "budget" stage showing the text that was sent.
name = "html-budget-cuts"
cwd = os.path.join(golden, name)
args = case_args(name)
doc = json.loads(run(without_html(args) + ["--json"], cwd))
ents = {e["key"]: e for e in doc["entries"]}
pages.append({
    "name": name, "html": write(name, run(args, cwd)),
    "png": os.path.join(out, name + ".png"),
    "messages": len(doc["messages"]),
    "items": [["#left-out ul.pieces > li",
               sum(e["status"] != "active" for e in doc["entries"])]],
    "budgetStages": [{"key": k["key"], "message": ents[k["key"]]["message"],
                      "cut": k["cut"], "at": k.get("at"),
                      "tokens": k["tokens"], "kept": k["kept"],
                      "sent": ents[k["key"]]["content"]}
                     for k in doc["budget"]["cuts"]
                     if k["cut"] in ("fallback", "truncated")],
    "stages": True, "search": "archive"})

# --- a SillyTavern build -----------------------------------------------
name = "html-tavern"
cwd = os.path.join(golden, name)
args = case_args(name)
doc = json.loads(run(without_html(args) + ["--json"], cwd))
pages.append({
    "name": name, "html": write(name, run(args, cwd)),
    "png": os.path.join(out, name + ".png"),
    "messages": len(doc["messages"]),
    "items": [["tr.item", len(doc["items"])],
              ["li.out", sum(i["message"] is None for i in doc["items"])],
              ["tr.wi-entry", len(doc["world_info"]["considered"])]],
    "stages": True, "injected": "<script>alert(\"turn\")</script>",
    "search": "lamp", "counts": budget_counts(doc),
    "links": item_links(doc, cwd)})

# --- a diff --------------------------------------------------------------
name = "html-diff"
cwd = os.path.join(golden, name)
args = case_args(name)
i = args.index("--profiles")
a_toml, b_toml = args[i + 1], args[i + 2]
rest = [x for x in without_html(args) if x not in ("diff", "--profiles",
                                                     a_toml, b_toml)]
old = json.loads(run(["debug", a_toml, "--json"] + rest, cwd))
new = json.loads(run(["debug", b_toml, "--json"] + rest, cwd))
changes = json.loads(run(without_html(args) + ["--json"], cwd, (0, 1)))
pages.append({
    "name": name, "html": write(name, run(args, cwd, (0, 1))),
    "png": os.path.join(out, name + ".png"),
    "messages": aligned_rows(old["messages"], new["messages"]),
    "items": [["#changes li", len(changes["changes"])]],
    "stages": False, "injected": "<script>alert('diff')</script>",
    "search": "3 + 3"})

# --- diffs of two saved SillyTavern builds ----------------------------
# html-diff-tavern: a regex script and the user's text changed (saved
# before items had an origin); html-diff-tavern-items: the preset changed
# (an item of each kind of change: added, removed, text, moved, status).
for name, search in (("html-diff-tavern", "old lamp"),
                     ("html-diff-tavern-items", "raining")):
    cwd = os.path.join(golden, name)
    args = case_args(name)
    docs = [json.load(open(os.path.join(cwd, f), encoding="utf-8"))
            for f in ("old.json", "new.json")]
    pages.append({
        "name": name, "html": write(name, run(args, cwd, (0, 1))),
        "png": os.path.join(out, name + ".png"),
        "messages": aligned_rows(docs[0]["messages"], docs[1]["messages"]),
        # the Author's Note is a source of its own, as on the build's
        # page
        "items": [['li.msg[data-layers~="author-s-note"]',
                   sum(any(i.startswith("authorsNote") for i in m["items"])
                       for m in docs[1]["messages"])]],
        "changes": item_changes(docs[0], docs[1]),
        "stages": False, "injected": "<script>alert(\"turn\")</script>",
        "search": search})

# --- the 400-message stress build --------------------------------------
st = os.path.join(shared, "samples", "sillytavern")
if os.path.isdir(st):
    WORDS = ("the forest glade light tea wound magic amber eyes soft warm "
             "quiet night path stone river herb cottage fire shadow beast "
             "guardian rest heal voice hand smile gentle careful old tree "
             "wind rain moon lantern blanket cup bread journey sword "
             "whisper").split()
    rnd = random.Random(26)

    def sentence():
        s = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 18)))
        s = s[0].upper() + s[1:] + rnd.choice(".!?.")
        r = rnd.random()
        return "*" + s + "*" if r < 0.3 else '"' + s + '"' if r < 0.6 \
            else s

    tmp = os.path.join(out, "stress")
    os.makedirs(tmp, exist_ok=True)
    chat = os.path.join(tmp, "chat.jsonl")
    with open(chat, "w") as f:
        f.write(json.dumps({"user_name": "unused",
                            "character_name": "unused",
                            "chat_metadata": {}}) + "\n")
        for n in range(400):
            user = n % 2 == 1
            text = " ".join(sentence() for _ in range(
                rnd.randint(1, 3) if user else rnd.randint(3, 8)))
            if n % 7 == 0:
                text += " {{char}} looks at {{user}}."
            if n == 201:
                text += " <script>alert('stress')</script>"
            f.write(json.dumps({"name": "User" if user else "Seraphina",
                                "is_user": user, "is_system": False,
                                "mes": text, "extra": {}}) + "\n")
    finds = [r"/\bteas?\b/gi", r"/\*([^*]+)\*/g", r'/"([^"]*)"/g',
             r"/\s{2,}/g", r"/(moon|lantern)light/i", r"/herb(s)?/giu",
             r"/\bold\b/g", r"/\b(\w+) \1\b/gi"]
    places = [[1], [2], [1, 2], [2], [5], [1, 2, 5]]
    scripts = [{"id": "stress-%02d" % i, "scriptName": "Stress %d" % i,
                "findRegex": finds[i % len(finds)],
                "replaceString": ["$1", "[$1]", "$&", "<$1>"][i % 4],
                "placement": places[i % len(places)],
                "disabled": i % 12 == 11, "markdownOnly": False,
                "promptOnly": i % 3 == 0, "substituteRegex": 0,
                "minDepth": None, "maxDepth": 10 + i if i % 4 == 2
                else None} for i in range(36)]
    rx = os.path.join(tmp, "scripts.json")
    with open(rx, "w") as f:
        json.dump(scripts, f)
    entries = {}
    for u in range(300):
        entries[str(u)] = {
            "uid": u, "key": [WORDS[u % len(WORDS)] + ("" if u < 40 else
                                                       str(u))],
            "keysecondary": [], "comment": "entry %d" % u,
            "content": "Lore %d: %s" % (u, sentence()),
            "constant": u % 50 == 0, "selective": True,
            "selectiveLogic": 0, "order": u, "position": u % 2,
            "disable": u % 37 == 36, "probability": 100,
            "useProbability": True, "depth": 4,
            "group": "g%d" % (u % 5) if u % 9 == 0 else "",
            "groupOverride": False, "groupWeight": 100,
            "sticky": 0, "cooldown": 0, "delay": 0}
    world = os.path.join(tmp, "stress-lore.json")
    with open(world, "w") as f:
        json.dump({"entries": entries}, f)
    settings = os.path.join(tmp, "settings.json")
    with open(settings, "w") as f:
        json.dump({"world_info_settings": {
            "world_info_depth": 4, "world_info_budget": 25,
            "world_info_budget_cap": 0,
            "world_info": {"globalSelect": ["stress-lore"]}}}, f)
    # the default preset, with room for the whole chat
    with open(os.path.join(st, "presets",
                           "openai-preset-Default.v1.15.0.json")) as f:
        preset = json.load(f)
    preset["openai_max_context"] = 200000
    preset_path = os.path.join(tmp, "preset.json")
    with open(preset_path, "w") as f:
        json.dump(preset, f)
    args = ["debug", "--card", os.path.join(st, "cards",
                                             "default_Seraphina.png"),
            "--preset", preset_path,
            "--settings", settings, "--world", world, "--chat", chat]
    for r in sorted(os.listdir(os.path.join(st, "regex"))):
        args += ["--regex", os.path.join(st, "regex", r)]
    args += ["--regex", rx, "-u", "Good morning, Seraphina. Any tea left?",
             "--now", "2026-07-12T06:00:00Z", "--set",
             "output.model=gpt-4o"]
    doc = json.loads(run(args + ["--json"], tmp))
    pages.append({
        "name": "html-stress", "html": write("html-stress",
                                            run(args + ["-f", "html"], tmp)),
        "png": os.path.join(out, "html-stress.png"),
        "messages": len(doc["messages"]),
        "items": [["tr.item", len(doc["items"])],
                  ["tr.wi-entry", len(doc["world_info"]["considered"])]],
        "stages": True, "injected": "<script>alert('stress')</script>",
        "counts": budget_counts(doc), "links": item_links(doc, tmp),
        "search": "lantern", "maxBytes": 3 * 1024 * 1024, "maxMs": 1000})
else:
    print("pages.py: no %s: the stress page is skipped" % st,
          file=sys.stderr)

print(json.dumps(pages, ensure_ascii=False, indent=1))
