#!/usr/bin/env python3
"""Sends a Web Push message as an app's server does: with PyPI's pywebpush
(RFC 8291 encryption in the aes128gcm content coding of RFC 8188, through
http-ece; a VAPID signature, RFC 8292, when asked for), to the endpoint of
a registration given its public key and auth secret (what `push.register`
answers: base64url). For pyenv's python3, where pip installs
(`python3 -m pip install pywebpush`; .ci/run does it).

Usage:
  webpush-send.py --endpoint URL --public-key B64URL --auth B64URL
                  (--payload JSON | --payload-file FILE)
                  [--vapid] [--subject mailto:ADDRESS] [--ttl SECONDS] [--topic TOPIC] [--urgency LEVEL]
                  [--encrypt-only OUT]

It prints one JSON line: {"status": HTTP status, "bytes": the encrypted
body's length} (with --encrypt-only: writes the body to OUT and sends
nothing, {"bytes": …}). Exit status 0 when the push server took it (2xx),
1 otherwise, 2 for a wrong command line, 3 when pywebpush is missing.
"""
import argparse
import base64
import json
import sys

try:
    from pywebpush import WebPusher, webpush, WebPushException
except ImportError:
    print(json.dumps({"error": "pywebpush is not installed: python3 -m pip install pywebpush"}), flush=True)
    sys.exit(3)


def main():
    parser = argparse.ArgumentParser(description="Send a Web Push message with pywebpush.")
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--public-key", required=True, help="the registration's P-256 public key, base64url (65 bytes)")
    parser.add_argument("--auth", required=True, help="the registration's auth secret, base64url (16 bytes)")
    payload = parser.add_mutually_exclusive_group(required=True)
    payload.add_argument("--payload", help="the message: an APNs-style JSON payload")
    payload.add_argument("--payload-file")
    parser.add_argument("--vapid", action="store_true", help="sign with a new VAPID key (RFC 8292)")
    parser.add_argument("--subject", default="mailto:push@example.com")
    parser.add_argument("--ttl", type=int, default=60)
    parser.add_argument("--topic")
    parser.add_argument("--urgency", choices=["very-low", "low", "normal", "high"])
    parser.add_argument("--encrypt-only", metavar="OUT")
    options = parser.parse_args()

    if options.payload_file:
        with open(options.payload_file, "rb") as source:
            data = source.read()
    else:
        data = options.payload.encode()
    subscription = {"endpoint": options.endpoint, "keys": {"p256dh": options.public_key, "auth": options.auth}}
    headers = {}
    if options.topic:
        headers["Topic"] = options.topic
    if options.urgency:
        headers["Urgency"] = options.urgency

    if options.encrypt_only:
        encoded = WebPusher(subscription).encode(data, content_encoding="aes128gcm")
        body = encoded["body"]
        with open(options.encrypt_only, "wb") as out:
            out.write(body)
        print(json.dumps({"bytes": len(body)}), flush=True)
        return 0

    vapid_key = None
    claims = None
    if options.vapid:
        from py_vapid import Vapid02
        vapid = Vapid02()
        vapid.generate_keys()
        vapid_key = vapid
        claims = {"sub": options.subject}
    try:
        response = webpush(subscription, data=data, vapid_private_key=vapid_key, vapid_claims=claims,
                           content_encoding="aes128gcm", ttl=options.ttl, headers=headers or None)
    except WebPushException as error:
        status = error.response.status_code if error.response is not None else None
        print(json.dumps({"status": status, "error": str(error)}), flush=True)
        return 1
    length = int(response.request.headers.get("Content-Length", "0")) if response.request is not None else 0
    print(json.dumps({"status": response.status_code, "bytes": length}), flush=True)
    return 0 if 200 <= response.status_code < 300 else 1


if __name__ == "__main__":
    sys.exit(main())
