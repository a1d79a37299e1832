#!/usr/bin/env python3
"""How quickly the expanded interface's window draws: `tidings show` (what
"Show More" in `tidings desktop` starts) against `tidings serve` with the
EventInvite sample, on a headless X display (Xvfb), GTK 4 with its cairo
renderer.

Usage (from the repository's root, after `swift build -c release --product tidings`
and `swift build -c release --product EventInvite`, or the debug build):
    python3 Scripts/window-latency.py [TIDINGS] [--rounds N] [--isolation MODE] [--json]
TIDINGS defaults to the release build's tidings (.build/release/tidings).
MODE is what `tidings serve --isolation` takes (its default: isolated).

It measures, per round (median, p90, in milliseconds), one window each:
- first frame: `tidings show` started → it logged `shown` (its first frame
  drawn, saying "Loading…", at width × ratio);
- view drawn: the first frame → `redrawn` with the extension's view
  (`notifications.open` answered: EventInvite's didReceive ran; the first
  round opens with no worker running, the others with the pool warm);
- change drawn: the view's "Add a comment" button clicked (xdotool) → the
  window logged `sent` → `redrawn` with the text input EventInvite asked
  for (`notifications.interact` answered and the next frame drawn), both
  stamped by the window's clock;
and the window's resident memory (VmRSS) once its view is drawn.
Needs Xvfb, xdotool and libgtk-4-1 (Debian: xvfb xdotool libgtk-4-1).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import Client, JSONLog, Processes, command_line, summary, wait_for  # noqa: E402


def main():
    rounds, isolation, tidings, products = command_line("20")
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            raise SystemExit(f"window-latency: needs {tool} (apt-get install xvfb xdotool libgtk-4-1)")
    work = tempfile.mkdtemp(prefix="tidings-window-latency-")
    processes = Processes(work)
    start = processes.start

    try:
        display = 100 + os.getpid() % 500
        while os.path.exists(f"/tmp/.X11-unix/X{display}"):
            display += 1
        start(["Xvfb", f":{display}", "-nolisten", "tcp", "-screen", "0", "1024x768x24"])
        wait_for(lambda: os.path.exists(f"/tmp/.X11-unix/X{display}"), "Xvfb")
        environment = {"DISPLAY": f":{display}"}
        extensions = os.path.join(work, "extensions")
        subprocess.run([tidings, "install", "Manifests/EventInvite.plist", os.path.join(products, "libEventInvite.so"),
                        "Plugins/EventInvite/MainInterface.json", "--into", extensions],
                       check=True, stdout=subprocess.DEVNULL)
        socket_path = os.path.join(work, "tidings.sock")
        start([tidings, "serve", "--socket", socket_path, "--state", os.path.join(work, "state"),
               "--extensions", extensions] + (["--isolation", isolation] if isolation else []))
        wait_for(lambda: os.path.exists(socket_path), "tidings serve")
        client = Client(socket_path)
        with open("Plugins/EventInvite/Payloads/categories.json") as categories:
            client.call("categories.register", json.load(categories))
        with open("Plugins/EventInvite/Payloads/invite.json") as invite:
            payload = json.load(invite)
        for attachment in payload["content"]["attachments"]:
            attachment["path"] = os.path.abspath(f"Plugins/EventInvite/Payloads/{attachment['path']}")

        first_frame, view_drawn, change_drawn, memory = [], [], [], []
        for round_number in range(rounds + 1):
            identifier = f"window-{round_number}"
            client.call("notifications.deliver", {"payload": payload, "app": "com.example.events",
                                                        "identifier": identifier, "answer": "presentation"})
            started = time.monotonic()
            window = JSONLog(start([tidings, "show", identifier, "--app", "com.example.events",
                                    "--socket", socket_path, "--json"], env=environment,
                               stdout=subprocess.PIPE))
            shown = window.next_event("shown")
            drawn = window.next_event("redrawn", condition=lambda line: not line["loading"])
            with open(f"/proc/{window.process.pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
            button = next(c for c in drawn["controls"] if c["kind"] == "button")
            x, y, w, h = button["frame"]
            xid = subprocess.run(["xdotool", "search", "--name", identifier], env=dict(os.environ, **environment),
                                 capture_output=True, text=True).stdout.split()[0]
            subprocess.run(["xdotool", "mousemove", "--window", xid, str(x + w // 2), str(y + h // 2), "click", "1"],
                           env=dict(os.environ, **environment), check=True)
            sent = window.next_event("sent")
            changed = window.next_event("redrawn", condition=lambda line: any(c["kind"] == "send" for c in line["controls"]))
            subprocess.run(["xdotool", "key", "--window", xid, "Escape"], env=dict(os.environ, **environment))
            window.process.wait(timeout=60)
            if round_number == 0 and isolation != "in-process":
                print(f"first round (no worker yet): first frame {(shown['monotonic'] - started) * 1000:.1f} ms, "
                      f"view drawn {(drawn['monotonic'] - shown['monotonic']) * 1000:.1f} ms", file=sys.stderr)
            if round_number == 0:
                continue
            first_frame.append((shown["monotonic"] - started) * 1000)
            view_drawn.append((drawn["monotonic"] - shown["monotonic"]) * 1000)
            change_drawn.append((changed["monotonic"] - sent["monotonic"]) * 1000)
            memory.append(rss / 1024)

        report = {"first frame": summary(first_frame), "view drawn": summary(view_drawn),
                  "change drawn": summary(change_drawn), "window VmRSS MB": summary(memory)}
        if "--json" in sys.argv:
            print(json.dumps(report))
        else:
            for name, values in report.items():
                print(f"{name}: median {values['median']:.2f}, p90 {values['p90']:.2f} ({values['rounds']} rounds)")
    finally:
        processes.stop()
        shutil.rmtree(work, ignore_errors=True)


main()
