"""f32 values for bf16-conversion.mlir, and the check of what an artifact
rounded them to: `write X.npy` saves the values (every kind: subnormals of
both signs, the largest subnormal, signed zeros, ties, a carry into the next
binade and to infinity, NaNs with payloads, random bits of every exponent);
`check OUT.npy` compares the f32 results bit for bit with round to nearest
even on the bits (NaNs: quiet, sign and high payload kept)."""
import sys

import numpy as np

SPECIAL = [0x00000000, 0x80000000, 0x00400000, 0x80400000, 0x00000001,
           0x80000001, 0x0000FFFF, 0x00008000, 0x00018000, 0x007FFFFF,
           0x807FFFFF, 0x007F8000, 0x00800000, 0x3F808000, 0x3F818000,
           0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F7FFF, 0x7F800000, 0xFF800000,
           0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF810001, 0x7FFFFFFF,
           0xFFFFFFFF, 0x7FA5A5A5]


def values():
    rng = np.random.default_rng(20261205)
    subnormal = rng.integers(1, 2**23, size=1024, dtype=np.uint64)
    bits = rng.integers(0, 2**32, size=4096, dtype=np.uint64)
    u = np.concatenate([np.array(SPECIAL, np.uint64), subnormal,
                        subnormal | 0x80000000, bits]).astype(np.uint32)
    return u


def main():
    mode, path = sys.argv[1], sys.argv[2]
    u = values()
    if mode == "write":
        np.save(path, u.view(np.float32))
        return 0
    got = np.load(path).view(np.uint32)
    wide = u.astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    rounded = ((wide + 0x7FFF + ((wide >> 16) & 1)) >> 16 << 16)
    quiet = (wide >> 16 | 0x40) << 16
    expected = np.where(nan, quiet, rounded).astype(np.uint32)
    wrong = np.flatnonzero(got != expected)
    for i in wrong[:8]:
        print(f"wrong: {u[i]:#010x} -> {got[i]:#010x}, expected "
              f"{expected[i]:#010x}")
    print(f"{u.size - wrong.size} of {u.size} rounded as expected")
    return 1 if wrong.size else 0


if __name__ == "__main__":
    sys.exit(main())
