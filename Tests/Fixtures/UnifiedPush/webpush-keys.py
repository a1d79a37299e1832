#!/usr/bin/env python3
"""A Web Push subscriber's side for the tests, with PyPI's cryptography and
http-ece (which pywebpush brings), for pyenv's python3:

  webpush-keys.py new             prints {"publicKey", "auth", "privateKey"}: a P-256 key pair
                                  (the public key uncompressed) and a 16-byte auth secret, base64url
                                  (the private key: its 32-byte scalar)
  webpush-keys.py decrypt PRIVATE AUTH BODY_BASE64
                                  prints the plaintext of an aes128gcm body (RFC 8291, RFC 8188)

What a registration's keys are and what the server does with a body, done
by the libraries app servers use: the tests check Tidings' side against it.
"""
import base64
import json
import os
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
import http_ece


def encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


if sys.argv[1:2] == ["new"]:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    scalar = key.private_numbers().private_value.to_bytes(32, "big")
    print(json.dumps({"publicKey": encode(public), "auth": encode(os.urandom(16)), "privateKey": encode(scalar)}))
elif sys.argv[1:2] == ["decrypt"] and len(sys.argv) == 5:
    key = ec.derive_private_key(int.from_bytes(decode(sys.argv[2]), "big"), ec.SECP256R1())
    body = base64.b64decode(sys.argv[4])
    sys.stdout.write(http_ece.decrypt(body, private_key=key, auth_secret=decode(sys.argv[3]), version="aes128gcm").decode())
else:
    sys.stderr.write(__doc__)
    sys.exit(2)
