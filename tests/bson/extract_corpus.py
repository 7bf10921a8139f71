#!/usr/bin/env python3
"""Extract the BSON side of the MongoDB BSON corpus into two data files.

The corpus (the BSON specification's test/bson_corpus, shipped in the
pymongo source distribution under test/bson_corpus; Apache License 2.0) is
taken as data only. Fetch it with the ordinary PyPI client:

    pip download --no-deps --no-binary :all: pymongo==4.20.0 -d /tmp/pm
    python3 tests/bson/extract_corpus.py /tmp/pm/pymongo-4.20.0.tar.gz tests/bson

It writes, one case a line (hex in upper case as the corpus has it):

    corpus_valid.txt          file TAB description TAB canonical_bson
    corpus_decode_errors.txt  file TAB description TAB bson
    corpus_extjson.txt        the Extended JSON side, a line per case:
        V TAB file TAB description TAB canonical_bson TAB canonical_extjson
          TAB relaxed_extjson TAB degenerate_extjson TAB degenerate_bson
          TAB lossy (0 or 1)         -- a valid case; "-" for a field absent
        P TAB file TAB description TAB json
                                     -- a parseErrors case: JSON that must
                                        be rejected; a decimal128 file's
                                        string S is given as the document
                                        {"d": {"$numberDecimal": S}}
The JSON texts are the corpus's own, unchanged (none holds a tab or a
line break).
"""
import json
import sys
import tarfile


def clean(text):
    return " ".join(text.split())


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract_corpus.py PYMONGO_SDIST.tar.gz OUTDIR")
    sdist, out = sys.argv[1], sys.argv[2]
    valid, errors, ext = [], [], []
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
            for case in data.get("valid", []):
                fields = [case.get(k, "-") for k in ("canonical_bson", "canonical_extjson", "relaxed_extjson",
                                                      "degenerate_extjson", "degenerate_bson")]
                ext.append(["V", base, clean(case["description"])] + fields +
                           ["1" if case.get("lossy") else "0"])
            for case in data.get("parseErrors", []):
                text = case["string"]
                if base.startswith("decimal128"):
                    text = json.dumps({"d": {"$numberDecimal": text}})
                ext.append(["P", base, clean(case["description"]), text])
    header = ("# MongoDB BSON corpus ({} from {}, test/bson_corpus; Apache License 2.0),\n"
              "# extracted by tests/bson/extract_corpus.py: file TAB description TAB {}\n")
    for path, rows, field in ((out + "/corpus_valid.txt", valid, "canonical_bson"),
                              (out + "/corpus_decode_errors.txt", errors, "bson")):
        with open(path, "w") as f:
            f.write(header.format(len(names), top, field))
            for row in rows:
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
    nparse = sum(1 for r in ext if r[0] == "P")
    print("%d files: %d valid, %d decode errors, %d parse errors" % (len(names), len(valid), len(errors), nparse))


if __name__ == "__main__":
    main()
