"""The fuzzers' watchdog: a program that does not end is a finding too (graph
builder seed 15,566,392 once stalled a run silently in LLVM's loop
vectorizer)."""
import os
import threading


def watch(seed, seconds, replay):
    """A started timer that, unless cancelled within `seconds`, reports
    program `seed` as a finding (a compile or run that does not end), prints
    `replay` (the command that runs it alone) and ends the process with
    status 3. Compiling and running release the GIL, so the timer fires
    while the program is inside them."""
    def stalled():
        print(f"FINDING in program seed {seed}: still running after "
              f"{seconds:g} s (a compile or run that does not end)")
        print(replay, flush=True)
        os._exit(3)

    timer = threading.Timer(seconds, stalled)
    timer.daemon = True
    timer.start()
    return timer
