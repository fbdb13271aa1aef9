"""Checks that no lit test passes with its checks skipped for want of a GPU.

Lines guarded by `%if cuda-driver %{ ... %}` run only where a real CUDA
driver answers; elsewhere lit skips them and the file can still report PASS.
So every FileCheck prefix that a guarded line checks must also be checked by
a line that runs everywhere (on the GPU emulator, say), unless the whole file
is hardware-only (`REQUIRES: cuda-driver`, reported UNSUPPORTED elsewhere).
A guarded line that checks nothing with FileCheck is reported too: what it
runs is skipped everywhere else.

Usage: check_gpu_guards.py DIR...   (exit status 1 and one line per problem;
files under Inputs/ folders of DIR are not tests and are not read)
"""
import pathlib
import re
import sys

SUFFIXES = {".mlir", ".test"}
GUARD = re.compile(r"%if\s+cuda-driver\s+%\{")
RUN = re.compile(r"RUN:(.*)$")
PREFIX_FLAG = re.compile(r"-?-check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)")


def run_lines(text):
    """The RUN commands of a lit file, continuation lines joined."""
    commands, current = [], ""
    for line in text.splitlines():
        match = RUN.search(line)
        if not match:
            continue
        part = match.group(1).rstrip()
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        commands.append((current + part).strip())
        current = ""
    return commands


def checked_prefixes(command):
    """The prefixes of each FileCheck in `command` (CHECK by default)."""
    prefixes = set()
    for call in command.split("FileCheck")[1:]:
        # The call's own arguments: up to the next pipe or the guard's end.
        args = re.split(r"\||%\}", call, maxsplit=1)[0]
        flags = PREFIX_FLAG.findall(args)
        if not flags:
            prefixes.add("CHECK")
        for flag in flags:
            prefixes.update(p for p in flag.split(",") if p)
    return prefixes


def problems(path):
    text = path.read_text(errors="replace")
    requires = " ".join(re.findall(r"REQUIRES:(.*)$", text, re.MULTILINE))
    if re.search(r"\bcuda-driver\b", requires):
        return []
    everywhere, guarded = set(), []
    for command in run_lines(text):
        if GUARD.search(command):
            guarded.append(command)
        else:
            everywhere |= checked_prefixes(command)
    found = []
    for command in guarded:
        prefixes = checked_prefixes(command)
        if not prefixes:
            found.append(f"{path}: a line guarded by '%if cuda-driver' checks "
                         f"nothing with FileCheck: {command}")
        for prefix in sorted(prefixes - everywhere):
            found.append(f"{path}: {prefix} is checked only under "
                         f"'%if cuda-driver', so without a GPU the file "
                         f"passes with those checks skipped (check it on "
                         f"the emulator too, or REQUIRES: cuda-driver)")
    return found


def main(dirs):
    found = []
    for d in dirs:
        root = pathlib.Path(d)
        for path in sorted(root.rglob("*")):
            # lit does not run what lies under Inputs/ (config.excludes).
            if "Inputs" in path.relative_to(root).parts:
                continue
            if path.suffix in SUFFIXES and path.is_file():
                found += problems(path)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
