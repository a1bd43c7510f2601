"""What ElementwiseKernel and ReductionKernel share: the template types, the
parameter lists they parse ('float32 x, raw int32 idx'), the checks on their
arguments and outputs, NumPy broadcasting collapsed to the fewest dimensions,
the generated loop's declarations, and the plan (generated kernel and extra
launch arguments) kept for each combination of argument shapes."""
import re

import numpy as np

from .._ffi import lib
from ..array import _HK_DTYPE, ndarray
from ._args import _BOOL, _F32, _F64, _HOST_ARRAY_ADVICE, _POINTER
from ._compile import _options
from ._module import RawKernel


# NumPy name -> (C type, numpy dtype, hk_arg_type)
_TEMPLATE_TYPES = {
    "bool": ("bool", np.bool_, _BOOL),
    "int8": ("signed char", np.int8, lib.HK_ARG_INT8),
    "uint8": ("unsigned char", np.uint8, lib.HK_ARG_UINT8),
    "int16": ("short", np.int16, lib.HK_ARG_INT16),
    "uint16": ("unsigned short", np.uint16, lib.HK_ARG_UINT16),
    "int32": ("int", np.int32, lib.HK_ARG_INT32),
    "uint32": ("unsigned int", np.uint32, lib.HK_ARG_UINT32),
    "int64": ("long long", np.int64, lib.HK_ARG_INT64),
    "uint64": ("unsigned long long", np.uint64, lib.HK_ARG_UINT64),
    "float32": ("float", np.float32, _F32),
    "float64": ("double", np.float64, _F64),
}
_MAX_NDIM = 8
# For identities and operations: the run-time compilers have no <math.h> macros.
_TEMPLATE_HEAD = """#if !defined(INFINITY) && defined(__CUDACC__)
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#elif !defined(INFINITY)
#define INFINITY __builtin_huge_valf()
#define NAN __builtin_nanf("")
#endif
"""
_I64 = lib.HK_ARG_INT64


class _Param:
    def __init__(self, text, what, reserved):
        words = text.split()
        self.raw = bool(words) and words[0] == "raw"
        if self.raw:
            words = words[1:]
        if len(words) != 2:
            raise ValueError(f"{what}: {text.strip()!r} is not '<type> <name>' (or 'raw <type> <name>')")
        typename, self.name = words
        if typename not in _TEMPLATE_TYPES:
            raise ValueError(f"{what}: type {typename!r} of {self.name} is not one of "
                             f"{', '.join(_TEMPLATE_TYPES)}")
        self.ctype, dtype, self.arg_type = _TEMPLATE_TYPES[typename]
        self.dtype = np.dtype(dtype)
        self.hk_dtype = _HK_DTYPE.get(self.dtype)  # None: no hipkit array has this dtype
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", self.name) or self.name in reserved:
            raise ValueError(f"{what}: {self.name!r} cannot name a parameter (use a C identifier not "
                             f"starting with '_', other than {', '.join(sorted(reserved))})")


def _parse_params(text, what, reserved):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str such as 'float32 x, float32 y'")
    params = [_Param(part, what, reserved) for part in text.split(",") if part.strip()]
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: a parameter name appears twice in {text!r}")
    return params


def _check_array_arg(kernel_name, param, value):
    """'array' or 'scalar' for one input argument, refusing what cannot be passed."""
    if isinstance(value, ndarray):
        if value.dtype != param.dtype:
            raise TypeError(f"{kernel_name}: {param.name} is {param.dtype} but a {value.dtype} array was "
                            f"given (no implicit conversion)")
        return "array"
    if param.raw:
        raise TypeError(f"{kernel_name}: raw parameter {param.name} needs a hipkit.ndarray, "
                        f"got {type(value).__name__}")
    if isinstance(value, np.ndarray) and value.ndim > 0:
        raise TypeError(f"{kernel_name}: {param.name} is a numpy.ndarray, in host memory; {_HOST_ARRAY_ADVICE}")
    return "scalar"


def _collapse(shape, input_shapes):
    """Broadcast layout: the output shape with size-1 dimensions dropped and
    neighbours merged where every input allows, and each input's element
    strides over it (0 along broadcast dimensions)."""
    ndim = len(shape)
    strides = []
    for s in input_shapes:
        s = (1,) * (ndim - len(s)) + tuple(s)
        step, st = 1, [0] * ndim
        for d in range(ndim - 1, -1, -1):
            st[d] = 0 if s[d] == 1 else step
            step *= s[d]
        strides.append(st)
    dims = [d for d in range(ndim) if shape[d] != 1]
    out_dims = [shape[d] for d in dims]
    out_strides = [[st[d] for d in dims] for st in strides]
    j = len(out_dims) - 2
    while j >= 0:  # merge j and j+1 when every input walks them as one dimension
        if all(st[j] == st[j + 1] * out_dims[j + 1] for st in out_strides):
            out_dims[j] *= out_dims[j + 1]
            del out_dims[j + 1]
            for st in out_strides:
                del st[j]  # the merged dimension steps as the inner one did
        j -= 1
    return out_dims, out_strides


def _contiguous(dims):
    strides, step = [0] * len(dims), 1
    for d in range(len(dims) - 1, -1, -1):
        strides[d] = step
        step *= dims[d]
    return strides


class _Plan:
    """How one combination of argument shapes runs: the generated kernel and
    the extra launch arguments (sizes and strides for broadcast inputs)."""

    def __init__(self, kernel, extra):
        self.kernel, self.extra = kernel, extra


class _Template:
    """What ElementwiseKernel and ReductionKernel share: parameter parsing,
    argument classification, broadcasting and per-shape kernel caching."""

    _reserved: tuple[str, ...] = ("i", "n")  # the loop's index and count

    def __init__(self, in_params, out_params, name, preamble, options):
        self.in_params = _parse_params(in_params, f"{name}: in_params", self._reserved)
        self.out_params = _parse_params(out_params, f"{name}: out_params", self._reserved)
        names = [p.name for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise ValueError(f"{name}: an input and an output have the same name")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"kernel name {name!r} is not a C identifier")
        self.name, self.preamble, self.options = name, preamble, _options(options)
        self._plans = {}  # argument shapes -> _Plan
        self._shapes = {}  # argument and output shapes -> the loop's shape
        self._kernels = {}  # (source, kernel name) -> RawKernel

    def _raw_kernel(self, source, name, types):
        key = (source, name)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = RawKernel(source, name, self.options)
            kernel._param_types, kernel._file = tuple(types), self.name + ".hip"
        return kernel

    def _key(self, args, outs):
        """What the generated kernel depends on: each input's shape (arrays) or
        kind ('scalar', 'raw'), checked, and the shape of the loop."""
        descs = []
        for param, value in zip(self.in_params, args):
            if value.__class__ is ndarray and value._hk_dtype == param.hk_dtype and not param.raw:
                descs.append(value.shape)  # the common case, checked cheaply
            else:
                kind = _check_array_arg(self.name, param, value)
                descs.append("raw" if param.raw else value.shape if kind == "array" else kind)
        descs = tuple(descs)
        out_shapes = tuple(o.shape if o.__class__ is ndarray else None for o in outs)
        shape = self._shapes.get((descs, out_shapes))
        if shape is None:
            shapes = [d for d in descs if isinstance(d, tuple)] + [s for s in out_shapes if s is not None]
            try:
                shape = np.broadcast_shapes(*shapes) if shapes else ()
            except ValueError:
                raise ValueError(f"{self.name}: shapes {', '.join(map(str, shapes))} cannot be broadcast "
                                 f"together") from None
            if len(shape) > _MAX_NDIM:
                raise ValueError(f"{self.name}: at most {_MAX_NDIM} dimensions, got {shape}")
            if len(self._shapes) >= 1024:
                self._shapes.clear()
            self._shapes[(descs, out_shapes)] = shape
        return descs, shape

    def _plan_for(self, key):
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(*key)
        return plan

    def source_for(self, *inputs):
        """The HIP source generated for inputs described as shapes (tuples, for
        arrays) or None (numbers; raw inputs take anything): what a call with
        such arguments compiles, e.g. to compile it for a target without a GPU."""
        if len(inputs) != len(self.in_params):
            raise TypeError(f"{self.name}: describe each of the {len(self.in_params)} inputs")
        descs = tuple("raw" if p.raw else "scalar" if d is None else tuple(d)
                      for p, d in zip(self.in_params, inputs))
        shape = np.broadcast_shapes(*[d for d in descs if isinstance(d, tuple)])
        kernel = self._plan(descs, shape).kernel
        return (kernel if isinstance(kernel, RawKernel) else kernel[0]).source

    def _layout(self, descs, shape):
        """Each input's role in the loop ('same' as the output, 'bcast',
        'scalar', 'raw'), the collapsed dimensions and the broadcast strides."""
        dims, strides = _collapse(shape, [d for d in descs if isinstance(d, tuple)])
        roles, extra, it = [], [], iter(strides)
        contiguous = _contiguous(dims)
        for d in descs:
            if not isinstance(d, tuple):
                roles.append(d)
                continue
            st = next(it)
            if st == contiguous:
                roles.append("same")
            else:
                roles.append("bcast")
                extra.extend(st)
        if "bcast" in roles:
            extra = list(dims[1:]) + extra
        else:
            dims = []
        return tuple(roles), len(dims), extra

    def _loop_body(self, roles, ndim):
        """Declarations of the input variables for index i."""
        lines, bcast = [], [p.name for p, r in zip(self.in_params, roles) if r == "bcast"]
        if bcast:
            lines.append("        long long " + ", ".join(f"_o_{b} = 0" for b in bcast) + ";")
            lines.append("        { long long _r = i, _c;")
            for d in range(ndim - 1, 0, -1):
                lines.append(f"          _c = _r % _d{d}; _r /= _d{d};")
                lines.extend(f"          _o_{b} += _c * _s_{b}_{d};" for b in bcast)
            lines.extend(f"          _o_{b} += _r * _s_{b}_0;" for b in bcast)
            lines.append("        }")
        for p, r in zip(self.in_params, roles):
            if r == "same":
                lines.append(f"        const {p.ctype} {p.name} = _in_{p.name}[i];")
            elif r == "bcast":
                lines.append(f"        const {p.ctype} {p.name} = _in_{p.name}[_o_{p.name}];")
        return "\n".join(lines)

    def _input_params(self, roles):
        """The kernel's input parameters (C text, hk_arg_type)."""
        params = []
        for p, r in zip(self.in_params, roles):
            if r == "scalar":
                params.append((f"{p.ctype} {p.name}", p.arg_type))
            elif r == "raw":
                params.append((f"const {p.ctype} *{p.name}", _POINTER))
            else:
                params.append((f"const {p.ctype} *_in_{p.name}", _POINTER))
        return params

    def _shape_params(self, roles, ndim):
        params = [(f"long long _d{d}", _I64) for d in range(1, ndim)]
        for p, r in zip(self.in_params, roles):
            if r == "bcast":
                params.extend((f"long long _s_{p.name}_{d}", _I64) for d in range(ndim))
        return params

    def _head(self):
        return f"#include <hipkit_device.h>\n{_TEMPLATE_HEAD}{self.preamble}\n"


def _contiguous_inputs(template, args):
    """The generated kernels index arrays as C-contiguous: strided views are
    gathered into contiguous copies first (outputs are refused by _check_out)."""
    for a in args:
        if a.__class__ is ndarray and not a._contiguous:
            return tuple(a.copy() if a.__class__ is ndarray and not a._contiguous and not p.raw else a
                         for a, p in zip(args, template.in_params))
    return args


def _split_call(template, args, out):
    n_in, n_out = len(template.in_params), len(template.out_params)
    if len(args) == n_in + n_out and n_out:
        if out is not None:
            raise TypeError(f"{template.name}: the outputs are given twice (positionally and as out=)")
        return _contiguous_inputs(template, args[:n_in]), list(args[n_in:])
    if len(args) != n_in:
        raise TypeError(f"{template.name} takes {n_in} input{'s' * (n_in != 1)}"
                        f"{f' (and optionally {n_out} output' + 's' * (n_out != 1) + ')' if n_out else ''}"
                        f" but {len(args)} argument{'s' * (len(args) != 1)} were given")
    args = _contiguous_inputs(template, args)
    if out is None:
        return args, [None] * n_out
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(outs) != n_out:
        raise TypeError(f"{template.name}: out must give {n_out} array{'s' * (n_out != 1)}")
    return args, outs


def _check_out(template, param, out, shape):
    if out.__class__ is ndarray and out._hk_dtype == param.hk_dtype and out.shape == shape and out._contiguous:
        return
    if isinstance(out, ndarray) and not out._contiguous:
        raise ValueError(f"{template.name}: output {param.name} must be C-contiguous (a strided view cannot be "
                         f"written by a generated kernel); pass a fresh array and copy it into the view")
    if not isinstance(out, ndarray):
        raise TypeError(f"{template.name}: output {param.name} must be a hipkit.ndarray, got {type(out).__name__}")
    if out.dtype != param.dtype or out.shape != tuple(shape):
        raise ValueError(f"{template.name}: output {param.name} must have shape {tuple(shape)} and dtype "
                         f"{param.dtype}, got {out.shape} and {out.dtype}")
