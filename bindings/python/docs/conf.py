"""Sphinx configuration of hipkit's Python API reference, generated from the docstrings.

    python3 -m sphinx -W -b html bindings/python/docs build/docs   # with the built package on PYTHONPATH

The reference lists every public name of the hipkit namespace (and of hipkit.kernel) that hipkit itself
defines, read from the imported package when the docs are built, so no list of names is kept here.
The docstrings are plain text (examples, lists, sentences), shown as written: each is a literal block.
"""
import importlib
import os

project = "hipkit"
extensions = ["sphinx.ext.autodoc"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
exclude_patterns = ["_build"]
html_theme = "alabaster"


def _public(module_name):
    """The names a user reaches in `module_name` whose objects hipkit defines (not NumPy's dtypes)."""
    module = importlib.import_module(module_name)
    names = sorted(set(dir(module)))
    out = []
    for name in names:
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        owner = getattr(obj, "__module__", None) or ""
        if owner.startswith("hipkit") and not isinstance(obj, type(os)) and (callable(obj) or isinstance(obj, type)):
            out.append((name, obj))
    return out


def _write_api(app):
    lines = ["API reference", "=============", "",
             "Every public function and class of ``hipkit`` and ``hipkit.kernel``, with its docstring.", ""]
    for module_name in ("hipkit", "hipkit.kernel"):
        title = f"``{module_name}``"
        lines += [title, "-" * len(title), "", f".. module:: {module_name}", ""]
        for name, obj in _public(module_name):
            directive = "autoclass" if isinstance(obj, type) else "autofunction"
            lines += [f".. {directive}:: {module_name}.{name}", ""]
            if directive == "autoclass":
                lines += ["   :members:", ""]
    with open(os.path.join(app.srcdir, "api.rst"), "w") as f:
        f.write("\n".join(lines) + "\n")


def _literal(app, what, name, obj, options, lines):
    """A docstring as written: one literal block (they are plain text, not reStructuredText)."""
    if any(line.strip() for line in lines):
        text = [line.rstrip() for line in lines]
        lines[:] = ["::", ""] + [("    " + line) if line else "" for line in text] + [""]


def setup(app):
    app.connect("builder-inited", _write_api)
    app.connect("autodoc-process-docstring", _literal)
