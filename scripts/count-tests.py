#!/usr/bin/env python3
"""Sums JUnit XML reports (lit, ctest, pytest) into one line:
"N passed, N failed, N skipped"."""
import sys
import xml.etree.ElementTree as ET


def count(path):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("status") in (
                "notrun", "disabled"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(paths):
    total = [0, 0, 0]
    for path in paths:
        try:
            p, f, s = count(path)
        except (OSError, ET.ParseError) as e:
            print(f"count-tests: cannot read {path}: {e}", file=sys.stderr)
            total[1] += 1
            continue
        name = path.rsplit("/", 1)[-1].removesuffix(".xml")
        print(f"  {name}: {p} passed, {f} failed, {s} skipped")
        total = [total[0] + p, total[1] + f, total[2] + s]
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
