#!/usr/bin/python3
"""A scripted Tidings server for the front end's push tests: the protocol
peer `tidings desktop` talks to (newline-delimited JSON-RPC 2.0 on a Unix
socket), answering what a front end calls while it synchronises, and the
push family's front-end methods as the protocol between them names them
(Docs/desktop.md, Remote notifications), recording every call.

Usage: tidings-server-double.py SOCKET FIFO

It writes a JSON line on standard output for each call received
({"call": METHOD, "params": …}) and once it listens ({"ready": SOCKET}).
It reads commands, one a line, from FIFO:
  registrations JSON   what push.list answers from now on (an array of registrations)
  event METHOD JSON    push the event METHOD with the params JSON (and the next seq) to every connection
  refuse-receive CODE  answer push.receive with error -32013 and data.code CODE from now on
  hangup               close every connection (a server that went away)
"""
import json
import os
import selectors
import socket
import sys

path, fifo = sys.argv[1], sys.argv[2]
base_events = ["notification.delivered", "presentation.changed", "notification.dismissed", "response.forwarded",
               "authorization.requested", "authorization.changed", "state.degraded", "state.recovered",
               "state.repaired", "request.scheduled", "request.removed", "request.fired", "events.lagging",
               "push.registration-requested", "push.unregistering", "push.new-endpoint", "push.unregistered",
               "push.registration-failed", "push.rate-limited"]
methods = ["server.hello", "server.describe", "apps.list", "events.subscribe", "notifications.list",
           "notifications.presentation", "requests.pending", "inbox.list", "push.register", "push.unregister",
           "push.list", "push.distributor", "push.endpoint", "push.receive", "push.unregistered",
           "push.registration-failed"]
state = {"registrations": [], "distributor": None, "seq": 0, "refuse": None}
connections = {}


def record(**fields):
    print(json.dumps(fields), flush=True)


def send(connection, message):
    try:
        connection.sendall((json.dumps(message) + "\n").encode())
    except OSError:
        pass


def answer(method, params):
    if method == "server.describe":
        return {"name": "tidings-server-double", "version": "0",
                "protocol": {"version": 2, "capabilities": ["events.seq", "events.resume", "events.filter"]},
                "methods": [{"name": m, "summary": ""} for m in methods],
                "events": [{"method": e, "params": ""} for e in base_events]}
    if method == "server.hello":
        return {"role": "frontEnd"}
    if method == "apps.list":
        return {"apps": [{"app": "org.example.chat", "name": "Chat"}]}
    if method == "events.subscribe":
        return {"apps": "all", "events": params.get("events", []), "replayed": 0, "seq": state["seq"],
                "resumed": False, "reason": "server restarted: re-list"}
    if method == "notifications.list":
        return {"notifications": [], "next": None}
    if method == "requests.pending":
        return {"requests": []}
    if method == "inbox.list":
        return {"entries": [], "next": None}
    if method == "push.list":
        return {"registrations": state["registrations"], "distributor": state["distributor"], "status": "pending"}
    if method == "push.distributor":
        state["distributor"] = params.get("name")
        return {}
    if method == "push.receive":
        if state["refuse"]:
            return {"error": {"code": -32013, "message": "refused: " + state["refuse"],
                              "data": {"code": state["refuse"], "token": params.get("token"), "reason": "scripted"}}}
        return {"delivered": True, "push": {"token": params.get("token"), "id": params.get("id")}}
    if method in ("push.endpoint", "push.unregistered", "push.registration-failed"):
        return {}
    return {"error": {"code": -32601, "message": "no method " + method}}


def handle(connection, line):
    message = json.loads(line)
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message or method is None:
        return
    record(call=method, params=params)
    result = answer(method, params)
    if isinstance(result, dict) and set(result) == {"error"}:
        send(connection, {"jsonrpc": "2.0", "id": message["id"], "error": result["error"]})
    else:
        send(connection, {"jsonrpc": "2.0", "id": message["id"], "result": result})


def command(line):
    words = line.strip().split(" ", 2)
    if words[0] == "registrations":
        state["registrations"] = json.loads(words[1] if len(words) == 2 else " ".join(words[1:]))
    elif words[0] == "event" and len(words) == 3:
        state["seq"] += 1
        params = json.loads(words[2])
        params["seq"] = state["seq"]
        for connection in list(connections):
            send(connection, {"jsonrpc": "2.0", "method": words[1], "params": params})
        record(event=words[1], params=params)
    elif words[0] == "refuse-receive" and len(words) == 2:
        state["refuse"] = words[1]
        record(refusing=words[1])
    elif words[0] == "hangup":
        for connection in list(connections):
            selector.unregister(connection)
            connection.close()
        connections.clear()
        record(hungUp=True)


selector = selectors.DefaultSelector()
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.chmod(path, 0o600)
listener.listen(8)
selector.register(listener, selectors.EVENT_READ, "listen")
commands = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
selector.register(commands, selectors.EVENT_READ, "fifo")
fifo_buffer = b""
record(ready=path)
while True:
    for key, _ in selector.select():
        if key.data == "listen":
            connection, _ = listener.accept()
            connections[connection] = b""
            selector.register(connection, selectors.EVENT_READ, "connection")
        elif key.data == "fifo":
            fifo_buffer += os.read(commands, 65536)
            while b"\n" in fifo_buffer:
                line, fifo_buffer = fifo_buffer.split(b"\n", 1)
                command(line.decode())
        else:
            connection = key.fileobj
            chunk = connection.recv(1 << 20)
            if not chunk:
                selector.unregister(connection)
                connections.pop(connection, None)
                connection.close()
                continue
            connections[connection] += chunk
            while b"\n" in connections.get(connection, b""):
                line, connections[connection] = connections[connection].split(b"\n", 1)
                handle(connection, line)
