"""What the latency scripts share (desktop-latency.py, push-latency.py,
window-latency.py): their options, waiting, a `--json` log read line by line,
a JSON-RPC client of `tidings serve`, a summary of figures, and the desktop
they run against: a private session bus, Xvfb, dunst on both, a sample
installed, `tidings serve`."""
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
        return self.next_line(lambda line: line.get("event") == event
                              and (identifier is None or line.get("identifier") == identifier) and condition(line),
                              f"`{event}`", seconds)

    def next_line(self, condition, what, seconds=60):
        """The next line for which `condition` holds (lines before it are passed over)."""
        end = time.monotonic() + seconds
        while True:
            for index, line in enumerate(self.lines):
                if condition(line):
                    del self.lines[:index + 1]
                    return line
            left = end - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise SystemExit(f"{os.path.basename(sys.argv[0])}: no {what} from "
                                 f"{os.path.basename(self.process.args[1])}")
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                self.pending += os.read(self.process.stdout.fileno(), 65536)
                *whole, self.pending = self.pending.split(b"\n")
                self.lines += [json.loads(line) for line in whole if line.startswith(b"{")]


class Client:
    """A JSON-RPC client of `tidings serve`, one line each way: over its socket at `path`,
    or over `stream` (`tidings serve --stdio`'s pipes as an `io.BufferedRWPair`)."""

    def __init__(self, path=None, stream=None):
        self.path = path
        if stream is None:
            import socket
            self.socket = socket.socket(socket.AF_UNIX)
            self.socket.connect(path)
            stream = self.socket.makefile("rwb")
        self.stream = stream
        self.counter = 0

    def call(self, method, params):
        self.counter += 1
        self.stream.write((json.dumps({"jsonrpc": "2.0", "id": self.counter, "method": method,
                                       "params": params}) + "\n").encode())
        self.stream.flush()
        while True:
            line = self.stream.readline()
            if not line:
                raise SystemExit(f"{os.path.basename(sys.argv[0])}: tidings serve closed the connection")
            message = json.loads(line)
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


def session_bus(processes):
    """A private session bus (dbus-daemon) in the work directory, which lets anyone
    own any name and eavesdrop: its address."""
    bus_socket = os.path.join(processes.work, "bus")
    bus = "unix:path=" + bus_socket
    with open(os.path.join(processes.work, "session.conf"), "w") as conf:
        conf.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>{bus}</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
""")
    processes.start(["dbus-daemon", "--config-file=" + os.path.join(processes.work, "session.conf"), "--nofork"])
    wait_for(lambda: os.path.exists(bus_socket), "the bus")
    return bus


def headless_display(processes, *options):
    """A headless X display (Xvfb, with `options`) on a number no other uses: `:N`."""
    display = 100 + os.getpid() % 500
    while os.path.exists(f"/tmp/.X11-unix/X{display}"):
        display += 1
    processes.start(["Xvfb", f":{display}", "-nolisten", "tcp", *options])
    wait_for(lambda: os.path.exists(f"/tmp/.X11-unix/X{display}"), "Xvfb")
    return f":{display}"


def dunst(processes, environment, dmenu=None):
    """dunst on `environment`'s bus and display, keeping every notification on
    screen until closed (no limit, no timeout); `dmenu`: the script its
    context menu (`dunstctl context`) runs."""
    os.makedirs(os.path.join(processes.work, "dunst"), exist_ok=True)
    rc = os.path.join(processes.work, "dunst", "dunstrc")
    with open(rc, "w") as conf:
        conf.write("[global]\n" + (f"    dmenu = {dmenu}\n" if dmenu else "")
                   + "    notification_limit = 0\n    history_length = 20\n"
                   "[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n")
    processes.start(["dunst", "-config", rc], env=environment)
    wait_for(lambda: subprocess.run(["dunstctl", "is-paused"], env=dict(os.environ, **environment),
                                    capture_output=True).returncode == 0, "dunst")


def install_sample(tidings, products, name, extensions):
    """Installs the shipped sample `name` (Manifests/NAME.plist, the build's libNAME.so
    and its Plugins/NAME/MainInterface.json when it has one) into `extensions`."""
    interface = f"Plugins/{name}/MainInterface.json"
    subprocess.run([tidings, "install", f"Manifests/{name}.plist", os.path.join(products, f"lib{name}.so")]
                   + ([interface] if os.path.exists(interface) else []) + ["--into", extensions],
                   check=True, stdout=subprocess.DEVNULL)


def serve(processes, tidings, extensions, isolation, *options):
    """`tidings serve` on a socket in the work directory, with its state there, the
    extensions of `extensions`, `--isolation isolation` (unless None) and `options`:
    a client of it, once it listens (its `path` is the socket's)."""
    socket_path = os.path.join(processes.work, "tidings.sock")
    processes.start([tidings, "serve", "--socket", socket_path, "--state", os.path.join(processes.work, "state"),
                     "--extensions", extensions] + (["--isolation", isolation] if isolation else []) + list(options))
    wait_for(lambda: os.path.exists(socket_path), "tidings serve")
    return Client(socket_path)
