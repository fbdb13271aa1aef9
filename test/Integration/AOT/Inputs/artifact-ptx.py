"""Reads a GPU artifact's bytes: prints its signature and how many PTX
`.entry` kernels it embeds, or (with --ptx) the PTX text itself."""
import re
import sys

data = open(sys.argv[1], "rb").read()
ptx = []
start = data.find(b".version")
while start != -1:
    end = data.find(b"\0", start)
    ptx.append(data[start:end].decode())
    start = data.find(b".version", end)
if "--ptx" in sys.argv:
    print("\n".join(ptx))
else:
    sig = re.search(rb"v[0-9]+ entry=[^\0]*", data).group(0).decode()
    entries = sum(len(re.findall(r"^\s*\.visible \.entry ", p, re.M)) for p in ptx)
    print(f"{sig}\nptx modules={len(ptx)} entries={entries}")
