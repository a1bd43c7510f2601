"""The hipkit package is layered (issue 14): LAYERS lists its modules, bottom first, and each module imports
only modules before it, at the top of its file, never inside a function (the circles array <-> ops <->
_scatter <-> interop <-> _array_api, once broken by imports inside functions, are gone). ndarray's methods
and operators are installed by the module that implements them, once it has defined them.

Checked three ways: every module's source read with ast (where each import of a hipkit module stands and
what it names); each module imported alone in a fresh interpreter, the __init__ of the packages above it
not run, listing the hipkit modules that got loaded; and ndarray's installed methods and operators, which
must be the functions' own callables (their C paths)."""
import ast
import functools
import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hipkit

SOURCE = Path(__file__).resolve().parents[2] / "bindings" / "python" / "hipkit"

# Bottom first: a module may import only the modules before it.
LAYERS = [
    "hipkit._ffi",                 # the cffi module (C)
    "hipkit._native",              # the binding's C core (bindings/python/native)
    "hipkit.errors",
    "hipkit.device",
    "hipkit._dtypes",
    "hipkit._layout",
    "hipkit.array",                # ndarray, views, conversions, creation
    "hipkit.interop",              # DLPack, __cuda_array_interface__, pinned memory
    "hipkit._ops",                 # the op families, each installing its methods and operators on ndarray
    "hipkit._ops._base",
    "hipkit._ops.elementwise",
    "hipkit._ops.reduce",
    "hipkit._ops.scan_sort",
    "hipkit._ops.linalg",
    "hipkit._ops.indexing",
    "hipkit.ops",                  # the families' functions under one name
    "hipkit._array_api",
    "hipkit.linalg",
    "hipkit.random",
    "hipkit._build",               # what CMake configured (generated from _build.py.in)
    "hipkit._config",              # show_config / python -m hipkit
    "hipkit.kernel._compile",
    "hipkit.kernel._args",
    "hipkit.kernel._launcher",
    "hipkit.kernel._module",
    "hipkit.kernel._template",
    "hipkit.kernel._elementwise",
    "hipkit.kernel._reduction",
    "hipkit.kernel._jit",
    "hipkit.kernel._fuse",
    "hipkit.kernel",
    "hipkit._lazy",                # lazy mode: elementwise expressions recorded and fused (loaded on first use)
    "hipkit",                      # installs ndarray.__array_namespace__ (the namespace is the package itself)
    "hipkit.__main__",             # python -m hipkit
]
ORDER = {name: position for position, name in enumerate(LAYERS)}
EXTENSIONS = {"hipkit._ffi", "hipkit._native"}
GENERATED = {"hipkit._build"}  # written by CMake from a .py.in (bindings/python/CMakeLists.txt)

# Imports of hipkit modules inside functions that are deliberate, lazy for import speed:
# (module, function's qualified name) -> why. None today.
LAZY_IMPORTS = {}


@functools.lru_cache(maxsize=None)
def _modules():
    """Module name -> source path, for every module of the package (a package by its __init__.py)."""
    found = {}
    for path in sorted(SOURCE.rglob("*.py")):
        parts = ("hipkit",) + path.relative_to(SOURCE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(tree):
    """(import statement, qualified name of the function it is in or None) for every import in a module."""
    def walk(node, scope, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = scope + [getattr(child, "name", "<lambda>")]
                yield from walk(child, inner, ".".join(inner))
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, scope + [child.name], function)
            else:
                yield from walk(child, scope, function)
    yield from walk(tree, [], None)


def _named(module, node):
    """The hipkit modules an import statement imports: a name from a package is the package's own, unless
    it is one of its modules."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "hipkit"]
    if node.level == 0:
        if (node.module or "").split(".")[0] != "hipkit":
            return []
        base = node.module
    else:
        is_package = _modules()[module].name == "__init__.py"
        base = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        if node.module:
            base = f"{base}.{node.module}"
    modules = set(_modules()) | EXTENSIONS
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def _parsed():
    return {name: ast.parse(path.read_text(), str(path)) for name, path in _modules().items()}


def test_the_layers_list_every_module_of_the_package():
    assert set(LAYERS) == set(_modules()) | EXTENSIONS | GENERATED
    assert len(LAYERS) == len(ORDER)


def test_the_build_copies_every_module():
    """bindings/python/CMakeLists.txt's HIPKIT_PYTHON_SOURCES: the files the build tree and the wheel get."""
    text = (SOURCE.parent / "CMakeLists.txt").read_text()
    listed = text.split("set(HIPKIT_PYTHON_SOURCES", 1)[1].split(")", 1)[0].split()
    # besides the modules: the typing marker and the stubs of the C extensions (PEP 561)
    typing_files = sorted(path.relative_to(SOURCE).as_posix() for path in [*SOURCE.glob("*.pyi"), SOURCE / "py.typed"])
    assert typing_files == ["_ffi.pyi", "_native.pyi", "py.typed"]
    assert sorted(listed) == sorted([path.relative_to(SOURCE).as_posix() for path in _modules().values()] + typing_files)


def test_no_module_imports_a_hipkit_module_inside_a_function():
    found = []
    for module, tree in _parsed().items():
        for node, function in _imports(tree):
            if function is not None and _named(module, node) and (module, function) not in LAZY_IMPORTS:
                found.append(f"{module}: line {node.lineno}, in {function}: {ast.unparse(node)}")
    assert found == [], "imports of hipkit modules inside functions:\n" + "\n".join(found)


def test_every_import_of_a_hipkit_module_goes_down_the_layers():
    found = []
    for module, tree in _parsed().items():
        layer = ORDER.get(module, len(LAYERS))  # a module missing from LAYERS: above everything
        for node, function in _imports(tree):
            for name in _named(module, node):
                if ORDER.get(name, len(LAYERS)) >= layer:
                    found.append(f"{module} (layer {ORDER.get(module, 'none')}): line {node.lineno}: "
                                 f"{ast.unparse(node)} imports {name} (layer {ORDER.get(name, 'none')})")
    assert found == [], "imports up the layers:\n" + "\n".join(found)


# Imports one module in a fresh interpreter, with the packages above it (hipkit, hipkit._ops, ...) made
# without running their __init__ (which would import the rest), and prints the hipkit modules then loaded.
_ALONE = textwrap.dedent("""
    import importlib, importlib.util, json, sys
    target = sys.argv[1]
    parents = [target.rsplit(".", k)[0] for k in range(target.count("."), 0, -1)]
    for name in parents:
        module = importlib.util.module_from_spec(importlib.util.find_spec(name))
        sys.modules[name] = module
        if "." in name:
            setattr(sys.modules[name.rpartition(".")[0]], name.rpartition(".")[2], module)
    importlib.import_module(target)
    print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] == "hipkit" and name not in parents)))
""")


@pytest.fixture(scope="module")
def imported_alone():
    """Module -> the run importing it alone, every module of LAYERS at once (each in its own interpreter)."""
    package_dir = str(Path(hipkit.__file__).resolve().parents[1])  # the hipkit this run tests
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_dir, os.environ.get("PYTHONPATH")])))
    env.pop("HIPKIT_LAZY", None)  # each module alone, as a plain import loads it
    runs = {module: subprocess.Popen([sys.executable, "-c", _ALONE, module], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env) for module in LAYERS}
    yield runs
    for run in runs.values():  # the runs of tests not selected
        if run.returncode is None:
            run.kill()
            run.communicate()


@pytest.mark.parametrize("module", LAYERS)
def test_a_module_imported_alone_loads_only_modules_below_it(imported_alone, module):
    run = imported_alone[module]
    out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    # cffi's module registers its lib too (hipkit._ffi.lib): part of the extension
    loaded = {name.rpartition(".")[0] if name.rpartition(".")[0] in EXTENSIONS else name
              for name in json.loads(out.splitlines()[-1])}
    above = sorted(name for name in loaded - {module} if ORDER.get(name, len(LAYERS)) >= ORDER[module])
    assert above == [], f"importing {module} loaded modules that are not below it: {above}"


REDUCTIONS = ("sum", "prod", "min", "max", "argmin", "argmax", "mean", "var", "std", "any", "all")


def test_ndarray_methods_and_operators_are_the_functions_own_callables():
    for name in REDUCTIONS + ("cumsum", "cumprod", "argsort", "clip", "round", "dot", "take", "put", "nonzero"):
        assert inspect.getattr_static(hipkit.ndarray, name) is getattr(hipkit, name), name
    for dunder, name in (("neg", "negative"), ("pos", "positive"), ("abs", "absolute"), ("invert", "invert")):
        assert inspect.getattr_static(hipkit.ndarray, f"__{dunder}__") is getattr(hipkit, name), dunder
    for dunder in ("add", "radd", "iadd", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
                   "lshift", "rshift", "eq", "ne", "lt", "le", "gt", "ge"):
        assert type(inspect.getattr_static(hipkit.ndarray, f"__{dunder}__")).__name__ == "Ufunc", dunder  # C
    assert type(inspect.getattr_static(hipkit.ndarray, "__matmul__")).__name__ == "Matmul"
    # The Python methods installed from above hipkit.array are named as if its class body had them.
    for name in ("sort", "__dlpack__", "__dlpack_device__", "__array_namespace__"):
        assert getattr(hipkit.ndarray, name).__qualname__ == f"ndarray.{name}"
    assert hipkit.ndarray.__cuda_array_interface__.fget.__qualname__ == "ndarray.__cuda_array_interface__"
    assert hipkit.zeros(2).__array_namespace__() is hipkit


def test_user_kernels_load_on_first_use():
    """import hipkit does not load the run-time compiler's modules (import speed); the names appear
    on first use, as the same objects as hipkit.kernel's."""
    code = ("import sys, hipkit\n"
            "assert not any(m.startswith('hipkit.kernel') for m in sys.modules), sorted(sys.modules)\n"
            "k = hipkit.RawKernel\n"
            "assert k is hipkit.kernel.RawKernel and hipkit.ElementwiseKernel is hipkit.kernel.ElementwiseKernel\n"
            "assert 'kernel' in dir(hipkit)\n"
            "try:\n    hipkit.no_such_name\nexcept AttributeError as e:\n    assert 'no_such_name' in str(e)\n"
            "assert 'hipkit._lazy' not in sys.modules\n"
            "hipkit.lazy\n"
            "assert 'hipkit._lazy' in sys.modules and hipkit.set_lazy is sys.modules['hipkit._lazy'].set_lazy\n"
            "print('ok')\n")
    env = {k: v for k, v in os.environ.items() if k != "HIPKIT_LAZY"}  # HIPKIT_LAZY=1 loads lazy mode at import
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr
