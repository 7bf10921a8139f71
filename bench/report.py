"""Report of a benchmark run: results.json, REPORT.md and SVG bar charts.

Used by run.py; also runnable on its own to redo the report of a saved run:
    python3 bench/report.py RESULTS.json OUT_DIR
"""
import html
import json
import os
import sys

FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson", "binn"]
TESTS = ["write", "tree", "incremental", "serialize"]
FORMAT_COLORS = {"json": "#4e79a7", "msgpack": "#f28e2b", "cbor": "#59a14f", "bson": "#b07aa1",
                 "ubjson": "#76b7b2", "binn": "#edc948"}


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


def mbps(res):
    if res.get("status") != "ok" or not res.get("bytes") or not res.get("time_ns"):
        return None
    return res["bytes"] / (res["time_ns"] * 1e-9) / 1e6


def spread(res):
    if res.get("status") != "ok" or not res.get("time_ns"):
        return None
    return 100.0 * (res["max_ns"] - res["min_ns"]) / res["time_ns"]


def empty_sizes(doc):
    sizes = {}
    for p in doc["programs"]:
        if p["library"] == "empty" and p.get("size"):
            sizes[p["language"] if p["language"] == "Rust" else "C"] = p["size"]
    return sizes


def baseline_for(language, empty):
    return empty.get("Rust" if language == "Rust" else "C")


def rows_for(doc, dataset, test):
    """Results of one data set and test: ok ones by time, then the rest."""
    rs = [r for r in doc["results"] if r["dataset"] == dataset and r["test"] == test]
    ok = sorted([r for r in rs if r["status"] == "ok"], key=lambda r: r["time_ns"])
    bad = sorted([r for r in rs if r["status"] != "ok"], key=lambda r: (r["format"], r["library"]))
    return ok, bad


def size_of(doc, program):
    for p in doc["programs"]:
        if p["program"] == program:
            return p.get("size")
    return None


def table_md(doc, dataset, test):
    ok, bad = rows_for(doc, dataset, test)
    if not ok and not bad:
        return ""
    empty = empty_sizes(doc)
    lines = ["| # | library | format | lang | time/iter | MB/s | time − hash | spread | code size (− empty) | check |",
             "|---:|---|---|---|---:|---:|---:|---:|---:|---|"]
    for i, r in enumerate(ok, 1):
        size = size_of(doc, r["program"])
        base = baseline_for(r["language"], empty)
        size_txt = fmt_size(size) + (" (%s)" % fmt_size(size - base) if size and base else "")
        name = "**%s**" % r["library"] if r["library"] == "sdx" else r["library"]
        lines.append("| %d | %s | %s | %s | %s | %.0f | %s | ±%.1f%% | %s | ok |" % (
            i, name, r["format"], r["language"], fmt_time(r["time_ns"]), mbps(r),
            fmt_time(r["time_ns"] - r["hash_ns"]), spread(r) / 2, size_txt))
    for r in bad:
        msg = r.get("message", "").replace("|", "/")
        if len(msg) > 90:
            msg = msg[:87] + "..."
        name = "**%s**" % r["library"] if r["library"] == "sdx" else r["library"]
        lines.append("| – | %s | %s | %s | | | | | | **%s**: %s |" % (
            name, r["format"], r["language"], r["status"].upper(), msg))
    return "\n".join(lines)


def summary(doc):
    """For each format and test: sdx's time / the fastest other library's
    time, per data set (below 1.00: sdx is faster)."""
    ds_ids = [d["id"] for d in doc["datasets"]]
    out = {}
    for fmt in FORMATS:
        for test in TESTS:
            row = {}
            any_result = False
            for ds in ds_ids:
                rs = [r for r in doc["results"] if r["dataset"] == ds and r["test"] == test and r["format"] == fmt]
                if not rs:
                    continue
                any_result = True
                sdx = [r for r in rs if r["library"] == "sdx"]
                others = [r for r in rs if r["library"] != "sdx" and r["status"] == "ok"]
                best = min(others, key=lambda r: r["time_ns"]) if others else None
                if not sdx:
                    row[ds] = ("not in sdx yet", best["library"] if best else None)
                elif sdx[0]["status"] != "ok":
                    row[ds] = ("sdx " + sdx[0]["status"], None)
                elif not best:
                    row[ds] = ("only sdx", None)
                else:
                    row[ds] = (sdx[0]["time_ns"] / best["time_ns"], best["library"])
            if any_result:
                out[(fmt, test)] = row
    return out


def summary_md(doc):
    ds_ids = [d["id"] for d in doc["datasets"]]
    s = summary(doc)
    if not s:
        return ""
    lines = ["| format | test | " + " | ".join(ds_ids) + " |", "|---|---|" + "---:|" * len(ds_ids)]
    for (fmt, test), row in s.items():
        cells = []
        for ds in ds_ids:
            v = row.get(ds)
            if v is None:
                cells.append("")
            elif isinstance(v[0], float):
                mark = "**%.2f**" % v[0] if v[0] <= 1.0 else "%.2f" % v[0]
                cells.append("%s (vs %s)" % (mark, v[1]))
            else:
                cells.append(v[0] + (" (fastest: %s)" % v[1] if v[1] else ""))
        lines.append("| %s | %s | %s |" % (fmt, test, " | ".join(cells)))
    return "\n".join(lines)


def chart_svg(doc, dataset, test):
    ok, _ = rows_for(doc, dataset, test)
    if not ok:
        return None
    bar_h, gap, left, width = 18, 4, 260, 520
    top = 34
    height = top + len(ok) * (bar_h + gap) + 30
    best = max(mbps(r) for r in ok)
    ds_name = next((d["name"] for d in doc["datasets"] if d["id"] == dataset), dataset)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
             'font-size="12">' % (left + width + 90, height),
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="10" y="20" font-size="14" font-weight="bold">%s — %s (MB/s, higher is better)</text>'
             % (html.escape(test.capitalize()), html.escape(ds_name))]
    for i, r in enumerate(ok):
        y = top + i * (bar_h + gap)
        v = mbps(r)
        w = max(1.0, width * v / best)
        label = "%s (%s, %s)" % (r["library"], r["format"], r["language"])
        weight = ' font-weight="bold"' if r["library"] == "sdx" else ""
        parts.append('<text x="%d" y="%d" text-anchor="end"%s>%s</text>' % (left - 6, y + 13, weight,
                                                                              html.escape(label)))
        parts.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"%s/>' % (
            left, y, w, bar_h, FORMAT_COLORS.get(r["format"], "#999"),
            ' stroke="black" stroke-width="1.5"' if r["library"] == "sdx" else ""))
        parts.append('<text x="%.1f" y="%d">%.0f</text>' % (left + w + 4, y + 13, v))
    y = height - 10
    x = 10
    for f in FORMATS:
        if any(r["format"] == f for r in ok):
            parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (x, y - 9, FORMAT_COLORS[f]))
            parts.append('<text x="%d" y="%d">%s</text>' % (x + 14, y, f))
            x += 80
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def missing_md(doc):
    lines = []
    for p in sorted(doc["programs"], key=lambda p: (p["format"], p["library"], p["test"])):
        if p["status"] != "built" and p["library"] != "empty":
            lines.append("| %s | %s | %s | %s | %s |" % (p["library"], p["format"], p["test"], p["language"],
                                                          p["status"]))
    if not lines:
        return ""
    return "| library | format | test | lang | why not run |\n|---|---|---|---|---|\n" + "\n".join(lines)


def markdown(doc, chart_names):
    m = doc["machine"]
    c = doc["compilers"]
    st = doc["settings"]
    empty = empty_sizes(doc)
    out = ["# sdx benchmark report", "",
           "Run of %s, commit `%s`%s, %s mode (%d runs of %.2f s per test, best and worst dropped), "
           "%.0f s in all." % (doc["date"], (doc["commit"] or "?")[:12], " (with local changes)" if doc["dirty"] else "",
                               st["mode"], st["runs"], st["budget_s"], doc["elapsed_s"]),
           "",
           "Machine: %s, %s cores, %.0f GiB, %s, kernel %s." % (
               m["cpu"], m["cores"], (m["memory_bytes"] or 0) / 2 ** 30, m["os"], m["kernel"]),
           "Compilers: %s; %s; %s." % (c.get("cc"), c.get("c++"), c.get("rustc")),
           "Empty harness (stripped): " + ", ".join("%s %s" % (k, fmt_size(v)) for k, v in sorted(empty.items())) + ".",
           "",
           "Times are per iteration (one whole document). MB/s is the size of the data set's reference "
           "encoding in that format divided by the time, so every library in a table is measured against "
           "the same bytes. `time − hash` subtracts the cost of the hashing the test does (the output bytes "
           "for Write, the reference tree for Tree and Incremental). Spread is half the range of the kept "
           "runs. Code size is the stripped program, and in brackets what it adds to the empty harness. "
           "Every row marked ok was verified by hash before it was timed. Methodology: "
           "[bench/README.md](../README.md).",
           "", "## Summary: sdx time / fastest other library", "",
           "Below 1.00 (bold) sdx is faster; the library named is the fastest other one.", "",
           summary_md(doc), "", "## Data sets", "",
           "| data set | spec | " + " | ".join(FORMATS) + " |", "|---|---|" + "---:|" * len(FORMATS)]
    for d in doc["datasets"]:
        spec = d.get("source") or d["spec"]
        if spec.startswith("json:"):
            spec = "json:" + os.path.basename(spec[5:])
        out.append("| %s | `%s` | %s |" % (d["name"], spec,
                                          " | ".join(fmt_size(d["bytes"].get(f)) for f in FORMATS)))
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


def write_all(doc, out_dir):
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
    with open(os.path.join(out_dir, "REPORT.md"), "w") as f:
        f.write(markdown(doc, names))


def text_tables(doc):
    """Plain-text tables for the terminal."""
    out = []
    for d in doc["datasets"]:
        for test in TESTS:
            ok, bad = rows_for(doc, d["id"], test)
            if not ok and not bad:
                continue
            out.append("\n== %s — %s" % (d["name"], test))
            out.append("%-3s %-13s %-8s %-5s %12s %9s %12s %8s %10s" % (
                "#", "library", "format", "lang", "time/iter", "MB/s", "time-hash", "spread", "size"))
            for i, r in enumerate(ok, 1):
                out.append("%-3d %-13s %-8s %-5s %12s %9.0f %12s %7.1f%% %10s" % (
                    i, r["library"], r["format"], r["language"], fmt_time(r["time_ns"]), mbps(r),
                    fmt_time(r["time_ns"] - r["hash_ns"]), spread(r) / 2, fmt_size(size_of(doc, r["program"]))))
            for r in bad:
                out.append("-   %-13s %-8s %-5s %s: %s" % (r["library"], r["format"], r["language"],
                                                         r["status"].upper(), r.get("message", "")[:70]))
    s = summary(doc)
    if s:
        out.append("\n== Summary: sdx time / fastest other (below 1.00: sdx faster)")
        for (fmt, test), row in s.items():
            cells = []
            for ds, v in row.items():
                if isinstance(v[0], float):
                    cells.append("%s %.2f (vs %s)" % (ds, v[0], v[1]))
                else:
                    cells.append("%s: %s" % (ds, v[0]))
            out.append("%-8s %-12s %s" % (fmt, test, "; ".join(cells)))
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS.json OUT_DIR")
    with open(sys.argv[1]) as f:
        d = json.load(f)
    write_all(d, sys.argv[2])
    print(text_tables(d))
