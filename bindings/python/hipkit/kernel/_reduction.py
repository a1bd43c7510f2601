"""ReductionKernel: a full reduction generated from map, reduce and post-map
C++ expressions, one block for small inputs, else a partial result per block
and one block that combines them, and how many blocks a device takes."""
import math

import numpy as np

from .._ffi import ffi, lib
from ..array import _current_device, ndarray
from ..device import _stream_handle
from ..errors import check
from ._args import _POINTER, _Pointer
from ._template import _I64, _TEMPLATE_TYPES, _Plan, _Template, _check_out, _split_call


_BLOCK = 256  # template block size: a multiple of 32 and of 64
_SINGLE_BLOCK_ITEMS = 8192  # reductions up to this size take one block (32 items a thread)
_MAX_PARTIALS = 1024  # blocks of a larger reduction: enough to fill the GPU
_partials: dict = {}  # device -> the most blocks a larger reduction takes there


def _max_partials(device):
    """_MAX_PARTIALS on a GPU; on the CPU device, whose cores run one block at a time, four blocks a
    core and one (more would only add the cost of their block-wide reductions; an odd count keeps
    the grid-stride loop's stride off powers of two, whose accesses crowd into a few cache sets)."""
    most = _partials.get(device)
    if most is None:
        info = ffi.new("hk_device_info *")
        check(lib.hk_device_get_info(device, info))
        most = _partials[device] = (_MAX_PARTIALS if info.kind == lib.HK_DEVICE_KIND_GPU
                                    else max(1, min(_MAX_PARTIALS, 4 * info.multiprocessor_count + 1)))
    return most


class ReductionKernel(_Template):
    """A reduction from a few lines of C++, as CuPy's:

        l2 = hipkit.ReductionKernel("float32 x", "float32 y", "x * x", "a + b",
                                    "y = sqrt(a)", "0", "l2norm")
        l2(x).get()   # a 0-d array

    map_expr gives each element's value (from the inputs, broadcast together),
    reduce_expr combines two values `a` and `b` (any associative and
    commutative operation: a + b, max(a, b)), post_map_expr writes the output
    from the result `a` (`n` is the number of elements reduced), identity is
    the value of an empty reduction. reduce_type: the type of a and b
    (default: the output's). Reduces over every element (axis=None)."""

    _reserved: tuple[str, ...] = ("i", "n", "a", "b")  # a, b: the values being combined

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name,
                 reduce_type=None, preamble="", options=()):
        super().__init__(in_params, out_params, name, preamble, options)
        if len(self.out_params) != 1 or self.out_params[0].raw:
            raise ValueError(f"{name}: a reduction has exactly one output, not raw")
        if identity is None:
            raise ValueError(f"{name}: identity is required (the value of an empty reduction)")
        if reduce_type is None:
            reduce_type = self.out_params[0].dtype.name
        if reduce_type not in _TEMPLATE_TYPES:
            raise ValueError(f"{name}: reduce_type {reduce_type!r} is not one of {', '.join(_TEMPLATE_TYPES)}")
        self.reduce_ctype, dtype, _ = _TEMPLATE_TYPES[reduce_type]
        self.reduce_dtype = np.dtype(dtype)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = str(identity)

    def __call__(self, *args, out=None, axis=None, stream=None):
        """The reduction of the inputs (broadcast together) into a 0-d array,
        or into `out` (a 0-d hipkit.ndarray of the output's dtype)."""
        if axis is not None:
            raise NotImplementedError(f"{self.name}: only full reductions (axis=None) are supported so far")
        inputs, outs = _split_call(self, args, out)
        key = self._key(inputs, [])
        param, result = self.out_params[0], outs[0]
        if result is None:
            result = ndarray._empty((), param.dtype)
        else:
            _check_out(self, param, result, ())
        n = math.prod(key[1])
        plan = self._plan_for(key)
        single, partial, final = plan.kernel
        if n <= _SINGLE_BLOCK_ITEMS:  # one block does it all: one launch
            single(1, _BLOCK, (*inputs, result, n, *plan.extra), 0, stream)
            return result
        blocks = min((n + _BLOCK - 1) // _BLOCK, _max_partials(_current_device()))
        # One partial result per block, in stream order on `stream`, so the
        # pool cannot hand the buffer out again before `final` has read it.
        handle, box = _stream_handle(stream), ffi.new("void **")
        check(lib.hk_malloc_async(box, blocks * self.reduce_dtype.itemsize, handle))
        try:
            partials = _Pointer(int(ffi.cast("uintptr_t", box[0])))
            partial(blocks, _BLOCK, (*inputs, partials, n, *plan.extra), 0, stream)
            final(1, _BLOCK, (partials, blocks, result, n), 0, stream)
        finally:
            lib.hk_free_async(box[0], handle)
        return result

    def _plan(self, descs, shape):
        roles, ndim, extra = self._layout(descs, shape)
        rt, name, identity = self.reduce_ctype, self.name, f"({self.reduce_ctype})({self.identity})"
        out = self.out_params[0]
        inputs, sizes = self._input_params(roles), [("long long n", _I64)] + self._shape_params(roles, ndim)
        output = [(f"{out.ctype} *_out_{out.name}", _POINTER)]
        single_params = inputs + output + sizes
        partial_params = inputs + [(f"{rt} *_partials", _POINTER)] + sizes
        final_params = [(f"const {rt} *_partials", _POINTER), ("long long _count", _I64)] + output + sizes[:1]
        if len(single_params) > lib.HK_KERNEL_MAX_PARAMS:
            raise ValueError(f"{name}: too many broadcast inputs over {ndim} dimensions")
        signature = lambda params: ", ".join(text for text, _ in params)
        # Each thread reduces its grid-stride share of the elements into _acc.
        accumulate = f"""    __shared__ {rt} _scratch[32];
    {rt} _acc = {identity};
    for (long long i = (long long)hk_global_index(); i < n; i += (long long)hk_grid_stride()) {{
{self._loop_body(roles, ndim)}
        _acc = _hk_reduce_{name}(_acc, ({rt})({self.map_expr}));
    }}
    _acc = _hk_block_reduce_{name}(_acc, _scratch);"""
        finish = f"""    if (threadIdx.x == 0) {{
        const {rt} a = _acc;
        {out.ctype} &{out.name} = _out_{out.name}[0];
        {self.post_map_expr};
    }}"""
        source = f"""{self._head()}
__device__ __forceinline__ {rt} _hk_reduce_{name}({rt} a, {rt} b) {{ return ({self.reduce_expr}); }}

/* Warp, then block: the lane count is the device's (32 or 64), never assumed.
 * The block is a whole number of warps; the result is valid in thread 0. */
__device__ __forceinline__ {rt} _hk_block_reduce_{name}({rt} v, {rt} *scratch)
{{
    for (int d = warpSize / 2; d > 0; d /= 2)
        v = _hk_reduce_{name}(v, hk_shfl_down(v, d));
    const int warps = (int)((blockDim.x + warpSize - 1) / warpSize);
    if (hk_lane() == 0)
        scratch[hk_warp_index()] = v;
    __syncthreads();
    if (hk_warp_index() == 0) {{
        v = hk_lane() < warps ? scratch[hk_lane()] : {identity};
        for (int d = warpSize / 2; d > 0; d /= 2)
            v = _hk_reduce_{name}(v, hk_shfl_down(v, d));
    }}
    return v;
}}

/* Small inputs: one block, one launch. */
extern "C" __global__ void {name}_single({signature(single_params)})
{{
{accumulate}
{finish}
}}

/* Large inputs: a partial result per block, then one block combines them. */
extern "C" __global__ void {name}_partial({signature(partial_params)})
{{
{accumulate}
    if (threadIdx.x == 0)
        _partials[blockIdx.x] = _acc;
}}

extern "C" __global__ void {name}_final({signature(final_params)})
{{
    __shared__ {rt} _scratch[32];
    {rt} _acc = {identity};
    for (long long j = threadIdx.x; j < _count; j += blockDim.x)
        _acc = _hk_reduce_{name}(_acc, _partials[j]);
    _acc = _hk_block_reduce_{name}(_acc, _scratch);
{finish}
}}
"""
        kernels = tuple(self._raw_kernel(source, f"{name}_{part}", [t for _, t in params])
                        for part, params in (("single", single_params), ("partial", partial_params),
                                             ("final", final_params)))
        return _Plan(kernels, extra)

    def __repr__(self):
        return f"<hipkit.ReductionKernel {self.name}>"
