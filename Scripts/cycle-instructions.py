#!/usr/bin/env python3
"""The instructions the server runs per deliver-new-respond cycle, counted by
callgrind: the cycle of `tidings-benchmark --only cycle` (a new notification of
NoOp's category, answered with its presentation, then the response to its `go`
action), one client, none kept but the last 16, against `tidings serve` under
`valgrind --tool=callgrind`, over its standard input and output (`--stdio`:
valgrind 3.19 lacks `pidfd_open`, without which the server takes a socket's
peer for an app connection, which may not respond). Instructions are counted,
not seconds: the same binary's count moves by about 1 % from run to run
(with the timing the server reacts to), whatever else the machine does, where
the benchmark's rates move by 15 % on a shared machine.

Usage (from the repository's root, after `swift build -c release --product tidings`
and `swift build -c release --product NoOp`):
    python3 Scripts/cycle-instructions.py [TIDINGS] [--rounds N] [--json]
TIDINGS defaults to the release build's tidings (.build/release/tidings); NoOp
is taken from beside it. In process only: isolated, the server forks its
sandbox without an exec, so valgrind stays with it there, and the worker it
starts fails under valgrind (`worker.launch-failed`); the script stops when
a response reports an error.

It starts the server, warms it up with 200 cycles, zeroes the counters
(`callgrind_control --zero`), runs N cycles (default 2,000), dumps the counters
(`callgrind_control --dump`) and prints the instructions a cycle, and the
dump's file for `callgrind_annotate`. It runs a copy of TIDINGS without its
debug information (`objcopy --strip-debug`): Debian's valgrind 3.19 gives up
on the DWARF 5 Swift writes; the symbols stay. Needs valgrind and binutils
(Debian: valgrind binutils).
"""
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import Client, Processes, command_line, install_sample, wait_for  # noqa: E402

APP = "com.example.bench"
WARM_UP = 200


def payload():
    return {"aps": {"alert": {"title": "Build 1024 passed", "subtitle": "main",
                              "body": "All 312 tests passed in 4 min 12 s."},
                    "category": "noop", "thread-id": "bench-0", "sound": "default"},
            "build": 1024, "branch": "main"}


def cycles(client, first, count):
    for number in range(first, first + count):
        identifier = f"c0-{number}"
        delivered = client.call("notifications.deliver", {"app": APP, "identifier": identifier,
                                                          "answer": "presentation", "payload": payload()})
        if "presentation" not in delivered:
            raise SystemExit(f"cycle-instructions: a delivery was not presented: {delivered}")
        responded = client.call("notifications.respond", {"app": APP, "identifier": identifier, "action": "go"})
        errors = [d for d in responded.get("diagnostics", []) if d.get("severity") == "error"]
        if errors or responded.get("dismissed"):
            raise SystemExit(f"cycle-instructions: NoOp did not answer the response: {errors or responded}")


def total_instructions(dump):
    with open(dump) as lines:
        for line in lines:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit(f"cycle-instructions: {dump} has no totals")


def main():
    rounds, _, tidings, products = command_line("2000")
    isolation = "in-process"
    if any(shutil.which(tool) is None for tool in ("valgrind", "callgrind_control", "objcopy")):
        raise SystemExit("cycle-instructions: needs valgrind and objcopy (apt-get install valgrind binutils)")
    work = tempfile.mkdtemp(prefix="tidings-cycle-instructions-")
    processes = Processes(work)
    try:
        extensions = os.path.join(work, "extensions")
        install_sample(tidings, products, "NoOp", extensions)
        counted = os.path.join(work, "tidings")
        subprocess.run(["objcopy", "--strip-debug", tidings, counted], check=True)
        out = os.path.join(work, "callgrind.out")
        server = processes.start(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                  counted, "serve", "--stdio", "--state", os.path.join(work, "state"),
                                  "--extensions", extensions, "--isolation", isolation,
                                  "--keep", "16", "--keep-per-app", "16"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        client = Client(stream=io.BufferedRWPair(server.stdout.raw, server.stdin.raw))
        client.call("categories.register", {"app": APP, "categories": [
            {"identifier": "noop", "actions": [{"identifier": "go", "title": "Go"}]}]})
        cycles(client, 0, WARM_UP)
        subprocess.run(["callgrind_control", "--zero", str(server.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cycles(client, WARM_UP, rounds)
        subprocess.run(["callgrind_control", "--dump=cycles", str(server.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def dump():
            return max(glob.glob(out + ".*"), key=os.path.getmtime, default=None)

        wait_for(lambda: dump() and os.path.getsize(dump()) > 0, "the dump")
        instructions = total_instructions(dump())
        kept = os.path.join(tempfile.gettempdir(), f"cycle-instructions-{isolation}.callgrind")
        shutil.copyfile(dump(), kept)
        per_cycle = instructions / rounds
        if "--json" in sys.argv:
            print(json.dumps({"isolation": isolation, "cycles": rounds, "instructions": instructions,
                              "instructionsPerCycle": round(per_cycle), "dump": kept}))
        else:
            print(f"{isolation}: {per_cycle:,.0f} instructions a cycle ({instructions:,} over {rounds:,} cycles; "
                  f"the server's process; callgrind_annotate {kept})")
    finally:
        processes.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
