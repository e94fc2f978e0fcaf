"""timed.py OUT CMD...: runs CMD (its output where the caller sends it)
and writes "WALL_SECONDS CPU_SECONDS MAXRSS_KIB" to OUT: CPU (user +
system) and peak RSS over CMD and the children it waited for.  Exits
with CMD's status.  Used by tests/bench/send.sh and ingest.sh."""
import resource, subprocess, sys, time

t0 = time.monotonic()
rc = subprocess.run(sys.argv[2:]).returncode
wall = time.monotonic() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("%.4f %.4f %d\n" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
sys.exit(rc)
