"""PyTorch on the same GPU, for the workloads of `scripts/gpu-check.sh run`:
the device-to-device copy, the 10-op elementwise chain at 2^24 and 2^26
elements (eager: ten kernels; torch.compile: fused by Inductor, with
--compile), f32 matmul at 1024^3 and 4096^3 (TF32 off: plain f32 arithmetic,
like Jeet's kernels), softmax and layer norm at 8192x8192 and 2048x32768
(rows past what a block stages) and a row sum at
4096x4096. Each is timed with CUDA events around the operation, median of
--runs after warm-ups; rates count the bytes each operation must read and
write (as gpu-check does), or 2 m n k flops. Run it on the GPU machine after
gpu-check and read the two tables side by side (docs/GPU.md).

    python3 bench/gpu_peers.py [--runs N] [--compile]
"""
import argparse
import statistics

import torch
import torch.nn.functional as F


def chain10(x, y):
    v = x + y
    v = v * y
    v = torch.exp(v)
    v = -v
    v = v - y
    v = torch.tanh(v)
    v = v * y
    v = torch.relu(v)
    v = v + y
    return torch.sigmoid(v)


def timed(fn, runs):
    """Median milliseconds of fn() over `runs` executions, CUDA events."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--compile", action="store_true",
                        help="also the chains through torch.compile")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("gpu_peers: PyTorch sees no CUDA GPU")
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(0)

    def rand(*shape):
        return torch.randn(*shape, device=dev, generator=gen)

    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}, "
          f"median of {args.runs} runs (CUDA events)", flush=True)

    def row(name, ms, nbytes=0, flops=0):
        rate = (f"{flops / ms / 1e9:.1f} TFLOP/s" if flops
                else f"{nbytes / ms / 1e6:.1f} GB/s")
        # Printed as measured: a run cut short keeps its rows.
        print(f"{name:<40} {ms:>10.3f} ms {rate:>16}", flush=True)

    for log2 in (24, 26):
        n = 1 << log2
        side = 1 << (log2 // 2)
        x, y = rand(side, side), rand(side, side)
        moved = 3 * 4 * n
        src = torch.empty(moved // 2, dtype=torch.uint8, device=dev)
        dst = torch.empty_like(src)
        row(f"copy ({moved / 2**20:.0f} MiB moved)",
            timed(lambda: dst.copy_(src), args.runs), nbytes=moved)
        row(f"chain10 2^{log2}, eager (10 kernels)",
            timed(lambda: chain10(x, y), args.runs), nbytes=moved)
        if args.compile:
            fused = torch.compile(chain10)
            row(f"chain10 2^{log2}, torch.compile",
                timed(lambda: fused(x, y), args.runs), nbytes=moved)
        del x, y, src, dst
    for k in (1024, 4096):
        a, b = rand(k, k), rand(k, k)
        row(f"matmul {k}^3 f32 (cuBLAS, TF32 off)",
            timed(lambda: a @ b, args.runs), flops=2 * k ** 3)
    # Rows a block stages in shared memory, and rows past that (2048x32768).
    for rows, cols in ((8192, 8192), (2048, 32768)):
        s = rand(rows, cols)
        g, b = rand(cols), rand(cols)
        row(f"softmax {rows}x{cols}",
            timed(lambda: torch.softmax(s, 1), args.runs),
            nbytes=2 * 4 * s.numel())
        row(f"layernorm {rows}x{cols}",
            timed(lambda: F.layer_norm(s, (cols,), g, b), args.runs),
            nbytes=2 * 4 * s.numel())
        del s, g, b
    r = rand(4096, 4096)
    row("reduce_sum 4096x4096", timed(lambda: r.sum(1), args.runs),
        nbytes=4 * r.numel() + 4 * 4096)


if __name__ == "__main__":
    main()
