#!/usr/bin/env python3
"""How long `tidings serve` takes to follow a manifest edit: from renaming an
edited Info.plist into place to the first delivery the new category reaches.

Usage (from the repository's root, after `swift build`):
    python3 Scripts/reload-latency.py [TIDINGS] [--rounds N]
TIDINGS defaults to the debug build's tidings. Uses the BuildStatus sample.
Prints each round's milliseconds and their median.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 10
    tidings = args[0] if args else ".build/debug/tidings"
    products = os.path.dirname(tidings)
    work = tempfile.mkdtemp(prefix="tidings-reload-")
    extensions = os.path.join(work, "extensions")
    subprocess.run([tidings, "install", "Manifests/BuildStatus.plist", os.path.join(products, "libBuildStatus.so"),
                    "Plugins/BuildStatus/MainInterface.json", "--into", extensions], check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(work, "tidings.sock")
    server = subprocess.Popen([tidings, "serve", "--socket", path, "--state", os.path.join(work, "state"),
                               "--extensions", extensions], env=dict(os.environ, HOME=work), stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(path):
            time.sleep(0.01)
        time.sleep(0.1)
        client = socket.socket(socket.AF_UNIX)
        client.connect(path)
        stream = client.makefile("rwb")
        counter = [0]

        def serving():
            counter[0] += 1
            request = {"jsonrpc": "2.0", "id": counter[0], "method": "notifications.deliver",
                       "params": {"app": "com.example.ci", "identifier": f"n{counter[0]}",
                                  "payload": {"aps": {"alert": "hi", "category": "fresh"}}}}
            stream.write((json.dumps(request) + "\n").encode())
            stream.flush()
            while True:
                message = json.loads(stream.readline())
                if message.get("id") == counter[0]:
                    return message["result"]["presentation"]["extension"]

        manifest = os.path.join(extensions, "BuildStatus.appex", "Info.plist")
        original = open(manifest).read()
        edited = original.replace("<string>build-status</string>", "<string>build-status</string><string>fresh</string>")
        assert edited != original, "the sample manifest changed shape"
        times = []
        for round_number in range(rounds * 2):
            adding = round_number % 2 == 0
            want = "com.example.ci.build-status" if adding else None
            started = time.monotonic()
            with open(manifest + ".new", "w") as handle:
                handle.write(edited if adding else original)
            os.rename(manifest + ".new", manifest)
            while serving() != want:
                if time.monotonic() - started > 5:
                    raise SystemExit("no reload within 5 s")
            times.append((time.monotonic() - started) * 1000)
            time.sleep(0.1)
        print("reload latency (ms):", " ".join(f"{t:.1f}" for t in times))
        print(f"median {statistics.median(times):.1f} ms, max {max(times):.1f} ms over {len(times)} edits")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
