#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command's docs against its option tables.

    cli_docs.py RINGSIDE SOURCE_ROOT

Every command's options come from its table (opt/, ringside/opt.h), read
here through the help the table prints (`ringside COMMAND --help`, which
lists exactly the options the table parses).  Checked:

  1. docs/cli.md's synopsis (the first code block) has a line for every
     command of `ringside --help`, and each command's lines name every
     option of its table and no other; an option that takes a value is
     followed by one there, a flag is not;
  2. docs/cli.md has a section (a '## ' heading) naming every command;
  3. every `ringside COMMAND ...` in the docs (README.md, docs/*.md), in
     code blocks and in `code`, names only options COMMAND takes, by
     their whole name;
  4. README.md's row for `cli/` names every command.

Each disagreement is printed with where it is and what to do; the test
fails if there is any.  Exit 0 all agree, 1 not, 2 bad usage.
"""
import os
import re
import subprocess
import sys

if len(sys.argv) != 3:
    sys.stderr.write("usage: cli_docs.py RINGSIDE SOURCE_ROOT\n")
    sys.exit(2)
RINGSIDE, ROOT = sys.argv[1], sys.argv[2]
problems = []


def problem(where, what):
    problems.append("%s: %s" % (where, what))


def ringside(*args):
    r = subprocess.run([RINGSIDE, *args], capture_output=True, text=True,
                       check=False)
    if r.returncode != 0:
        sys.exit("cli_docs: 'ringside %s' failed (status %d): %s"
                 % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


# ---- the tables, through --help ----

def commands():
    """The commands `ringside --help` lists."""
    names, listing = [], False
    for line in ringside("--help").splitlines():
        if line.startswith("commands:"):
            listing = True
        elif listing:
            m = re.match(r"^  (\S+)\s{2,}\S", line)
            if not m:
                break
            names.append(m.group(1))
    if not names:
        sys.exit("cli_docs: 'ringside --help' lists no commands")
    return names


# "  -o, --output FILE   help" or "      --vm SOCKET   help": opt_help's
# option lines (opt/src/opt.c), the value's name after one space
OPTION = re.compile(r"^  (?:-(\S), |    )--([a-z0-9][a-z0-9-]*)(?: (\S+))?(?:\s|$)")


def options(cmd):
    """{long name: (short key or None, value name or None)} of @cmd."""
    opts = {}
    for line in ringside(cmd, "--help").splitlines():
        m = OPTION.match(line)
        if m:
            short, name, arg = m.groups()
            opts[name] = (short, arg)
    if "help" not in opts:
        sys.exit("cli_docs: 'ringside %s --help' lists no --help: not "
                 "opt_help's layout any more? (tests/cli/cli_docs.py)" % cmd)
    return opts


CMDS = commands()
TABLE = {c: options(c) for c in CMDS}


def lookup(cmd, tok):
    """The long name of option token @tok ('--name', '--name=V', '-x') of
    @cmd, None if @cmd has none such, '' if @tok is no option."""
    m = re.match(r"^--([a-z0-9][a-z0-9-]*)(?:=.*)?$", tok)
    if m:
        return m.group(1) if m.group(1) in TABLE[cmd] else None
    m = re.match(r"^-([A-Za-z])$", tok)
    if m:
        for name, (short, _) in TABLE[cmd].items():
            if short == m.group(1):
                return name
        return None
    return ""


# ---- 1. docs/cli.md's synopsis ----

def synopsis(path):
    """{command: [(line number, text)]} of the first code block."""
    entries, cur, block = {}, None, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                if block is None:
                    block = True
                    continue
                break
            if not block:
                continue
            m = re.match(r"^ringside\s+(\S+)(.*)$", line)
            if m:
                cur = m.group(1)
                entries.setdefault(cur, []).append((n, m.group(2)))
            elif cur and line.startswith(" "):
                entries[cur].append((n, line))
    return entries


def check_synopsis():
    rel = "docs/cli.md"
    entries = synopsis(os.path.join(ROOT, rel))
    if not entries:
        problem(rel, "no synopsis (a code block of 'ringside COMMAND ...' "
                "lines) at its top")
        return
    for cmd in entries:
        if cmd not in TABLE and cmd not in ("help", "--version", "COMMAND"):
            problem("%s:%d" % (rel, entries[cmd][0][0]),
                    "the synopsis names 'ringside %s', which 'ringside "
                    "--help' does not list" % cmd)
    for cmd in CMDS:
        if cmd not in entries:
            problem(rel, "the synopsis has no line for 'ringside %s': add "
                    "one with its options ('ringside %s --help')" % (cmd, cmd))
            continue
        named = set()
        for n, text in entries[cmd]:
            # "DOMAIN|--vm SOCKET": the alternatives apart
            toks = text.replace("|", " | ").split()
            for i, raw in enumerate(toks):
                tok = raw.strip("[]")
                if not tok.startswith("-") or tok in ("-", "--", "|"):
                    continue
                name = lookup(cmd, tok)
                if name is None:
                    problem("%s:%d" % (rel, n),
                            "the synopsis of 'ringside %s' names %s, which "
                            "it does not take ('ringside %s --help')"
                            % (cmd, tok, cmd))
                    continue
                if name == "help":
                    continue
                named.add(name)
                closed = raw.endswith("]")
                nxt = toks[i + 1] if i + 1 < len(toks) else ""
                word = nxt and nxt[0] not in "[-|"
                if TABLE[cmd][name][1] and (closed or not word):
                    problem("%s:%d" % (rel, n),
                            "the synopsis of 'ringside %s' gives %s no value "
                            "(it takes %s)" % (cmd, tok, TABLE[cmd][name][1]))
                elif not TABLE[cmd][name][1] and not closed and word:
                    problem("%s:%d" % (rel, n),
                            "the synopsis of 'ringside %s' gives the flag %s "
                            "a value '%s'" % (cmd, tok, nxt))
        for name in TABLE[cmd]:
            if name != "help" and name not in named:
                problem(rel, "the synopsis of 'ringside %s' lacks --%s%s "
                        "(its table has it: 'ringside %s --help')"
                        % (cmd, name, " " + TABLE[cmd][name][1]
                           if TABLE[cmd][name][1] else "", cmd))


# ---- 2. a section per command ----

def check_sections():
    rel = "docs/cli.md"
    heads = []
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                heads.append(set(re.findall(r"[a-z]+", line[3:])))
    for cmd in CMDS:
        if not any(cmd in h for h in heads):
            problem(rel, "no section ('## %s') for 'ringside %s'" % (cmd, cmd))


# ---- 3. every use in the docs ----

# "ringside CMD" and what follows on the line; not ringside-agent,
# build/cli/ringside is fine
USE = re.compile(r"(?<![\w.-])ringside[ \t]+([a-z]+)(?=\s|$)([^`\n]*)")
# what ends a command line in a shell: a pipe, a list, a redirection, a
# comment
END = re.compile(r"^(\||\|\||&&|;|#.*|[0-9]*>.*|<.*|\$\(.*)$")


def docs():
    yield "README.md"
    for f in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if f.endswith(".md"):
            yield "docs/" + f


def check_uses():
    for rel in docs():
        code = False
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.startswith("```"):
                    code = not code
                    continue
                for span in [line] if code else re.findall(r"`([^`]+)`", line):
                    for m in USE.finditer(span):
                        check_use(rel, n, m.group(1), m.group(2))


def check_use(rel, n, cmd, rest):
    if cmd not in TABLE:
        return
    depth = 0
    for raw in rest.replace("|", " | ").split():
        if depth == 0 and END.match(raw):
            return
        depth += raw.count("[") - raw.count("]")
        tok = raw.strip("[](),;.'\"")
        if not tok.startswith("-") or tok in ("-", "--", "|"):
            continue
        if lookup(cmd, tok) is None:
            problem("%s:%d" % (rel, n),
                    "'ringside %s ... %s': 'ringside %s' takes no %s (its "
                    "options: 'ringside %s --help')" % (cmd, tok, cmd, tok, cmd))


# ---- 4. README.md's row for cli/ ----

def check_readme_row():
    rel = "README.md"
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        rows = [(n, l) for n, l in enumerate(f, 1) if l.startswith("| `cli/` |")]
    if len(rows) != 1:
        problem(rel, "%d rows for `cli/` in its table of folders, not one"
                % len(rows))
        return
    n, row = rows[0]
    words = set(re.findall(r"[a-z]+", row))
    for cmd in CMDS:
        if cmd not in words:
            problem("%s:%d" % (rel, n), "the row for `cli/` does not name "
                    "the command '%s'" % cmd)


check_synopsis()
check_sections()
check_uses()
check_readme_row()
for p in problems:
    print(p)
if problems:
    print("cli_docs: %d disagreements between the docs and the commands' "
          "option tables (opt/, one table per command in cli/cmd_*.c)" % len(problems))
    sys.exit(1)
print("cli_docs: %d commands, %d options: the synopsis and every use in the "
      "docs agree with the tables"
      % (len(CMDS), sum(len(o) - 1 for o in TABLE.values())))
