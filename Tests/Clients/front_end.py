#!/usr/bin/env python3
"""A front end for `tidings serve` written with Python's standard library
only, as any program could drive the host: it registers an app's categories,
delivers a notification, receives the presentation the extension updates
later, responds, and receives the response forwarded to the app; then, as
the app in the foreground with a delegate, answers the server's own request
(app.willPresent) that decides how a notification is presented.

Usage: front_end.py SOCKET   (exits 0 when every step behaved; prints each step)
"""
import json
import socket
import sys
import time

APP = "com.example.news"
# How long it waits for an answer or an event before it gives up: long enough
# never to be what fails on a loaded machine; every wait ends when the message comes.
PATIENCE = 60


class Client:
    """One JSON-RPC 2.0 connection: a request per line, answers and events back."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.answers = {}
        self.requests = []

    def send(self, text):
        self.socket.sendall(text.encode() + b"\n")

    def call(self, method, params=None):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.send(json.dumps(request))
        answer = self.answer(self.next_id)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def answer(self, request_id, timeout=PATIENCE):
        deadline = time.monotonic() + timeout
        while request_id not in self.answers:
            self.file(self.read(deadline))
        return self.answers.pop(request_id)

    def event(self, method, timeout=PATIENCE):
        deadline = time.monotonic() + timeout
        while True:
            for position, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(position)["params"]
            self.file(self.read(deadline))

    def request(self, method, timeout=PATIENCE):
        """The next request of the server's own of `method` (it has an id and a method)."""
        deadline = time.monotonic() + timeout
        while True:
            for position, request in enumerate(self.requests):
                if request["method"] == method:
                    return self.requests.pop(position)
            self.file(self.read(deadline))

    def file(self, message):
        if isinstance(message, list):
            for reply in message:
                self.file(reply)
        elif "id" in message and "method" in message:
            self.requests.append(message)
        elif "id" in message:
            self.answers[message["id"]] = message
        else:
            self.events.append(message)

    def read(self, deadline):
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("nothing arrived in time")
            self.socket.settimeout(remaining)
            chunk = self.socket.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)


def expect(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok: {what}")


def main():
    client = Client(sys.argv[1])
    subscribed = client.call("events.subscribe", {"apps": [APP]})
    expect(subscribed["apps"] == [APP], "subscribed to the app's events")

    registered = client.call("categories.register", {"app": APP, "categories": [
        {"identifier": "story", "actions": [{"identifier": "read", "title": "Read", "options": ["foreground"]}]}]})
    expect(registered["categories"] == ["story"], "registered the category")

    payload = {"aps": {"alert": {"title": "Breaking", "body": "Something happened"}, "category": "story"},
               "article": 42}
    delivery = client.call("notifications.deliver", {"payload": payload, "app": APP, "identifier": "story-42", "open": True})
    presentation = delivery["presentation"]
    expect(presentation["extension"] == "com.example.news.later", "the content extension serves the story")
    expect(presentation["view"]["children"][0]["text"] in ("loading", "updated"),
           "the first presentation says loading (or updated, when the extension's thread was first)")
    expect([action["identifier"] for action in presentation["actions"]] == ["read"], "the category's action shows")

    # The extension changes its view from a thread of its own, whenever that
    # thread runs: before the answer (then the answer shows it) or after (then
    # presentation.changed events do). It makes two host calls; an isolated
    # extension's arrive one by one, so a front end may see the text before the
    # height: it reads updates until both show, however long that takes.
    def final(shown):
        return shown["view"]["children"][0]["text"] == "updated" and shown["contentSize"]["height"] == 200

    changed = presentation
    while not final(changed):
        changed = client.event("presentation.changed")["presentation"]
    expect(changed["view"]["children"][0]["text"] == "updated", "the presentation was updated")
    expect(changed["contentSize"]["height"] == 200, "with the extension's new height")

    outcome = client.call("notifications.respond", {"app": APP, "identifier": "story-42", "action": "read"})
    expect(outcome["option"] == "dismissAndForwardAction", "the extension forwarded the action")
    forwarded = client.event("response.forwarded")
    expect(forwarded["actionIdentifier"] == "read" and forwarded["notification"]["identifier"] == "story-42",
           "the app received the forwarded response")
    taken = client.call("inbox.take", {"app": forwarded["app"], "ids": [forwarded["id"]]})
    expect(taken["taken"] == [forwarded["id"]], "the front end took the response out of the app's inbox")
    dismissed = client.event("notification.dismissed")
    expect(dismissed["reason"] == "response", "the notification was dismissed by the response")

    client.send("{not json")
    garbled = client.read(time.monotonic() + PATIENCE)
    expect(garbled["error"]["code"] == -32700, "malformed JSON gets a parse error")
    expect(client.call("notifications.list", {"app": APP})["notifications"] == [], "and the server goes on")

    app = Client(sys.argv[1])
    app.call("apps.foreground", {"app": APP, "foreground": True, "delegate": True})
    client.next_id += 1
    client.send(json.dumps({"jsonrpc": "2.0", "id": client.next_id, "method": "notifications.deliver",
                            "params": {"payload": payload, "app": APP, "identifier": "story-43"}}))
    asked = app.request("app.willPresent")
    expect(asked["id"] == "s1" and asked["params"]["notification"]["identifier"] == "story-43",
           "the app in the foreground is asked how to present the story")
    app.send(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": {"options": ["list"]}}))
    listed = client.answer(client.next_id)["result"]
    expect(listed["presentation"]["presentationOptions"] == ["list"], "presented as the app's delegate answered")
    print("all steps passed")


if __name__ == "__main__":
    main()
