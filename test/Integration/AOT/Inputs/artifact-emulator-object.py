"""Finds the ELF shared objects a GPU artifact for the emulation target
embeds (its kernels, compiled for the host), prints how many there are and
writes the first one to the path given."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
objects = []
# The artifact is itself an ELF file: embedded objects start after offset 0.
start = data.find(b"\x7fELF", 1)
while start != -1:
    # ELF64: the section header table ends the file.
    shoff, = struct.unpack_from("<Q", data, start + 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, start + 0x3A)
    end = start + shoff + shentsize * shnum
    objects.append(data[start:end])
    start = data.find(b"\x7fELF", end)
print(f"embedded objects={len(objects)}")
if objects:
    open(sys.argv[2], "wb").write(objects[0])
