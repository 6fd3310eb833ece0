"""Start-up of `scalpel serve`: spawn -> the answer to `initialize` read,
median of N runs, next to `scalpel --version` (the process floor).

    python3 benches/startup.py target/release/scalpel 30
"""
import subprocess, sys, time, json, statistics, os, tempfile
binary = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
root = tempfile.mkdtemp()
init = json.dumps({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}) + "\n"
ts = []
for _ in range(n):
    t = time.perf_counter()
    p = subprocess.Popen([binary, "serve", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write(init.encode()); p.stdin.flush()
    line = p.stdout.readline()
    ts.append((time.perf_counter() - t) * 1000)
    p.stdin.close(); p.wait()
v = []
for _ in range(n):
    t = time.perf_counter(); subprocess.run([binary, "--version"], capture_output=True); v.append((time.perf_counter() - t) * 1000)
print(f"initialize answered: median {statistics.median(ts):.1f} ms (min {min(ts):.1f}); --version median {statistics.median(v):.1f} ms")
