# hipkit._ffi is the cffi module built from include/hipkit/hipkit.h: ffi and lib, typed Any here.
from typing import Any

ffi: Any
lib: Any
