"""Checks that every place Jeet states its version agrees with the VERSION
file: the generated C/C++ header, the CMake package's version file, the
compiler library (jeet_version()), the Python package (jeet.__version__) and
the version source pyproject.toml names. Prints the version; exits 1 on a
disagreement, naming it."""

import ctypes
import os
import re
import sys


def main(src_root, obj_root):
    expected = open(os.path.join(src_root, "VERSION")).read().strip()
    found = {}

    header = open(os.path.join(obj_root, "include/jeet/Version.h")).read()
    macros = dict(re.findall(r"#define JEET_VERSION_(\w+) (\S+)", header))
    found["jeet/Version.h JEET_VERSION_STRING"] = macros["STRING"].strip('"')
    found["jeet/Version.h MAJOR.MINOR.PATCH"] = ".".join(
        macros[part] for part in ("MAJOR", "MINOR", "PATCH"))

    config = open(os.path.join(
        obj_root, "lib/cmake/Jeet/JeetConfigVersion.cmake")).read()
    found["JeetConfigVersion.cmake"] = re.search(
        r'set\(PACKAGE_VERSION "([^"]+)"\)', config).group(1)

    library = ctypes.CDLL(os.path.join(obj_root, "lib/libjeet_compiler.so"))
    library.jeet_version.restype = ctypes.c_char_p
    found["jeet_version()"] = library.jeet_version().decode()

    sys.path.insert(0, os.path.join(obj_root, "python"))
    import jeet
    found["jeet.__version__"] = jeet.__version__

    # pyproject.toml takes its version from the VERSION file (regex provider).
    pyproject = open(os.path.join(src_root, "python/pyproject.toml")).read()
    source = re.search(r'^input = "([^"]+)"', pyproject, re.M).group(1)
    path = os.path.normpath(os.path.join(src_root, "python", source))
    found["pyproject.toml version input"] = open(path).read().strip()

    wrong = {k: v for k, v in found.items() if v != expected}
    for name, value in wrong.items():
        print(f"{name} says {value}, VERSION says {expected}")
    if wrong:
        return 1
    print(f"all agree: {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
