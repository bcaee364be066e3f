#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compiles and runs every C++ and Python code block of README.md and docs/*.md, as written.

Every fenced block tagged ```cpp, ```c++ or ```python is extracted and:
  C++     compiled (C++17, -Wall -Wextra -Wpedantic -Werror, against the in-tree headers in
          include/ and the include directories given with -I) and run; it must exit with status 0.
          All blocks are first compiled as one program whose main runs each block's main in order
          (each block in a namespace of its own, its # lines first); if that program does not
          compile or a block fails, each block is compiled and run as a program of its own, which
          names the failing one. A block that includes the config reader (posenc/models/)
          needs nlohmann_json, whose headers must be on the include path given.
  Python  run by the interpreter running this script, with --python-path prepended to
          PYTHONPATH (the built or installed posenc package); it must exit with status 0. A block
          that imports numpy, torch or matplotlib is skipped, saying why, when that module is
          missing; any other block always runs.
Both run with the repository root as the working directory, so a block may read the configs in
tests/data/configs/. A block that is deliberately a fragment says so on its first line
(`// fragment: <why>` or `# fragment: <why>`); only those are skipped, and counted. Shell and
CMake blocks are not run.

A failure names the file and line of the block's opening fence (README.md:82), then the
compiler's or the program's output. Exit status 0 when every block passed or was skipped.

--conversions POSENC_INCLUDE_DIR: instead, compile (syntax and template instantiation only) every
C++ block and a block that includes every public header (not detail/), all as one unit (each
block's # lines first, the rest of each in a namespace of its own; one unit per block when the
blocks clash), with -Wconversion
-Wsign-conversion, against the posenc headers in that directory given with -I (as pkg-config
gives them), the other directories as -isystem; fail on any warning located in a posenc
header, except in the headers listed in --pending FILE (one path below the include directory
per line, '#' comments), which are reported as pending.

  scripts/check-doc-examples.py [--lang cpp|python|all] [--cxx g++] [-I DIR]... [--python-path DIR]
                                [--jobs N] [--list] [--conversions DIR [--pending FILE]] [FILE.md ...]
"""
import argparse
import concurrent.futures
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(\s*)```\s*([A-Za-z0-9_+-]*)\s*$")
LANGS = {"cpp": "cpp", "c++": "cpp", "python": "python"}
OPTIONAL_PYTHON_MODULES = ("numpy", "torch", "matplotlib")
TIMEOUT_S = 120


class Block:
    def __init__(self, path, line, lang, text):
        self.path, self.line, self.lang, self.text = path, line, lang, text

    @property
    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"

    def fragment_reason(self):
        first = self.text.lstrip("\n").split("\n", 1)[0].strip()
        marker = "//" if self.lang == "cpp" else "#"
        match = re.match(re.escape(marker) + r"\s*fragment\b:?\s*(.*)$", first)
        return None if match is None else (match.group(1) or "marked as a fragment")


def blocks_of(path):
    """The fenced blocks of one Markdown file, with the 1-based line of each opening fence."""
    found, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, tag = match.group(1), match.group(2).lower()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"{os.path.relpath(path, ROOT)}:{start}: code block never closed")
        i += 1
        if tag in LANGS:
            found.append(Block(path, start, LANGS[tag], "\n".join(body) + "\n"))
    return found


def run(command, **kwargs):
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=TIMEOUT_S, **kwargs)
        return done.returncode, done.stdout
    except subprocess.TimeoutExpired as timeout:
        return 124, (timeout.stdout or "") + f"\n(killed after {TIMEOUT_S} s)"


def check_cpp(block, args, workdir):
    name = re.sub(r"[^A-Za-z0-9]+", "_", block.where)
    source, program = os.path.join(workdir, name + ".cpp"), os.path.join(workdir, name)
    with open(source, "w", encoding="utf-8") as out:
        out.write(f'#line {block.line + 1} "{block.where.split(":")[0]}"\n' + block.text)
    launcher = ["ccache"] if args.ccache else []
    command = (launcher + shlex.split(args.cxx) + ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
               "-O0", "-pthread", "-I", os.path.join(ROOT, "include")]
               + [flag for d in args.include for flag in ("-I", d)] + [source, "-o", program])
    status, output = run(command)
    if status != 0:
        return "fail", f"does not compile ({' '.join(command)}):\n{output}"
    status, output = run([program], cwd=ROOT)
    if status != 0:
        return "fail", f"compiled, but the program exited with status {status}:\n{output}"
    return "pass", output


def with_explicit_return(text):
    """The block with `return 0;` before the closing brace of its main: only the global main may
    fall off its end, and in the one program each block's main is an ordinary function. The brace
    is found by counting braces outside string and character literals and comments."""
    start = re.search(r"\bint\s+main\s*\([^)]*\)\s*\{", text)
    if not start:
        return text
    depth, i, n = 1, start.end(), len(text)
    while i < n and depth:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else n
            continue
        if text.startswith("/*", i):
            i = text.find("*/", i) + 2 if text.find("*/", i) >= 0 else n
            continue
        if c in "\"'":
            i += 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[:i] + "    return 0;\n" + text[i:]
        i += 1
    return text


def check_cpp_together(blocks, args, workdir):
    """Every C++ block compiled as one program (merged_block: the headers parsed once) whose main
    runs each block's main in order. {block: (outcome, output)} when it compiles and every block
    returns 0; None otherwise, and the caller checks each block on its own (check_cpp), which names
    the one that fails."""
    merged = merged_block([Block(b.path, b.line, b.lang, with_explicit_return(b.text)) for b in blocks])
    def call(n, block):  # a block's main(int, char**) gets the program's arguments
        takes_args = re.search(r"\bint\s+main\s*\(\s*int\b", block.text) is not None
        return (f"    if (int status = posenc_doc_block_{n}::main({'argc, argv' if takes_args else ''}); status != 0) {{\n"
                f"        std::fprintf(stderr, \"posenc-doc-block {n} exited with %d\\n\", status);\n"
                f"        return status;\n    }}\n")
    calls = "".join(call(n, b) for n, b in enumerate(blocks))
    text = ("#include <cstdio>\n" + merged.text + "\nint main([[maybe_unused]] int argc, [[maybe_unused]] char** argv)\n{\n" + calls) + "    return 0;\n}\n"
    source, program = os.path.join(workdir, "all_blocks.cpp"), os.path.join(workdir, "all_blocks")
    with open(source, "w", encoding="utf-8") as out:
        out.write(text)
    launcher = ["ccache"] if args.ccache else []
    command = (launcher + shlex.split(args.cxx) + ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
               "-Wno-main", "-O0", "-pthread", "-I", os.path.join(ROOT, "include")]
               + [flag for d in args.include for flag in ("-I", d)] + [source, "-o", program])
    status, _ = run(command)
    if status != 0:
        return None
    status, output = run([program], cwd=ROOT)
    if status != 0:
        return None
    return {b: ("pass", "") for b in blocks}


def public_headers_block(include_dir):
    """One program that includes every public posenc header below include_dir (not detail/)."""
    headers = []
    for folder, _dirs, files in os.walk(os.path.join(include_dir, "posenc")):
        for name in files:
            path = os.path.relpath(os.path.join(folder, name), include_dir)
            if name.endswith(".hpp") and "/detail/" not in "/" + path.replace(os.sep, "/"):
                headers.append(path.replace(os.sep, "/"))
    text = "".join(f"#include <{h}>\n" for h in sorted(headers)) + "int main() {}\n"
    return Block(os.path.join(include_dir, "posenc"), 0, "cpp", text)


def check_conversions(block, args, workdir):
    """Warnings of -Wconversion -Wsign-conversion located in posenc's headers, by header."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", block.where)
    source = os.path.join(workdir, name + ".cpp")
    with open(source, "w", encoding="utf-8") as out:
        out.write(block.text)
    command = (shlex.split(args.cxx) + ["-std=c++17", "-fsyntax-only", "-pthread", "-Wconversion",
               "-Wsign-conversion", "-I", args.conversions] + [flag for d in args.include for flag in ("-isystem", d)]
               + [source])
    status, output = run(command)
    prefix = os.path.realpath(args.conversions) + os.sep
    found = {}
    for line in output.splitlines():
        match = re.match(r"^(.*?):\d+:\d+: warning: ", line)
        if match and os.path.realpath(match.group(1)).startswith(prefix):
            found.setdefault(os.path.relpath(os.path.realpath(match.group(1)), prefix.rstrip(os.sep)), []).append(line)
    if status != 0:
        return "fail", f"does not compile ({' '.join(command)}):\n{output}"
    return "pass", found


def merged_block(blocks):
    """The blocks as one unit, for speed: each block's preprocessor lines first, the rest of each
    block in a namespace of its own (posenc_doc_block_N, where its main is an ordinary function)."""
    head, body = [], []
    for n, b in enumerate(blocks):
        lines = b.text.split("\n")
        head += [line for line in lines if line.lstrip().startswith("#")]
        body.append(f"namespace posenc_doc_block_{n} {{\n"
                    + "\n".join(line for line in lines if not line.lstrip().startswith("#")) + "\n}\n")
    return Block(os.path.join(ROOT, "docs"), -1, "cpp", "\n".join(head) + "\n" + "".join(body))


def conversions_main(args, blocks):
    pending = set()
    if args.pending:
        for line in open(args.pending, encoding="utf-8"):
            line = line.split("#", 1)[0].strip()
            if line:
                pending.add(line)
    blocks = [b for b in blocks if b.lang == "cpp" and b.fragment_reason() is None]
    blocks.append(public_headers_block(args.conversions))
    failed, pending_seen = 0, {}
    with tempfile.TemporaryDirectory(prefix="posenc-conversions-") as workdir:
        # One unit for every block first (the headers are parsed once); a unit that does not
        # compile as such (two blocks that clash) falls back to one unit per block.
        merged = merged_block(blocks)
        results = [(merged, check_conversions(merged, args, workdir))]
        if results[0][1][0] == "fail":
            print("check-doc-examples --conversions: the blocks do not compile as one unit; one unit per block")
            with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
                results = list(pool.map(lambda b: (b, check_conversions(b, args, workdir)), blocks))
    for b, (outcome, found) in results:
        where = {0: "every public header", -1: "every block as one unit"}.get(b.line, b.where)
        if outcome == "fail":
            failed += 1
            print(f"{where}: FAIL: {found}", file=sys.stderr)
            continue
        for header, lines in sorted(found.items()):
            if header in pending:
                pending_seen.setdefault(header, set()).update(lines)
            else:
                failed += 1
                print(f"{where}: FAIL: -Wconversion / -Wsign-conversion in {header}:\n  " + "\n  ".join(lines),
                      file=sys.stderr)
    for header, lines in sorted(pending_seen.items()):
        print(f"pending ({os.path.relpath(args.pending, ROOT)}): {header}: {len(lines)} warning(s)")
    print(f"check-doc-examples --conversions: {len(results)} units ({len(blocks)} blocks), {failed} with warnings in posenc's headers, "
          f"{len(pending_seen)} pending headers still warning")
    return 1 if failed else 0


def check_python(block, args, _workdir):
    imported = set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)", block.text, re.M))
    for module in OPTIONAL_PYTHON_MODULES:
        if module in imported and importlib.util.find_spec(module) is None:
            return "skip", f"imports {module}, which this interpreter ({sys.executable}) lacks"
    env = dict(os.environ)
    if args.python_path:
        env["PYTHONPATH"] = os.pathsep.join([args.python_path] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    status, output = run([sys.executable, "-c", block.text], cwd=ROOT, env=env)
    if status != 0:
        return "fail", f"exited with status {status}:\n{output}"
    return "pass", output


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    parser.add_argument("--lang", choices=("cpp", "python", "all"), default="all")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    parser.add_argument("-I", dest="include", action="append", default=[],
                        help="an include directory for the C++ blocks (Eigen, xsimd, nlohmann_json)")
    parser.add_argument("--ccache", action="store_true", help="compile through ccache")
    parser.add_argument("--python-path", help="prepended to PYTHONPATH for the Python blocks")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true", help="list the blocks and what would happen")
    parser.add_argument("--conversions", metavar="POSENC_INCLUDE_DIR",
                        help="check -Wconversion -Wsign-conversion in posenc's headers instead (see above)")
    parser.add_argument("--pending", help="with --conversions: headers whose warnings are known and pending")
    args = parser.parse_args()

    files = args.files or [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    blocks = [b for f in files for b in blocks_of(os.path.abspath(f)) if args.lang in ("all", b.lang)]
    if not blocks:
        print("check-doc-examples: no code block found", file=sys.stderr)
        return 1
    if args.conversions:
        return conversions_main(args, blocks)
    fragments = [(b, b.fragment_reason()) for b in blocks if b.fragment_reason() is not None]
    to_run = [b for b in blocks if b.fragment_reason() is None]
    if args.list:
        for b in blocks:
            reason = b.fragment_reason()
            print(f"{b.where}: {b.lang}" + (f" (fragment: {reason})" if reason else ""))
        return 0

    results = {}
    with tempfile.TemporaryDirectory(prefix="posenc-doc-examples-") as workdir:
        # The C++ blocks as one program first (one compile instead of one per block); when that
        # program does not compile or a block fails, each block is compiled and run on its own.
        cpp = [b for b in to_run if b.lang == "cpp"]
        together = check_cpp_together(cpp, args, workdir) if len(cpp) > 1 else None
        if together is not None:
            results.update(together)
        elif len(cpp) > 1:
            print("check-doc-examples: the C++ blocks do not pass as one program; one program per block")
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = {pool.submit(check_cpp if b.lang == "cpp" else check_python, b, args, workdir): b
                       for b in to_run if b not in results}
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()

    failed = skipped = 0
    for b in to_run:
        outcome, output = results[b]
        if outcome == "fail":
            failed += 1
            print(f"{b.where}: FAIL: {b.lang} block {output.rstrip()}\n", file=sys.stderr)
        elif outcome == "skip":
            skipped += 1
            print(f"{b.where}: skipped: {output}")
        else:
            print(f"{b.where}: ok ({b.lang})")
    for b, reason in fragments:
        print(f"{b.where}: fragment, not run: {reason}")
    print(f"check-doc-examples: {len(to_run) - failed - skipped} passed, {failed} failed, "
          f"{skipped} skipped (missing module), {len(fragments)} fragments, of {len(blocks)} blocks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
