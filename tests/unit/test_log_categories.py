#!/usr/bin/env python3
"""Each log category of src/util/log.def is logged under somewhere in src/,
has its row in docs/logging.md's table, and is named by the help of
SHIMMER_LOG_CATEGORIES (src/core/env.def), and nothing else is.
  test_log_categories.py SOURCE_DIR"""
import glob
import os
import re
import sys

root = sys.argv[1]


def read(rel):
    with open(os.path.join(root, rel)) as f:
        return f.read()


cats = re.findall(r'^SHR_LOG_CAT\((\w+),\s*"(\w+)"\)', read("src/util/log.def"), re.M)
names = [name for _macro, name in cats]
problems = []
sources = [p for p in glob.glob(os.path.join(root, "src/**/*.[ch]"), recursive=True)
           if not os.path.basename(p).startswith("log.")]
text = "".join(open(p).read() for p in sources)
for macro, name in cats:
    if not re.search(r"\bSHR_LOG_%s\b" % macro, text):
        problems.append("category %s: nothing logs under SHR_LOG_%s; log its module's "
                        "events or remove it from log.def" % (name, macro))
documented = re.findall(r"^\| `([a-z]+)` \|", read("docs/logging.md"), re.M)
if documented != names:
    problems.append("docs/logging.md's category table lists %s; log.def has %s"
                    % (",".join(documented), ",".join(names)))
helped = re.search(r"log categories: ([\w,]+) or all", read("src/core/env.def"))
if helped is None or helped.group(1).split(",") != names:
    problems.append("the help of SHIMMER_LOG_CATEGORIES in env.def lists %s; log.def has %s"
                    % (helped.group(1) if helped else "none", ",".join(names)))
for p in problems:
    print("log_categories: " + p)
print("log_categories: %s" % ("FAIL" if problems else "ok (%s)" % ",".join(names)))
sys.exit(1 if problems else 0)
