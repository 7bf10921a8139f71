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

The Extended JSON fields (canonical_extjson, relaxed_extjson,
degenerate_*, parseErrors) are not extracted yet: they belong to the
Extended JSON step of issue 14.
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
    valid, errors = [], []
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
    header = ("# MongoDB BSON corpus ({} from {}, test/bson_corpus; Apache License 2.0),\n"
              "# extracted by tests/bson/extract_corpus.py: file TAB description TAB {}\n")
    for path, rows, field in ((out + "/corpus_valid.txt", valid, "canonical_bson"),
                              (out + "/corpus_decode_errors.txt", errors, "bson")):
        with open(path, "w") as f:
            f.write(header.format(len(names), top, field))
            for row in rows:
                f.write("\t".join(row) + "\n")
    print("%d files: %d valid, %d decode errors" % (len(names), len(valid), len(errors)))


if __name__ == "__main__":
    main()
