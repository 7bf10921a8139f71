#!/usr/bin/env python3
"""Write the single-file distribution of sdx: one header and one source.

    python3 scripts/amalgamate.py [--out DIR]      (default: build/amalgamation)

writes DIR/sdx.h and DIR/sdx.c (make amalgamation runs it):

sdx.h   include/sdx/sdx.h with every public header it includes inlined once,
        at its first inclusion (so in dependency order); system includes are
        kept. A user includes only "sdx.h".

sdx.c   #include "sdx.h", then every library source in a fixed order (the
        directories in SOURCE_DIRS, each file by name; src/simd last). A
        private header ("core/platform.h") is inlined where it is first
        included; one with an include guard once, one without
        (core/node_walk.h) at every inclusion. Public headers are dropped, as
        sdx.h has them; system includes are kept.

One translation unit for what was thirty-odd makes file-local names meet:
the same static function in several files (sink_put, walk_node, fail, ...),
a static variable or typedef that a local of a later file would shadow
(-Wshadow), the macros a file defines for itself. So each file's section is

    #ifndef SDX_NO_<FORMAT>                 (a format's directory; see below)
    <the file's system and guarded private headers, hoisted>
    #define name sdx__<dir>_<file>__name    (each of its file-local names that
    ...                                      would clash, found by the scan below)
    <the file>
    #undef <every macro the file defines>   (so none leaks into the next file)
    #undef name ...
    #endif

The names come from a scan of each file's file-scope declarations (a small C
tokenizer, no preprocessor beyond #include, #define and #ifdef): its static
functions and variables, typedefs, struct/union/enum tags and enum
constants, including those that an unguarded header defines for it (the
walk_node of core/node_walk.h). A name is renamed in a file when another
file or a header the file does not include declares it at file scope, and a
static variable, typedef or enum constant also when any other file or such
a header uses the identifier at all (a local of that name would shadow it:
-Wshadow). The script stops with a message on a clash it cannot resolve this
way (a header's macro that a file not including the header uses, a file's
macro that a header defines too). The headers are hoisted above the
#defines so that the renaming never reaches into them.

SIMD: src/simd/{sse2,avx2,avx512}.c are compiled with -m flags of their own
in the CMake build. Here they sit in target regions instead (#pragma GCC
target, #pragma clang attribute), inside #ifdef SDX_HAVE_X86_KERNELS, which
sdx.c defines itself on x86 with GCC or clang unless the user defines it
(0 leaves the kernels out); src/simd/neon.c likewise with
SDX_HAVE_NEON_KERNELS on AArch64. Their headers, <immintrin.h> among them,
are hoisted above the regions. The kernels must not test ISA macros
(__AVX2__, ...): clang does not define them in a target region; the script
checks.

Formats: each format's directory is wrapped in #ifndef SDX_NO_<FORMAT>
(MSGPACK, CBOR, BSON, UBJSON, BINN); JSON, the core and the mappings are
always in. A guarded header first inlined in such a section is inlined again
(its guard keeps it single) where a section outside it includes it.

The output depends on the source tree only: the same sources give the same
bytes. Python 3 standard library only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The library's directories under src/, in order, and the macro that leaves a
# directory out (None: always in). src/simd comes last, file by file.
SOURCE_DIRS = [
    ("core", None),
    ("num", None),
    ("json", None),
    ("msgpack", "SDX_NO_MSGPACK"),
    ("map", None),
    ("cbor", "SDX_NO_CBOR"),
    ("bson", "SDX_NO_BSON"),
    ("ubjson", "SDX_NO_UBJSON"),
    ("binn", "SDX_NO_BINN"),
]

# Files of a format's directory that its switch does not leave out: the
# mapping layer (src/map) needs them whichever formats are in (CMakeLists.txt
# keeps them the same way).
ALWAYS_IN = frozenset(["msgpack/timestamp.c", "bson/decimal128.c"])

# src/simd: (file, the macro it needs, target features of its region).
SIMD_FILES = [
    ("dispatch.c", None, None),
    ("scalar.c", None, None),
    ("sse2.c", "SDX_HAVE_X86_KERNELS", "sse2"),
    ("avx2.c", "SDX_HAVE_X86_KERNELS", "avx2,bmi,bmi2"),
    ("avx512.c", "SDX_HAVE_X86_KERNELS", "avx512f,avx512bw,avx512vl,avx2,bmi,bmi2"),
    ("neon.c", "SDX_HAVE_NEON_KERNELS", None),
]

RENAME_PREFIX = "sdx__"

C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float
for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Alignas _Alignof
_Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert
_Thread_local __inline __inline__ __restrict __restrict__ __extension__
__volatile__ __const __signed__
""".split())

# Identifiers followed by a parenthesized group that is not a declarator.
SKIP_GROUP = frozenset("""
__attribute__ __attribute __declspec _Alignas alignas _Atomic _Static_assert
static_assert __typeof__ typeof __typeof __asm__ __asm asm
""".split())


class AmalgamationError(Exception):
    pass


def rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


# ---------------------------------------------------------------------------
# Lexing
# ---------------------------------------------------------------------------

def blank_comments(text):
    """The text with every comment replaced by spaces (newlines kept), so
    that its lines line up with the original's. String and character
    literals are kept as they are."""
    out = []
    i, n = 0, len(text)
    start = 0
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                raise AmalgamationError("unterminated comment")
            out.append(text[start:i])
            out.append(re.sub(r"[^\n]", " ", text[i:end + 2]))
            i = start = end + 2
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            end = i
            while end < n and text[end] != "\n":
                # a line comment continues over a backslash-newline
                if text[end] == "\\" and end + 1 < n and text[end + 1] == "\n":
                    end += 2
                    continue
                end += 1
            out.append(text[start:i])
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = start = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n":
                    break
                j += 1
            i = j + 1
        else:
            i += 1
    out.append(text[start:])
    result = "".join(out)
    assert result.count("\n") == text.count("\n")
    return result


TOKEN_RE = re.compile(r"""
    [A-Za-z_]\w*
  | \.?\d(?:[eEpP][+-]|[\w.])*
  | "(?:\\.|[^"\\\n])*"
  | '(?:\\.|[^'\\\n])*'
  | \.\.\. | -> | \#\# | [^\s]
""", re.VERBOSE)
IDENT_RE = re.compile(r"[A-Za-z_]\w*\Z")


def group_end(toks, i, opening, closing):
    """Index of the token that closes the group opened at toks[i] (nested
    groups of the same kind counted), or None if it is not closed."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j] == opening:
            depth += 1
        elif toks[j] == closing:
            depth -= 1
            if depth == 0:
                return j
    return None


def with_depth(lines, depth=0):
    """(line, depth) for each line: how many #if/#ifdef/#ifndef are open
    after it (an #endif line counts as closed)."""
    for ln in lines:
        if ln.directive in ("if", "ifdef", "ifndef"):
            depth += 1
        elif ln.directive == "endif":
            depth -= 1
        yield ln, depth


def is_ident(t):
    return isinstance(t, str) and IDENT_RE.match(t) is not None


class Line:
    """One logical line of a file: its original text (with continuation
    lines and newlines), and for a directive its name and argument text
    (comments blanked)."""

    __slots__ = ("raw", "directive", "arg", "code")

    def __init__(self, raw, directive, arg, code):
        self.raw = raw
        self.directive = directive
        self.arg = arg
        self.code = code  # comment-free text of a non-directive line


DIRECTIVE_RE = re.compile(r"\s*#\s*([A-Za-z_]\w*)?(.*)\Z", re.S)


class SourceFile:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        if "\r" in text:
            raise AmalgamationError("%s: carriage returns are not supported" % rel(path))
        if text and not text.endswith("\n"):
            text += "\n"
        raw_lines = text.split("\n")[:-1]
        code_lines = blank_comments(text).split("\n")[:-1]
        self.lines = []
        i = 0
        while i < len(raw_lines):
            j = i
            # backslash-newline continuations, in code and in directives
            while code_lines[j].endswith("\\") and j + 1 < len(raw_lines):
                j += 1
            raw = "\n".join(raw_lines[i:j + 1]) + "\n"
            code = " ".join(cl[:-1] if cl.endswith("\\") else cl for cl in code_lines[i:j + 1])
            m = DIRECTIVE_RE.match(code)
            if m:
                self.lines.append(Line(raw, m.group(1) or "", m.group(2).strip(), None))
            else:
                self.lines.append(Line(raw, None, None, code))
            i = j + 1
        self.guard = self._find_guard()

    def _find_guard(self):
        """The include guard's macro, or None: the first directive is
        #ifndef G, the second #define G and the #endif that closes the first
        is the last directive."""
        dirs = [ln for ln in self.lines if ln.directive is not None]
        if len(dirs) < 3 or dirs[0].directive != "ifndef" or dirs[1].directive != "define":
            return None
        g = dirs[0].arg.split()[0] if dirs[0].arg.split() else None
        if not g or dirs[1].arg.split()[:1] != [g]:
            return None
        for k, (d, depth) in enumerate(with_depth(dirs)):
            if d.directive == "endif" and depth == 0:
                return g if k == len(dirs) - 1 else None
        return None


INCLUDE_RE = re.compile(r'(?:"([^"]+)"|<([^>]+)>)')


def parse_include(arg):
    """(kind, name): kind "local" for "x", "system" for <x>."""
    m = INCLUDE_RE.match(arg)
    if not m:
        raise AmalgamationError("cannot read #include %s" % arg)
    if m.group(1) is not None:
        return "local", m.group(1)
    return "system", m.group(2)


def define_name(arg):
    m = re.match(r"([A-Za-z_]\w*)(\()?", arg)
    if not m:
        raise AmalgamationError("cannot read #define %s" % arg)
    return m.group(1), m.group(2) is not None


# ---------------------------------------------------------------------------
# The project's files
# ---------------------------------------------------------------------------

class Project:
    def __init__(self, root):
        self.root = root
        self.src = os.path.join(root, "src")
        self.include = os.path.join(root, "include")
        self.files = {}

    def file(self, path):
        f = self.files.get(path)
        if f is None:
            f = self.files[path] = SourceFile(path)
        return f

    def resolve(self, name, from_path):
        """A quoted include: the including file's directory first, then
        src/ and include/ (the CMake build's include path)."""
        for d in (os.path.dirname(from_path), self.src, self.include):
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(p):
                return p
        raise AmalgamationError('%s: cannot find #include "%s"' % (rel(from_path), name))

    def is_public(self, path):
        return path.startswith(os.path.join(self.include, ""))

    def version(self):
        """The version, from the one place it is written (include/sdx/common.h)."""
        with open(os.path.join(self.include, "sdx", "common.h"), encoding="utf-8") as f:
            text = f.read()
        parts = []
        for part in ("MAJOR", "MINOR", "PATCH"):
            m = re.search(r"^#define SDX_VERSION_%s ([0-9]+)$" % part, text, re.M)
            if not m:
                raise AmalgamationError("no SDX_VERSION_%s in include/sdx/common.h" % part)
            parts.append(m.group(1))
        return ".".join(parts)

    def sources(self):
        """[(path, format macro, kernel macro, target features)] in order."""
        out = []
        known = {"simd"} | {d for d, _ in SOURCE_DIRS}
        for d in sorted(os.listdir(self.src)):
            full = os.path.join(self.src, d)
            if os.path.isdir(full) and d not in known and any(
                    n.endswith(".c") for n in os.listdir(full)):
                raise AmalgamationError(
                    "src/%s: a directory of sources that scripts/amalgamate.py does not know" % d)
        for d, fmt in SOURCE_DIRS:
            full = os.path.join(self.src, d)
            for n in sorted(os.listdir(full)):
                if n.endswith(".c"):
                    # the mapping layer's pieces of a format stay in (as in CMakeLists.txt)
                    keep = "%s/%s" % (d, n) in ALWAYS_IN
                    out.append((os.path.join(full, n), None if keep else fmt, None, None))
        simd = os.path.join(self.src, "simd")
        listed = {n for n, _, _ in SIMD_FILES}
        extra = sorted(n for n in os.listdir(simd) if n.endswith(".c") and n not in listed)
        if extra:
            raise AmalgamationError("src/simd/%s: not in scripts/amalgamate.py's SIMD_FILES" % extra[0])
        for n, need, target in SIMD_FILES:
            out.append((os.path.join(simd, n), None, need, target))
        return out


# ---------------------------------------------------------------------------
# Scanning: what a file declares at file scope, what it includes
# ---------------------------------------------------------------------------

class Scan:
    """The result of scanning one file (a .c file with the unguarded headers
    it includes expanded in place, or one header alone)."""

    def __init__(self):
        self.locals = {}       # name -> "function" | "variable" (file-local)
        self.externs = set()   # file-scope names with external linkage
        self.macros = set()    # macros #defined in the file's own text
        self.idents = set()    # every identifier of the text
        self.closure = set()   # every header it includes, transitively


class Scanner:
    def __init__(self, project):
        self.p = project
        self.header_macros = {}  # header path -> {name: is_function_like}
        self._closures = {}

    def closure(self, path, _stack=()):
        """Every header that `path` includes, transitively."""
        if path in self._closures:
            return self._closures[path]
        if path in _stack:
            return set()
        out = set()
        for ln in self.p.file(path).lines:
            if ln.directive == "include":
                kind, name = parse_include(ln.arg)
                if kind == "local":
                    h = self.p.resolve(name, path)
                    out.add(h)
                    out |= self.closure(h, _stack + (path,))
        self._closures[path] = out
        return out

    def macros_of(self, path):
        if path not in self.header_macros:
            m = {}
            for ln in self.p.file(path).lines:
                if ln.directive == "define":
                    name, fn = define_name(ln.arg)
                    m[name] = fn
            self.header_macros[path] = m
        return self.header_macros[path]

    def all_function_macros(self, paths):
        out = set()
        for h in paths:
            out |= {n for n, fn in self.macros_of(h).items() if fn}
        return out

    def scan(self, path, expand_unguarded, fn_macros):
        """Scan `path`: its tokens in every configuration of the #if chains
        whose outcome the scan cannot know (branch 0 of each, branch 1 of
        each, ...), declarations collected over all of them."""
        result = Scan()
        result.closure = self.closure(path)
        for ln in self.p.file(path).lines:
            if ln.directive == "define":
                result.macros.add(define_name(ln.arg)[0])
        branch = 0
        while True:
            toks, idents, widest = self._tokens(path, expand_unguarded, branch)
            result.idents |= idents
            self._declarations(toks, fn_macros, result)
            branch += 1
            if branch >= widest:
                break
        return result

    def _tokens(self, path, expand_unguarded, branch):
        """The file's code tokens, unguarded headers expanded in place when
        asked, with object-like macros that name a declaration (#define
        NODE_WALK_FN walk_node) replaced; the identifiers of all of it; the
        largest number of branches of one #if chain."""
        toks = []
        idents = set()
        defined = {}    # object-like macro -> replacement tokens (this stream)
        undefined = set()
        state = {"widest": 1}

        def known_macro(name):
            if name in defined:
                return True
            if name in undefined:
                return False
            return None

        def walk(p):
            f = self.p.file(p)
            # stack of [taking now, some branch taken, mode, branch index]
            stack = []

            def active():
                return all(s[0] for s in stack)

            for ln in f.lines:
                d = ln.directive
                if d is None:
                    found = TOKEN_RE.findall(ln.code)
                    idents.update(t for t in found if is_ident(t))
                    if active():
                        for t in found:
                            for _ in range(8):
                                body = defined.get(t)
                                if body is None or len(body) != 1:
                                    break
                                t = body[0]
                            toks.append(t)
                    continue
                idents.update(t for t in TOKEN_RE.findall(ln.arg) if is_ident(t))
                if d in ("ifdef", "ifndef"):
                    name = ln.arg.split()[0]
                    k = known_macro(name)
                    if k is None and not any(name in self.macros_of(h) for h in self.closure(p)):
                        k = False  # a macro of the build or the user: not defined
                    if k is None:
                        # a header's macro, perhaps defined: either way
                        stack.append([False, False, "unknown", 0])
                        self._choose(stack[-1], branch)
                    else:
                        take = k if d == "ifdef" else not k
                        stack.append([take, take, "known", 0])
                elif d == "if":
                    stack.append([False, False, "unknown", 0])
                    self._choose(stack[-1], branch)
                elif d == "elif":
                    s = stack[-1]
                    s[3] += 1
                    state["widest"] = max(state["widest"], s[3] + 1)
                    if s[2] == "known":
                        s[2] = "unknown"
                        s[0] = False
                        if not s[1]:
                            s[3] = 0
                            self._choose(s, branch)
                    else:
                        self._choose(s, branch)
                elif d == "else":
                    s = stack[-1]
                    s[3] += 1
                    state["widest"] = max(state["widest"], s[3] + 1)
                    s[0] = not s[1]
                    s[1] = True
                elif d == "endif":
                    stack.pop()
                elif not active():
                    continue
                elif d == "define":
                    name, fn = define_name(ln.arg)
                    undefined.discard(name)
                    if fn:
                        defined[name] = None
                    else:
                        body = TOKEN_RE.findall(ln.arg[len(name):])
                        defined[name] = body
                elif d == "undef":
                    name = ln.arg.split()[0]
                    defined.pop(name, None)
                    undefined.add(name)
                elif d == "include":
                    kind, name = parse_include(ln.arg)
                    if kind == "local" and expand_unguarded:
                        h = self.p.resolve(name, p)
                        if self.p.file(h).guard is None and not self.p.is_public(h):
                            walk(h)

        walk(path)
        return toks, idents, state["widest"]

    @staticmethod
    def _choose(s, branch):
        """An #if or #elif whose outcome the scan does not know: take branch
        number `branch` of the chain (counting #if as 0), else its last."""
        if s[1]:
            s[0] = False
            return
        s[0] = s[3] >= branch
        s[1] = s[0]

    # -- declarations ------------------------------------------------------

    def _declarations(self, toks, fn_macros, result):
        n = len(toks)
        i = 0
        while i < n:
            cur = []
            depth = 0
            while i < n:
                t = toks[i]
                if t in ("(", "["):
                    depth += 1
                elif t in (")", "]"):
                    depth -= 1
                elif t == "{" and depth == 0:
                    j = self._match(toks, i)
                    if cur and cur[-1] == ")" and "=" not in cur:
                        self._declare(cur, fn_macros, result)
                        cur = None
                        i = j + 1
                        break
                    cur.append(("{}", toks[i + 1:j]))
                    i = j + 1
                    continue
                elif t == ";" and depth == 0:
                    i += 1
                    break
                cur.append(t)
                i += 1
            if cur:
                self._declare(cur, fn_macros, result)

    @staticmethod
    def _match(toks, i):
        """Index of the brace that closes the one at toks[i]."""
        j = group_end(toks, i, "{", "}")
        if j is None:
            raise AmalgamationError("unbalanced braces")
        return j

    def _declare(self, cur, fn_macros, result):
        top = [t for t in cur if isinstance(t, str)]
        local = "static" in top or "typedef" in top
        # struct/union/enum tags, enum constants (file scope in C, at any
        # nesting of struct bodies)
        self._tags(cur, result)
        # declarators
        parts = []
        part = []
        depth = 0
        skipping = False
        for t in cur:
            if isinstance(t, tuple):
                if not skipping:
                    part.append(t)
                continue
            if t in ("(", "["):
                depth += 1
            elif t in (")", "]"):
                depth -= 1
            if depth == 0 and t == ",":
                parts.append(part)
                part = []
                skipping = False
                continue
            if depth == 0 and t == "=":
                skipping = True
            if not skipping:
                part.append(t)
        parts.append(part)
        for k, part in enumerate(parts):
            if k == 0 and self._only_tag(part):
                continue
            found = self._name(part, fn_macros)
            if not found:
                continue
            name, is_fn = found
            if local:
                kind = "function" if is_fn and "typedef" not in top else "variable"
                if result.locals.get(name) != "variable":
                    result.locals[name] = kind
            else:
                result.externs.add(name)

    @staticmethod
    def _only_tag(part):
        """struct x / struct x {...} / enum {...}: no declarator."""
        if not part or part[0] not in ("struct", "union", "enum"):
            return False
        rest = part[1:]
        if rest and is_ident(rest[0]):
            rest = rest[1:]
        return not rest or (len(rest) == 1 and isinstance(rest[0], tuple))

    def _tags(self, cur, result):
        for k, t in enumerate(cur):
            if not isinstance(t, tuple):
                continue
            body = t[1]
            prev = cur[k - 1] if k else None
            kw = None
            if prev in ("struct", "union", "enum"):
                kw = prev
            elif k >= 2 and cur[k - 2] in ("struct", "union", "enum") and is_ident(prev):
                kw = cur[k - 2]
                result.locals.setdefault(prev, "tag")
            if kw == "enum":
                item_start = True
                depth = 0
                for b in body:
                    if b in ("(", "[", "{"):
                        depth += 1
                    elif b in (")", "]", "}"):
                        depth -= 1
                    elif b == "," and depth == 0:
                        item_start = True
                        continue
                    if item_start and is_ident(b):
                        result.locals[b] = "variable"
                    item_start = False
            elif kw in ("struct", "union"):
                # nested definitions inside the body
                inner = []
                i = 0
                while i < len(body):
                    if body[i] == "{":
                        j = self._match(body, i)
                        inner.append(("{}", body[i + 1:j]))
                        i = j + 1
                    else:
                        inner.append(body[i])
                        i += 1
                self._tags(inner, result)

    def _name(self, part, fn_macros):
        """The declared identifier of one declarator (the first one carries
        the declaration's specifiers), and whether it declares a function."""
        prev = None
        k = 0
        n = len(part)
        while k < n:
            t = part[k]
            if isinstance(t, tuple):
                prev = None
                k += 1
                continue
            if is_ident(t):
                nxt = part[k + 1] if k + 1 < n else None
                if (t in SKIP_GROUP or t in fn_macros) and nxt == "(":
                    k = self._skip_group(part, k + 1)
                    prev = None
                    continue
                if t in C_KEYWORDS:
                    prev = None
                else:
                    prev = t
            elif t == "(":
                end = self._skip_group(part, k)
                group = part[k + 1:end - 1]
                if (len(group) == 1 and is_ident(group[0]) and group[0] not in C_KEYWORDS and
                        end < n and part[end] == "("):
                    return group[0], True  # type (name)(params): a name kept from macros
                if prev is not None and part[k - 1] == prev and group[:1] != ["*"]:
                    return prev, True
                # a declarator in parentheses: (*name)[2], (*name)(void)
                inner = self._name(group, fn_macros)
                if inner:
                    return inner
                k = end
                continue
            elif t in ("[", ":"):
                return (prev, False) if prev else None
            k += 1
        return (prev, False) if prev else None

    @staticmethod
    def _skip_group(part, k):
        """Index after the parenthesized group starting at part[k]."""
        j = group_end(part, k, "(", ")")
        return len(part) if j is None else j + 1


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def banner(version, what):
    return (
        "/*\n"
        " * %s: part of the single-file distribution of sdx %s\n"
        " * (sdx.h and sdx.c), generated by scripts/amalgamate.py from the\n"
        " * library's sources. Do not edit: change the sources and regenerate\n"
        " * (make amalgamation).\n"
        " *\n"
        " * License: the terms of the sdx sources this file is made of apply to\n"
        " * it unchanged.\n"
        " */\n" % (what, version))


class Writer:
    def __init__(self, project):
        self.p = project
        self.out = []
        # header path or "<name>" -> conditions under which it has been
        # written ("" for unconditionally)
        self.emitted = {}

    def emit(self, s):
        self.out.append(s)

    def written(self, key, cond):
        conds = self.emitted.get(key, ())
        return "" in conds or cond in conds

    def mark(self, key, cond):
        self.emitted.setdefault(key, set()).add(cond)

    def copy(self, f, cond, mode, hoisted=frozenset()):
        """Write f's lines, includes resolved: mode "public" (sdx.h: public
        headers inlined), "private" (sdx.c: private headers inlined, public
        ones dropped). Includes in `hoisted` (line objects) were written
        already."""
        # the include guard's #ifndef does not make what it holds conditional
        for ln, depth in with_depth(f.lines, -1 if f.guard is not None else 0):
            d = ln.directive
            if d != "include":
                self.emit(ln.raw)
                continue
            if id(ln) in hoisted:
                continue
            # an include inside a conditional is written in place and not
            # remembered (it may not have been compiled)
            here = cond if depth == 0 else None
            self.include(ln, f.path, here, mode)
        if not self.out[-1].endswith("\n"):
            self.emit("\n")

    def include(self, ln, from_path, cond, mode):
        kind, name = parse_include(ln.arg)
        if kind == "system":
            key = "<%s>" % name
            if cond is not None and self.written(key, cond):
                return
            if cond is not None:
                self.mark(key, cond)
            self.emit(ln.raw)
            return
        h = self.p.resolve(name, from_path)
        if mode == "private" and self.p.is_public(h):
            return  # sdx.h has it
        if mode == "public" and not self.p.is_public(h):
            raise AmalgamationError("%s includes a private header, %s" % (rel(from_path), name))
        f = self.p.file(h)
        if f.guard is not None:
            if cond is not None and self.written(h, cond):
                return
            if cond is not None:
                self.mark(h, cond)
        self.emit("/* ---- %s ---- */\n" % rel(h))
        # clang warns about an unused static inline function of the main
        # file, which a header's now is
        quiet = mode == "private" and any(
            ln.directive is None and re.search(r"\binline\b", ln.code) for ln in f.lines)
        if quiet:
            self.emit(UNUSED_PUSH)
        self.copy(f, cond, mode)
        if quiet:
            self.emit(UNUSED_POP)
        self.emit("/* ---- end of %s ---- */\n" % rel(h))

    def hoist(self, f, cond):
        """Write f's unconditional system and guarded private includes, and
        those of the unguarded headers it includes unconditionally; returns
        the include lines written (ids) so that copy() skips them."""
        done = set()
        for ln, depth in with_depth(f.lines):
            if ln.directive == "include" and depth == 0:
                kind, name = parse_include(ln.arg)
                if kind == "local":
                    h = self.p.resolve(name, f.path)
                    if not self.p.is_public(h) and self.p.file(h).guard is None:
                        done |= self.hoist(self.p.file(h), cond)
                        continue
                self.include(ln, f.path, cond, "private")
                done.add(id(ln))
        return done


UNUSED_PUSH = (
    "#ifdef __clang__\n"
    "#pragma clang diagnostic push\n"
    '#pragma clang diagnostic ignored "-Wunused-function"\n'
    "#endif\n")

UNUSED_POP = (
    "#ifdef __clang__\n"
    "#pragma clang diagnostic pop\n"
    "#endif\n")


def target_push(features):
    return (
        "#if defined(__clang__)\n"
        '#pragma clang attribute push(__attribute__((target("%s"))), apply_to = function)\n'
        "#elif defined(__GNUC__)\n"
        "#pragma GCC push_options\n"
        '#pragma GCC target("%s")\n'
        "#endif\n" % (features, features))


TARGET_POP = (
    "#if defined(__clang__)\n"
    "#pragma clang attribute pop\n"
    "#elif defined(__GNUC__)\n"
    "#pragma GCC pop_options\n"
    "#endif\n")

SIMD_PRELUDE = """\
/*
 * SIMD kernels. The CMake build compiles src/simd/{sse2,avx2,avx512}.c with
 * -m flags of their own; here they are target regions of this file, compiled
 * when SDX_HAVE_X86_KERNELS is defined: by default on x86 and x86-64 with
 * GCC or clang. src/simd/neon.c needs SDX_HAVE_NEON_KERNELS: by default on
 * AArch64. Define either to 0 to leave those kernels out (the portable
 * scalar code is always in); run-time dispatch picks the best kernels the
 * CPU runs (src/simd/dispatch.c; the environment variable SDX_SIMD caps it).
 */
#if !defined(SDX_HAVE_X86_KERNELS)
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SDX_HAVE_X86_KERNELS 1
#endif
#elif (SDX_HAVE_X86_KERNELS + 0) == 0
#undef SDX_HAVE_X86_KERNELS
#endif
#if !defined(SDX_HAVE_NEON_KERNELS)
#if defined(__aarch64__) || defined(_M_ARM64)
#define SDX_HAVE_NEON_KERNELS 1
#endif
#elif (SDX_HAVE_NEON_KERNELS + 0) == 0
#undef SDX_HAVE_NEON_KERNELS
#endif

/*
 * Formats: define SDX_NO_MSGPACK, SDX_NO_CBOR, SDX_NO_BSON, SDX_NO_UBJSON or
 * SDX_NO_BINN to leave that format's sources out. JSON is always in.
 */
"""

ISA_MACRO_RE = re.compile(r"\b__(?:SSE\d*|AVX\w*|BMI\d?|POPCNT|LZCNT|FMA|F16C)__\b")


def plan_renames(project, scanner, sources):
    """{source path: {name: kind}}: the file-local names each source must
    rename (see the module's docstring)."""
    public = [os.path.join(project.include, "sdx", n)
              for n in sorted(os.listdir(os.path.join(project.include, "sdx"))) if n.endswith(".h")]
    headers = set(public)
    for path, _, _, _ in sources:
        headers |= scanner.closure(path)
    headers = sorted(headers)
    fn_macros = scanner.all_function_macros(headers)
    for path, _, _, _ in sources:
        fn_macros |= {define_name(ln.arg)[0] for ln in project.file(path).lines
                      if ln.directive == "define" and define_name(ln.arg)[1]}
    hscan = {}
    for h in headers:
        if project.file(h).guard is not None:
            hscan[h] = scanner.scan(h, expand_unguarded=False, fn_macros=fn_macros)
    sscan = {path: scanner.scan(path, expand_unguarded=True, fn_macros=fn_macros)
             for path, _, _, _ in sources}

    plan = {}
    for path, _, _, _ in sources:
        s = sscan[path]
        # every header is visible to every section (sdx.h first, private
        # headers as they are inlined) except through the include guard,
        # and then the file's own includes count
        others = [h for h in hscan if h not in s.closure]
        renames = {}
        for name, kind in sorted(s.locals.items()):
            clash = False
            for o, os_ in sscan.items():
                if o == path:
                    continue
                if name in os_.locals or name in os_.externs:
                    clash = True
                elif kind == "variable" and name in os_.idents:
                    clash = True
            for h in others:
                hs = hscan[h]
                if name in hs.locals or name in hs.externs:
                    clash = True
                elif kind == "variable" and name in hs.idents:
                    clash = True
                if name in scanner.macros_of(h):
                    raise AmalgamationError(
                        "%s: %s is a macro of %s, which the file does not include" %
                        (rel(path), name, rel(h)))
            if clash:
                renames[name] = kind
        plan[path] = renames
        # a header's macro that this file uses without including the header
        for h in others:
            hm = set(scanner.macros_of(h)) & s.idents
            hm -= s.macros
            for closure_h in s.closure:
                hm -= set(scanner.macros_of(closure_h))
            if hm:
                raise AmalgamationError(
                    "%s uses %s, a macro of %s, which it does not include" %
                    (rel(path), ", ".join(sorted(hm)), rel(h)))
        # a macro the file defines that a header defines too (but for the
        # unguarded headers, which a file configures through macros)
        for h in headers:
            if project.file(h).guard is None:
                continue
            both = s.macros & set(scanner.macros_of(h))
            if both:
                raise AmalgamationError("%s defines %s, a macro of %s as well" %
                                        (rel(path), ", ".join(sorted(both)), rel(h)))
    return plan, sscan


def left_defined(f):
    """The macros that f #defines and does not #undef after its last
    #define."""
    last = {}
    for ln in f.lines:
        if ln.directive == "define":
            last[define_name(ln.arg)[0]] = True
        elif ln.directive == "undef" and ln.arg.split():
            name = ln.arg.split()[0]
            if name in last:
                last[name] = False
    return {name for name, defined in last.items() if defined}


def file_id(project, path):
    r = os.path.relpath(path, project.src).replace(os.sep, "/")
    return re.sub(r"\W", "_", r[:-2] if r.endswith(".c") else r)


def amalgamate(root, outdir, verbose=False):
    project = Project(root)
    version = project.version()
    scanner = Scanner(project)
    sources = project.sources()

    # sdx.h
    w = Writer(project)
    w.emit(banner(version, "sdx.h"))
    top = project.file(os.path.join(project.include, "sdx", "sdx.h"))
    w.emit("/* ---- include/sdx/sdx.h ---- */\n")
    w.copy(top, "", mode="public")
    header = "".join(w.out)

    # sdx.c
    plan, sscan = plan_renames(project, scanner, sources)
    seen = w.emitted
    w = Writer(project)
    w.emitted = {k: set(v) for k, v in seen.items()}  # what sdx.h has
    w.emit(banner(version, "sdx.c"))
    w.emit('#include "sdx.h"\n\n')
    w.emit(SIMD_PRELUDE)
    for path, fmt, need, target in sources:
        f = project.file(path)
        fid = file_id(project, path)
        if target is not None:
            for p in [path] + sorted(scanner.closure(path)):
                for ln in project.file(p).lines:
                    m = ln.directive and ISA_MACRO_RE.search(ln.arg)
                    if m:
                        raise AmalgamationError(
                            "%s tests %s: the CMake build compiles %s with -m flags, which "
                            "define it; a target region does not (clang)" %
                            (rel(p), m.group(0), rel(path)))
        cond = fmt or need or ""
        w.emit("\n/* %s */\n" % ("=" * 72))
        w.emit("/* %s */\n" % rel(path))
        w.emit("/* %s */\n" % ("=" * 72))
        if fmt:
            w.emit("#ifndef %s\n" % fmt)
        if need:
            w.emit("#ifdef %s\n" % need)
        hoisted = w.hoist(f, cond)
        if target is not None:
            left = [ln for ln in f.lines if ln.directive == "include" and id(ln) not in hoisted]
            if left:
                raise AmalgamationError("%s: #include %s would land in the target region" %
                                        (rel(path), left[0].arg))
        renames = plan[path]
        if renames:
            w.emit("/* file-local names that other parts of the library use too */\n")
            for name in sorted(renames):
                w.emit("#define %s %s%s__%s\n" % (name, RENAME_PREFIX, fid, name))
        if target:
            w.emit(target_push(target))
        w.copy(f, cond, mode="private", hoisted=hoisted)
        if target:
            w.emit(TARGET_POP)
        macros = left_defined(f)
        for h in sorted(scanner.closure(path)):
            if not project.is_public(h) and project.file(h).guard is None:
                macros |= left_defined(project.file(h))
        macros = sorted(macros)
        if macros or renames:
            w.emit("/* end of %s */\n" % rel(path))
        for name in macros:
            w.emit("#undef %s\n" % name)
        for name in sorted(renames):
            w.emit("#undef %s\n" % name)
        if need:
            w.emit("#endif /* %s */\n" % need)
        if fmt:
            w.emit("#endif /* %s */\n" % fmt)
        if verbose and renames:
            print("%s: %s" % (rel(path), " ".join(sorted(renames))), file=sys.stderr)
    source = "".join(w.out)

    os.makedirs(outdir, exist_ok=True)
    for name, text in (("sdx.h", header), ("sdx.c", source)):
        target_path = os.path.join(outdir, name)
        tmp = target_path + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, target_path)
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "amalgamation"),
                    help="output directory (default: build/amalgamation)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list the names renamed in each file")
    args = ap.parse_args()
    try:
        amalgamate(ROOT, args.out, args.verbose)
    except AmalgamationError as e:
        print("amalgamate.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
