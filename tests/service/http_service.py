"""A real `planner serve --http` on a free loopback port, for the HTTP tests and the HTTP soak."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

VERSION = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "planner.version"}).encode()


def read_reply(connection: socket.socket) -> tuple[int, Any]:
    """The status and JSON body of the next reply on `connection` (always `application/json`)."""
    response = http.client.HTTPResponse(connection)
    response.begin()
    assert response.getheader("Content-Type") == "application/json"
    return response.status, json.loads(response.read())


class Served:
    """The service's process, its port and its stderr lines (drained by a thread as they come)."""

    def __init__(self, *serve_args: str, env: dict[str, str] | None = None) -> None:
        command = [sys.executable, "-m", "planner.cli", "serve", "--http", "127.0.0.1:0", *serve_args]
        env = env or {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
        assert self.process.stderr is not None
        announced = self.process.stderr.readline().decode()
        self.port = int(announced.rsplit(":", 1)[1].strip().rstrip("/"))
        self.log: list[str] = []
        self._drain = threading.Thread(target=self._collect, daemon=True)
        self._drain.start()

    def _collect(self) -> None:
        assert self.process.stderr is not None
        self.log.extend(line.decode() for line in self.process.stderr)

    def connect(self, source: str = "127.0.0.1", timeout: float = 30.0) -> socket.socket:
        """A connection from `source` (any 127.0.0.x: each is an address of its own to the service)."""
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout, source_address=(source, 0))

    def client(self, timeout: float = 30.0) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def raw(self, data: bytes, source: str = "127.0.0.1") -> tuple[int, Any]:
        """Send raw bytes on a fresh connection from `source`; the status and JSON body of the reply."""
        with self.connect(source) as connection:
            connection.sendall(data)
            return read_reply(connection)

    def post(self, body: bytes, source: str = "127.0.0.1") -> tuple[int, Any]:
        head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        return self.raw(head + body, source)

    def close(self) -> str:
        """Stop the service the way an operator does (Ctrl-C: exit 128 + SIGINT); its stderr."""
        self.process.send_signal(signal.SIGINT)
        assert self.process.wait(timeout=30) == 128 + signal.SIGINT
        self._drain.join(timeout=5)
        return "".join(self.log)


@contextmanager
def http_service(*serve_args: str) -> Iterator[Served]:
    served = Served(*serve_args)
    try:
        yield served
    finally:
        if served.process.poll() is None:
            served.process.kill()
            served.process.wait()
