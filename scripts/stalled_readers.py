"""Clients that never read a large answer: the service's memory while eight of them wait.

Usage: python3 scripts/stalled_readers.py [FUNCTIONS] (default 40 000: a 242 MB SVG), with a
release build in target/release. Prints the service's VmHWM and VmRSS after one render read
whole, after eight stalled readers, and the time a small render takes meanwhile.
"""
import gzip, json, os, socket, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
lines = ["import pypto.language as pl", "", "@pl.program", "class p:"]
for f in range(N):
    lines.append("    @pl.function(type=pl.FunctionType.AIV)")
    lines.append(f"    def f{f}(self, x):")
    for i in range(4):
        lines.append(f"        t{i}: pl.Tile[[4, 4], pl.FP32, pl.MemRef(mem_vec_{i}, {i*64}, 64), pl.Mem.Vec] = pl.tile.load(x)")
    lines.append("        return t0")
dump = ("\n".join(lines) + "\n").encode()
gz = gzip.compress(dump)
print(f"dump {len(dump)} B, gzipped {len(gz)} B")
data = tempfile.mkdtemp(prefix="pmm-stalled-")
binary = os.path.join(ROOT, "target", "release", "pto-memory-map")
srv = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1:0", "--data-dir", data,
                        "--max-answer-bytes", "4000000000"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
addr = srv.stdout.readline().decode().split("http://")[1].strip()
host, port = addr.split(":")
def hwm():
    for l in open(f"/proc/{srv.pid}/status"):
        if l.startswith("VmHWM") or l.startswith("VmRSS"):
            print("  ", l.strip())
req = urllib.request.Request(f"http://{addr}/maps", data=gz, headers={"Content-Type": "application/gzip"})
mid = json.load(urllib.request.urlopen(req))["id"]
t = time.time(); size = len(urllib.request.urlopen(f"http://{addr}/maps/{mid}.svg").read()); print(f"whole svg {size} B in {time.time()-t:.1f} s"); hwm()
stalled = []
for n in range(8):
    c = socket.create_connection((host, int(port)))
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.sendall(f"GET /maps/{mid}.svg HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    stalled.append(c)
    t = time.time()
    while True:
        m = urllib.request.urlopen(f"http://{addr}/metrics").read().decode()
        held = float([l for l in m.splitlines() if l.startswith("pto_answer_bytes_held ")][0].split()[1])
        if held >= (n + 1) * size or time.time() - t > 60: break
        time.sleep(0.2)
    print(f"stalled {n+1}: held {held/1e6:.0f} MB after {time.time()-t:.1f} s")
hwm()
t = time.time()
small = open(os.path.join(ROOT, "tests/fixtures/fx_a2a3_case/passes_dump/35_after_AllocateMemoryAddr.py"), "rb").read()
r = urllib.request.urlopen(urllib.request.Request(f"http://{addr}/render?format=json", data=small, headers={"Content-Type": "text/plain"}))
print(f"small render {r.status} in {time.time()-t:.2f} s")
hwm()
for c in stalled: c.close()
srv.terminate(); srv.wait()
subprocess.run(["rm", "-rf", data])
