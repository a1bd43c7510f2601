"""Generate the C source of hipkit's private cffi module (hipkit._ffi).

Usage: build_ffi.py HEADER OUTPUT_C [C_COMPILER]

The cdef is hipkit.h itself, run through the C preprocessor, so the binding
cannot drift from the header. The module is built in API mode: the generated
C includes the real header, so any mismatch between the two is a compile
error, not a crash at run time.
"""
import re
import subprocess
import sys

import cffi


def cdef_from_header(header, compiler="cc"):
    text = open(header).read()
    # System headers (stddef.h, stdint.h) are full of GNU extensions that
    # pycparser cannot parse; cffi knows size_t and the stdint types already.
    without_includes = re.sub(r"^\s*#\s*include\s*<[^>]*>.*$", "", text, flags=re.M)
    declarations = subprocess.run(
        [compiler, "-DHIPKIT_CDEF", "-E", "-P", "-x", "c", "-"],
        input=without_includes, capture_output=True, text=True, check=True,
    ).stdout
    # The preprocessor drops #defines; bring back the numeric HK_* constants
    # as "...", which makes the C compiler fill in (and check) their values.
    constants = re.findall(r"^\s*#\s*define\s+(HK_\w+)\s+\(?-?\d+\)?\s*$", text, flags=re.M)
    return declarations + "".join(f"#define {name} ...\n" for name in constants)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    header, output = argv[1], argv[2]
    compiler = argv[3] if len(argv) == 4 else "cc"
    ffi = cffi.FFI()
    ffi.cdef(cdef_from_header(header, compiler))
    ffi.set_source("hipkit._ffi", '#include "hipkit/hipkit.h"')
    ffi.emit_c_code(output)


if __name__ == "__main__":
    main(sys.argv)
