#!/usr/bin/python3
"""The docs stand alone (issue 10 item 11): a clone has no ../shared/, so every file that README.md
and docs/*.md cite must be in the repository. Checks each backquoted or linked relative path that
names a .md, .png or .json file or a folder of ours; `../shared/...` is only allowed where listed
in STILL_OUTSIDE (facts not yet shipped as project docs), and that list may only shrink.

  test_docs_links.py SOURCE_DIR
"""
import os
import re
import sys

# (file, cited path): citations of shared/ that remain; each is a defect to remove, never to add.
STILL_OUTSIDE = set()

# The design contract lives outside the repository; docs/architecture.md is the project's own.
DESIGN = re.compile(r"\bDESIGN(?:\.md| section)")
CITE = re.compile(r"`([^`\s]+\.(?:md|png|json))`|\]\(([^)\s#]+)\)")


def main():
    src = sys.argv[1]
    docs = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
    bad, outside = [], set()
    for doc in docs:
        with open(os.path.join(src, doc), encoding="utf-8") as f:
            text = f.read()
        for m in DESIGN.finditer(text):
            bad.append(f"{doc}: cites {m.group(0)} (the design contract outside the repository); "
                       "point to docs/architecture.md")
        for m in CITE.finditer(text):
            path = m.group(1) or m.group(2)
            if "://" in path or path.startswith("/") or "*" in path or path.startswith("$"):
                continue  # URLs, absolute paths in examples, globs, shell variables
            if "shared/" in path and not path.startswith("tests/data/shared/"):
                outside.add((doc, path))
                if (doc, path) not in STILL_OUTSIDE:
                    bad.append(f"{doc}: cites {path}, outside the repository")
                continue
            candidates = [os.path.join(src, path), os.path.join(src, os.path.dirname(doc), path),
                          os.path.join(src, "docs", path), os.path.join(src, "scenarios", path)]
            if any(os.path.exists(c) for c in candidates):
                continue
            if "/" not in path and path.endswith(".json"):
                continue  # a bare FILE.json is a placeholder in an example
            if "/" not in path:  # a bare .md name of no file of ours: a citation of shared/
                outside.add((doc, path))
                if (doc, path) not in STILL_OUTSIDE:
                    bad.append(f"{doc}: cites {path}, which is not in the repository")
                continue
            bad.append(f"{doc}: cites {path}, which does not exist")
    for stale in sorted(STILL_OUTSIDE - outside):
        bad.append(f"STILL_OUTSIDE lists {stale}, no longer cited: remove it from the list")
    for b in bad:
        print("FAILED:", b)
    if bad:
        return 1
    print(f"{len(docs)} docs: every citation is inside the repository ({len(outside)} listed exception(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
