# SPDX-License-Identifier: MIT
"""posenc._keywords: one-line errors for calls the native functions cannot take (private).

pybind11 answers a call no overload takes with a TypeError listing every overload (about 2,000
characters for frequency_table) and no hint. The package wraps each native function, method and
constructor (install(), run once at import) so that such a call raises instead, in one line,

    frequency_table() got an unexpected keyword 'head_dimm'; did you mean 'head_dim'?

with the nearest name by the CLI's and the config reader's rule (posenc/detail/did_you_mean.hpp,
bound as _posenc._nearest_name). Calls that succeed go straight through. The parameter names come
from the signatures pybind11 writes into each docstring (signatures()); scripts/generate-stubs.py
reads the same signatures to write the type stubs.

Functions that take assume_half_split (the config reader's) also turn the reader's refusal of an
unknown model_type, written for C++ and the CLI, into the Python keyword, with a did-you-mean
among the model types posenc reads.
"""

import functools as _functools
import re as _re

from . import _posenc

_INCOMPATIBLE = "incompatible function arguments"
_CONSTRUCTOR_INCOMPATIBLE = "incompatible constructor arguments"


# ---------------------------------------------------------------- pybind11 signatures
def split_top_level(text, separator=","):
    """text split at `separator` outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{<":
            depth += 1
        elif c in ")]}>" and depth > 0 and not (c == ">" and text[i - 1] == "-"):
            depth -= 1
        elif c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _top_level_find(text, token):
    """The index of the first `token` outside brackets and quotes, or -1."""
    depth, quote = 0, None
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{<":
            depth += 1
        elif c in ")]}>" and depth > 0:
            depth -= 1
        elif depth == 0 and text.startswith(token, i):
            return i
    return -1


def parse_parameter(text):
    """(name, annotation or None, default text or None) of one 'name: type = default'."""
    cut = _top_level_find(text, " = ")
    head, default = (text, None) if cut < 0 else (text[:cut], text[cut + 3:].strip())
    name, _, annotation = head.partition(":")
    return name.strip(), (annotation.strip() or None), default


def signatures(function):
    """[(parameters, return annotation)] of every overload pybind11 wrote into the docstring of
    `function` (parameters: [(name, annotation, default)], self included for methods)."""
    doc = getattr(function, "__doc__", None) or ""
    name = getattr(function, "__name__", "")
    out = []
    pattern = _re.compile(r"^(?:\d+\. )?" + _re.escape(name) + r"\((.*)\)(?: -> (.+))?$")
    for line in doc.splitlines():
        match = pattern.match(line)
        if match is None or match.group(1) == "*args, **kwargs":
            continue
        params = [parse_parameter(p) for p in split_top_level(match.group(1))]
        out.append((params, match.group(2)))
    return out


# ---------------------------------------------------------------- the one-line messages
def _parameter_names(overloads):
    names = []
    for params, _ in overloads:
        for name, _, _ in params:
            if name not in names and name not in ("self", "*", "/") and not name.startswith("*"):
                names.append(name)
    return names


def _type_name(value):
    return type(value).__name__


def _short_annotation(annotation):
    return _re.sub(r"\b(?:posenc\._posenc\.|numpy\.|typing\.)", "", annotation or "object")


def keyword_message(title, keyword, names):
    """'<title> got an unexpected keyword '<keyword>'' and the nearest of `names`, or all of them."""
    near = _posenc._nearest_name(keyword, names) if names else None
    hint = ("; did you mean '%s'?" % near) if near else ("; it takes %s" % ", ".join(names) if names else "")
    return "%s got an unexpected keyword '%s'%s" % (title, keyword, hint)


def call_message(title, overloads, args, kwargs):
    """The one-line TypeError text for a call of `title` that no overload took."""
    names = _parameter_names(overloads)
    for keyword in kwargs:
        if keyword not in names:
            return keyword_message(title, keyword, names)
    given = ", ".join([_type_name(a) for a in args] + ["%s=%s" % (k, _type_name(v)) for k, v in kwargs.items()])
    forms = []
    for params, _ in overloads:
        shown = [p for p in params if p[0] != "self"]
        forms.append("(" + ", ".join("%s: %s" % (n, _short_annotation(a)) if a else n for n, a, _ in shown) + ")")
    takes = " or ".join(forms[:3]) + (" or %d more" % (len(forms) - 3) if len(forms) > 3 else "")
    return "%s got (%s); it takes %s" % (title, given, takes or "other arguments")


def _is_pybind11_mismatch(error):
    text = str(error)
    return _INCOMPATIBLE in text or _CONSTRUCTOR_INCOMPATIBLE in text


# ---------------------------------------------------------------- the reader's model_type refusal
_CXX_OPT_IN = "opt in with ReadOptions::assume_half_split (posenc-inspect --assume-half-split)"


def python_model_type_error(error):
    """The reader's refusal of an unknown model_type with the Python keyword and a did-you-mean,
    or None when `error` is another one."""
    if not getattr(error, "field", "").endswith("model_type") or _CXX_OPT_IN not in str(error):
        return None
    model_type = error.value[1:-1] if error.value.startswith('"') and error.value.endswith('"') else error.value
    near = _posenc._nearest_name(model_type, _posenc._known_model_types())
    rule = error.rule.replace(_CXX_OPT_IN, "pass assume_half_split=True")
    message = str(error).replace(_CXX_OPT_IN, "pass assume_half_split=True")
    if near:
        message += " (did you mean %s?)" % near
    e = _posenc.Error(message)
    e.field, e.value, e.rule = error.field, error.value, rule
    return e


# ---------------------------------------------------------------- wrapping
def wrap(function, title=None, bound=False):
    """`function` (a pybind11 function) with the one-line TypeError; same name and docstring.
    bound: a method, whose first argument (self) is not named in messages."""
    overloads = signatures(function)
    title = title or "%s()" % function.__name__
    reads_configs = any(n == "assume_half_split" for params, _ in overloads for n, _, _ in params)

    @_functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as e:
            if not _is_pybind11_mismatch(e):
                raise
            message = call_message(title, overloads, args[1:] if bound else args, kwargs)
        except _posenc.Error as e:
            translated = python_model_type_error(e) if reads_configs else None
            if translated is None:
                raise
            raise translated from None
        raise TypeError(message) from None

    call._posenc_native = function
    return call


_PYTHON_UNEXPECTED = _re.compile(r"got an unexpected keyword argument '(\w+)'")


def python_function(function):
    """A function the package defines in Python with the same one-line message and suggestion for
    a keyword it does not take (Python's own message names the keyword without a suggestion)."""
    import inspect

    names = [n for n, p in inspect.signature(function).parameters.items()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    @_functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as e:
            match = _PYTHON_UNEXPECTED.search(str(e))
            # only a refusal of this call's own arguments: raised here, before the function ran
            if match is None or e.__traceback__ is None or e.__traceback__.tb_next is not None:
                raise
            message = keyword_message("%s()" % function.__name__, match.group(1), names)
        raise TypeError(message) from None

    return call


def _native(obj):
    return type(obj).__name__ == "builtin_function_or_method" and (obj.__doc__ or "").startswith(obj.__name__ + "(")


def _install_class(cls):
    for attr, value in list(vars(cls).items()):
        if attr.startswith("__") and attr not in ("__init__", "__call__", "__getitem__"):
            continue
        if type(value).__name__ == "instancemethod" and _native(value.__func__):
            title = "%s()" % cls.__name__ if attr == "__init__" else "%s.%s()" % (cls.__name__, attr)
            setattr(cls, attr, wrap(value.__func__, title, bound=True))
        elif isinstance(value, staticmethod) and _native(value.__func__):
            setattr(cls, attr, staticmethod(wrap(value.__func__, "%s.%s()" % (cls.__name__, attr))))


def install(module):
    """Wraps every native function and class method of `module` (and its native submodules)."""
    for attr, value in list(vars(module).items()):
        if attr.startswith("__"):
            continue
        if _native(value):
            setattr(module, attr, wrap(value))
        elif isinstance(value, type) and value.__module__.startswith("posenc._posenc") and not hasattr(
                value, "__members__"):
            _install_class(value)
        elif type(value).__name__ == "module" and value.__name__.startswith("posenc._posenc."):
            install(value)
