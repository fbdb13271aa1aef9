"""The fuzzers' watchdog: a program that does not end is a finding too (graph
builder seed 15,566,392 once stalled a run silently in LLVM's loop
vectorizer)."""
import os
import threading
import time

# A sleep of at most a second that ends later than this past its time is
# taken as the process stopped (a loaded machine delays a thread by less).
PAUSE_SLACK = 2.0


class Watchdog:
    """One thread for the whole run that, when the program between start()
    and stop() is still running `seconds` after start(), reports it as a
    finding (a compile or run that does not end), prints its replay command
    and ends the process with status 3. Compiling and running release the
    GIL, so the thread wakes while the program is inside them. start() and
    stop() only set an attribute: programs that are only built take about a
    millisecond, and a timer thread each cost a third of that."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.current = None  # (deadline, seed, replay) of the running program
        # Seconds the process spent stopped (SIGSTOP, a suspended machine):
        # deadlines are on a clock that leaves them out, so that a fuzzer
        # paused for a benchmark does not report the program it was in.
        # Written by the watchdog's thread only.
        self.paused = 0.0
        threading.Thread(target=self._watch, daemon=True).start()

    def _clock(self):
        return time.monotonic() - self.paused

    def start(self, seed, replay):
        self.current = (self._clock() + self.seconds, seed, replay)

    def stop(self):
        self.current = None

    def _watch(self):
        while True:
            current = self.current
            remaining = (current[0] - self._clock() if current
                         else self.seconds)
            if current and remaining <= 0 and self.current is current:
                _, seed, replay = current
                print(f"FINDING in program seed {seed}: still running after "
                      f"{self.seconds:g} s (a compile or run that does not "
                      "end)")
                print(replay, flush=True)
                os._exit(3)
            nap = min(max(remaining, 0.001), 1.0)
            before = time.monotonic()
            time.sleep(nap)
            # A sleep that overran by seconds: the process was not running.
            overrun = time.monotonic() - before - nap
            if overrun > PAUSE_SLACK:
                self.paused += overrun

