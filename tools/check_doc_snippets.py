#!/usr/bin/env python3
"""Checks that code blocks in Markdown files are quoted verbatim from compiled example files.

A ```cpp block counts as a quote when one of the three lines before it links to an
examples/*.cpp file; every line of the block must then appear, in order, in that file (so the
README cannot drift from code that the tests compile and run). Usage: check_doc_snippets.py ROOT FILE.md...
"""
import re
import sys
from pathlib import Path


def check(root: Path, md: Path) -> list[str]:
    errors = []
    lines = md.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```cpp":
            start = i
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            block = lines[start + 1:j]
            context = "\n".join(lines[max(0, start - 3):start])
            m = re.search(r"\((examples/[\w./-]+\.cpp)\)", context)
            if m:
                source = (root / m.group(1)).read_text().splitlines()
                pos = 0
                for line in block:
                    if not line.strip():
                        continue
                    while pos < len(source) and source[pos] != line:
                        pos += 1
                    if pos == len(source):
                        errors.append(f"{md}:{start + 1}: line not found (in order) in {m.group(1)}: {line!r}")
                        break
                    pos += 1
            i = j
        i += 1
    return errors


def main() -> int:
    root = Path(sys.argv[1])
    errors = [e for f in sys.argv[2:] for e in check(root, root / f)]
    for e in errors:
        print(e)
    print(f"{len(sys.argv) - 2} files checked, {len(errors)} snippets out of sync")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
