#!/usr/bin/python3
"""A UnifiedPush distributor for the tests, written from the D-Bus
specification (DBUS_0.3.0, UnifiedPush's `specifications` repository).

Debian has no distributor package; this one is Debian's python3 with gi
(Gio's D-Bus). It owns org.unifiedpush.Distributor.NAME on the bus at
ADDRESS, exports org.unifiedpush.Distributor2 (or, with --interface 1,
only Distributor1) at /org/unifiedpush/Distributor, and is its own push
server: an HTTP server on 127.0.0.1 (port 0: the kernel's choice) where
each registration's endpoint is http://127.0.0.1:PORT/push/ID. Each body
POSTed there is handed to the connector's Message as it is, with the id
"m-N" (a counter). Register answers REGISTRATION_SUCCEEDED (Distributor1:
NEW_ENDPOINT), then calls the connector's NewEndpoint; Unregister answers,
then confirms with Unregistered.

Usage: unifiedpush-distributor.py ADDRESS FIFO STATE [--name NAME] [--interface 2|1]
(D-Bus activation can start it: ADDRESS "$DBUS_STARTER_ADDRESS" in the service's Exec line.)

It writes a JSON line on standard output for everything it does: ready
(with the bus name and the HTTP port), each call received (call), each call
made to the connector (sent, with its answer or error), each POST (post).
It reads commands, one a line, from FIFO:
  unregister TOKEN     drop the registration and call Unregistered (the distributor's own decision)
  refuse REASON        answer the next Registers REGISTRATION_FAILED with REASON
  accept               answer them REGISTRATION_SUCCEEDED again
  send TOKEN SIZE      call Message with SIZE bytes (0x41) directly, without HTTP
  forge NAME TOKEN     call NewEndpoint from another connection than the distributor's
  restart              exec itself again: the name is released, then owned by a new connection
  quit                 exit
Its registrations are kept in STATE (JSON) across a restart, as a real
distributor keeps them; the HTTP port, and so each endpoint, changes.

With --post URL FILE it is instead a sender: POSTs FILE's bytes to URL and
prints the HTTP status.
"""
import json
import os
import secrets
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

if len(sys.argv) >= 4 and sys.argv[1] == "--post":
    with open(sys.argv[3], "rb") as body:
        request = urllib.request.Request(sys.argv[2], data=body.read(), method="POST",
                                         headers={"TTL": "60", "Content-Encoding": "aes128gcm"})
    with urllib.request.urlopen(request) as answer:
        print(answer.status, flush=True)
    sys.exit(0)

from gi.repository import Gio, GLib  # noqa: E402

CONNECTOR_PATH = "/org/unifiedpush/Connector"
XML = {
    "2": """
<node>
  <interface name="org.unifiedpush.Distributor2">
    <method name="Register"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
    <method name="Unregister"><arg name="args" type="a{sv}" direction="in"/><arg name="res" type="a{sv}" direction="out"/></method>
  </interface>
</node>""",
    "1": """
<node>
  <interface name="org.unifiedpush.Distributor1">
    <method name="Register">
      <arg name="serviceName" type="s" direction="in"/><arg name="token" type="s" direction="in"/>
      <arg name="description" type="s" direction="in"/>
      <arg name="registrationResult" type="s" direction="out"/><arg name="registrationResultReason" type="s" direction="out"/>
    </method>
    <method name="Unregister"><arg name="token" type="s" direction="in"/></method>
  </interface>
</node>""",
}

arguments = sys.argv[1:]
address, fifo, state_path = arguments[0], arguments[1], arguments[2]
options = dict(zip(arguments[3::2], arguments[4::2]))
name = "org.unifiedpush.Distributor." + options.get("--name", "test")
version = options.get("--interface", "2")
connector_interface = "org.unifiedpush.Connector%s" % version

bus = None
port = 0
refusing = None
counter = [0]
# token -> {"service": bus name, "id": the endpoint's random part}
registrations = {}
if os.path.exists(state_path):
    with open(state_path) as kept:
        registrations = json.load(kept)


def record(**fields):
    print(json.dumps(fields), flush=True)


def save():
    with open(state_path + ".tmp", "w") as kept:
        json.dump(registrations, kept)
    os.replace(state_path + ".tmp", state_path)


def endpoint(token):
    return "http://127.0.0.1:%d/push/%s" % (port, registrations[token]["id"])


def answered(what, token, extra):
    """The callback of a call made to the connector: records its answer."""
    def done(connection, result):
        try:
            value = connection.call_finish(result)
            record(sent=what, token=token, answer=value.unpack()[0] if value.n_children() else None, **extra)
        except GLib.Error as error:
            record(sent=what, token=token, error=error.message, **extra)
    return done


def call_connector(service, member, token, fields, positional, extra=None, connection=None):
    """Calls the connector's `member`: Connector2 with the dictionary `fields`,
    Connector1 with `positional` (a tuple variant) and NO_REPLY_EXPECTED."""
    connection = connection or bus
    extra = extra or {}
    if version == "2":
        connection.call(service, CONNECTOR_PATH, connector_interface, member, GLib.Variant("(a{sv})", (fields,)),
                        GLib.VariantType("(a{sv})"), Gio.DBusCallFlags.NO_AUTO_START, -1, None,
                        answered(member, token, extra))
    else:
        message = Gio.DBusMessage.new_method_call(service, CONNECTOR_PATH, connector_interface, member)
        message.set_body(positional)
        message.set_flags(Gio.DBusMessageFlags.NO_REPLY_EXPECTED | Gio.DBusMessageFlags.NO_AUTO_START)
        connection.send_message(message, Gio.DBusSendMessageFlags.NONE)
        record(sent=member, token=token, answer=None, **extra)


def new_endpoint(token):
    registration = registrations.get(token)
    if registration is None:
        return False
    url = endpoint(token)
    call_connector(registration["service"], "NewEndpoint", token,
                   {"token": GLib.Variant("s", token), "endpoint": GLib.Variant("s", url)},
                   GLib.Variant("(ss)", (token, url)), {"endpoint": url})
    return False


def message(token, body, message_id):
    registration = registrations.get(token)
    if registration is None:
        record(dropped=token, bytes=len(body))
        return False
    data = GLib.Variant.new_from_bytes(GLib.VariantType("ay"), GLib.Bytes.new(body), True)
    call_connector(registration["service"], "Message", token,
                   {"token": GLib.Variant("s", token), "message": data, "id": GLib.Variant("s", message_id)},
                   GLib.Variant.new_tuple(GLib.Variant("s", token), data, GLib.Variant("s", message_id)),
                   {"id": message_id, "bytes": len(body)})
    return False


def unregistered(service, token):
    call_connector(service, "Unregistered", token, {"token": GLib.Variant("s", token)}, GLib.Variant("(s)", (token,)))
    return False


def distributor_call(connection, sender, path, interface, method, parameters, invocation):
    values = parameters.unpack()
    if version == "2":
        fields = values[0]
    elif method == "Register":
        fields = {"service": values[0], "token": values[1], "description": values[2]}
    else:
        fields = {"token": values[0]}
    record(call=method, interface=interface, sender=sender, **{k: v for k, v in fields.items() if isinstance(v, str)})
    token = fields.get("token", "")
    if method == "Register":
        service = fields.get("service", "")
        if refusing is not None or not token or not service:
            reason = refusing or "INTERNAL_ERROR"
            if version == "2":
                invocation.return_value(GLib.Variant("(a{sv})", ({"success": GLib.Variant("s", "REGISTRATION_FAILED"),
                                                                   "reason": GLib.Variant("s", reason)},)))
            else:
                invocation.return_value(GLib.Variant("(ss)", ("REGISTRATION_FAILED", reason)))
            return
        if token not in registrations:
            registrations[token] = {"service": service, "id": secrets.token_urlsafe(20)}
        registrations[token]["service"] = service
        save()
        if version == "2":
            invocation.return_value(GLib.Variant("(a{sv})", ({"success": GLib.Variant("s", "REGISTRATION_SUCCEEDED")},)))
        else:
            invocation.return_value(GLib.Variant("(ss)", ("NEW_ENDPOINT", "")))
        GLib.idle_add(new_endpoint, token)
    elif method == "Unregister":
        registration = registrations.pop(token, None)
        save()
        invocation.return_value(GLib.Variant("(a{sv})", ({},)) if version == "2" else None)
        if registration is not None:
            GLib.idle_add(unregistered, registration["service"], token)


class Push(BaseHTTPRequestHandler):
    """The push server: POST /push/ID hands the body to the registration's connector."""

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        wanted = self.path.rsplit("/", 1)[-1]
        token = next((t for t, r in list(registrations.items()) if r["id"] == wanted), None)
        if not self.path.startswith("/push/") or token is None:
            self.send_response(404)
            self.end_headers()
            return
        counter[0] += 1
        message_id = "m-%d" % counter[0]
        record(post=self.path, token=token, bytes=len(body), id=message_id)
        GLib.idle_add(message, token, body, message_id)
        self.send_response(201)
        self.send_header("Location", "/message/" + message_id)
        self.end_headers()

    def log_message(self, *args):
        pass


def command(channel, condition):
    global refusing
    for line in channel.readlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "unregister" and len(words) == 2:
            registration = registrations.pop(words[1], None)
            save()
            if registration is not None:
                unregistered(registration["service"], words[1])
        elif words[0] == "refuse" and len(words) == 2:
            refusing = words[1]
            record(refusing=refusing)
        elif words[0] == "accept":
            refusing = None
            record(refusing=None)
        elif words[0] == "send" and len(words) == 3:
            message(words[1], b"A" * int(words[2]), "s-%s" % words[2])
        elif words[0] == "forge" and len(words) == 3:
            forger = Gio.DBusConnection.new_for_address_sync(address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
                                                             | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
            token = words[2]
            url = "https://forged.example/" + token
            call_connector(words[1], "NewEndpoint", token,
                           {"token": GLib.Variant("s", token), "endpoint": GLib.Variant("s", url)},
                           GLib.Variant("(ss)", (token, url)), {"forged": True}, connection=forger)
        elif words[0] == "restart":
            record(restarting=name)
            bus.flush_sync(None)
            os.execv(sys.executable, [sys.executable] + sys.argv)
        elif words[0] == "quit":
            os._exit(0)
    return True


def acquired(connection, acquired_name):
    record(ready=acquired_name, port=port, pid=os.getpid(), interface=version)


def main():
    global bus, port
    server = ThreadingHTTPServer(("127.0.0.1", 0), Push)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bus = Gio.DBusConnection.new_for_address_sync(address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
                                                  | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    # Gone with its bus (a test's, or the session's): a D-Bus-activated double is nobody else's child.
    bus.connect("closed", lambda *ignored: os._exit(0))
    info = Gio.DBusNodeInfo.new_for_xml(XML[version]).interfaces[0]
    bus.register_object("/org/unifiedpush/Distributor", info, distributor_call, None, None)
    descriptor = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    channel = GLib.IOChannel.unix_new(descriptor)
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN, command)
    Gio.bus_own_name_on_connection(bus, name, Gio.BusNameOwnerFlags.NONE, acquired, None)
    GLib.MainLoop().run()


main()
