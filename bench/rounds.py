"""Interleaved measurement of one cell of the suite: every program of one
data set, format and test runs as a server (`PROG ... --once OUT --serve`,
bench/harness/main.c), pinned to one core, and the programs take turns in
rounds — A B C ..., then again in a new shuffled order — so that a slow
period of the shared machine hits all of them alike. Each turn is one
`time N H` command: N iterations of the test (about --round-ms) and H of the
hashing alone, after one untimed iteration that brings the program's code
and data back into the caches.

Each program runs as several processes (instances), used in turn from round
to round: a process's memory layout (where ASLR put its stack, heap and
mappings, whether its buffers landed on huge pages) can make it a few
percent faster or slower for its whole life, and a new run gets new
layouts; the median over rounds then spans several layouts instead of
inheriting one.
"""
import json
import os
import random
import select
import subprocess
import time

import stats


# glibc malloc's thresholds, fixed for every program (C, C++ and Rust all
# use it). Left alone, glibc adapts them as a program runs: a large buffer
# is first mmap'ed, and page-faulted anew in every iteration, until a free()
# raises the mmap threshold; trimming the heap can bring the faults back.
# On canada a program then flips between two speeds 40 % apart from turn to
# turn, which no interleaving cancels. Fixed thresholds give every library
# the steady state of a long-running program: large buffers come from the
# heap and stay mapped.
MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=536870912"


# Programs slower than this per iteration get no untimed warm-up iteration
# before their turns.
WARM_LIMIT_NS = 2e6


class Server:
    """One benchmark program in --serve mode."""

    def __init__(self, prog, argv, stderr_path):
        self.prog = prog
        self.stderr_path = stderr_path
        self._buf = b""
        with open(stderr_path, "wb") as err:
            env = dict(os.environ, RUST_BACKTRACE="0")
            env.setdefault("GLIBC_TUNABLES", MALLOC_TUNABLES)
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         bufsize=0, env=env)

    def readline(self, timeout):
        """The next line of output, or None on timeout or end of output."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def command(self, text, timeout):
        try:
            self.proc.stdin.write((text + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return None
        return self.readline(timeout)

    def stderr_tail(self, n=300):
        """What the program said on stderr: from a Rust panic's message on,
        else the end."""
        try:
            with open(self.stderr_path, "rb") as f:
                text = f.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        at = text.find("panicked at")
        if at >= 0:
            return " ".join(text[at:].split("stack backtrace:")[0].split())[:n]
        return text[-n:]

    def pin(self, cpu):
        if cpu is None:
            return
        try:
            os.sched_setaffinity(self.proc.pid, {cpu})
        except (OSError, AttributeError):
            pass

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stdin):
            try:
                f.close()
            except OSError:
                pass


def parse_json_line(text):
    if not text:
        return None
    try:
        v = json.loads(text)
        return v if isinstance(v, dict) else None
    except ValueError:
        return None


def cpu_steal(cpu):
    """Steal time of one CPU so far (USER_HZ ticks from /proc/stat), or None."""
    if cpu is None:
        return None
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu%d " % cpu):
                    fields = line.split()
                    return int(fields[8]) if len(fields) > 8 else None
    except (OSError, ValueError):
        pass
    return None


class Options:
    """How a cell is measured (run.py fills it from the command line)."""

    def __init__(self, rounds, round_ms, hash_share, clock, cpu, seed, verify, timeout, instances=1):
        self.rounds = rounds          # rounds per cell
        self.round_ms = round_ms      # time of one program's turn
        self.hash_share = hash_share  # the hashing alone, as a share of round_ms
        self.clock = clock            # "cpu" or "wall"
        self.cpu = cpu                # the core the programs are pinned to, or None
        self.seed = seed              # of the shuffled orders
        self.verify = verify          # verify(prog, info, once_path) -> None or (status, message)
        self.timeout = timeout        # seconds allowed for loading one program
        self.instances = instances    # processes per program, used in turn


class Cell:
    """The programs of one cell (data set, format, test) as servers: started
    and loaded (start), verified, calibrated, then timed one round at a time
    (run_round), so that the rounds of several cells can be interleaved
    (measure_cells)."""

    def __init__(self, programs, argv_of, opts, tmp_dir):
        self.opts = opts
        self.results = {}
        self.servers = []
        self.live = []
        self.failed = {}
        self.elapsed = 0.0
        self.steal = 0 if opts.cpu is not None else None
        for i, p in enumerate(programs):
            for k in range(opts.instances):
                once = os.path.join(tmp_dir, "once-%d-%d.out" % (i, k))
                argv = argv_of(p) + ["--once", once, "--serve", "--clock", opts.clock]
                try:
                    s = Server(p, argv, os.path.join(tmp_dir, "stderr-%d-%d.txt" % (i, k)))
                except OSError as e:
                    self.results[p["program"]] = {"status": "error", "message": str(e)}
                    break
                s.once, s.instance = once, k
                self.servers.append(s)

    def load(self):
        """Loading (the tree, the input, the Serialize document) and the
        verified run: the first instance's result is verified, the others
        must equal it."""
        opts, results = self.opts, self.results
        live = []
        first = {}
        for s in self.servers:
            line = s.readline(opts.timeout)
            info = parse_json_line(line)
            name = s.prog["program"]
            if name in results:
                s.close()
                continue
            if not info or info.get("status") != "ready":
                msg = (info or {}).get("message") or s.stderr_tail() or (
                    "no answer within %d s" % opts.timeout if line is None else "exit status %s" % s.proc.poll())
                results[name] = {"status": "error", "message": msg}
                s.close()
                continue
            if name not in first or info.get("unordered"):
                # a library whose maps lose key order may write them in another
                # order in every process: each process is verified
                bad = opts.verify(s.prog, info, s.once)
                if bad:
                    results[name] = {"status": bad[0], "message": bad[1]}
                    s.close()
                    continue
                first.setdefault(name, info)
            elif (info.get("result_hash"), info.get("tree_hash")) != (first[name].get("result_hash"),
                                                                      first[name].get("tree_hash")):
                results[name] = {"status": "error", "message": "two processes of the program gave different results"}
                s.close()
                continue
            s.info = info
            live.append(s)
        self.live = [s for s in live if s.prog["program"] not in results]
        for s in self.servers:
            if s not in self.live:
                s.close()
        for s in self.live:
            s.pin(opts.cpu)
            s.failed = None

    def turn(self, s, n, h):
        """One `time N H W`; returns (ns per iteration, hash ns per iteration).
        The untimed warm-up iteration is left out for programs slower than
        WARM_LIMIT_NS per iteration, whose data the caches cannot keep
        anyway: for them it would double the turn."""
        per = s.per_iter if hasattr(s, "per_iter") else 1e6
        limit = 30 + 20 * (n + 1) * per / 1e9
        warm = 0 if hasattr(s, "per_iter") and per > WARM_LIMIT_NS else 1
        reply = s.command("time %d %d %d" % (n, h, warm), limit)
        f = (reply or "").split()
        if len(f) != 4 or f[0] != "ok":
            s.failed = (reply[6:] if reply and reply.startswith("error ") else reply) or (
                "no answer (exit status %s) %s" % (s.proc.poll(), s.stderr_tail(200)))
            return None
        if f[3] != s.info["result_hash"]:
            s.failed = "a timed run gave another result (%s) than the verified one (%s)" % (f[3], s.info["result_hash"])
            return None
        t, th = int(f[1]), int(f[2])
        return t / n if n else 0.0, th / h if h else 0.0

    def calibrate(self):
        """N iterations take about round_ms, H of the hashing about
        hash_share of it. Two steps, the second from a warm program."""
        opts = self.opts

        def size_turns(s, got):
            per, per_hash = got
            s.per_iter = max(per, 1.0)
            s.n = max(1, int(round(opts.round_ms * 1e6 / s.per_iter)))
            s.h = max(1, int(round(opts.hash_share * opts.round_ms * 1e6 / max(per_hash, 1.0)))) if s.h else 0

        for s in self.live:
            s.h = 1 if s.prog.get("hash", True) else 0
            got = self.turn(s, 1, s.h)
            if got:
                size_turns(s, got)
                got = self.turn(s, s.n, s.h)
            if got:
                size_turns(s, got)
        self.by_program = {}
        for s in self.live:
            self.by_program.setdefault(s.prog["program"], []).append(s)
        self.series = {name: ([], []) for name in self.by_program}
        self.rng = random.Random(self.opts.seed)

    def run_round(self, r):
        """Round r: every program once, in a new order; round r uses each
        program's instance r mod instances."""
        t0, steal0 = time.monotonic(), cpu_steal(self.opts.cpu)
        order = [name for name in self.by_program if name not in self.failed]
        self.rng.shuffle(order)
        for name in order:
            group = self.by_program[name]
            s = group[r % len(group)]
            got = self.turn(s, s.n, s.h)
            if got:
                self.series[name][0].append(got[0])
                self.series[name][1].append(got[1])
            else:
                self.failed[name] = s.failed
        self.elapsed += time.monotonic() - t0
        steal1 = cpu_steal(self.opts.cpu)
        if self.steal is not None and steal0 is not None and steal1 is not None:
            self.steal += steal1 - steal0
        else:
            self.steal = None

    def finish(self):
        """Stop the servers; ({program name: result dict}, cell info)."""
        results, series = self.results, self.series
        for s in self.live:
            s.close()
        for name, group in self.by_program.items():
            if name in self.failed:
                results[name] = {"status": "error", "message": self.failed[name]}
                continue
            times, hashes = series[name]
            s = group[0]
            lo, hi, cov = stats.median_interval(times)
            results[name] = {
                "status": "ok", "bytes": s.info.get("bytes"), "unordered": s.info.get("unordered", False),
                "instances": len(group), "iterations": [g.n for g in group], "hash_iterations": [g.h for g in group],
                "rounds_ns": [round(x, 1) for x in times], "hash_rounds_ns": [round(x, 1) for x in hashes],
                "median_ns": stats.median(times), "min_ns": min(times), "lo_ns": lo, "hi_ns": hi,
                "coverage": cov, "hash_ns": stats.median(hashes) if s.h else 0.0,
            }
        cell = {"elapsed_s": round(self.elapsed, 2)}
        share = stats.slowed_share([series[n][0] for n in self.by_program if n not in self.failed])
        if share is not None:
            cell["slowed_share"] = round(share, 3)
        if self.steal is not None:
            hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
            cell["steal_share"] = round(self.steal / hz / self.elapsed, 4) if self.elapsed > 0 else None
        return results, cell


def measure_cells(specs, rounds, seed):
    """Measure several cells, [(programs, argv_of, opts, tmp_dir)], with
    their rounds interleaved: round r of every cell, cells in a new shuffled
    order, then round r + 1. A cell's rounds are then spread over the time
    of all of them, and see the same mix of the shared machine's fast and
    slow periods as the other cells, rather than the few that happened to
    fall into its own few seconds. Returns [(results, cell info)]."""
    cells = [Cell(*spec) for spec in specs]
    for c in cells:
        c.load()
    for c in cells:
        c.calibrate()
    rng = random.Random(seed)
    for r in range(rounds):
        order = list(cells)
        rng.shuffle(order)
        for c in order:
            c.run_round(r)
    return [c.finish() for c in cells]


def measure_cell(programs, argv_of, opts, tmp_dir):
    """Start, verify and time the programs of one cell in interleaved
    rounds. Returns ({program name: result dict}, cell info)."""
    return measure_cells([(programs, argv_of, opts, tmp_dir)], opts.rounds, opts.seed)[0]
