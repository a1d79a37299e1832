#!/usr/bin/env python3
"""How quickly a Tidings notification reaches the desktop, and an action the
extension: `tidings serve` and `tidings desktop` against dunst, on a private
session bus and a headless X display (Xvfb), beside `notify-send` to the same
dunst in the same run.

Usage (from the repository's root, after `swift build -c release --product tidings`
and `swift build -c release --product EventInvite`, or the debug build):
    python3 Scripts/desktop-latency.py [TIDINGS] [--rounds N] [--soak N] [--isolation MODE] [--json]
TIDINGS defaults to the release build's tidings (.build/release/tidings).
MODE is what `tidings serve --isolation` takes (its default: isolated, the
extension in a sandboxed worker).

It measures, per round (median, p90, in milliseconds):
- on screen: `notifications.deliver` sent → the front end logged `shown`, which
  it does once dunst answered its `Notify` (the notification is on screen);
- notify-send: `notify-send` started → it exited (it waits for dunst's answer
  to its `Notify`): the same server, a process of its own each time;
- action → response: the front end heard dunst's `ActionInvoked` (`invoked`) →
  it logged `responded`, once the server answered `notifications.respond`
  (EventInvite's response handler ran and completed), both stamped by the front
  end's clock;
and the front end's resident memory (VmRSS, VmHWM) after the rounds.
With --soak N it then shows and closes N more notifications (delivered,
shown, closed on dunst: a dismissal the server answers) and reports the
front end's VmRSS before and after them, and its log's lines for people:
whether its memory and its log stay flat.
Needs dbus-daemon, Xvfb, dunst (with dunstctl) and notify-send (Debian:
dbus-daemon xvfb dunst libnotify-bin).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import (JSONLog, Processes, command_line, dunst, headless_display, install_sample,  # noqa: E402
                     option, serve, session_bus, summary)


def main():
    rounds, isolation, tidings, products = command_line("30", valued=("--soak",))
    soak = int(option("--soak", "0"))
    for tool in ("dbus-daemon", "Xvfb", "dunst", "dunstctl", "notify-send"):
        if shutil.which(tool) is None:
            raise SystemExit(f"desktop-latency: needs {tool} (apt-get install dbus-daemon xvfb dunst libnotify-bin)")
    work = tempfile.mkdtemp(prefix="tidings-desktop-latency-")
    processes = Processes(work)
    start = processes.start

    try:
        bus = session_bus(processes)
        environment = {"DBUS_SESSION_BUS_ADDRESS": bus, "DISPLAY": headless_display(processes)}
        menu = os.path.join(work, "dmenu.sh")
        with open(menu, "w") as script:
            script.write("#!/bin/sh\ngrep -F ',accept]' | head -n 1\n")
        os.chmod(menu, 0o755)
        dunst(processes, environment, dmenu=menu)

        extensions = os.path.join(work, "extensions")
        install_sample(tidings, products, "EventInvite", extensions)
        client = serve(processes, tidings, extensions, isolation)
        socket_path = client.path
        with open("Plugins/EventInvite/Payloads/categories.json") as categories:
            client.call("categories.register", json.load(categories))
        with open("Plugins/EventInvite/Payloads/invite.json") as invite:
            payload = json.load(invite)
        payload["content"].pop("attachments", None)
        desktop = JSONLog(start([tidings, "desktop", "--socket", socket_path, "--bus", bus,
                                 "--state", os.path.join(work, "desktop.json"), "--json"],
                                stdout=subprocess.PIPE))
        desktop.next_event("synchronised")

        on_screen, responses, notify_send = [], [], []
        for round_number in range(rounds + 1):
            identifier = f"latency-{round_number}"
            started = time.monotonic()
            client.call("notifications.deliver", {"payload": payload, "app": "com.example.events",
                                                  "identifier": identifier, "answer": "presentation"})
            desktop.next_event("shown", identifier)
            shown = time.monotonic()
            subprocess.run(["dunstctl", "context"], env=dict(os.environ, **environment), check=True)
            invoked = desktop.next_event("invoked", identifier)
            responded = desktop.next_event("responded", identifier)
            sent = time.monotonic()
            subprocess.run(["notify-send", "-a", "bench", "Team offsite", "You are invited."],
                           env=dict(os.environ, **environment), check=True)
            answered = time.monotonic()
            subprocess.run(["dunstctl", "close-all"], env=dict(os.environ, **environment), check=True)
            if round_number == 0:
                continue  # the first round warms the worker, the bus's caches and dunst
            on_screen.append((shown - started) * 1000)
            responses.append((responded["monotonic"] - invoked["monotonic"]) * 1000)
            notify_send.append((answered - sent) * 1000)

        def memory_now():
            memory = {}
            with open(f"/proc/{desktop.process.pid}/status") as status:
                for line in status:
                    if line.startswith(("VmRSS", "VmHWM")):
                        memory[line.split(":")[0]] = int(line.split()[1])
            return memory

        memory = memory_now()
        result = {"mode": isolation or "isolated (the default)", "onScreen": summary(on_screen),
                  "notifySend": summary(notify_send), "actionToResponse": summary(responses),
                  "frontEndKiB": memory}
        if soak:
            def log_lines():
                with open(os.path.join(work, "tidings.log"), "rb") as log:
                    return sum(1 for line in log if line.startswith(b"tidings desktop:"))
            before, lines_before = memory_now(), log_lines()
            for number in range(soak):
                identifier = f"soak-{number}"
                client.call("notifications.deliver", {"payload": payload, "app": "com.example.events",
                                                      "identifier": identifier, "answer": "presentation"})
                desktop.next_event("shown", identifier)
                subprocess.run(["dunstctl", "close"], env=dict(os.environ, **environment), check=True)
                desktop.next_event("responded", identifier)
            after = memory_now()
            result["soak"] = {"notifications": soak, "frontEndRSSKiBBefore": before.get("VmRSS", 0),
                              "frontEndRSSKiBAfter": after.get("VmRSS", 0), "frontEndVmHWMKiB": after.get("VmHWM", 0),
                              "logLines": log_lines() - lines_before}
        if "--json" in sys.argv:
            print(json.dumps(result, indent=2))
        else:
            print(f"tidings serve --isolation {result['mode']}, {rounds} rounds (ms: median / p90 / min)")
            for name, key in (("deliver → on screen (Notify answered)", "onScreen"),
                              ("notify-send → exited (Notify answered)", "notifySend"),
                              ("ActionInvoked → extension's response answered", "actionToResponse")):
                figures = result[key]
                print(f"  {name:48} {figures['median']:7.2f} / {figures['p90']:7.2f} / {figures['min']:7.2f}")
            print(f"  ratio on screen / notify-send: {result['onScreen']['median'] / result['notifySend']['median']:.2f}")
            print(f"  tidings desktop memory: VmRSS {memory.get('VmRSS', 0)} KiB, VmHWM {memory.get('VmHWM', 0)} KiB")
            if soak:
                figures = result["soak"]
                print(f"  soak: {soak} notifications shown and closed: tidings desktop VmRSS "
                      f"{figures['frontEndRSSKiBBefore']} → {figures['frontEndRSSKiBAfter']} KiB "
                      f"(VmHWM {figures['frontEndVmHWMKiB']} KiB), {figures['logLines']} log lines for people")
    finally:
        processes.stop()
        if sys.exc_info()[0] is None:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"desktop-latency: the logs are in {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
