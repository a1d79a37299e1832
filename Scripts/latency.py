"""What the latency scripts share (desktop-latency.py, window-latency.py):
their options, waiting, a `--json` log read line by line, a JSON-RPC client
of `tidings serve`, and a summary of figures."""
import json
import os
import select
import signal
import subprocess
import statistics
import sys
import time


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def wait_for(condition, what, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.01)
    raise SystemExit(f"{os.path.basename(sys.argv[0])}: gave up waiting for {what}")


class JSONLog:
    """A `--json` process's standard output (`tidings desktop`, `tidings show`), read line by line."""

    def __init__(self, process):
        self.process = process
        self.pending = b""
        self.lines = []

    def next_event(self, event, identifier=None, seconds=60, condition=lambda line: True):
        """The next line of `event` (of `identifier`, when given) for which `condition` holds."""
        end = time.monotonic() + seconds
        while True:
            for index, line in enumerate(self.lines):
                if line.get("event") == event and (identifier is None or line.get("identifier") == identifier) \
                        and condition(line):
                    del self.lines[:index + 1]
                    return line
            left = end - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise SystemExit(f"{os.path.basename(sys.argv[0])}: no `{event}` from {self.process.args[1]}")
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                self.pending += os.read(self.process.stdout.fileno(), 65536)
                *whole, self.pending = self.pending.split(b"\n")
                self.lines += [json.loads(line) for line in whole if line.startswith(b"{")]


class Client:
    """A JSON-RPC client of `tidings serve`, one line each way."""

    def __init__(self, path):
        import socket
        self.socket = socket.socket(socket.AF_UNIX)
        self.socket.connect(path)
        self.stream = self.socket.makefile("rwb")
        self.counter = 0

    def call(self, method, params):
        self.counter += 1
        self.stream.write((json.dumps({"jsonrpc": "2.0", "id": self.counter, "method": method,
                                       "params": params}) + "\n").encode())
        self.stream.flush()
        while True:
            message = json.loads(self.stream.readline())
            if message.get("id") == self.counter:
                if "error" in message:
                    raise SystemExit(f"{os.path.basename(sys.argv[0])}: {method}: {message['error']['message']}")
                return message["result"]


def summary(values):
    ordered = sorted(values)
    return {"median": statistics.median(ordered), "p90": ordered[int(0.9 * (len(ordered) - 1))],
            "min": ordered[0], "rounds": len(ordered)}


def command_line(rounds, valued=()):
    """The rounds (`--rounds`, else `rounds`), `--isolation`, the tidings to run (the first
    argument, else the release build's) and the folder of its build products; `valued`
    names the script's other options that take a value."""
    arguments = [a for i, a in enumerate(sys.argv[1:])
                 if not a.startswith("--") and sys.argv[i] not in ("--rounds", "--isolation") + tuple(valued)]
    tidings = os.path.abspath(arguments[0] if arguments else ".build/release/tidings")
    return int(option("--rounds", rounds)), option("--isolation", None), tidings, os.path.dirname(tidings)


class Processes:
    """The script's children, each logging into `work` (standard output too, unless given),
    with `HOME` there; `stop` ends them, last started first."""

    def __init__(self, work):
        self.work = work
        self.children = []

    def start(self, command, env=None, **kwargs):
        log = open(os.path.join(self.work, os.path.basename(command[0]) + ".log"), "ab")
        process = subprocess.Popen(command, env=dict(os.environ, HOME=self.work, NO_COLOR="1", **(env or {})),
                                   stderr=log, stdout=kwargs.pop("stdout", log), **kwargs)
        self.children.append(process)
        return process

    def stop(self):
        for process in reversed(self.children):
            if process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
