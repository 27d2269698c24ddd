#!/usr/bin/env python3
"""check_paths -- every file or folder that a doc or a comment names exists.

Reads every tracked text file: the whole of the Markdown ones, the comments
of the others (C /* */ and //; # in scripts, CMake and tables; Python's
docstrings too).  Two rules:

1. A path (`core/rma.c`, `tests/multinode/`) whose first folder is one of
   this tree's folders names something that exists: from the top, from the
   naming file's folder, or as the tail of a tracked path (`core/rma.c` is
   src/core/rma.c); or it is a build output (.gitignore).  A bare file name
   with a module prefix of ours (`shm_data.c`: a tracked file starts with
   `shm_`) is a tracked file or one the build writes (named in CMake).
   Other projects' files are named after their owner ("UCX's
   `src/ucp/...`", "openshmem-examples' finalize.c") and are not checked.
2. Each src/ folder's README.md names every file of its folder (or its
   subfolder, `gen/`; unit tests as `*_test.c`).

Prints one line per problem (file:line: what, and the fix) and exits 1 if
there was any.
  tools/check_paths.py          (run by tools/run-tests' static checks)
"""
import fnmatch
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SKIP = ("tests/bench/fixtures/",)  # recorded data, not prose
EXT = r"(?:c|h|cc|cpp|hpp|def|py|sh|md|tsv|txt|in|cmake|json|csv|supp|exports|map|pc)"
# a path: folders, then a file with a known extension or a trailing slash;
# a placeholder or glob (<ts>, *, {a,b}, %p, $X) ends what is checked
PATH = re.compile(r"(?<![\w./$%<>{*-])((?:\.\.?/)*[\w+-][\w.+-]*(?:/[\w.+-]+)*"
                  r"(?:/[\w+-][\w.+-]*\." + EXT + r"|/))(?![\w/])([*<{%$]?)")
BARE = re.compile(r"(?<![\w./$%<>{*-])([A-Za-z][\w+-]*\." + EXT + r")(?![\w/*])")
# "UCX's `src/...`", "openshmem-examples' finalize.c": someone else's file
FOREIGN = re.compile(r"(?:\w's|\ws')\s+`?$")
C_LIKE = (".c", ".h", ".cc", ".cpp", ".hpp", ".def")


def tracked():
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                         text=True, check=True).stdout
    return [f for f in out.split("\0") if f and not f.startswith(SKIP)]


def is_ignored(path):
    """Whether `path` (a file or a folder) is a build output (.gitignore)."""
    return any(subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "--no-index", p]).returncode
               == 0 for p in (path, path + "/"))


def prose(path, text):
    """[(offset, text)] of the parts of `text` that are prose: all of a
    Markdown file, the comments of code."""
    if path.endswith(".md"):
        return [(0, text)]
    if path.endswith(C_LIKE):
        pat = r"/\*.*?\*/|//[^\n]*"
    elif path.endswith(".py"):
        pat = r"#[^\n]*|\"\"\".*?\"\"\""
    else:
        pat = r"(?:^|(?<=\s))#[^\n]*"
    return [(m.start(), m.group(0)) for m in re.finditer(pat, text, re.S)]


class Tree:
    def __init__(self, files):
        self.files = set(files)
        self.dirs = {os.path.dirname(f) for f in files}
        for d in list(self.dirs):
            while d:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.dirs.discard("")
        self.dir_names = {os.path.basename(d) for d in self.dirs} | {"..", "."}
        self.prefixes = {os.path.basename(f).split("_")[0] + "_" for f in files
                         if "_" in os.path.basename(f)}
        self.basenames = {os.path.basename(f) for f in files}
        cmake = [f for f in files if f.endswith(("CMakeLists.txt", ".cmake"))]
        self.built = "\n".join(open(os.path.join(ROOT, f)).read() for f in cmake)
        self.tails = {}

    def exists(self, rel):
        return rel in self.files or rel in self.dirs

    def has_tail(self, path):
        """Whether a tracked file or folder ends with /path."""
        if path not in self.tails:
            tail = "/" + path
            self.tails[path] = any(f.endswith(tail) for f in self.files | self.dirs)
        return self.tails[path]

    def path_ok(self, naming_file, path):
        path = path.rstrip("/") or "/"
        here = os.path.dirname(naming_file)
        for rel in (path, os.path.normpath(os.path.join(here, path))):
            outside = rel.startswith("..") and os.path.exists(os.path.join(ROOT, rel))
            if self.exists(rel) or outside:
                return True
        return self.has_tail(path) or is_ignored(path)

    def bare_ok(self, name):
        if name in self.basenames or name.split("_")[0] + "_" not in self.prefixes:
            return True
        return re.search(r"[/{ ]" + re.escape(name) + r"\b", self.built) is not None


def check_names(tree, f, text, problems):
    for start, part in prose(f, text):
        for m in PATH.finditer(part):
            path, cut = m.group(1).rstrip("."), m.group(2)
            first = path.split("/")[0]
            if first not in tree.dir_names or FOREIGN.search(part[:m.start()][-40:]):
                continue
            if cut:  # a pattern: its folder must exist
                path = path if path.endswith("/") else os.path.dirname(path) + "/"
                if path == "/":
                    continue
            if not tree.path_ok(f, path):
                line = text.count("\n", 0, start + m.start()) + 1
                problems.append("%s:%d: names %s, which does not exist: correct the name, "
                                "or say whose file it is (\"UCX's ...\")" % (f, line, path))
        for m in BARE.finditer(part):
            name = m.group(1).rstrip(".")
            if FOREIGN.search(part[:m.start()][-40:]) or tree.bare_ok(name):
                continue
            line = text.count("\n", 0, start + m.start()) + 1
            problems.append("%s:%d: names %s, which is no file of the tree: correct the name"
                            % (f, line, name))


def check_readme(tree, readme, text, problems):
    folder = os.path.dirname(readme)
    named = set(re.findall(r"[\w.*+-]+/?", text))
    for f in sorted(tree.files):
        if os.path.dirname(f) == folder and f != readme:
            name = os.path.basename(f)
            if name == "CMakeLists.txt" or name in named or any(
                    "*" in n and fnmatch.fnmatch(name, n) for n in named):
                continue
            problems.append("%s: does not name %s, a file of its folder: add a line on what "
                            "it holds" % (readme, name))
        elif os.path.dirname(os.path.dirname(f)) == folder:
            sub = os.path.basename(os.path.dirname(f))
            if sub + "/" not in named and sub not in named:
                problems.append("%s: does not name %s/, a folder of its folder" % (readme, sub))
                named.add(sub)


def main():
    files = tracked()
    tree = Tree(files)
    problems = []
    for f in files:
        try:
            text = open(os.path.join(ROOT, f), encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        check_names(tree, f, text, problems)
        if f.startswith("src/") and os.path.basename(f) == "README.md":
            check_readme(tree, f, text, problems)
    for p in problems:
        print("check_paths: " + p)
    if problems:
        return 1
    print("check_paths: ok (%d files)" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
