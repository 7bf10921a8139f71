"""Report of a benchmark run: results.json, REPORT.md and SVG charts.

Used by run.py; also runnable on its own to redo the report of a saved run:
    python3 bench/report.py RESULTS.json OUT_DIR
"""
import html
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson", "binn"]
TESTS = ["write", "tree", "incremental", "serialize"]
BOUND_NAMES = {"memcpy": "memcpy of the output", "unchecked": "a writer without checks",
               "utf8-validate": "UTF-8 validation of the input"}
# The bounds that a library's time is given as a multiple of (x bound);
# the writer without checks has its row only.
RATIO_BOUNDS = ("memcpy", "utf8-validate")
FORMAT_COLORS = {"json": "#4e79a7", "msgpack": "#f28e2b", "cbor": "#59a14f", "bson": "#b07aa1",
                 "ubjson": "#76b7b2", "binn": "#edc948"}
HISTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "history.json")


def fmt_time(ns):
    if ns is None:
        return ""
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_size(n):
    if n is None:
        return ""
    return "%.0f KB" % (n / 1024.0) if n >= 10240 else "%.1f KB" % (n / 1024.0)


def is_bound(r):
    return r["library"] in BOUND_NAMES


def label(r):
    return BOUND_NAMES.get(r["library"], r["library"])


def mbps(res, ns=None):
    ns = ns if ns is not None else res.get("median_ns")
    if res.get("status") != "ok" or not res.get("bytes") or not ns:
        return None
    return res["bytes"] / (ns * 1e-9) / 1e6


def net_ns(r):
    """Time without the hashing the test does (the bound's UTF-8 row does none)."""
    return r["median_ns"] - (r.get("hash_ns") or 0.0)


def interval_pct(r):
    """The 95 % interval of the median as -x%/+y%."""
    if r.get("lo_ns") is None or not r.get("median_ns"):
        return ""
    m = r["median_ns"]
    return "−%.1f/+%.1f%%" % (100.0 * (m - r["lo_ns"]) / m, 100.0 * (r["hi_ns"] - m) / m)


def empty_sizes(doc):
    sizes = {}
    for p in doc["programs"]:
        if p["library"] == "empty" and p.get("size"):
            sizes[p["language"] if p["language"] == "Rust" else "C"] = p["size"]
    return sizes


def program(doc, name):
    for p in doc["programs"]:
        if p["program"] == name:
            return p
    return {}


def rows_for(doc, dataset, test):
    """Results of one data set and test: ok ones by median time, then the rest."""
    rs = [r for r in doc["results"] if r["dataset"] == dataset and r["test"] == test]
    ok = sorted([r for r in rs if r["status"] == "ok"], key=lambda r: r["median_ns"])
    bad = sorted([r for r in rs if r["status"] != "ok"], key=lambda r: (r["format"], r["library"]))
    return ok, bad


def bound_of(doc, r):
    """The bound row measured in the same cell as r, if it ran: memcpy or
    UTF-8 validation (the writer without checks has its own row only)."""
    for b in doc["results"]:
        if (b["dataset"], b["format"], b["test"]) == (r["dataset"], r["format"], r["test"]) \
                and b["library"] in RATIO_BOUNDS and b["status"] == "ok":
            return b
    return None


def times_bound(doc, r):
    b = bound_of(doc, r)
    if not b or is_bound(r) or net_ns(b) <= 0:
        return ""
    return "%.1fx" % (net_ns(r) / net_ns(b))


def mem_per_byte(r):
    """Peak heap bytes per input byte (Tree rows counted by run.py), or None."""
    if r.get("peak_bytes") is None or not r.get("bytes"):
        return None
    return r["peak_bytes"] / r["bytes"]


def mem_text(r):
    m = mem_per_byte(r)
    return "" if m is None else "%.2f" % m


def memory_summary(doc):
    """{(format, "tree"): {dataset: (sdx B/B, smallest other B/B, its
    library)}} for the Tree cells where sdx and another library were
    counted."""
    out = {}
    for fmt in FORMATS:
        row = {}
        for d in doc["datasets"]:
            rs = [r for r in doc["results"] if r["dataset"] == d["id"] and r["format"] == fmt and r["test"] == "tree"
                  and not is_bound(r) and mem_per_byte(r) is not None]
            sdx = [r for r in rs if r["library"] == "sdx"]
            others = [r for r in rs if r["library"] != "sdx"]
            if sdx and others:
                best = min(others, key=mem_per_byte)
                row[d["id"]] = (mem_per_byte(sdx[0]), mem_per_byte(best), best["library"])
        if row:
            out[(fmt, "tree")] = row
    return out


def memory_cell_text(c, markdown=True):
    sdx, best, lib = c
    if best == 0:  # a library whose tree borrows everything from the input
        txt = "0.00" if sdx == 0 else "–"
    else:
        txt = "%.2f" % (sdx / best)
    if markdown and sdx <= best * 1.10:
        txt = "**%s**" % txt
    return "%s (%.2f vs %.2f B/B, %s)" % (txt, sdx, best, lib)


def memory_md(doc):
    return cells_md(doc, memory_summary(doc), memory_cell_text)


def versus_fastest_other(rs, lib):
    """The cell of library `lib` among the results rs of one cell: the
    median over rounds of its time / the fastest other library's (by
    median; neither sdx nor a bound) in the same round, with its interval
    (stats.ratio_summary) and that library in "vs"; None when either is
    missing."""
    mine = [r for r in rs if r["library"] == lib and r["status"] == "ok" and r.get("rounds_ns")]
    others = [r for r in rs if r["library"] != "sdx" and not is_bound(r) and r["status"] == "ok"
              and r.get("rounds_ns")]
    if not mine or not others:
        return None
    best = min(others, key=lambda r: r["median_ns"])
    c = stats.ratio_summary(mine[0]["rounds_ns"], best["rounds_ns"])
    if c:
        c["vs"] = best["library"]
    return c


def floor_summary(doc):
    """{(format, "write"): {dataset: cell}} for the Write cells with a
    writer without checks (library "unchecked") and another library: the
    floor against the fastest other library (versus_fastest_other), and
    sdx's median over the floor's."""
    out = {}
    for fmt in FORMATS:
        row = {}
        for d in doc["datasets"]:
            rs = [r for r in doc["results"] if r["dataset"] == d["id"] and r["format"] == fmt
                  and r["test"] == "write" and r["status"] == "ok"]
            c = versus_fastest_other(rs, "unchecked")
            if not c:
                continue
            floor = next(r for r in rs if r["library"] == "unchecked")
            sdx = [r for r in rs if r["library"] == "sdx"]
            c["sdx_over_floor"] = sdx[0]["median_ns"] / floor["median_ns"] if sdx else None
            row[d["id"]] = c
        if row:
            out[(fmt, "write")] = row
    return out


def hash_floor_summary(doc):
    """{(format, test): {dataset: cell}} for the Tree and Incremental cells:
    the hashing alone over the fastest other library's time (by median;
    neither sdx nor a bound), round by round from that program's own
    turns, with its interval; the least that any program's time over that
    library's can be, since every program of the test hashes what it
    read. sdx's ratio to the same library beside it."""
    out = {}
    for fmt in FORMATS:
        for test in ("tree", "incremental"):
            row = {}
            for d in doc["datasets"]:
                rs = [r for r in doc["results"] if r["dataset"] == d["id"] and r["format"] == fmt
                      and r["test"] == test and r["status"] == "ok" and r.get("rounds_ns")]
                others = [r for r in rs if r["library"] != "sdx" and not is_bound(r) and r.get("hash_rounds_ns")]
                if not others:
                    continue
                best = min(others, key=lambda r: r["median_ns"])
                c = stats.ratio_summary(best["hash_rounds_ns"], best["rounds_ns"])
                if not c:
                    continue
                c["vs"] = best["library"]
                sdx = [r for r in rs if r["library"] == "sdx"]
                mine = stats.ratio_summary(sdx[0]["rounds_ns"], best["rounds_ns"]) if sdx else None
                c["sdx"] = mine["ratio"] if mine else None
                row[d["id"]] = c
            if row:
                out[(fmt, test)] = row
    return out


def bound_cell_text(c, bold, sdx, markdown=True):
    """A bound's cell: its ratio and interval (in bold when `bold` and
    markdown), the library, and sdx's ratio `sdx` (None: none)."""
    txt = "%.2f [%.2f–%.2f]" % (c["ratio"], c["lo"], c["hi"])
    if markdown and bold:
        txt = "**%s**" % txt
    return "%s vs %s%s" % (txt, c["vs"], "; sdx %.2f" % sdx if sdx is not None else "")


def hash_floor_cell_text(c, markdown=True):
    return bound_cell_text(c, c["lo"] > 0.80, c.get("sdx"), markdown)


def hash_floor_md(doc):
    return cells_md(doc, hash_floor_summary(doc), hash_floor_cell_text)


def floor_cell_text(c, markdown=True):
    return bound_cell_text(c, c["hi"] > 0.80, c.get("sdx_over_floor") or None, markdown)


def floor_md(doc):
    return cells_md(doc, floor_summary(doc), floor_cell_text)


def failure_text(r):
    msg = r.get("message", "")
    if r.get("limit"):
        msg = "%s — %s" % (r["limit"], msg) if msg else r["limit"]
    return msg


def table_md(doc, dataset, test):
    ok, bad = rows_for(doc, dataset, test)
    if not ok and not bad:
        return ""
    empty = empty_sizes(doc)
    mem = test == "tree"
    lines = ["| # | library | format | lang | median | min | MB/s | time − hash | 95% interval | × bound "
             + ("| peak memory B/B " if mem else "") + "| code size (− empty) | check |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if mem else "") + "---:|---|"]
    rank = 0
    for r in ok:
        p = program(doc, r["program"])
        size = p.get("size")
        base = empty.get("Rust" if r["language"] == "Rust" else "C")
        size_txt = fmt_size(size) + (" (%s)" % fmt_size(size - base) if size and base else "")
        if is_bound(r):
            name, num, size_txt = "*%s*" % label(r), "", ""
        else:
            rank += 1
            num = str(rank)
            name = "**sdx**" if r["library"] == "sdx" else r["library"]
        lines.append("| %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s%s | %s |" % (
            num, name, r["format"], r["language"] if not is_bound(r) else "", fmt_time(r["median_ns"]),
            fmt_time(r["min_ns"]), mbps(r), fmt_time(net_ns(r)), interval_pct(r), times_bound(doc, r),
            mem_text(r) + " | " if mem else "", size_txt,
            "bound" if is_bound(r) else "ok, maps without order" if r.get("unordered") else "ok"))
    for r in bad:
        msg = failure_text(r).replace("|", "/").replace("\n", " ")
        if len(msg) > 240:
            msg = msg[:237] + "..."
        name = "**sdx**" if r["library"] == "sdx" else label(r)
        lines.append("| – | %s | %s | %s | | | | | | | %s| **%s**: %s |" % (
            name, r["format"], r["language"], "| " if mem else "", r["status"].upper(), msg))
    return "\n".join(lines)


def summary(doc):
    """{(format, test): {dataset: cell}} where a cell is the run's summary
    (ratio, lo, hi, vs) or a word: no sdx yet, only sdx, sdx failed."""
    ds_ids = [d["id"] for d in doc["datasets"]]
    have = {(s["dataset"], s["format"], s["test"]): s for s in doc.get("summary", [])}
    out = {}
    for fmt in FORMATS:
        for test in TESTS:
            row = {}
            for ds in ds_ids:
                rs = [r for r in doc["results"] if r["dataset"] == ds and r["test"] == test and r["format"] == fmt
                      and not is_bound(r)]
                if not rs:
                    continue
                sdx = [r for r in rs if r["library"] == "sdx"]
                others = [r for r in rs if r["library"] != "sdx" and r["status"] == "ok"]
                best = min(others, key=lambda r: r["median_ns"]) if others else None
                if (ds, fmt, test) in have:
                    row[ds] = have[(ds, fmt, test)]
                elif not sdx:
                    row[ds] = {"word": "not in sdx yet", "vs": best["library"] if best else None}
                elif sdx[0]["status"] != "ok":
                    row[ds] = {"word": "sdx " + sdx[0]["status"], "vs": None}
                else:
                    row[ds] = {"word": "only sdx", "vs": None}
            if row:
                out[(fmt, test)] = row
    return out


def cell_text(c, markdown=True):
    if "ratio" not in c:
        return c["word"] + (" (fastest: %s)" % c["vs"] if c.get("vs") else "")
    txt = "%.2f [%.2f–%.2f]" % (c["ratio"], c["lo"], c["hi"])
    if markdown and c["ratio"] < 1.0:
        txt = "**%s**" % txt
    return "%s vs %s" % (txt, c["vs"])


def cells_md(doc, rows, text):
    """A table of summary cells: a row per (format, test), a column per data
    set, each cell written by text(cell)."""
    ds_ids = [d["id"] for d in doc["datasets"]]
    if not rows:
        return ""
    lines = ["| format | test | " + " | ".join(ds_ids) + " |", "|---|---|" + "---:|" * len(ds_ids)]
    for (fmt, test), row in rows.items():
        cells = [text(row[ds]) if ds in row else "" for ds in ds_ids]
        lines.append("| %s | %s | %s |" % (fmt, test, " | ".join(cells)))
    return "\n".join(lines)


def summary_md(doc):
    return cells_md(doc, summary(doc), cell_text)


def chart_svg(doc, dataset, test):
    """Bars of MB/s at the median with error bars over the 95 % interval,
    fastest first; the bounds, far beyond any library, as lines of text."""
    ok, _ = rows_for(doc, dataset, test)
    libs = sorted([r for r in ok if not is_bound(r)], key=lambda r: -mbps(r))
    bounds = [r for r in ok if is_bound(r)]
    if not libs:
        return None
    bar_h, gap, left, width = 18, 4, 260, 520
    top = 34 + 16 * len(bounds) + (8 if bounds else 0)
    height = top + len(libs) * (bar_h + gap) + 30
    best = max(mbps(r, r.get("lo_ns") or r["median_ns"]) for r in libs)
    ds_name = next((d["name"] for d in doc["datasets"] if d["id"] == dataset), dataset)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
             'font-size="12">' % (left + width + 90, height),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="10" y="20" font-size="14" font-weight="bold">%s — %s (MB/s at the median, bars: 95%% '
             'interval; higher is better)</text>' % (html.escape(test.capitalize()), html.escape(ds_name))]
    for i, r in enumerate(sorted(bounds, key=lambda r: FORMATS.index(r["format"]))):
        parts.append('<text x="10" y="%d" font-style="italic" fill="#555">bound: %s (%s): %.0f MB/s</text>' % (
            40 + 16 * i, html.escape(label(r)), r["format"], mbps(r)))
    for i, r in enumerate(libs):
        y = top + i * (bar_h + gap)
        v = mbps(r)
        w = max(1.0, width * v / best)
        text = "%s (%s, %s)" % (label(r), r["format"], r["language"])
        weight = ' font-weight="bold"' if r["library"] == "sdx" else ""
        parts.append('<text x="%d" y="%d" text-anchor="end"%s>%s</text>' % (left - 6, y + 13, weight,
                                                                              html.escape(text)))
        parts.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"%s/>' % (
            left, y, w, bar_h, FORMAT_COLORS.get(r["format"], "#999"),
            ' stroke="black" stroke-width="1.5"' if r["library"] == "sdx" else ""))
        end = w
        if r.get("lo_ns") and r.get("hi_ns"):
            x0 = left + width * mbps(r, r["hi_ns"]) / best
            x1 = left + width * mbps(r, r["lo_ns"]) / best
            ym = y + bar_h / 2.0
            parts.append('<path d="M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f" stroke="black" '
                         'stroke-width="1"/>' % (x0, ym, x1, x0, ym - 4, ym + 4, x1, ym - 4, ym + 4))
            end = max(end, x1 - left)
        parts.append('<text x="%.1f" y="%d">%.0f</text>' % (left + end + 4, y + 13, v))
    y = height - 10
    x = 10
    for f in FORMATS:
        if any(r["format"] == f for r in libs):
            parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (x, y - 9, FORMAT_COLORS[f]))
            parts.append('<text x="%d" y="%d">%s</text>' % (x + 14, y, f))
            x += 80
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def history_points(doc, history):
    """The recorded runs plus this one (unless recorded already): a list of
    {commit, date, cells: {"fmt/test/ds": [ratio, lo, hi]}}."""
    points = list(history)
    cur = history_entry(doc)
    if not points or points[-1].get("commit") != cur["commit"] or points[-1].get("date") != cur["date"]:
        points.append(cur)
    return points


def history_svg(points, prefix):
    """sdx / fastest other over the recorded runs for the cells whose key
    starts with `prefix` ("json/write/"): one line per data set, log scale,
    the 1.0 line marked."""
    keys = sorted({k for p in points for k in p["cells"] if k.startswith(prefix)})
    if len(points) < 1 or not keys:
        return None
    import math
    vals = [v[0] for p in points for k, v in p["cells"].items() if k in keys and v and v[0]]
    lo, hi = min(vals + [0.5]), max(vals + [2.0])
    left, top, w, h = 60, 30, 480, 200
    n = len(points)

    def xy(i, v):
        x = left + (w * i / (n - 1) if n > 1 else w / 2)
        y = top + h * (math.log(hi) - math.log(v)) / (math.log(hi) - math.log(lo))
        return x, y
    palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
               "#9c755f", "#bab0ac"]
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
             'font-size="11">' % (left + w + 260, top + h + 60),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="10" y="18" font-size="14" font-weight="bold">%s: sdx time / fastest other over the '
             'recorded runs (log scale; below 1: sdx first)</text>' % html.escape(prefix.strip("/"))]
    for v in (0.5, 0.75, 1.0, 1.5, 2.0):
        if lo <= v <= hi:
            _, y = xy(0, v)
            parts.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>' % (
                left, left + w, y, y, "black" if v == 1.0 else "#dddddd"))
            parts.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (left - 4, y + 4, v))
    for i, p in enumerate(points):
        x, _ = xy(i, 1.0)
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
            x, top + h + 16, html.escape((p.get("commit") or "?")[:7])))
    for k, key in enumerate(keys):
        color = palette[k % len(palette)]
        dash = ' stroke-dasharray="4 2"' if (k // len(palette)) % 2 else ""
        pts = [(i, p["cells"][key][0]) for i, p in enumerate(points) if p["cells"].get(key)]
        if not pts:
            continue
        path = " ".join(("M" if j == 0 else "L") + "%.1f %.1f" % xy(i, v) for j, (i, v) in enumerate(pts))
        parts.append('<path d="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>' % (path, color, dash))
        for i, v in pts:
            parts.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (*xy(i, v), color))
        ly = top + 10 + 13 * k
        if ly < top + h + 40:
            parts.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"%s/>' % (
                left + w + 10, left + w + 30, ly - 4, ly - 4, color, dash))
            parts.append('<text x="%d" y="%d">%s</text>' % (left + w + 34, ly, html.escape(key[len(prefix):])))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def history_entry(doc):
    return {"commit": doc.get("commit"), "dirty": doc.get("dirty"), "date": doc.get("date"),
            "machine": doc["machine"].get("cpu"), "mode": doc["settings"].get("mode"),
            "cells": {"%s/%s/%s" % (s["format"], s["test"], s["dataset"]):
                      [round(s["ratio"], 4), round(s["lo"], 4), round(s["hi"], 4), s["vs"]]
                      for s in doc.get("summary", [])}}


def read_history(path=HISTORY):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def append_history(doc, path=HISTORY):
    h = read_history(path)
    h.append(history_entry(doc))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(h, f, indent=1)
        f.write("\n")


def peers_md(doc):
    """Every library's version and where it came from."""
    seen = {}
    for p in doc["programs"]:
        if p["library"] in ("empty",) or p["library"] in BOUND_NAMES:
            continue
        key = (p["library"], p["language"])
        if key not in seen or (not seen[key].get("version") and p.get("version")):
            seen[key] = p
    if not seen:
        return ""
    lines = ["| library | lang | version | from |", "|---|---|---|---|"]
    for (lib, lang), p in sorted(seen.items()):
        lines.append("| %s | %s | %s | %s |" % (lib, lang, p.get("version") or "", p.get("origin") or ""))
    return "\n".join(lines)


def missing_md(doc):
    lines = []
    for p in sorted(doc["programs"], key=lambda p: (p["format"], p["library"], p["test"])):
        if p["status"] != "built" and p["library"] != "empty":
            lines.append("| %s | %s | %s | %s | %s |" % (p["library"], p["format"], p["test"], p["language"],
                                                          p["status"]))
    if not lines:
        return ""
    return "| library | format | test | lang | why not run |\n|---|---|---|---|---|\n" + "\n".join(lines)


def python_md(doc):
    """The table of bench/python/bench.py (run.py --python), without its
    title; None when there is none."""
    if not doc.get("python"):
        return None
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
    import bench as pybench  # noqa: E402
    return pybench.report(doc["python"]).split("\n", 2)[2].strip()


def markdown(doc, chart_names, history_charts):
    m = doc["machine"]
    c = doc["compilers"]
    st = doc["settings"]
    empty = empty_sizes(doc)
    out = ["# sdx benchmark report", "",
           "Run of %s, commit `%s`%s, %s mode: %d interleaved rounds per cell, turns of about %.0f ms, %s processes "
           "per program, %s clock%s; %.0f s in all." % (
               doc["date"], (doc["commit"] or "?")[:12], " (with local changes)" if doc["dirty"] else "",
               st["mode"], st["rounds"], st["round_ms"], st.get("instances", 1),
               "thread CPU" if st["clock"] == "cpu" else "wall",
               ", programs pinned to CPU %s" % st["pinned_cpu"] if st.get("pinned_cpu") is not None else "",
               doc["elapsed_s"]),
           "",
           "Machine: %s, %s cores, %.0f GiB, %s, kernel %s." % (
               m["cpu"], m["cores"], (m["memory_bytes"] or 0) / 2 ** 30, m["os"], m["kernel"]),
           "Compilers: %s; %s; %s." % (c.get("cc"), c.get("c++"), c.get("rustc")),
           "Empty harness (stripped): " + ", ".join("%s %s" % (k, fmt_size(v)) for k, v in sorted(empty.items())) + ".",
           "",
           "For each data set, format and test (a cell), every library's program runs in the same rounds, in a "
           "new shuffled order each round, so a slow period of the machine hits all of them alike. Times are "
           "per iteration (one whole document): the median and the minimum over the rounds, and a "
           "distribution-free 95 % interval of the median. MB/s is the size of the data set's reference "
           "encoding in that format divided by the median, so every library of a format is measured against "
           "the same bytes. `time − hash` subtracts the hashing the test does (the output bytes for Write and "
           "Serialize, the reference tree for Tree, the reference tree's events read from a tape for "
           "Incremental: harness/SPEC.md, \"The hashing alone\"; a fast parser's work can hide under the "
           "hashing, which is a chain of multiplications, so its time − hash can be about zero). The rows in italics are bounds measured "
           "in the same rounds: memcpy of the output (Write); for MessagePack, CBOR and UBJSON also a writer "
           "without checks, which walks the tree and stores the same bytes as sdx and nothing else (the floor "
           "of any writer in this harness); UTF-8 validation of the input with sdx's "
           "kernel (Tree, Incremental; for binary formats the input's strings and keys); `× bound` is a "
           "library's time − hash as a multiple of the memcpy or UTF-8 bound's. Code size is the stripped program, and in "
           "brackets what it adds to the empty harness. Every row marked ok was verified by hash before it "
           "was timed; \"maps without order\" marks a library whose maps lose the document's key order, "
           "checked with the order-independent map hash (SPEC.md). Methodology: [bench/README.md](../README.md).",
           "", "## Summary: sdx time / fastest other library", "",
           "The median over rounds of sdx's time divided by the fastest other library's time in the same "
           "round, with its 95 % interval; below 1.00 (bold) sdx is faster. The fastest other library is the "
           "one with the lowest median in the cell. On the shared 2-core VM the core the programs run on is "
           "slowed down 1.2–1.8x for long stretches when its SMT sibling is busy, and not every library by "
           "the same factor, so a cell's ratio depends on how much of its time the machine spent in that "
           "state ([bench/README.md](../README.md#reproducibility)); `results.json` gives that share per "
           "cell (`slowed_share`).", "",
           summary_md(doc)]
    mem = memory_md(doc)
    if mem:
        out += ["", "## Memory: sdx's Tree peak / the smallest other library's", "",
                "Every Tree program runs once more, untimed, with a counting allocator preloaded "
                "(`bench/harness/memcount.c`): the most heap bytes live at once while it parses the input "
                "into its document, walks it and frees it, per byte of input (B/B), in a fresh process. "
                "The ratio is sdx's over the smallest other library's; at most 1.10 (bold) meets issue 17's "
                "target. A dash: the smallest is a library whose tree is a view of the input bytes "
                "(binn-rs's `Value` borrows every item and allocates nothing), which no document that owns "
                "its values can match; there the target is not met, and no ratio is given.", "", mem]
    floor = floor_md(doc)
    if floor:
        out += ["", "## Write: the writer without checks / the fastest other library", "",
                "The bound row \"a writer without checks\" (`bench/adapters/bound/unchecked.c`) walks the "
                "tree with the same recursion as every C adapter and stores the bytes sdx writes, with one "
                "test for room per value and nothing else: no count, nesting or UTF-8 checks. Here its time "
                "is divided by the fastest other library's, round by round (median and 95 % interval), and "
                "after the library, sdx's median over the floor's. Issue 17 asks for sdx at 0.80 of the "
                "fastest other library (1.25x ahead) or below. In a cell whose interval reaches above 0.80 "
                "(bold), that is below what this plain writer takes, so a writer that checks what it is "
                "given gets there only by faster code for the same stores, not by doing less. The floor is "
                "this harness's code, not a proven minimum: where sdx's ratio to it is below 1.00, sdx's "
                "stores are the faster code.", "", floor]
    hfloor = hash_floor_md(doc)
    if hfloor:
        out += ["", "## Tree and Incremental: the hashing alone / the fastest other library", "",
                "Every Tree and Incremental program hashes what it read (the document's values, the "
                "reader's events), and measures that hashing alone from a tape in its own rounds (the "
                "`time − hash` column). Here the fastest other library's hashing alone is divided by its "
                "whole time, round by round (median and 95 % interval): the least that any program's time "
                "over that library's can be, a program that parses in no time at all. After the library, "
                "sdx's ratio to it. Where even the interval's low end is above 0.80 (bold), no program "
                "can be 1.25x ahead of that library in this harness, whatever its parser does.", "", hfloor]
    if history_charts:
        out += ["", "Over the recorded runs (`bench/results/history.json`), per format and test:", ""]
        out += ["![%s](charts/%s)" % (name[8:-4], name) for name in history_charts]
    py = python_md(doc)
    if py:
        out += ["", "## The Python package", "", py]
    out += ["", "## Data sets", "",
            "| data set | spec | " + " | ".join(FORMATS) + " |", "|---|---|" + "---:|" * len(FORMATS)]
    for d in doc["datasets"]:
        spec = d.get("source") or d["spec"]
        if spec.startswith("json:"):
            spec = "json:" + os.path.basename(spec[5:])
        out.append("| %s | `%s` | %s |" % (d["name"], spec,
                                          " | ".join(fmt_size(d["bytes"].get(f)) for f in FORMATS)))
    out += ["", "The extended data set adds unsigned 64-bit integers above INT64_MAX and extreme values "
                "(INT64_MIN, INT64_MAX, UINT64_MAX, -0.0, subnormal doubles, DBL_MAX); the others hold only "
                "integers within int64 and finite normal doubles. BSON and UBJSON have no integers above "
                "INT64_MAX: their data is adapted (SPEC.md)."]
    peers = peers_md(doc)
    if peers:
        out += ["", "## Libraries", "", peers]
    for d in doc["datasets"]:
        out += ["", "## %s" % d["name"]]
        for test in TESTS:
            t = table_md(doc, d["id"], test)
            if not t:
                continue
            out += ["", "### %s" % test.capitalize(), ""]
            name = chart_names.get((d["id"], test))
            if name:
                out += ["![%s, %s](charts/%s)" % (test, d["name"], name), ""]
            out.append(t)
    miss = missing_md(doc)
    if miss:
        out += ["", "## Not run", "", "Programs the suite knows of that did not run here, and why.", "", miss]
    return "\n".join(out) + "\n"


def write_all(doc, out_dir, history=None):
    os.makedirs(os.path.join(out_dir, "charts"), exist_ok=True)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    names = {}
    for d in doc["datasets"]:
        for test in TESTS:
            svg = chart_svg(doc, d["id"], test)
            if svg:
                name = "%s-%s.svg" % (d["id"], test)
                with open(os.path.join(out_dir, "charts", name), "w") as f:
                    f.write(svg)
                names[(d["id"], test)] = name
    points = history_points(doc, read_history() if history is None else history)
    hist_names = []
    for fmt in FORMATS:
        for test in TESTS:
            svg = history_svg(points, "%s/%s/" % (fmt, test))
            if svg:
                hist_names.append("history-%s-%s.svg" % (fmt, test))
                with open(os.path.join(out_dir, "charts", hist_names[-1]), "w") as f:
                    f.write(svg)
    with open(os.path.join(out_dir, "REPORT.md"), "w") as f:
        f.write(markdown(doc, names, hist_names))


def text_tables(doc):
    """Plain-text tables for the terminal."""
    out = []
    for d in doc["datasets"]:
        for test in TESTS:
            ok, bad = rows_for(doc, d["id"], test)
            if not ok and not bad:
                continue
            out.append("\n== %s — %s" % (d["name"], test))
            mem = test == "tree"
            out.append("%-3s %-30s %-8s %-5s %10s %10s %8s %10s %16s %8s%s" % (
                "#", "library", "format", "lang", "median", "min", "MB/s", "time-hash", "95% interval", "x bound",
                "  peak B/B" if mem else ""))
            rank = 0
            for r in ok:
                if not is_bound(r):
                    rank += 1
                out.append("%-3s %-30s %-8s %-5s %10s %10s %8.0f %10s %16s %8s%s" % (
                    "" if is_bound(r) else rank, label(r), r["format"], "" if is_bound(r) else r["language"],
                    fmt_time(r["median_ns"]), fmt_time(r["min_ns"]), mbps(r), fmt_time(net_ns(r)),
                    interval_pct(r), times_bound(doc, r), " %9s" % mem_text(r) if mem else ""))
            for r in bad:
                out.append("-   %-30s %-8s %-5s %s: %s" % (label(r), r["format"], r["language"], r["status"].upper(),
                                                         failure_text(r)[:160]))
    out += cells_text("Summary: sdx time / fastest other, median of per-round ratios [95% interval]",
                      summary(doc), cell_text)
    out += cells_text("Write: the writer without checks / the fastest other, median of per-round ratios "
                      "[95% interval]; sdx / the floor", floor_summary(doc), floor_cell_text)
    out += cells_text("Tree and Incremental: the hashing alone / the fastest other, median of per-round "
                      "ratios [95% interval]; sdx / the same library", hash_floor_summary(doc),
                      hash_floor_cell_text)
    out += cells_text("Memory: sdx's Tree peak / the smallest other's (peak heap bytes per input byte)",
                      memory_summary(doc), memory_cell_text)
    return "\n".join(out)


def cells_text(title, rows, text):
    """The text form of cells_md: a titled line per (format, test), each
    cell written by text(cell, markdown=False); nothing without rows."""
    if not rows:
        return []
    out = ["\n== " + title]
    for (fmt, test), row in rows.items():
        cells = ["%s %s" % (ds, text(c, markdown=False)) for ds, c in row.items()]
        out.append("%-8s %-12s %s" % (fmt, test, "; ".join(cells)))
    return out


def stability_text(rows, worst, threshold):
    out = ["== Stability: the sdx summary cells of two passes (limit ±%.0f%%)" % (100 * threshold),
           "%-32s %26s %26s %8s" % ("cell", "first pass", "second pass", "change")]
    for r in rows:
        a, b = r["first"], r["second"]
        fa = "%.3f [%.3f-%.3f]" % (a["ratio"], a["lo"], a["hi"]) if a else "-"
        fb = "%.3f [%.3f-%.3f]" % (b["ratio"], b["lo"], b["hi"]) if b else "-"
        ch = "%.1f%%" % (100 * r["change"]) if r["change"] is not None else "-"
        out.append("%-32s %26s %26s %8s%s" % (r["cell"], fa, fb, ch, "" if r["ok"] else "  MOVED"))
    out.append("largest change: %.1f%%" % (100 * worst))
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS.json OUT_DIR")
    with open(sys.argv[1]) as f:
        d = json.load(f)
    write_all(d, sys.argv[2])
    print(text_tables(d))
