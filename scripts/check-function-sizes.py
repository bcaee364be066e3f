#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lists the library's functions that are too long or take too many parameters.

Reads every include/posenc/**/*.hpp (and .cuh) and prints, for each function definition whose body
has more than MAX_BODY_LINES lines or whose parameter list has more than MAX_PARAMS parameters:

    path:line name body_lines params

With --all, every function found is listed (those within the limits marked so). Exit status 1
when such a function is not in ALLOWED below, 0 otherwise. An allowed function
that no longer exceeds a limit is reported as stale (the list should only shrink), without
failing.

How it finds functions (a heuristic over the text, not a C++ parser):
  * comments, string and character literals and preprocessor lines (with their continuation
    lines) are blanked first, so a macro's body (POSENC_DISPATCH_DEFINE_TARGET, an X-macro) is
    never seen, and both branches of an #if are read as if both were compiled;
  * braces are matched; a `{` at namespace or class scope opens a function body when the text
    before it (since the previous `;`, `{` or `}`) holds a parameter list `name(...)` followed
    only by qualifiers (const, noexcept, noexcept(...), override, a trailing return type) or a
    constructor's initialiser list; `namespace`, `struct`, `class`, `union`, `enum` and
    initialisers (`= {...}`) are scopes of other kinds;
  * everything inside a function body (lambdas, local classes) counts as that function's body;
  * body lines: the lines strictly between the line of the opening brace and the line of the
    closing one (blank and comment lines included); a one-line body `{ return x; }` has 0;
  * parameters: top-level commas of the parameter list plus one (0 for `()` or `(void)`);
    commas inside (), [], {} and template arguments <...> do not count (a `<` is read as a
    template bracket after an identifier, which misreads a comparison in a default argument).
It does not see functions defined by macros, and a brace inside an #if/#else pair that is
unbalanced per branch would confuse it (none of the kernel headers has one).
"""

import pathlib
import re
import sys

MAX_BODY_LINES = 60
MAX_PARAMS = 8

# "path below include/posenc/ :: function name": functions allowed to exceed a limit for
# now, each with the reason.
ALLOWED: dict = {}  # "file::function": "why it may exceed a limit"; empty: every function is within them

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADERS = ROOT / "include" / "posenc"
QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "volatile", "&", "&&"}
NOT_CALLS = {"decltype", "alignas", "__attribute__", "noexcept", "sizeof", "alignof", "static_assert", "throw"}


def blank_non_code(text):
    """Comments, literals and preprocessor lines replaced by spaces; newlines kept."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            while i < n and text[i] != "\n":  # the directive and its continuation lines
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
            continue
        if c == "\n":
            at_line_start = True
        out.append(c)
        i += 1
    return "".join(out)


def matching(text, open_index, opening, closing):
    """Index of the bracket that closes text[open_index] (or len(text))."""
    depth = 0
    for j in range(open_index, len(text)):
        if text[j] == opening:
            depth += 1
        elif text[j] == closing:
            depth -= 1
            if depth == 0:
                return j
    return len(text)


def skip_template_headers(head):
    """The head without its leading `template <...>` clauses."""
    while True:
        m = re.match(r"\s*template\s*<", head)
        if not m:
            return head
        depth, j = 0, m.end() - 1
        while j < len(head):
            ch = head[j]
            if ch == "(":
                j = matching(head, j, "(", ")")
            elif ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        head = head[j + 1 :]


def count_params(params):
    params = params.strip()
    if params in ("", "void"):
        return 0
    count, depth = 1, 0
    for k, ch in enumerate(params):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and re.search(r"[\w>]\s*$", params[:k]) and not params.startswith("<<", k):
            depth += 1
        elif ch == ">" and depth > 0 and not params.startswith(">=", k):
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
    return count


def only_qualifiers(rest):
    """Whether the text after a parameter list is qualifiers, a trailing return or an init list."""
    rest = rest.strip()
    while rest:
        if rest.startswith(":") and not rest.startswith("::"):
            return True  # a constructor's initialiser list
        if rest.startswith("->"):
            return "=" not in rest
        m = re.match(r"(noexcept|throw)\s*\(", rest)
        if m:
            rest = rest[matching(rest, m.end() - 1, "(", ")") + 1 :].strip()
            continue
        m = re.match(r"(\w+|&&|&)", rest)
        if m and m.group(1) in QUALIFIERS:
            rest = rest[m.end() :].strip()
            continue
        if rest.startswith("[["):
            rest = rest[rest.find("]]") + 2 :].strip()
            continue
        return False
    return True


def function_head(head):
    """(name, params) if the text before a `{` declares a function, else None."""
    head = skip_template_headers(head)
    if re.match(r"\s*(namespace|struct|class|union|enum|extern)\b", head):
        return None
    for m in re.finditer(r"\(", head):
        before = head[: m.start()].rstrip()
        word = re.search(r"(operator\s*(\(\)|[^\w\s(]+)|~?[\w:]+)$", before)
        if not word or word.group(1) in NOT_CALLS:
            continue
        if before.endswith("operator"):
            continue  # operator() : the next ( is the list
        if head[: m.start()].count("(") != head[: m.start()].count(")"):
            continue  # inside another parenthesis
        close = matching(head, m.start(), "(", ")")
        if close >= len(head) or not only_qualifiers(head[close + 1 :]):
            continue
        name = word.group(1).split("::")[-1] if "operator" not in word.group(1) else word.group(1)
        return re.sub(r"\s+", "", name), count_params(head[m.start() + 1 : close]), len(head) - m.start()
    return None


def opens_scope(head):
    """Whether the text before a `{` opens a namespace or a class (whose members may be functions)."""
    return re.match(r"\s*(namespace|struct|class|union|extern)\b", skip_template_headers(head)) is not None


def functions(path):
    text = blank_non_code(path.read_text())
    line_of = [0] * (len(text) + 1)
    line = 1
    for k, ch in enumerate(text):
        line_of[k] = line
        if ch == "\n":
            line += 1
    # the scopes open at each point: "scope" (namespace, class) or "other" (function, initialiser)
    stack = []
    head_start = 0
    found = []
    k = 0
    while k < len(text):
        ch = text[k]
        in_function = any(kind != "scope" for kind, _ in stack)
        if ch == "{" and not in_function and text.count("(", head_start, k) > text.count(")", head_start, k):
            k = matching(text, k, "{", "}") + 1  # a braced default argument, `HeadsView<T> k = {}`
            continue
        if ch == "{":
            if in_function:
                stack.append(("other", None))
            else:
                head = text[head_start:k]
                fn = function_head(head)
                if fn:
                    name, params, from_end = fn
                    stack.append(("function", (name, params, line_of[k - from_end], line_of[k])))
                else:
                    stack.append(("scope" if opens_scope(head) else "other", None))  # enum, initialiser: "other"
            head_start = k + 1
        elif ch == "}":
            kind, info = stack.pop() if stack else ("scope", None)
            if kind == "function":
                name, params, name_line, brace_line = info
                found.append((name_line, name, max(0, line_of[k] - brace_line - 1), params))
            if not any(kind != "scope" for kind, _ in stack):
                head_start = k + 1
        elif ch == ";" and not in_function:
            head_start = k + 1
        k += 1
    return found


def main():
    show_all = sys.argv[1:] == ["--all"]
    failures = 0
    over = set()
    for path in sorted([*HEADERS.rglob("*.hpp"), *HEADERS.rglob("*.cuh")]):
        relative = path.relative_to(HEADERS).as_posix()
        for line, name, body, params in functions(path):
            if body <= MAX_BODY_LINES and params <= MAX_PARAMS:
                if show_all:
                    print(f"{path.relative_to(ROOT).as_posix()}:{line} {name} {body} {params}  (within)")
                continue
            key = f"{relative}::{name}"
            over.add(key)
            allowed = key in ALLOWED
            note = "  (allowed: " + ALLOWED[key] + ")" if allowed else ""
            print(f"{path.relative_to(ROOT).as_posix()}:{line} {name} {body} {params}{note}")
            failures += 0 if allowed else 1
    for key in sorted(set(ALLOWED) - over):
        print(f"stale allow-list entry (now within the limits): {key}")
    if failures:
        print(f"{failures} function(s) over {MAX_BODY_LINES} body lines or {MAX_PARAMS} parameters",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
