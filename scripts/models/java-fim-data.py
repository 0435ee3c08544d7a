#!/usr/bin/env python3
"""Writes fill-in-the-middle training text in DeepSeek-Coder's format from the
JDK's Java sources (Debian's openjdk-17-source src.zip), for
scripts/models/make-java.sh:

    <｜fim▁begin｜>PREFIX<｜fim▁hole｜>SUFFIX<｜fim▁end｜>MIDDLE<｜end▁of▁sentence｜>

one example after another. MIDDLE is one whole line (two in a fifth of the
examples) with its indentation and newline, PREFIX the lines before it and
SUFFIX the lines after it (a bounded window of each), as the repair loop
builds its FIM context (repair/diff.go: the hunk is whole lines). Block and
line comments are removed first, so the text is code. The same arguments give
the same text (seeded).

Usage: java-fim-data.py --src-zip /usr/lib/jvm/openjdk-17/lib/src.zip
       --out FILE [--examples 3000 --seed 1 --prefix-chars 700
       --suffix-chars 300]
Standard library only.
"""

import argparse
import random
import re
import sys
import zipfile

BEGIN, HOLE, END, EOS = "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<｜end▁of▁sentence｜>"
PACKAGES = ("java.base/java/util/", "java.base/java/lang/", "java.base/java/io/",
            "java.base/java/time/", "java.base/java/text/", "java.base/java/math/", "java.base/java/nio/")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)^\s*//.*\n", "", text)
    text = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", text)
    return text.lstrip("\n")


def window(lines, chars, from_end):
    out, n = [], 0
    seq = reversed(lines) if from_end else lines
    for ln in seq:
        if n + len(ln) > chars and out:
            break
        out.append(ln)
        n += len(ln)
    if from_end:
        out.reverse()
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src-zip", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--examples", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--prefix-chars", type=int, default=700)
    ap.add_argument("--suffix-chars", type=int, default=300)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with zipfile.ZipFile(a.src_zip) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".java") and n.startswith(PACKAGES))
        if not names:
            sys.exit(f"java-fim-data.py: no Java sources of {PACKAGES} in {a.src_zip}")
        files = []
        for n in names:
            lines = strip_comments(z.read(n).decode("utf-8", "replace")).splitlines(keepends=True)
            # only code lines become middles: not blank, not package/import
            cand = [i for i, ln in enumerate(lines)
                    if ln.strip() and not ln.startswith(("package ", "import "))]
            if len(lines) >= 10 and cand:
                files.append((lines, cand))
    out = []
    for _ in range(a.examples):
        lines, cand = rng.choice(files)
        i = rng.choice(cand)
        k = 2 if rng.random() < 0.2 and i + 1 < len(lines) else 1
        middle = "".join(lines[i:i + k])
        if not middle.endswith("\n"):
            middle += "\n"
        prefix = window(lines[:i], a.prefix_chars, True)
        suffix = window(lines[i + k:], a.suffix_chars, False)
        out.append(BEGIN + prefix + HOLE + suffix + END + middle + EOS)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("".join(out))
    print(f"java-fim-data.py: {a.out}: {a.examples} examples from {len(files)} files, "
          f"{sum(map(len, out)) / 1e6:.1f}M characters", file=sys.stderr)


if __name__ == "__main__":
    main()
