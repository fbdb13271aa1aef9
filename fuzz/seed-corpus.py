#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the project's tests.

  seed-corpus.py SOURCE_ROOT OUT_DIR

OUT_DIR/mlir         each `// -----` split of each .mlir lit test and example,
                     comment lines removed (they carry RUN and CHECK lines)
OUT_DIR/tensor-text  the inline `--input=` literals of the lit tests, and
                     literals of every dtype and edge shape
OUT_DIR/npy          .npy files of every dtype the reader takes, ranks 0-3,
                     0-sized dims, header versions 1.0/2.0/3.0, and the kinds
                     it rejects (big-endian, Fortran order, float64)
"""
import os
import pathlib
import re
import shutil
import sys


def write(directory, name, data):
    path = directory / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def mlir_seeds(root, out):
    sources = sorted((root / "test").rglob("*.mlir")) + sorted(
        (root / "examples").glob("*.mlir"))
    count = 0
    for source in sources:
        text = source.read_text(errors="replace")
        stem = str(source.relative_to(root)).replace("/", "-")[:-len(".mlir")]
        for i, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            lines = [l for l in chunk.splitlines()
                     if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                write(out, f"{stem}-{i}.mlir", body + "\n")
                count += 1
    return count


LITERALS = [
    "f32=5", "f32=nan", "f16=-0", "bf16=1e30", "i32=-2147483648", "i64=7",
    "i1=true", "0xf32=", "3x0x2xf32=", "1xf32=[1]", "2x3xf32=1,2,3,4,5,6",
    "2x2xf16=[[1 2][3 4]]", "2xbf16=0.5,-inf", "4xi32=0 -1 2147483647 5",
    "2xi64=-9223372036854775808,9223372036854775807", "3xi1=1,0,True",
    "1x1x1x1xf32=3.5",
]


def text_seeds(root, out):
    seen = set(LITERALS)
    pattern = re.compile(r"--input=(\"[^\"]*\"|'[^']*'|\S+)")
    for source in sorted((root / "test").rglob("*")):
        if source.suffix not in (".mlir", ".test") or not source.is_file():
            continue
        for match in pattern.finditer(source.read_text(errors="replace")):
            literal = match.group(1).strip("'\"")
            if not literal.startswith("@") and "%" not in literal:
                seen.add(literal)
    for i, literal in enumerate(sorted(seen)):
        write(out, f"literal-{i}.txt", literal)
    return len(seen)


def npy_seeds(root, out):
    try:
        import numpy as np
        from numpy.lib import format as npformat
    except ImportError:
        print("seed-corpus.py: numpy is missing, no .npy seeds", file=sys.stderr)
        return 0
    import io
    rng = np.random.default_rng(0)
    count = 0

    def save(name, array, version=None, fortran=False):
        nonlocal count
        buffer = io.BytesIO()
        if fortran:
            array = np.asfortranarray(array)
        npformat.write_array(buffer, array, version=version)
        write(out, name, buffer.getvalue())
        count += 1

    shapes = [(), (0,), (3,), (2, 3), (1, 0, 2), (2, 1, 3)]
    for dtype in ["<f4", "<f2", "<i4", "<i8", "|b1"]:
        for shape in shapes:
            values = rng.standard_normal(shape) * 3
            array = (values > 0) if dtype == "|b1" else values.astype(dtype)
            tag = dtype.strip("<|") + "-" + ("x".join(map(str, shape)) or "scalar")
            save(f"{tag}.npy", array)
    save("f4-v2.npy", np.arange(6, dtype="<f4").reshape(2, 3), version=(2, 0))
    save("f4-v3.npy", np.arange(4, dtype="<f4"), version=(3, 0))
    save("f4-fortran.npy", np.arange(6, dtype="<f4").reshape(2, 3), fortran=True)
    save("f4-big-endian.npy", np.arange(3, dtype=">f4"))
    save("f8.npy", np.arange(3, dtype="<f8"))
    for source in sorted((root / "test").rglob("*.npy")):
        shutil.copy(source, out / ("test-" + source.name))
        count += 1
    return count


def main():
    root = pathlib.Path(sys.argv[1])
    out = pathlib.Path(sys.argv[2])
    for name, fill in (("mlir", mlir_seeds), ("tensor-text", text_seeds),
                       ("npy", npy_seeds)):
        directory = out / name
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        fill(root, directory)
    (out / "stamp").write_text("")


if __name__ == "__main__":
    main()
