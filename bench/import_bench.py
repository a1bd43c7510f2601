"""import_bench.py: what a new process pays before its first result: start the interpreter, import the
library, make a 1000-element float32 device array from NumPy data and read its sum back; for hipkit,
CuPy and PyTorch, and the C program bench/first_array (context, allocation, copy, kernel, copy back),
each in fresh processes, in one run.

    python3 bench/import_bench.py [BUILD_DIR]

Prints the median wall time of 7 fresh processes each (after one untimed run, which warms the page
cache and the kernel cache), and hipkit / the C program. Also `python -c pass` and `import numpy`,
which every Python library pays. Benchmarks are not tests: nothing here asserts a time.
"""
import os
import statistics
import subprocess
import sys
import time

RUNS = 7

PROGRAMS = {
    "python -c pass": "pass",
    "import numpy": "import numpy",
    "hipkit": "import numpy as np, hipkit\n"
              "x = hipkit.asarray(np.ones(1000, np.float32))\n"
              "assert float(x.sum()) == 1000.0",
    "cupy": "import numpy as np, cupy as cp\n"
            "x = cp.asarray(np.ones(1000, np.float32))\n"
            "assert float(x.sum()) == 1000.0",
    "torch": "import numpy as np, torch\n"
             "x = torch.as_tensor(np.ones(1000, np.float32), device='cuda')\n"
             "assert float(x.sum()) == 1000.0",
}


def wall_ms(command, env):
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = (time.perf_counter() - start) * 1e3
    if done.returncode != 0:
        return None, (done.stderr.strip().splitlines() or ["exit status %d" % done.returncode])[-1]
    return elapsed, None


def median_ms(command, env):
    first, why = wall_ms(command, env)
    if first is None:
        return None, why
    times = []
    for _ in range(RUNS):
        ms, why = wall_ms(command, env)
        if ms is None:
            return None, why
        times.append(ms)
    return statistics.median(times), None


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HIPKIT_BUILD_DIR", "build")
    env = dict(os.environ)
    rows = []
    c_program = os.path.join(build, "bench", "first_array")
    if os.path.exists(c_program):
        rows.append(("C program (bench/first_array)", *median_ms([c_program], env)))
    else:
        rows.append(("C program (bench/first_array)", None, f"{c_program} not built (NVIDIA, HIPKIT_BUILD_BENCH=ON)"))
    for name, code in PROGRAMS.items():
        rows.append((name, *median_ms([sys.executable, "-c", code], env)))
    c_ms = rows[0][1]
    print(f"new process to a first sum read back, median of {RUNS} fresh processes (ms)")
    for name, ms, why in rows:
        if ms is None:
            print(f"{name:32s} not measured: {why}")
            continue
        ratio = f"   {ms / c_ms:5.2f} x the C program" if c_ms and name != rows[0][0] else ""
        print(f"{name:32s} {ms:9.1f}{ratio}")


if __name__ == "__main__":
    main()
