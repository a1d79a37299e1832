#!/usr/bin/env python3
"""Checks a running `tidings serve` against its own OpenRPC document with a
JSON Schema validator that is not ours (PyPI's `jsonschema`): the document
`server.protocol` answers is the committed one, every schema in it is a valid
draft-7 schema, the answers to a broad set of calls and every event they push
validate against the schemas of their method and event, and params that the
schemas refuse the server refuses too, with -32602 and the parameter named.

Usage: schema_check.py SOCKET COMMITTED_OPENRPC_JSON
(exits 0 when every check passed; prints each check)
"""
import json
import os
import sys

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from front_end import Client, expect  # noqa: E402  (the same line-framed client)

APP = "com.example.news"
# Refusals that are not -32602 by design: Apple's own code for a negative badge (UNErrorCodeBadgeInputInvalid).
OTHER_REFUSALS = {("badge.set", "count"): -32008}


class Document:
    """The OpenRPC document, and validation of values against its schemas."""

    def __init__(self, document):
        self.document = document
        self.methods = {method["name"]: method for method in document["methods"]}
        self.events = {event["name"]: event for event in document["x-events"]}
        self.requests = {request["name"]: request for request in document["x-server-requests"]}

    def validator(self, schema):
        # The schema inside a document that holds the components its $refs point into.
        return jsonschema.Draft7Validator({"components": self.document["components"], "allOf": [schema]})

    def errors(self, value, schema):
        return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
                for error in self.validator(schema).iter_errors(value)]

    def every_schema(self):
        for name, schema in self.document["components"]["schemas"].items():
            yield f"components/schemas/{name}", schema
        for kind, entries in (("method", self.document["methods"]), ("event", self.document["x-events"]),
                              ("server request", self.document["x-server-requests"])):
            for entry in entries:
                yield f"{kind} {entry['name']} params", entry["x-params-schema"]
                for param in entry["params"]:
                    yield f"{kind} {entry['name']} param {param['name']}", param["schema"]
                if "result" in entry:
                    yield f"{kind} {entry['name']} result", entry["result"]["schema"]


class Checked(Client):
    """A client whose every answer and event is checked against the document."""

    def __init__(self, path, document):
        super().__init__(path)
        self.document = document
        self.checked_events = 0
        self.methods_checked = set()

    def call(self, method, params=None):
        result = super().call(method, params)
        problems = self.document.errors(result, self.document.methods[method]["result"]["schema"])
        expect(not problems, f"{method}'s answer fits its result schema {problems}")
        self.methods_checked.add(method)
        return result

    def file(self, message):
        super().file(message)
        if isinstance(message, dict) and "method" in message and "id" not in message:
            event = self.document.events.get(message["method"])
            expect(event is not None, f"the event {message['method']} is in x-events")
            problems = self.document.errors(message.get("params"), event["x-params-schema"])
            expect(not problems, f"the event {message['method']} fits its params schema {problems}")
            self.checked_events += 1


def resolve(document, schema):
    """The schema `schema` refers to, when it is a $ref (or an allOf of one)."""
    while True:
        if "$ref" in schema:
            schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        elif "allOf" in schema and len(schema["allOf"]) == 1:
            schema = schema["allOf"][0]
        else:
            return schema


def wrong_type(document, schema):
    """A value whose JSON type the schema does not allow (None when it allows every type)."""
    schema = resolve(document, schema)
    allowed = set()
    for branch in schema.get("anyOf", [schema]):
        branch = resolve(document, branch)
        kind = branch.get("type")
        if kind is None and "anyOf" in branch:
            return wrong_type(document, branch)
        if kind is None:
            return None
        allowed.add(kind)
    for candidate, kinds in ((12345, {"integer", "number"}), ("text", {"string"}), (True, {"boolean"}),
                             ({"x": 1}, {"object"}), ([1], {"array"})):
        if not (kinds & allowed):
            return candidate
    return None


def valid(document, schema):
    """A value the schema takes, of the simplest kind (an empty object for an object)."""
    schema = resolve(document, schema)
    if "anyOf" in schema:
        return valid(document, schema["anyOf"][0])
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
    if kind == "array":
        return [valid(document, schema["items"])] if schema.get("minItems") else []
    return {"string": "x", "boolean": False, "object": {}}.get(kind)


def out_of_bounds(schema):
    """Values within the schema's type that the schema refuses: beyond a bound, outside an enum, empty."""
    if "minimum" in schema:
        yield schema["minimum"] - 1
    if "exclusiveMinimum" in schema:
        yield schema["exclusiveMinimum"]
    if "maximum" in schema:
        yield schema["maximum"] + 1
    if "enum" in schema:
        yield "no-such-choice"
    if schema.get("minLength") == 1:
        yield ""
    if schema.get("minItems") == 1:
        yield []
    if schema.get("type") == "array" and "items" in schema:
        for element in out_of_bounds(schema["items"]):
            yield [element]


def check_refusals(client, document):
    """Each parameter given a value its schema refuses: the schema refuses the
    params, and the server answers -32602 naming the parameter."""
    count = 0
    for name, method in document.methods.items():
        for param in method["params"]:
            schema = resolve(document.document, param["schema"])
            values = [wrong_type(document.document, schema)] + list(out_of_bounds(schema))
            for value in values:
                if value is None:
                    continue
                # The other required parameters valid, so that the refusal is this one's.
                params = {other["name"]: valid(document.document, other["schema"])
                          for other in method["params"] if other["required"] and other is not param}
                params[param["name"]] = value
                expect(document.errors(params, method["x-params-schema"]),
                       f"{name}: the schema refuses {param['name']} = {json.dumps(value)}")
                client.next_id += 1
                client.send(json.dumps({"jsonrpc": "2.0", "id": client.next_id, "method": name, "params": params}))
                answer = client.answer(client.next_id)
                error = answer.get("error")
                code = OTHER_REFUSALS.get((name, param["name"]), -32602) if value is not values[0] else -32602
                expect(error is not None and error["code"] == code,
                       f"{name}: the server refuses {param['name']} = {json.dumps(value)} with {code} ({answer})")
                if value is values[0]:
                    paths = [diagnostic.get("path", "") for diagnostic in (error.get("data") or {}).get("diagnostics", [])]
                    expect(any(path == "/" + param["name"] or path.startswith("/" + param["name"] + "/") for path in paths),
                           f"{name}: the refusal of a wrong-typed {param['name']} names it ({paths})")
                count += 1
        if method.get("x-params-schema", {}).get("oneOf"):
            both = {}
            for choice in method["x-params-schema"]["oneOf"]:
                key = choice["required"][0]
                both[key] = {"array": ["x"], "integer": 1, "string": "x"}.get(
                    resolve(document.document, method["x-params-schema"]["properties"][key]).get("type"), "x")
            both.update({param["name"]: "x" for param in method["params"] if param["required"]})
            if "ids" in both:
                both["ids"] = [1]
            expect(document.errors(both, method["x-params-schema"]), f"{name}: the schema refuses both of {list(both)}")
            client.next_id += 1
            client.send(json.dumps({"jsonrpc": "2.0", "id": client.next_id, "method": name, "params": both}))
            answer = client.answer(client.next_id)
            expect(answer.get("error", {}).get("code") == -32602, f"{name}: the server refuses both of the two ({answer})")
            count += 1
    return count


def check_server_request(socket_path, document, client, payload):
    """The server's own request (app.willPresent) fits its params schema, and
    an answer that fits its result schema decides the presentation."""
    app = Checked(socket_path, document)
    app.call("apps.foreground", {"app": APP, "foreground": True, "delegate": True})
    client.next_id += 1
    client.send(json.dumps({"jsonrpc": "2.0", "id": client.next_id, "method": "notifications.deliver",
                            "params": {"payload": payload, "app": APP, "identifier": "story-3"}}))
    asked = app.request("app.willPresent")
    request = document.requests["app.willPresent"]
    problems = document.errors(asked["params"], request["x-params-schema"])
    expect(not problems, f"app.willPresent's params fit their schema {problems}")
    answer = {"options": ["list"]}
    expect(not document.errors(answer, request["result"]["schema"]), "the answer fits the result schema")
    app.send(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": answer}))
    delivered = client.answer(client.next_id)["result"]
    problems = document.errors(delivered, document.methods["notifications.deliver"]["result"]["schema"])
    expect(not problems and delivered["presentation"]["presentationOptions"] == ["list"],
           f"presented as the delegate answered, the answer fitting its schema {problems}")
    app.call("apps.foreground", {"app": APP, "foreground": False})


def main():
    socket_path, committed_path = sys.argv[1], sys.argv[2]
    plain = Client(socket_path)
    answered = plain.call("server.protocol")
    with open(committed_path, encoding="utf-8") as committed:
        expect(answered == json.load(committed), "server.protocol answers the committed openrpc.json")
    expect(answered["openrpc"].startswith("1."), "it is an OpenRPC 1.x document")
    document = Document(answered)
    for where, schema in document.every_schema():
        jsonschema.Draft7Validator.check_schema(schema)
    print(f"ok: every schema of the document is a valid draft-7 schema")

    client = Checked(socket_path, document)
    client.call("events.subscribe")
    client.call("server.describe")
    client.call("server.ping")
    client.call("server.protocol")
    client.call("extensions.list")
    client.call("categories.register", {"app": APP, "categories": [
        {"identifier": "story", "actions": [
            {"identifier": "read", "title": "Read", "options": ["foreground"]},
            {"identifier": "reply", "title": "Reply", "textInput": {"buttonTitle": "Send", "placeholder": "Say"}}],
         "options": ["customDismissAction"]}]})
    client.call("categories.list")
    client.call("apps.register", {"app": APP, "name": "News", "showPreviews": "always"})
    client.call("authorization.decide", {"app": APP, "decision": "allow"})
    client.call("authorization.request", {"app": APP, "options": ["alert", "sound", "badge"]})
    client.call("authorization.settings", {"app": APP})
    client.call("apps.list")
    client.call("badge.set", {"app": APP, "count": 3})

    apns = {"aps": {"alert": {"title": "Breaking", "body": "Something happened"}, "category": "story",
                    "sound": "default", "badge": 4}, "article": 42}
    client.call("notifications.deliver", {"payload": apns, "app": APP, "identifier": "story-1"})
    client.call("notifications.deliver", {"payload": apns, "app": APP, "identifier": "story-2", "open": True, "answer": "presentation"})
    request = {"identifier": "local-1", "content": {"title": "Local", "body": "A request", "categoryIdentifier": "story",
                                                      "threadIdentifier": "t", "userInfo": {"k": [1, 2]}}}
    client.call("notifications.deliver", {"payload": request, "app": APP, "width": 320})
    client.call("notifications.deliver", {"payload": {"aps": {"content-available": 1}, "sync": True}, "app": APP})
    client.call("notifications.presentation", {"app": APP, "identifier": "story-1"})
    client.call("notifications.list", {"app": APP, "limit": 2})
    client.call("notifications.open", {"app": APP, "identifier": "story-1"})
    client.call("notifications.close", {"app": APP, "identifier": "story-1"})
    client.call("notifications.respond", {"app": APP, "identifier": "local-1", "action": "reply", "text": "hello"})
    client.call("notifications.respond", {"app": APP, "identifier": "story-2", "action": "default"})
    entries = client.call("inbox.list", {"app": APP})["entries"]
    expect(len(entries) >= 2, "the inbox holds the responses and the background notification")
    client.call("inbox.take", {"app": APP, "upTo": entries[-1]["id"]})

    for trigger in ({"timeInterval": 3600, "repeats": False},
                    {"dateMatching": {"hour": 8, "minute": 30, "timeZone": "Europe/Berlin"}, "repeats": True},
                    {"region": {"identifier": "office", "latitude": 48.85, "longitude": 2.35, "radius": 100,
                                "notifyOnEntry": True, "notifyOnExit": False}}):
        client.call("requests.add", {"app": APP, "request": {
            "identifier": next(iter(trigger)), "content": {"title": "Later", "categoryIdentifier": "story"},
            "trigger": trigger}})
    client.call("requests.pending", {"app": APP})
    client.call("location.update", {"latitude": 48.85, "longitude": 2.35, "accuracy": 5})
    client.call("requests.remove", {"app": APP, "identifiers": ["timeInterval"]})
    check_server_request(socket_path, document, client, apns)
    client.call("notifications.remove", {"app": APP})
    client.call("events.unsubscribe")
    expect(client.checked_events >= 10, f"{client.checked_events} events fit their schemas")
    print(f"ok: {len(client.methods_checked)} of {len(document.methods)} methods' answers checked")

    refused = check_refusals(plain, document)
    print(f"ok: {refused} invalid params refused by both the schema and the server")
    print("all checks passed")


if __name__ == "__main__":
    main()
