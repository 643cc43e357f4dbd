"""`planner serve --http HOST:PORT`: the same JSON-RPC bodies over HTTP POST.

Uses the standard library's single-threaded server, so each request runs on the main
thread and its time budget can interrupt it. The service has no authentication, so it
binds only loopback addresses unless `--allow-remote` says serving other hosts is meant.
"""

from __future__ import annotations

import ipaddress
import socket
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import TextIO

from planner.contract import RequestError
from planner.service import codes
from planner.service.jsonrpc import error_reply, handle_message
from planner.service.limits import Limits, too_large

DEFAULT_HOST = "127.0.0.1"


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` or `PORT` (loopback)."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise RequestError(codes.INVALID_PARAMS, f"--http expects HOST:PORT or PORT, got {text!r}")
    return (host.strip("[]") or DEFAULT_HOST, int(port))


def _loopback(host: str) -> bool:
    """True when every IPv4 address `host` names is a loopback one (the server binds IPv4)."""
    try:
        found = socket.getaddrinfo(host, None, socket.AF_INET, socket.SOCK_STREAM)
    except OSError as exc:
        raise RequestError(codes.INVALID_PARAMS, f"--http host {host!r} does not resolve: {exc}") from None
    return all(ipaddress.ip_address(entry[4][0]).is_loopback for entry in found)


def check_bind(address: tuple[str, int], allow_remote: bool) -> None:
    """Refuse a non-loopback bind unless it was asked for: anyone who reaches the port can plan."""
    host = address[0]
    if not allow_remote and not _loopback(host):
        raise RequestError(
            codes.NOT_LOOPBACK,
            f"--http {host} is not a loopback address and the service has no authentication; "
            f"bind {DEFAULT_HOST}, or pass --allow-remote to serve other hosts on purpose",
        )


def _error_body(code: str, message: str) -> bytes:
    return error_reply(RequestError(code, message)).encode("ascii")


def _handler_class(limits: Limits) -> type[BaseHTTPRequestHandler]:
    class JsonRpcHandler(BaseHTTPRequestHandler):
        server_version = "tile-planner"
        timeout = 30  # seconds a client may take to send its body; the server is single-threaded

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = self.headers.get("Content-Length", "")
            if not length.isdigit():
                self._send(411, _error_body(codes.INVALID_ENVELOPE, "a POST body needs a Content-Length"))
                return
            if int(length) > limits.max_bytes:
                self.close_connection = True
                self._send(413, error_reply(too_large(limits.max_bytes)).encode("ascii"))
                return
            reply = handle_message(self.rfile.read(int(length)), limits)
            if reply is None:
                self.send_response(204)
                self.end_headers()
            else:
                self._send(200, reply.encode("ascii"))

        def do_GET(self) -> None:
            self._send(405, _error_body(codes.INVALID_ENVELOPE, "POST a JSON-RPC 2.0 request"))

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: stdout and stderr belong to the caller."""

    return JsonRpcHandler


def make_server(address: tuple[str, int], limits: Limits) -> HTTPServer:
    return HTTPServer(address, _handler_class(limits))


def serve_http(address: tuple[str, int], limits: Limits, announce: TextIO) -> None:
    """Serve until interrupted; the bound address (a port 0 request gets a free port) goes to `announce`."""
    with make_server(address, limits) as server:
        host, port = server.server_address[:2]
        announce.write(f"planner: serving JSON-RPC on http://{host!s}:{port}/\n")
        announce.flush()
        server.serve_forever()
