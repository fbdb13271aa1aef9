"""Runs a command as a process for whose pid an empty libomp record (the
POSIX shared memory object /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid>) exists,
as a dead process with the same pid leaves it, then removes any record of
that pid left behind and exits with the command's status (reporting one left
behind as a failure)."""

import os
import subprocess
import sys


def record(pid):
    return f"/dev/shm/__KMP_REGISTERED_LIB_{pid}_{os.getuid()}"


def plant():
    # Runs in the child between fork and exec: the pid is the command's.
    open(record(os.getpid()), "wb").close()


proc = subprocess.Popen(sys.argv[1:], preexec_fn=plant)
status = proc.wait()
leftover = os.path.exists(record(proc.pid))
if leftover:
    os.unlink(record(proc.pid))
if status != 0:
    sys.exit(f"{sys.argv[1]} failed ({status})")
if leftover:
    sys.exit(f"{sys.argv[1]} left {record(proc.pid)}")
