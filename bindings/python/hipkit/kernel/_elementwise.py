"""ElementwiseKernel: a kernel generated from one line of C++ applied element
by element, and the subclasses whose __call__, generated for the parameters'
dtypes, launches the common call (arrays of one shape) in one frame."""
import math

from .._ffi import lib
from ..array import _current_device, ndarray
from ._args import _POINTER
from ._template import _I64, _Plan, _Template, _check_out, _split_call


_FAST_ELEMENTWISE = """
def __call__(self, *args, out=None, stream=None):
    if out is None:
        if len(args) == {n_all}:
            {ins}, {outs}, = args
        elif len(args) == {n_in}:
            {ins}, = args
            {outs_none}
        else:
            return self._call(args, out, stream)
    elif {n_out} == 1 and len(args) == {n_in} and out.__class__ is ndarray:
        {ins}, = args
        o0 = out
    else:
        return self._call(args, out, stream)
    if {inputs_odd}:
        return self._call(args, out, stream)
    shape = a0.shape
    if {shapes_differ}:
        return self._call(args, out, stream)
    plans = self._fast_plans.get(current_device())
    entry = plans.get(shape) if plans is not None else None
    if entry is None:
        return self._call(args, out, stream)
    if {outputs_odd}:
        return self._call(args, out, stream)
    {make_outputs}
    launch, block, n = entry
    launch((n + block - 1) // block, block, ({ins}, {outs}, n), 0, stream)
    return {result}
"""

_fast_elementwise_classes: dict = {}  # (input dtypes, output dtypes) -> ElementwiseKernel subclass


def _fast_elementwise_class(in_dtypes, out_dtypes):
    """An ElementwiseKernel subclass whose __call__ handles the common call in
    one frame for inputs of `in_dtypes` (hk_dtype codes) and outputs of
    `out_dtypes` ((hk_dtype, numpy dtype) pairs); anything else goes to _call,
    which runs every case and raises the errors."""
    cls = _fast_elementwise_classes.get((in_dtypes, out_dtypes))
    if cls is not None:
        return cls
    ins = [f"a{k}" for k in range(len(in_dtypes))]
    outs = [f"o{k}" for k in range(len(out_dtypes))]
    namespace = {"ndarray": ndarray, "current_device": _current_device, "empty": ndarray._empty}
    for k, d in enumerate(in_dtypes):
        namespace[f"I{k}"] = d
    for k, (d, np_dtype) in enumerate(out_dtypes):
        namespace[f"O{k}"], namespace[f"D{k}"] = d, np_dtype
    source = _FAST_ELEMENTWISE.format(
        n_all=len(ins) + len(outs), n_in=len(ins), n_out=len(outs), ins=", ".join(ins), outs=", ".join(outs),
        outs_none=" = ".join(outs) + " = None",
        inputs_odd=" or ".join(f"{a}.__class__ is not ndarray or {a}._hk_dtype != I{k} or not {a}._contiguous"
                               for k, a in enumerate(ins)),
        shapes_differ=" or ".join([f"{a}.shape != shape" for a in ins[1:]] or ["False"]),
        outputs_odd=" or ".join(f"({o} is not None and ({o}.__class__ is not ndarray or {o}._hk_dtype != O{k} "
                                f"or not {o}._contiguous or {o}.shape != shape))" for k, o in enumerate(outs)),
        make_outputs="\n    ".join(f"if {o} is None:\n        {o} = empty(shape, D{k})" for k, o in enumerate(outs)),
        result=outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")")
    exec(source, namespace)
    call = namespace["__call__"]
    call.__qualname__ = "ElementwiseKernel.__call__"
    call.__doc__ = ElementwiseKernel.__call__.__doc__
    cls = _fast_elementwise_classes[(in_dtypes, out_dtypes)] = type("ElementwiseKernel", (ElementwiseKernel,), {
        "__call__": call, "__module__": ElementwiseKernel.__module__, "__doc__": ElementwiseKernel.__doc__})
    return cls


class ElementwiseKernel(_Template):
    """A kernel from one line of C++, applied element by element, as CuPy's:

        axpy2 = hipkit.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                         "z = x * 2 + y", "axpy2")
        z = axpy2(x, y)                  # or axpy2(x, y, z), axpy2(x, y, out=z)

    Inputs are hipkit arrays, broadcast together as NumPy does, or numbers
    (passed as the declared type, checked as RawKernel checks them); 'raw'
    inputs are passed as pointers, indexed by the operation itself. In the
    operation, each input name is its element, each output name a reference to
    its element, `i` the element's index and `n` their count. Types: bool,
    int8 ... uint64, float32, float64 (arrays: float32, float64, int32, int64)."""

    def __init__(self, in_params, out_params, operation, name, preamble="", options=()):
        super().__init__(in_params, out_params, name, preamble, options)
        if not self.out_params:
            raise ValueError(f"{name}: an elementwise kernel needs at least one output")
        self.operation = operation
        # The common call (array inputs of the declared dtypes, all of one
        # shape, C-contiguous; outputs given alike or made) goes through a
        # __call__ generated for this parameter list, which finds the launch
        # in _fast_plans: device -> shape -> (launcher, block, n). _call
        # handles every call and fills _fast_plans.
        self._fast_plans = {}
        if type(self) is ElementwiseKernel and self.in_params and not any(p.raw for p in self.in_params):
            # (a user's subclass keeps its own class and takes _call every time)
            self.__class__ = _fast_elementwise_class(tuple(p.hk_dtype for p in self.in_params),
                                                     tuple((p.hk_dtype, p.dtype) for p in self.out_params))

    def __call__(self, *args, out=None, stream=None):
        return self._call(args, out, stream)

    def _call(self, args, out, stream):
        inputs, outs = _split_call(self, args, out)
        key = self._key(inputs, outs)
        shape = key[1]
        for i, (param, o) in enumerate(zip(self.out_params, outs)):
            if o is None:
                outs[i] = ndarray._empty(shape, param.dtype)
            else:
                _check_out(self, param, o, shape)
        n = math.prod(shape)
        if n:
            plan = self._plan_for(key)
            bound = plan.kernel._bound()
            block = bound.block_for(0)
            bound.launch((n + block - 1) // block, block, (*inputs, *outs, n, *plan.extra), 0, stream)
            if not plan.extra and all(d == shape for d in key[0]):  # the generated __call__'s case
                plans = self._fast_plans.setdefault(_current_device(), {})
                if len(plans) >= 256:
                    plans.clear()
                plans[shape] = (bound.launch, block, n)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _plan(self, descs, shape):
        roles, ndim, extra = self._layout(descs, shape)
        params = self._input_params(roles)
        params += [(f"{p.ctype} *_out_{p.name}", _POINTER) for p in self.out_params]
        params += [("long long n", _I64)] + self._shape_params(roles, ndim)
        outputs = "\n".join(f"        {p.ctype} &{p.name} = _out_{p.name}[i];" for p in self.out_params)
        source = (f"{self._head()}"
                  f'extern "C" __global__ void {self.name}({", ".join(text for text, _ in params)})\n'
                  f"{{\n"
                  f"    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride()) {{\n"
                  f"{self._loop_body(roles, ndim)}\n{outputs}\n"
                  f"        {self.operation};\n"
                  f"    }}\n}}\n")
        if len(params) > lib.HK_KERNEL_MAX_PARAMS:
            raise ValueError(f"{self.name}: too many broadcast inputs over {ndim} dimensions "
                             f"({len(params)} kernel parameters; at most {lib.HK_KERNEL_MAX_PARAMS})")
        return _Plan(self._raw_kernel(source, self.name, [t for _, t in params]), extra)

    def __repr__(self):
        return f"<hipkit.ElementwiseKernel {self.name}>"
