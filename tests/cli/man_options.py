#!/usr/bin/env python3
"""Check that the manual page doc/sdx.1 and the sdx command's --help agree.

usage: man_options.py SDX MAN_PAGE

Runs `sdx --help`, `sdx COMMAND --help` for every command in the "Commands:"
section of the top-level help, `sdx formats` and `sdx --version` (through
the prefix in the environment variable SDX_TEST_EMULATOR, split on spaces,
as the other host-script tests do), and checks the man page's source, read
after un-escaping roff (\\- to -, the font escapes \\fB \\fI \\fR \\fP
removed, comment lines dropped):

  - commands, both ways: every command of the help has a subsection
    (.SS NAME) in COMMANDS, and every subsection there is a command;
  - every option an option list of a help defines (lines "  -f, --from
    FORMAT   ..."), in the subsection of its command (the top-level help's
    in OPTIONS); and the reverse: every option a .TP item of a command's
    subsection names exists in that command's help;
  - every long option (--name) and short option (-x) a help mentions
    anywhere, somewhere in the page;
  - every option form with its values (--bin=error|base64), as written;
  - the formats ("Formats (-f / -t):") both ways as .TP items of FORMATS,
    with the extensions `sdx formats` lists;
  - the exit codes of the helps' "Exit status:", both ways as the .TP items
    of EXIT STATUS;
  - the version `sdx --version` prints, in the .TH line.

Prints what it checked and exits 0, or lists everything missing and exits
1. Python 3 standard library only.
"""

import os
import re
import subprocess
import sys

EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()

LONG = re.compile(r"(?<![\w-])--[A-Za-z][A-Za-z0-9-]*")
SHORT = re.compile(r"(?<![\w-])-[A-Za-z](?![\w-])")
VALUES = re.compile(r"(?<![\w-])--[A-Za-z][A-Za-z0-9-]*=[A-Za-z0-9]+(?:\|[A-Za-z0-9]+)+")


def run(sdx, *args):
    """Run sdx with args; its stdout (exits if it fails)."""
    cmd = EMULATOR + [sdx] + list(args)
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit("man_options: cannot run %s: %s" % (" ".join(cmd), e))
    if r.returncode != 0 or not r.stdout:
        sys.exit("man_options: %s exited with %d\n%s" % (" ".join(cmd), r.returncode,
                                                          r.stderr.decode("utf-8", "replace")))
    return r.stdout.decode("utf-8", "replace")


def options_in(text):
    return set(LONG.findall(text)) | set(SHORT.findall(text))


def sdx_text(help_text):
    """The help without the other programs of its example command lines
    ("curl -s URL | sdx fmt", "sdx fmt x | less -R"): only the pipeline
    segments that run sdx are kept of a line that runs sdx."""
    out = []
    for line in help_text.splitlines():
        if re.match(r"^\s*sdx\s", line) or re.search(r"\|\s*sdx\s", line):
            line = " ".join(seg for seg in re.split(r"\|\|?|&&|;", line) if re.match(r"^\s*sdx\s", seg))
        out.append(line)
    return "\n".join(out)


def defined_options(help_text):
    """The options an option list defines: the part of each "  -x, --name
    ARG   meaning" line before the column of meanings."""
    found = set()
    for line in help_text.splitlines():
        if re.match(r"^ {2,}-", line):
            found |= options_in(re.split(r" {2,}", line.strip(), maxsplit=1)[0])
    return found


def exit_codes(help_text):
    m = re.search(r"Exit status:(.*?)(?:\n\n|\Z)", help_text, re.S)
    if not m:
        return set()
    return set(re.findall(r"(?:^|[:,])\s*(\d+) ", " ".join(m.group(1).split()) + " "))


def unescape(line):
    line = re.sub(r"\\f(?:[BIRP]|\[[A-Z]*\])", "", line)
    for a, b in (("\\-", "-"), ("\\(aq", "'"), ("\\&", ""), ("\\%", ""), ("\\|", ""), ("\\ ", " ")):
        line = line.replace(a, b)
    return line.replace("\\e", "\\")


def macro_args(s):
    """The arguments of a macro line: split on spaces, "..." quoted, with ""
    for a quote inside quotes."""
    args, i = [], 0
    while i < len(s):
        if s[i] == " ":
            i += 1
            continue
        if s[i] == '"':
            arg, i = "", i + 1
            while i < len(s):
                if s[i] == '"' and s[i + 1:i + 2] == '"':
                    arg, i = arg + '"', i + 2
                elif s[i] == '"':
                    i += 1
                    break
                else:
                    arg, i = arg + s[i], i + 1
        else:
            j = s.find(" ", i)
            j = len(s) if j < 0 else j
            arg, i = s[i:j], j
        args.append(arg)
    return args


def macro_text(line):
    """A line as text: without its macro, the arguments of the font
    alternating macros (.BR .IR .RB ...) run together as roff prints them
    (".BR \\-\\-bin=error | base64" -> "--bin=error|base64"), those of others
    separated by spaces."""
    m = re.match(r"^\.([A-Za-z]+)\s*(.*)$", line)
    if not m:
        return line
    args = macro_args(m.group(2))
    return ("" if m.group(1) in ("BR", "RB", "BI", "IB", "IR", "RI") else " ").join(args)


class Page:
    """The man page: its lines (un-escaped, no comments), split into
    sections (.SH) and the subsections (.SS) of each."""

    def __init__(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                raw = f.read().splitlines()
        except OSError as e:
            sys.exit("man_options: cannot read the man page: %s" % e)
        self.lines = [unescape(l) for l in raw if not re.match(r"^[.']\s*\\\"", l)]
        # the source as text, and each macro line also as the text it prints
        self.text = "\n".join(l + ("\n" + macro_text(l) if l.startswith(".") else "") for l in self.lines)
        self.sections = {}     # name -> lines
        self.subsections = {}  # section name -> {name: lines}
        section = sub = None
        for line in self.lines:
            m = re.match(r"^\.(SH|SS)\s+(.*)$", line)
            if m and m.group(1) == "SH":
                section, sub = m.group(2).strip().strip('"'), None
                self.sections[section] = []
                self.subsections[section] = {}
                continue
            if m and section is not None:
                sub = m.group(2).strip().strip('"')
                self.subsections[section][sub] = []
            if section is not None:
                self.sections[section].append(line)
                if sub is not None:
                    self.subsections[section][sub].append(line)
        self.title = next((l for l in self.lines if l.startswith(".TH ")), "")

    @staticmethod
    def tags(lines):
        """The tags of the .TP items in lines, as text."""
        return [macro_text(lines[i + 1]).strip() for i, l in enumerate(lines[:-1])
                if re.match(r"^\.TP\b", l)]


def has(text, word):
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text) is not None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    sdx, man = os.path.abspath(sys.argv[1]), sys.argv[2]
    page = Page(man)
    missing = []
    counts = {}

    top = run(sdx, "--help")
    m = re.search(r"^Commands:\n((?:[ \t]+\S.*\n)+)", top, re.M)
    if not m:
        sys.exit("man_options: no \"Commands:\" section in sdx --help")
    commands = [line.split()[0] for line in m.group(1).splitlines()]
    helps = {cmd: run(sdx, cmd, "--help") for cmd in commands}

    for name in ("COMMANDS", "OPTIONS", "FORMATS", "EXIT STATUS"):
        if name not in page.sections:
            missing.append("the page has no section %s" % name)
    man_commands = page.subsections.get("COMMANDS", {})

    # Commands, both ways.
    for cmd in commands:
        if cmd not in man_commands:
            missing.append("command %s: no subsection \".SS %s\" in COMMANDS" % (cmd, cmd))
    for sub in man_commands:
        if sub not in commands:
            missing.append("COMMANDS has a subsection \"%s\", which sdx --help does not list" % sub)
    counts["commands (both ways)"] = len(commands)

    # Options each help defines, in their own part of the page; the reverse
    # for the commands' .TP items.
    in_section = 0
    own = [("sdx --help", top, page.sections.get("OPTIONS", []), "OPTIONS", None)]
    own += [("sdx %s --help" % c, helps[c], man_commands.get(c), "COMMANDS/%s" % c, c) for c in commands]
    for where, text, lines, part, cmd in own:
        if lines is None:
            continue
        body = "\n".join(l + ("\n" + macro_text(l) if l.startswith(".") else "") for l in lines)
        for opt in sorted(defined_options(text)):
            in_section += 1
            if not has(body, opt):
                missing.append("%s: option %s is not in the page's %s" % (where, opt, part))
        if cmd is None:
            continue
        known = options_in(sdx_text(text)) | {"-h", "--help"}  # every command takes them
        for tag in Page.tags(lines):
            if not tag.startswith("-"):
                continue
            for opt in sorted(options_in(tag)):
                if opt not in known:
                    missing.append("%s: the page's %s documents %s, which the help does not have"
                                   % (where, part, opt))
    counts["options in their command's part (reverse: its .TP items)"] = in_section

    # Every option mentioned anywhere, and every option form with values.
    mentioned, forms = set(), set()
    for text in [top] + list(helps.values()):
        mentioned |= options_in(sdx_text(text))
        forms |= set(VALUES.findall(text))
    for opt in sorted(mentioned):
        if not has(page.text, opt):
            missing.append("option %s (in a --help) is nowhere in the page" % opt)
    for form in sorted(forms):
        name, values = form.split("=", 1)  # --color=auto|... may be --color[=auto|...]
        if not re.search(re.escape(name) + r"\[?=" + re.escape(values) + r"(?![\w|])", page.text):
            missing.append("option form %s (in a --help) is not in the page as written" % form)
    counts["distinct options mentioned in the helps"] = len(mentioned)
    counts["option forms with values"] = len(forms)

    # Formats and their extensions, both ways.
    m = re.search(r"^Formats \(-f / -t\):(.*)$", top, re.M)
    formats = m.group(1).split() if m else []
    if not formats:
        missing.append("sdx --help lists no formats (\"Formats (-f / -t): ...\")")
    fmt_lines = page.sections.get("FORMATS", [])
    fmt_tags = {t.split()[0]: t for t in Page.tags(fmt_lines) if t}
    for f in formats:
        if f not in fmt_tags:
            missing.append("format %s: no .TP item in FORMATS" % f)
    for t in fmt_tags:
        if t not in formats:
            missing.append("FORMATS documents %s, which sdx --help does not list" % t)
    n_ext = 0
    for row in run(sdx, "formats").splitlines()[1:]:
        cells = row.split()
        if not cells:
            continue
        for ext in [c for c in cells if c.startswith(".")]:
            n_ext += 1
            if not has(fmt_tags.get(cells[0], ""), ext):
                missing.append("format %s: extension %s is not in its FORMATS item" % (cells[0], ext))
    counts["formats (both ways)"] = len(formats)
    counts["extensions"] = n_ext

    # Exit codes, both ways.
    codes = set()
    for text in [top] + list(helps.values()):
        codes |= exit_codes(text)
    if not codes:
        missing.append("no exit codes found in the helps' \"Exit status:\"")
    man_codes = {t for t in Page.tags(page.sections.get("EXIT STATUS", [])) if t.isdigit()}
    for c in sorted(codes - man_codes):
        missing.append("exit status %s: no .TP item in EXIT STATUS" % c)
    for c in sorted(man_codes - codes):
        missing.append("EXIT STATUS documents %s, which no --help mentions" % c)
    counts["exit codes (both ways)"] = len(codes)

    # The version.
    version = run(sdx, "--version").split()
    if len(version) < 2 or ("sdx " + version[1]) not in page.title:
        missing.append("the .TH line (%s) does not name sdx %s" % (page.title, " ".join(version[1:2])))
    counts["version"] = 1

    print("man_options: %s against %s" % (man, sdx))
    for what, n in counts.items():
        print("  %4d %s" % (n, what))
    if missing:
        print("\n%d missing or extra:" % len(missing))
        for m in missing:
            print("  " + m)
        return 1
    print("the man page and --help agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
