#!/usr/bin/env python3
"""A wss:// server that completes the WebSocket handshake and then says nothing.

Used by the Home Assistant pin test: with the right pin LiveBridge connects and then times out
waiting for Home Assistant's auth_required; with a wrong pin it never gets that far.

    silent_wss_server.py CERT KEY READY_FIFO    (writes "PORT <n>\n" to READY_FIFO once listening)
"""
import base64
import hashlib
import socket
import ssl
import sys
import threading

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def serve(connection: socket.socket) -> None:
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(4096)
            if not chunk:
                return
            data += chunk
        key = ""
        for line in data.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-key":
                key = value.strip()
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        connection.sendall(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        while connection.recv(4096):
            pass
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()


def main() -> None:
    cert, key, ready = sys.argv[1:4]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    with open(ready, "w") as fifo:
        fifo.write(f"PORT {listener.getsockname()[1]}\n")
    while True:
        raw, _ = listener.accept()
        try:
            connection = context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            continue
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
