#!/usr/bin/env python3
r"""Extract the BSON side of the MongoDB BSON corpus into data files.

The corpus (the BSON specification's test/bson_corpus, shipped in the
pymongo source distribution under test/bson_corpus; Apache License 2.0) is
taken as data only. Fetch it with the ordinary PyPI client:

    pip download --no-deps --no-binary :all: pymongo==4.20.0 -d /tmp/pm
    python3 tests/bson/extract_corpus.py /tmp/pm/pymongo-4.20.0.tar.gz tests/bson

It writes, one case a line (hex in upper case as the corpus has it):

    corpus_valid.txt          file TAB description TAB canonical_bson
    corpus_decode_errors.txt  file TAB description TAB bson
    corpus_decimal128.txt     the decimal128 text cases (decimal128-*.json):
        file TAB description TAB valid|lossy TAB canonical_bson TAB
            "canonical string" [TAB "degenerate string"]
        file TAB description TAB parseError TAB "string"
      where a string is the $numberDecimal of canonical_extjson or
      degenerate_extjson (or a parseErrors case's string) in double quotes,
      with \\, \" and \xNN (bytes outside printable ASCII) escaped, so that
      leading and trailing spaces survive; "lossy" marks the cases whose
      text does not give back canonical_bson (NaN payloads and signs,
      non-canonical coefficients).
    corpus_parse_errors.txt   file TAB description TAB string: the
      Extended JSON parseErrors of the other files (the text as the corpus
      has it, a JSON document on one line; the extraction checks that none
      holds a tab or a line break). The decimal128 files' parseErrors are
      decimal texts, in corpus_decimal128.txt (the corpus spec: wrap each in
      {"d": {"$numberDecimal": ...}} to get its Extended JSON case).
    corpus_extjson.txt        the Extended JSON side, a line per case:
        V TAB file TAB description TAB canonical_bson TAB canonical_extjson
          TAB relaxed_extjson TAB degenerate_extjson TAB degenerate_bson
          TAB lossy (0 or 1)         -- a valid case; "-" for a field absent
        P TAB file TAB description TAB json
                                     -- a decimal128 file's parseErrors
                                        string S as the Extended JSON
                                        document {"d": {"$numberDecimal": S}}
                                        (the corpus spec's way; the other
                                        files' are corpus_parse_errors.txt)
      The JSON texts are the corpus's own, unchanged (none holds a tab or a
      line break).
"""
import json
import sys
import tarfile


def clean(text):
    return " ".join(text.split())


def quote(text):
    """text in double quotes, with backslash, quote and every byte outside
    printable ASCII escaped (\\xNN of its UTF-8 bytes)."""
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        if c in '\\"':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7f:
            out.append(c)
        else:
            out.append("\\x%02X" % b)
    return '"' + "".join(out) + '"'


def number_decimal(extjson, key):
    """The $numberDecimal string of {key: {"$numberDecimal": s}}."""
    doc = json.loads(extjson)
    assert list(doc) == [key] and list(doc[key]) == ["$numberDecimal"], extjson
    return doc[key]["$numberDecimal"]


def decimal_rows(base, data):
    """The rows of corpus_decimal128.txt for one decimal128-*.json file."""
    key = data["test_key"]
    rows = []
    for case in data.get("valid", []):
        bson = case["canonical_bson"]
        # a document of one element: int32 length 24, type 0x13, the key,
        # 16 bytes of decimal128, the terminator
        raw = bytes.fromhex(bson)
        assert len(raw) == 24 and raw[4] == 0x13 and raw[5:7] == key.encode() + b"\0", bson
        row = [base, clean(case["description"]), "lossy" if case.get("lossy") else "valid", bson,
               quote(number_decimal(case["canonical_extjson"], key))]
        if "degenerate_extjson" in case:
            row.append(quote(number_decimal(case["degenerate_extjson"], key)))
        rows.append(tuple(row))
    for case in data.get("parseErrors", []):
        rows.append((base, clean(case["description"]), "parseError", quote(case["string"])))
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract_corpus.py PYMONGO_SDIST.tar.gz OUTDIR")
    sdist, out = sys.argv[1], sys.argv[2]
    valid, errors, decimal, parse_errors, ext = [], [], [], [], []
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = sorted(n for n in tar.getnames()
                       if n.startswith(top + "/test/bson_corpus/") and n.endswith(".json"))
        for name in names:
            data = json.load(tar.extractfile(name))
            base = name.rsplit("/", 1)[1]
            for case in data.get("valid", []):
                valid.append((base, clean(case["description"]), case["canonical_bson"]))
            for case in data.get("decodeErrors", []):
                errors.append((base, clean(case["description"]), case["bson"]))
            if base.startswith("decimal128-"):
                decimal.extend(decimal_rows(base, data))
            else:
                for case in data.get("parseErrors", []):
                    text = case["string"]
                    assert not any(c in text for c in "\t\r\n"), text
                    parse_errors.append((base, clean(case["description"]), text))
            for case in data.get("valid", []):
                fields = [case.get(k, "-") for k in ("canonical_bson", "canonical_extjson", "relaxed_extjson",
                                                      "degenerate_extjson", "degenerate_bson")]
                ext.append(["V", base, clean(case["description"])] + fields +
                           ["1" if case.get("lossy") else "0"])
            if base.startswith("decimal128-"):
                for case in data.get("parseErrors", []):
                    text = json.dumps({"d": {"$numberDecimal": case["string"]}})
                    ext.append(["P", base, clean(case["description"]), text])
    header = ("# MongoDB BSON corpus ({} from {}, test/bson_corpus; Apache License 2.0),\n"
              "# extracted by tests/bson/extract_corpus.py: file TAB description TAB {}\n")
    for path, rows, field in ((out + "/corpus_valid.txt", valid, "canonical_bson"),
                              (out + "/corpus_decode_errors.txt", errors, "bson"),
                              (out + "/corpus_parse_errors.txt", parse_errors,
                               "string (Extended JSON parseErrors, decimal128 files aside)")):
        with open(path, "w") as f:
            f.write(header.format(len(names), top, field))
            for row in rows:
                f.write("\t".join(row) + "\n")
    with open(out + "/corpus_decimal128.txt", "w") as f:
        f.write(header.format(len(names), top, "valid|lossy TAB canonical_bson TAB \"canonical\" "
                              "[TAB \"degenerate\"], or parseError TAB \"string\""))
        for row in decimal:
            f.write("\t".join(row) + "\n")
    for row in ext:
        for field in row:
            if "\t" in field or "\n" in field or "\r" in field:
                sys.exit("a tab or line break in %r" % (row,))
    with open(out + "/corpus_extjson.txt", "w") as f:
        f.write(("# MongoDB BSON corpus ({} from {}, test/bson_corpus; Apache License 2.0),\n"
                 "# extracted by tests/bson/extract_corpus.py: the Extended JSON side (see there)\n")
                .format(len(names), top))
        for row in ext:
            f.write("\t".join(row) + "\n")
    print("%d files: %d valid, %d decode errors, %d decimal128 text cases, %d parse errors"
          % (len(names), len(valid), len(errors), len(decimal), len(parse_errors)))


if __name__ == "__main__":
    main()
