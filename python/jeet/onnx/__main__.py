"""jeet-import-onnx: an ONNX model to the jeet graph it imports as (MLIR).

    jeet-import-onnx model.onnx -o model.mlir
    python -m jeet.onnx model.onnx -o model.mlir --input-shape x=1,3,32,32

The graph is `func.func @main` taking the model's inputs in order; with
--initializers=argument the initializers are trailing arguments too, written
as .npy files (for jeet-run --input=@file.npy) into --weights-dir.
"""

import argparse
import os
import sys

import numpy as np


def _dims(text, flag):
    name, sep, values = text.partition("=")
    if not sep or not name:
        raise SystemExit(f"jeet-import-onnx: error: {flag} wants NAME=V,V,..., got {text!r}")
    try:
        return name, [int(v) for v in values.split(",") if v.strip()]
    except ValueError:
        raise SystemExit(f"jeet-import-onnx: error: {flag} {text!r}: values must be integers") from None


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="jeet-import-onnx",
        description="Import an ONNX model (opsets 13-21) into the jeet dialect "
                    "and write it as MLIR.")
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("-o", "--output", default="-",
                        help="the .mlir file to write (default: standard output)")
    parser.add_argument("--input-shape", action="append", default=[],
                        metavar="NAME=D,D,...",
                        help="the static shape of an input with dynamic dimensions")
    parser.add_argument("--static-input", action="append", default=[],
                        metavar="NAME=V,V,...",
                        help="the value of an input that decides a shape (a 1-D integer list)")
    parser.add_argument("--initializers", choices=("constant", "argument"),
                        default="constant",
                        help="embed initializers as jeet.constant (default) or "
                             "make them trailing arguments of @main")
    parser.add_argument("--weights-dir", default=None,
                        help="with --initializers=argument: where to write the "
                             "arguments' values (argN.npy, in order)")
    parser.add_argument("--cast-float64", action="store_true",
                        help="compute float64 in float32 (else float64 is an error)")
    args = parser.parse_args(argv)
    if args.initializers == "argument" and not args.weights_dir:
        parser.error("--initializers=argument needs --weights-dir")

    import jeet.onnx
    from jeet.errors import JeetError
    try:
        text, weights = jeet.onnx.import_model(
            args.model,
            input_shapes=dict(_dims(s, "--input-shape") for s in args.input_shape),
            static_inputs={n: np.asarray(v, np.int64) for n, v in
                           (_dims(s, "--static-input") for s in args.static_input)},
            initializers=args.initializers, cast_float64=args.cast_float64)
    except (JeetError, ImportError) as error:
        print(f"jeet-import-onnx: error: {error}", file=sys.stderr)
        return 1
    if args.weights_dir:
        os.makedirs(args.weights_dir, exist_ok=True)
        for i, w in enumerate(weights):
            np.save(os.path.join(args.weights_dir, f"arg{i}.npy"), w)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
