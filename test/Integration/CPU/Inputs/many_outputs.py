"""Prints a graph @many of N (argv[1]) independent outputs, output i being
(a op_i (i + 0.5)) * b on 16 f32 elements: N small kernels, one long entry
block before optimisation. With a second argument "matmul", the graph also
takes x (64x256) and w (256x64) and returns x @ w last: one kernel of its
own, much smaller than the entry before optimisation."""
import sys

n = int(sys.argv[1])
matmul = sys.argv[2:] == ["matmul"]
ty = "tensor<16xf32>"
ops = ["add", "mul", "sub", "max"]
args = [f"%a: {ty}", f"%b: {ty}"]
results = [ty] * n
if matmul:
    args += ["%x: tensor<64x256xf32>", "%w: tensor<256x64xf32>"]
    results.append("tensor<64x64xf32>")
print(f"func.func @many({', '.join(args)}) -> ({', '.join(results)}) {{")
for i in range(n):
    print(f"  %c{i} = jeet.constant dense<{i}.5> : {ty}")
    print(f"  %t{i} = jeet.{ops[i % 4]} %a, %c{i} : {ty}, {ty} -> {ty}")
    print(f"  %r{i} = jeet.mul %t{i}, %b : {ty}, {ty} -> {ty}")
values = [f"%r{i}" for i in range(n)]
if matmul:
    print("  %m = jeet.matmul %x, %w : tensor<64x256xf32>, tensor<256x64xf32>"
          " -> tensor<64x64xf32>")
    values.append("%m")
print(f"  return {', '.join(values)} : {', '.join(results)}")
print("}")
