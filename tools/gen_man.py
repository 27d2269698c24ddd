#!/usr/bin/env python3
"""gen_man.py -- Shimmer's manual pages.

The prototypes, names and aliases come from the tables gen_api.py reads
(src/api/routines.txt, src/api/types.tsv, src/core/env.def); the words come
from docs/man/*.txt (format: docs/man/README.md).  Every routine must be on
exactly one page: gen_api.py runs the same checks, so a routine added to
routines.txt without a page fails `gen_api.py --check`.

Writes, into the build tree (the pages are build outputs, not committed):
  man3/<page>.3   one page per routine family (or a few related ones)
  man3/<name>.3   `.so` aliases: every other routine and generic name
  man1/*.1 man7/*.7   the tools and the overview

Usage:  tools/gen_man.py --out DIR [--tool-suffix=S]
                      write DIR/man1, DIR/man3, DIR/man7; the pages of the
                      programs as <name>S.1 (SHIMMER_TOOL_SUFFIX)
        tools/gen_man.py --check      check the texts only
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_api  # noqa: E402  (the parsed tables)

MAN_DIR = os.path.join(ROOT, "docs/man")
WIDTH = 72  # synopsis lines fit an 80-column terminal after man's indent
# C spellings of the header's portability macros, as a reader writes them
SHOWN_AS = {"SHMEMX_COMPLEXD": "double _Complex", "SHMEMX_COMPLEXF": "float _Complex"}
# headings a page may use, in the order they are printed
HEADINGS = ["SYNOPSIS", "DESCRIPTION", "ARGUMENTS", "OPTIONS", "RETURN VALUE", "EXIT STATUS",
            "ERRORS", "ROUTINES", "ENVIRONMENT", "FILES", "NOTES", "EXAMPLES", "SEE ALSO"]


class ManError(Exception):
    pass


class Page:
    def __init__(self, name, section, where):
        self.name, self.section, self.where = name, section, where
        self.covers, self.deprecated = [], []  # items: "[family]" or a routine name
        self.also = []  # (name, section): more names that lead to this page
        self.tool = False  # a program: installed names take SHIMMER_TOOL_SUFFIX
        self.brief = None
        self.parts = []  # (heading, [lines])
        self.routines = []  # covered routines, in covers order (set by resolve)
        self.families = []  # (family, deprecated?, the one routine covered or None)

    def part(self, heading):
        for h, lines in self.parts:
            if h == heading:
                return lines
        return None


# ----------------------------------------------------------------- reading the texts
def read_texts(paths):
    pages = []
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        page, heading = None, None
        for lineno, line in enumerate(open(path), 1):
            line = line.rstrip("\n")
            where = "%s:%d" % (rel, lineno)
            if line.startswith("#"):
                continue
            m = re.match(r"^=== ([\w.-]+)\((\d)\)$", line)
            if m:
                page = Page(m.group(1), m.group(2), where)
                page.file = rel
                pages.append(page)
                heading = None
                continue
            if page is None:
                if line.strip():
                    raise ManError("%s: text before the first '=== name(section)' line" % where)
                continue
            if heading is None:
                m = re.match(r"^(covers|deprecated|brief|also|tool)\b\s*(.*)$", line)
                if m:
                    key, value = m.groups()
                    if key == "tool":
                        page.tool = True
                    elif key == "brief":
                        page.brief = value.strip()
                    elif key == "also":
                        for item in value.split():
                            a = re.match(r"^([\w.+-]+)\((\d)\)$", item)
                            if not a:
                                raise ManError("%s: 'also' takes name(section): %r" % (where, item))
                            page.also.append(a.groups())
                    else:
                        getattr(page, key).extend(value.split())
                    continue
            if re.match(r"^[A-Z][A-Z ]+$", line):
                if line not in HEADINGS:
                    raise ManError("%s: unknown heading %r (one of: %s)"
                                   % (where, line, ", ".join(HEADINGS)))
                if page.part(line) is not None:
                    raise ManError("%s: %s twice on page %s" % (where, line, page.name))
                heading = line
                page.parts.append((heading, []))
                continue
            if heading is None:
                if line.strip():
                    raise ManError("%s: %r before the first heading of %s" % (where, line, page.name))
                continue
            page.parts[-1][1].append(line)
    return pages


# ----------------------------------------------------------------- checking against the tables
def resolve(pages, families):
    """Ties each page to the routines it covers; every routine is on
    exactly one page."""
    fam_by_name = {f.name: f for f in families}
    routine_fam = {r.name: f for f in families for r in f.routines}
    on_page = {}
    for page in pages:
        if page.section != "1" and not page.brief:
            raise ManError("%s: page %s has no 'brief' line" % (page.where, page.name))
        for item in page.covers + page.deprecated:
            dep = item in page.deprecated
            m = re.match(r"^\[(\w+)\]$", item)
            if m:
                fam = fam_by_name.get(m.group(1))
                if fam is None:
                    raise ManError("%s: %s covers %s, which is no [family] of routines.txt"
                                   % (page.where, page.name, item))
                covered = fam.routines
                page.families.append((fam, dep, None))
            else:
                if item not in routine_fam:
                    raise ManError("%s: %s covers %s, which is no routine of routines.txt"
                                   % (page.where, page.name, item))
                fam = routine_fam[item]
                covered = [r for r in fam.routines if r.name == item]
                page.families.append((fam, dep, item))
            for r in covered:
                if r.name in on_page:
                    raise ManError("%s: %s is on two pages, %s and %s"
                                   % (page.where, r.name, on_page[r.name].name, page.name))
                on_page[r.name] = page
                page.routines.append(r)
    for fam in families:
        for r in fam.routines:
            if r.name not in on_page:
                raise ManError("docs/man: %s (family [%s], group %s) is on no page; add it to "
                               "the covers of a page in docs/man/%s.txt (docs/man/README.md)"
                               % (r.name, fam.name, fam.group, fam.group))
    return on_page


def param_names(routine):
    return [gen_api.param_name(p) for p in gen_api.split_params(routine.params) if p != "..."]


def check_page(page, names):
    """The parts every page needs, arguments that match the prototypes,
    references that lead somewhere."""
    for need in ["DESCRIPTION", "SEE ALSO"] + (["RETURN VALUE"] if page.routines else []):
        if page.part(need) is None:
            raise ManError("%s: page %s has no %s" % (page.where, page.name, need))
    if page.routines:
        params = []
        for r in page.routines:
            params += [p for p in param_names(r) if p not in params]
        args = page.part("ARGUMENTS") or []
        described = [m.group(1) for m in (re.match(r"^- (\w+): ", l) for l in args) if m]
        missing = [p for p in params if p not in described]
        extra = [d for d in described if d not in params]
        if missing or extra:
            raise ManError("%s: ARGUMENTS of %s: %s" % (page.where, page.name, "; ".join(
                (["not described: " + ", ".join(missing)] if missing else []) +
                (["no such parameter: " + ", ".join(extra)] if extra else []))))
    for heading, lines in page.parts:
        for line in lines:
            for ref, sec in re.findall(r"\b([\w.-]+)\((\d)\)", line):
                if (ref, sec) not in names:
                    raise ManError("%s: %s(%s) on page %s is no page or alias"
                                   % (page.where, ref, sec, page.name))


# ----------------------------------------------------------------- roff
def esc(text):
    """Plain text to roff (no line may start with a control character)."""
    return text.replace("\\", "\\e")


def code(text):
    """Text a reader types: minus signs, not hyphens."""
    return esc(text).replace("-", "\\-")


def inline(text):
    """`code` -> bold, *argument* -> italic, page(3) -> bold name."""
    out, pos = [], 0
    for m in re.finditer(r"`([^`]+)`|\*(\w[\w.,\[\]]*)\*|\b([\w.-]+)\((\d)\)", text):
        out.append(esc(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB%s\\fR" % code(m.group(1)))
        elif m.group(2) is not None:
            out.append("\\fI%s\\fR" % esc(m.group(2)))
        else:
            out.append("\\fB%s\\fR(%s)" % (code(m.group(3)), m.group(4)))
        pos = m.end()
    out.append(esc(text[pos:]))
    line = "".join(out)
    return "\\&" + line if line.startswith((".", "'")) else line


def render_body(lines, heading, expand):
    """The markup of docs/man/README.md to roff requests."""
    out, i, para = [], 0, False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            para, i = False, i + 1
            continue
        if line.startswith("@"):
            out += expand(line[1:].strip())
            para, i = False, i + 1
            continue
        if line.startswith("    "):  # an example: verbatim, until a line that is not indented
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            lines_out = [code(b) if b else "" for b in block]
            if heading == "SYNOPSIS":  # the synopsis is all verbatim: no indent
                out += [".nf"] + lines_out + [".fi"]
            else:
                out += [".PP", ".RS 4", ".nf"] + lines_out + [".fi", ".RE"]
            para = False
            continue
        m = re.match(r"^- (.+?): (.*)$", line) or re.match(r"^\* (.*)$", line)
        if m:
            if line.startswith("- "):
                term = m.group(1)
                if heading == "ARGUMENTS" and re.match(r"^\w+$", term):
                    term = "*%s*" % term
                out += [".TP", inline(term), inline(m.group(2))]
            else:
                out += [".IP \\(bu 2", inline(m.group(1))]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and not lines[i].startswith("    "):
                out.append(inline(lines[i].strip()))
                i += 1
            para = True
            continue
        if not para:
            out.append(".PP")
            para = True
        out.append(inline(line.strip()))
        i += 1
    return out


def wrap_proto(text):
    """One prototype, broken after commas to fit WIDTH, continuation lines
    aligned after the opening parenthesis."""
    if len(text) <= WIDTH:
        return [text]
    indent = " " * (text.index("(") + 1)
    lines, cur = [], ""
    for piece in re.split(r"(?<=,) ", text):
        if cur and len(cur) + 1 + len(piece) > WIDTH:
            lines.append(cur)
            cur = indent + piece
        else:
            cur = cur + " " + piece if cur else piece
    return lines + [cur]


def shown(text):
    for macro, c in SHOWN_AS.items():
        text = text.replace(macro, c)
    return text


def proto(r):
    nr = "_Noreturn " if r.noreturn else ""
    sep = "" if r.ret.endswith("*") else " "
    return shown("%s%s%s%s(%s);" % (nr, r.ret, sep, r.name, r.params))


def synopsis(page):
    """#include lines and every prototype of the page, generic forms first."""
    headers = sorted({fam.keys.get("header", "shmem") for fam, _dep, _only in page.families})
    out = ["#include <%s.h>" % h for h in headers]
    routines = {r.name: r for fam, _dep, _only in page.families for r in fam.routines}
    dep_shown, last = False, None
    for fam, dep, only in page.families:
        rs = [r for r in fam.routines if only is None or r.name == only]
        # the untyped routines of one block are one paragraph
        block = [] if only and (fam, dep) == last else [""]
        last = (fam, dep) if only else None
        if dep and not dep_shown:
            block.append("/* deprecated: */")
            dep_shown = True
        if fam.keys.get("cguard"):
            block.append("/* only in C before C11: in C11 and C++ the name is the generic */")
        if fam.generic and only is None:
            gname, _pidx, _const, _sel, typed, has_ctx = fam.generic
            sample = [r for r in rs if r.type][0]
            tmpl = sample.params.replace(sample.type.ctype, "TYPE")
            ret = sample.ret.replace(sample.type.ctype, "TYPE")
            sep = "" if ret.endswith("*") else " "
            block.append("/* C11 and C++: TYPE is that of a typed routine below */")
            forms = [tmpl] + (["shmem_ctx_t ctx, " + tmpl] if has_ctx else [])
            for params in forms:
                block += wrap_proto("%s%s%s(%s);" % (ret, sep, gname, params))
            block.append("")
        plain = [r for r in rs if not r.ctx]
        ctx = [r for r in rs if r.ctx]
        complex_note = False
        for r in plain + ([None] if plain and ctx else []) + ctx:
            if r is None:  # the context forms: a paragraph of their own
                block.append("")
                complex_note = False
                continue
            if r.guard and not complex_note:
                block.append("/* C99 complex types (C; in C++ GNU's __complex__): */")
                complex_note = True
            block += wrap_proto(proto(r))
        for name, target in fam.dispatch:
            if (only is None or only == name) and target in routines:
                first = gen_api.split_params(routines[target].params)[0]
                block.append("/* C11 and C++: %s with a %s first is %s */"
                             % (name, first[:-len(gen_api.param_name(first))].strip(), target))
        out += block
    return [".nf"] + [("\\fB%s\\fR" % code(l) if l.startswith("#include") else code(l))
                      for l in out] + [".fi"]


def name_line(page):
    """NAME: the page's names, typed ones as patterns (TYPENAME, SIZE)."""
    names = []

    def add(n):
        if n not in names:
            names.append(n)
    add(page.name)
    for name, section in page.also:  # oshc++ on oshcc's page
        if section == page.section:
            add(name)
    for fam, _dep, only in page.families:
        if only:
            add(only)
            continue
        if fam.generic:
            add(fam.generic[0])
        pats = fam.keys.get("names", "").split()
        ctx = fam.keys.get("ctx") == "yes"
        for p in pats:
            add(p.replace("{T}", "TYPENAME").replace("{N}", "SIZE"))
        for p in pats if ctx else []:
            add(p.replace("shmem_", "shmem_ctx_", 1).replace("{T}", "TYPENAME").replace("{N}", "SIZE"))
        for r in fam.routines if not pats else []:
            add(r.name)
    return ", ".join(code(n) for n in names) + " \\- " + esc(page.brief)


def auto_notes(page):
    """Notes every page of its kind gets from the tables."""
    out = []
    sos = [fam for fam, _dep, _only in page.families if "sos" in fam.keys]
    if sos:
        out.append("Sandia OpenSHMEM spells these routines `shmemx_...` (for example `%s`); "
                   "`#include <shmemx.h>` maps those spellings to the names above."
                   % ("shmemx_" + sos[0].routines[0].name[len("shmem_"):]))
    return out


def aliases(page):
    """Every other name a reader may look up on this page."""
    out = []
    for fam, _dep, only in page.families:
        if fam.generic and only is None:
            out.append((fam.generic[0], "3"))
        out += [(r.name, "3") for r in fam.routines if only is None or r.name == only]
    return [n for n in dict.fromkeys(out + page.also) if n != (page.name, page.section)]


def version():
    text = open(os.path.join(ROOT, "include/shmem_defs.h")).read()
    parts = [re.search(r"#define SHIMMER_VERSION_%s (\d+)" % p, text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def render(page, expanders):
    # short: the header line holds the page's name twice in 80 columns
    manual = {"1": "Shimmer", "3": "OpenSHMEM", "7": "Shimmer"}[page.section]
    out = ['.\\" GENERATED by tools/gen_man.py from docs/man/%s and src/api/routines.txt'
           % os.path.basename(page.file),
           '.TH %s %s "" "Shimmer %s" "%s"' % (code(page.name.upper()), page.section,
                                                 version(), manual),
           ".nh", ".ad l",  # no hyphens in names, no stretched spaces between them
           ".SH NAME", name_line(page) if page.brief else code(page.name)]
    if page.routines:
        out += [".SH SYNOPSIS"] + synopsis(page)
    notes = auto_notes(page)
    parts = list(page.parts)
    if notes and page.part("NOTES") is None:
        parts.append(("NOTES", []))
    parts.sort(key=lambda p: HEADINGS.index(p[0]))
    for heading, lines in parts:
        if heading == "NOTES" and notes:
            lines = lines + [""] + notes
        if heading == "SEE ALSO":
            refs = " ".join(lines).split()
            out += [".SH SEE ALSO", ",\n".join(inline(r) for r in refs)]
            continue
        out.append(".SH " + heading)
        out += render_body(lines, heading, lambda what: expanders[what](page))
    return out


# ----------------------------------------------------------------- generated parts of pages
def expand_routines(pages, families):
    """@routines: every section-3 page, by group, with its brief."""
    titles = {}
    for line in open(os.path.join(ROOT, "src/api/routines.txt")):
        m = re.match(r"^group\s+(\w+)\s+(.*)$", line)
        if m:
            titles[m.group(1)] = m.group(2).strip()

    def expand(_page):
        out = []
        for group, title in titles.items():
            members = [p for p in pages if p.section == "3" and p.file.endswith("/%s.txt" % group)]
            if not members:
                continue
            out += [".SS " + esc(title[0].upper() + title[1:]), ".PD 0"]
            for p in members:
                out += [".TP", "\\fB%s\\fR(3)" % code(p.name), esc(p.brief)]
            out.append(".PD")
        return out
    return expand


def expand_environment(_page):
    """@environment: the rows of src/core/env.def."""
    out = []
    for _field, name, alias, typ, default, values, _cat, helptext in gen_api.read_env():
        kind = typ.lower() + (": " + values.replace(",", ", ") if values else "")
        head = "\\fB%s\\fR (%s; default %s)" % (code(name), esc(kind),
                                                 code(default) if default else "unset")
        text = esc(helptext) + "."
        if alias != "NONE":
            text += " Also read as \\fB%s\\fR (deprecated)." % code(alias)
        out += [".TP", head, text]
    return out


# ----------------------------------------------------------------- the whole set
def build(types=None, families=None, tool_suffix=""):
    """{relative path: text} of every page and alias; raises ManError.
    The files of programs' pages (and their aliases) are named with
    `tool_suffix`, as the programs are installed."""
    if families is None:
        types = gen_api.read_types(os.path.join(ROOT, "src/api/types.tsv"))
        families = gen_api.read_families(os.path.join(ROOT, "src/api/routines.txt"))
        gen_api.expand(families, types)
    pages = read_texts(sorted(p for p in glob.glob(os.path.join(MAN_DIR, "*.txt"))
                              if os.path.basename(p) != "CMakeLists.txt"))
    resolve(pages, families)
    names = {}
    files = {}
    for page in pages:
        key = (page.name, page.section)
        if key in names:
            raise ManError("%s: page %s(%s) twice" % (page.where, page.name, page.section))
        names[key] = page
    def file_of(page, name, sec):
        suffix = tool_suffix if page.tool and sec == page.section else ""
        return "man%s/%s%s.%s" % (sec, name, suffix, sec)

    for page in pages:
        for alias, sec in aliases(page):
            if (alias, sec) in names:
                raise ManError("%s: %s(%s) is a name of two pages, %s and %s"
                               % (page.where, alias, sec, names[(alias, sec)].name, page.name))
            names[(alias, sec)] = page
            files[file_of(page, alias, sec)] = ".so %s\n" % file_of(page, page.name, page.section)
    for page in pages:
        check_page(page, names)
    expanders = {"routines": expand_routines(pages, families), "environment": expand_environment}
    for page in pages:
        files[file_of(page, page.name, page.section)] = "\n".join(render(page, expanders)) + "\n"
    return files


def main():
    args = sys.argv[1:]
    suffix = [a for a in args if a.startswith("--tool-suffix=")]
    args = [a for a in args if a not in suffix]
    try:
        files = build(tool_suffix=suffix[0].split("=", 1)[1] if suffix else "")
    except ManError as e:
        print("gen_man.py: %s" % e, file=sys.stderr)
        return 1
    if args[:1] == ["--check"]:
        return 0
    if len(args) != 2 or args[0] != "--out":
        print(__doc__, file=sys.stderr)
        return 2
    out = args[1]
    for sub in ("man1", "man3", "man7"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        for old in os.listdir(os.path.join(out, sub)):  # pages that are gone
            if "%s/%s" % (sub, old) not in files:
                os.remove(os.path.join(out, sub, old))
    for rel, text in files.items():
        path = os.path.join(out, rel)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
