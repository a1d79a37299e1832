#!/usr/bin/env python3
"""How quickly a remote notification reaches the desktop: a Web Push message
POSTed to the endpoint of a registration, as an app's server sends it, until
it is on screen, with and without a service extension, beside
`notifications.deliver` of the same payload in the same run. `tidings serve`
(with the InviteService sample) and `tidings desktop` (the UnifiedPush
connector) against dunst and the test's UnifiedPush distributor, on a private
session bus and a headless X display (Xvfb).

Usage (from the repository's root, after `swift build -c release --product tidings`
and `swift build -c release --product InviteService`, or the debug build):
    python3 Scripts/push-latency.py [TIDINGS] [--rounds N] [--isolation MODE] [--json]
TIDINGS defaults to the release build's tidings (.build/release/tidings).
MODE is what `tidings serve --isolation` takes (its default: isolated, the
extension in a sandboxed worker).

The app com.example.events registers (`push.register` over the server's
socket, as a front end); the distributor
(Tests/Fixtures/UnifiedPush/unifiedpush-distributor.py, Debian's
/usr/bin/python3 with gi) gives it an endpoint on 127.0.0.1, its own push
server. Each round's messages are encrypted beforehand (pywebpush, RFC 8291
`aes128gcm`, for the registration's publicKey and auth), so that the
sender's own cost is not in the figure, and POSTed with http.client on a
connection made beforehand. It measures, per round (median, p90, in
milliseconds), up to the front end's `shown` (dunst answered its `Notify`),
stamped by the front end's clock (CLOCK_MONOTONIC, the script's):
- push → on screen: the POST sent → shown, an alert payload (no service
  extension): the push server's HTTP, the distributor's `Message` on D-Bus,
  the connector's `push.receive`, the decryption, the delivery;
- deliver → on screen: `notifications.deliver` of the same payload sent →
  shown (the baseline: what desktop-latency.py measures);
- the same two with `"mutable-content": 1` and `"category": "event-invite"`:
  InviteService runs (its title "Invitation: …" is checked on screen);
and the ratios push / deliver: what the push path adds. Of each push, also
POST sent → the connector logged `push` `message` (the distributor's
`Message` call heard: the HTTP and D-Bus part, before the server's
`push.receive`). Each notification
has a title of its own (a push's identifier is the server's choice, a
UUID), by which its `shown` line is found; each is closed (and the close
heard) before the next is sent.
Needs dbus-daemon, Xvfb, dunst (with dunstctl) (Debian: dbus-daemon xvfb
dunst), /usr/bin/python3 with gi (python3-gi) and, for the python3 running
this, pywebpush (`python3 -m pip install pywebpush`).
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency import (JSONLog, Processes, command_line, dunst, headless_display, install_sample,  # noqa: E402
                     serve, session_bus, summary)

APP = "com.example.events"
DISTRIBUTOR = "Tests/Fixtures/UnifiedPush/unifiedpush-distributor.py"
# Each round's figures, in order: its name, how the payload is sent, whether InviteService runs.
KINDS = (("pushPlain", "push", False), ("deliverPlain", "deliver", False),
         ("pushService", "push", True), ("deliverService", "deliver", True))


def payload(title, service):
    aps = {"alert": {"title": title, "body": "You are invited to the team offsite."}, "thread-id": "offsite"}
    if service:
        aps.update({"mutable-content": 1, "category": "event-invite"})
    return {"aps": aps, "title": "Team offsite", "date": "Thursday 4 December, 09:00–17:00",
            "location": "Lighthouse, Pier 3"}


def main():
    rounds, isolation, tidings, products = command_line("30")
    for tool in ("dbus-daemon", "Xvfb", "dunst", "dunstctl"):
        if shutil.which(tool) is None:
            raise SystemExit(f"push-latency: needs {tool} (apt-get install dbus-daemon xvfb dunst)")
    try:
        from pywebpush import WebPusher
    except ImportError:
        raise SystemExit("push-latency: needs pywebpush for this python3 (python3 -m pip install pywebpush)")
    work = tempfile.mkdtemp(prefix="tidings-push-latency-")
    processes = Processes(work)
    start = processes.start

    try:
        bus = session_bus(processes)
        environment = {"DBUS_SESSION_BUS_ADDRESS": bus, "DISPLAY": headless_display(processes)}
        dunst(processes, environment)
        dunst_env = dict(os.environ, **environment)

        fifo = os.path.join(work, "distributor.fifo")
        os.mkfifo(fifo)
        distributor = JSONLog(start(["/usr/bin/python3", DISTRIBUTOR, bus, fifo, os.path.join(work, "distributor.json")],
                                    stdout=subprocess.PIPE))
        distributor.next_line(lambda line: "ready" in line, "`ready`")

        extensions = os.path.join(work, "extensions")
        install_sample(tidings, products, "InviteService", extensions)
        # Every push of the run at once, whatever --rounds: the rate limit is not what is measured.
        client = serve(processes, tidings, extensions, isolation, "--push-burst", str(2 * (rounds + 1) + 10))
        desktop = JSONLog(start([tidings, "desktop", "--socket", client.path, "--bus", bus, "--geoclue-bus", "off",
                                 "--state", os.path.join(work, "desktop.json"), "--json", "--verbose"],
                                stdout=subprocess.PIPE))
        desktop.next_event("synchronised")

        registration = client.call("push.register", {"app": APP})
        token = registration["token"]
        endpoint = distributor.next_line(lambda line: line.get("sent") == "NewEndpoint" and line.get("token") == token,
                                         "`NewEndpoint`")["endpoint"]
        desktop.next_event("push", condition=lambda line: line.get("step") == "endpoint" and line.get("token") == token)
        url = urllib.parse.urlsplit(endpoint)
        pusher = WebPusher({"endpoint": endpoint, "keys": {"p256dh": registration["publicKey"],
                                                           "auth": registration["auth"]}})
        run = os.getpid()
        titles = {(number, kind): f"Team offsite {run}-{number}-{kind}"
                  for number in range(rounds + 1) for kind, _, _ in KINDS}
        # Encrypted before any timing: an app server's cost, not the push path's.
        bodies = {key: pusher.encode(json.dumps(payload(title, key[1].endswith("Service"))).encode(),
                                     content_encoding="aes128gcm")["body"]
                  for key, title in titles.items() if key[1].startswith("push")}

        figures = {kind: [] for kind, _, _ in KINDS}
        figures.update({kind + "Heard": [] for kind, path, _ in KINDS if path == "push"})
        for number in range(rounds + 1):
            for kind, path, service in KINDS:
                title = titles[(number, kind)]
                expected = f"Invitation: {title}" if service else title
                if path == "push":
                    body = bodies[(number, kind)]
                    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
                    connection.connect()
                    started = time.monotonic()
                    connection.request("POST", url.path, body=body,
                                       headers={"TTL": "60", "Content-Encoding": "aes128gcm",
                                                "Content-Type": "application/octet-stream"})
                    status = connection.getresponse().status
                    connection.close()
                    if status != 201:
                        raise SystemExit(f"push-latency: the push server answered {status}")
                    heard = desktop.next_event("push", condition=lambda line: line.get("step") == "message"
                                               and line.get("token") == token)
                    figures[kind + "Heard"].append((heard["monotonic"] - started) * 1000)
                else:
                    started = time.monotonic()
                    client.call("notifications.deliver", {"payload": payload(title, service), "app": APP,
                                                          "identifier": f"latency-{number}-{kind}",
                                                          "answer": "presentation"})
                # By its title: a pushed notification's identifier is the server's choice.
                shown = desktop.next_event("shown", condition=lambda line, title=title: title in line.get("summary", ""))
                if shown["summary"] != expected:
                    raise SystemExit(f"push-latency: {kind} was shown as {shown['summary']!r}, not {expected!r}")
                figures[kind].append((shown["monotonic"] - started) * 1000)
                if path == "push":
                    # The connector answered the distributor's Message; read, its log never fills its pipe.
                    distributor.next_line(lambda line: line.get("sent") == "Message" and line.get("token") == token
                                          and "error" not in line, "`Message` answered")
                # One on screen at a time, as in desktop-latency.py: closed, and the close heard, before the next.
                subprocess.run(["dunstctl", "close-all"], env=dunst_env, check=True)
                desktop.next_event("closed", shown["identifier"])
        # The first round warms the worker, the bus's caches and dunst.
        result = {"mode": isolation or "isolated (the default)", "rounds": rounds}
        for kind, numbers in figures.items():
            result[kind] = summary(numbers[1:])
        result["ratioPlain"] = result["pushPlain"]["median"] / result["deliverPlain"]["median"]
        result["ratioService"] = result["pushService"]["median"] / result["deliverService"]["median"]
        if "--json" in sys.argv:
            print(json.dumps(result, indent=2))
        else:
            print(f"tidings serve --isolation {result['mode']}, {rounds} rounds (ms: median / p90 / min)")
            for name, key in (("push POSTed → on screen (no service extension)", "pushPlain"),
                              ("  of which POSTed → the connector heard Message", "pushPlainHeard"),
                              ("deliver → on screen (no service extension)", "deliverPlain"),
                              ("push POSTed → on screen (InviteService)", "pushService"),
                              ("  of which POSTed → the connector heard Message", "pushServiceHeard"),
                              ("deliver → on screen (InviteService)", "deliverService")):
                numbers = result[key]
                print(f"  {name:48} {numbers['median']:7.2f} / {numbers['p90']:7.2f} / {numbers['min']:7.2f}")
            print(f"  ratio push / deliver: {result['ratioPlain']:.2f} without a service extension, "
                  f"{result['ratioService']:.2f} with InviteService")
    finally:
        processes.stop()
        if sys.exc_info()[0] is None:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"push-latency: the logs are in {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
