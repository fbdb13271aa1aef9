"""What the frontends' tests print at the end of the run: the ONNX node
tests' counts and how each example model went. test/python/conftest.py's
pytest_terminal_summary calls write() when a frontends test imported this
module (a second conftest.py here would take the place of that one's module
`conftest`, which the other tests import from)."""

import sys


def write(terminalreporter):
    _conformance_summary(terminalreporter)
    _models_summary(terminalreporter)


def _models_summary(terminalreporter):
    """How each example model went through each frontend: matched eager, or
    unsupported by this build with the ops it lacks."""
    module = sys.modules.get("test_models")
    report = getattr(module, "Report", None)
    if report is None or not report.lines:
        return
    terminalreporter.section("Example models through the frontends")
    for (name, frontend), text in sorted(report.lines.items()):
        terminalreporter.write_line(f"{name:12s} {frontend:14s} {text}")


def _conformance_summary(terminalreporter):
    module = sys.modules.get("onnx_node_cases")
    if module is None or not module.Stats.collected:
        return
    stats = module.Stats
    if not stats.passed and not stats.failed:
        return  # collected but none run (deselected)
    out = sum(stats.out_of_scope.values())
    write = terminalreporter.write_line
    terminalreporter.section("ONNX backend node tests")
    write(f"{stats.total} cases in onnx's node tests; {stats.in_scope} of "
          f"ops Jeet claims: {stats.passed} passed, {len(stats.failed)} failed"
          + (f" ({', '.join(stats.failed[:10])}{', ...' if len(stats.failed) > 10 else ''})"
             if stats.failed else ""))
    write(f"{out} unsupported:")
    for reason, count in stats.out_of_scope.most_common():
        write(f"  {count:5d}  {reason}")
    if stats.unclaimed:
        write(f"  ops not claimed ({len(stats.unclaimed)}): "
              + " ".join(sorted(stats.unclaimed)))
