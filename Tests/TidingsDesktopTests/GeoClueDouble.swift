import Foundation
import Glibc
import Testing
import TestSupport
import TidingsBase

/// A GeoClue2 test double on a private bus: Debian's python3-gi exporting,
/// with Gio, the Manager (`GetClient`), one client (`DesktopId`,
/// `RequestedAccuracyLevel`, `DistanceThreshold`, `Start`, `Stop`,
/// `LocationUpdated`) and a Location object per position. It owns
/// `org.freedesktop.GeoClue2`, writes each call it receives as a JSON line
/// into its log (`calls`), and moves the device when told (`move`, a line
/// on a FIFO it reads), emitting `LocationUpdated` like GeoClue does.
final class GeoClueDouble: @unchecked Sendable {
    /// The script's process, its log and its FIFO.
    private let double: ScriptedDouble
    /// The double's process.
    var process: BackgroundProcess { double.process }

    /// Starts the double on the bus at `address`, its files in `directory`; returns once it owns its name.
    init(address: String, in directory: TemporaryDirectory) throws {
        let script = try directory.write(Self.script, to: "geoclue-double.py")
        double = try ScriptedDouble(path: script, [address, ScriptedDouble.fifoArgument], label: "geoclue-double", in: directory)
        _ = try waitFor("ready") { _ in true }
    }

    /// What the double logged: each call it received (`call`), each position it emitted (`emitted`), `ready`.
    var lines: [JSON] { double.lines }

    /// The calls received, in order: `GetClient`, `Set` (with `property` and `value`), `Start`, `Stop`.
    var calls: [JSON] { double.lines("call") }

    /// Waits for a line with the member `key` for which `condition` holds; the first.
    @discardableResult
    func waitFor(_ key: String, _ condition: (JSON) -> Bool) throws -> JSON {
        try double.waitFor(key, condition)
    }

    /// Waits for the `count`-th call `method` (1: the first).
    @discardableResult
    func waitForCall(_ method: String, count: Int = 1) throws -> JSON {
        try double.waitFor("call", count: count) { $0["call"] == .string(method) }
    }

    /// Moves the device to `latitude`, `longitude` with `accuracy` metres: a new Location, and `LocationUpdated`.
    func move(_ latitude: Double, _ longitude: Double, accuracy: Double) throws {
        try double.send("move \(latitude) \(longitude) \(accuracy)")
    }

    /// The double: GeoClue2's Manager, Client and Location interfaces with Gio's object export.
    static let script = #"""
import json, os, sys
from gi.repository import Gio, GLib

XML = """
<node>
  <interface name="org.freedesktop.GeoClue2.Manager">
    <method name="GetClient"><arg name="client" type="o" direction="out"/></method>
    <method name="CreateClient"><arg name="client" type="o" direction="out"/></method>
  </interface>
  <interface name="org.freedesktop.GeoClue2.Client">
    <property name="Location" type="o" access="read"/>
    <property name="DistanceThreshold" type="u" access="readwrite"/>
    <property name="TimeThreshold" type="u" access="readwrite"/>
    <property name="DesktopId" type="s" access="readwrite"/>
    <property name="RequestedAccuracyLevel" type="u" access="readwrite"/>
    <property name="Active" type="b" access="read"/>
    <method name="Start"/>
    <method name="Stop"/>
    <signal name="LocationUpdated"><arg name="old" type="o"/><arg name="new" type="o"/></signal>
  </interface>
  <interface name="org.freedesktop.GeoClue2.Location">
    <property name="Latitude" type="d" access="read"/>
    <property name="Longitude" type="d" access="read"/>
    <property name="Accuracy" type="d" access="read"/>
    <property name="Altitude" type="d" access="read"/>
    <property name="Speed" type="d" access="read"/>
    <property name="Heading" type="d" access="read"/>
    <property name="Description" type="s" access="read"/>
  </interface>
</node>
"""
node = Gio.DBusNodeInfo.new_for_xml(XML)
manager_info, client_info, location_info = node.interfaces
CLIENT = "/org/freedesktop/GeoClue2/Client/1"
state = {"props": {"DistanceThreshold": 0, "TimeThreshold": 0, "DesktopId": "", "RequestedAccuracyLevel": 0},
         "active": False, "location": "/", "count": 0, "locations": {}}
bus = None

def record(**fields):
    print(json.dumps(fields), flush=True)

def manager_call(connection, sender, path, interface, method, parameters, invocation):
    record(call=method, sender=sender)
    invocation.return_value(GLib.Variant("(o)", (CLIENT,)))

def client_call(connection, sender, path, interface, method, parameters, invocation):
    state["active"] = method == "Start"
    record(call=method, sender=sender)
    invocation.return_value(None)

def client_get(connection, sender, path, interface, name):
    if name == "Location": return GLib.Variant("o", state["location"])
    if name == "Active": return GLib.Variant("b", state["active"])
    value = state["props"][name]
    return GLib.Variant("s" if name == "DesktopId" else "u", value)

def client_set(connection, sender, path, interface, name, value):
    state["props"][name] = value.unpack()
    record(call="Set", property=name, value=value.unpack())
    return True

def location_get(connection, sender, path, interface, name):
    values = state["locations"].get(path)
    if values is None: return None
    if name == "Description": return GLib.Variant("s", "")
    return GLib.Variant("d", values.get(name, -1.7976931348623157e308 if name == "Altitude" else -1.0))

def move(latitude, longitude, accuracy):
    state["count"] += 1
    path = "/org/freedesktop/GeoClue2/Client/1/Location/%d" % state["count"]
    state["locations"][path] = {"Latitude": latitude, "Longitude": longitude, "Accuracy": accuracy}
    bus.register_object(path, location_info, None, location_get, None)
    old = state["location"]
    state["location"] = path
    bus.emit_signal(None, CLIENT, "org.freedesktop.GeoClue2.Client", "LocationUpdated", GLib.Variant("(oo)", (old, path)))
    record(emitted=path, latitude=latitude, longitude=longitude, accuracy=accuracy)

def command(channel, condition):
    for line in channel.readlines():
        words = line.split()
        if words and words[0] == "move":
            move(*(float(w) for w in words[1:4]))
    return True

def acquired(connection, name):
    record(ready=name)

def main():
    global bus
    address, fifo = sys.argv[1], sys.argv[2]
    bus = Gio.DBusConnection.new_for_address_sync(address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    bus.register_object("/org/freedesktop/GeoClue2/Manager", manager_info, manager_call, None, None)
    bus.register_object(CLIENT, client_info, client_call, client_get, client_set)
    descriptor = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    channel = GLib.IOChannel.unix_new(descriptor)
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN, command)
    Gio.bus_own_name_on_connection(bus, "org.freedesktop.GeoClue2", Gio.BusNameOwnerFlags.NONE, acquired, None)
    GLib.MainLoop().run()

main()
"""#
}
