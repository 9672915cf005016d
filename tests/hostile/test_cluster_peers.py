"""Issue 27 class 13: ``--cluster ADDRESS`` pointing at a peer that is not a Dask scheduler.
Fake peers on 127.0.0.1 (an HTTP server, garbage bytes, a frame header announcing exabytes or a
few GB, a peer that accepts and never answers) must give exit 2 naming the address, quickly:
the CLI runs in a subprocess bounded by a timeout (before the probe, Dask failed with a
traceback (exit 4), allocated the announced frame or hung for ever); and a real scheduler still
passes the probe."""
from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from helpers import needs_dask

pytestmark = needs_dask

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "tests" / "fixtures" / "subgraphs" / "loop_fixed" / "model.xml"


@contextmanager
def peer(serve: Callable[[socket.socket], None]) -> Iterator[str]:
    """A listening socket on 127.0.0.1 whose connections a thread hands to ``serve``."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()
    held: list[socket.socket] = []

    def loop() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            held.append(conn)
            try:
                serve(conn)
            except OSError:
                pass
    t = threading.Thread(target=loop, daemon=True)
    t.start()
    try:
        yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        stop.set()
        t.join(5)
        for c in held:
            c.close()
        srv.close()


def http(conn: socket.socket) -> None:
    conn.settimeout(5)
    conn.recv(4096)                       # whatever the client sends first
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    conn.close()


def garbage(conn: socket.socket) -> None:
    conn.sendall(bytes(range(7, 40)) * 3)
    conn.close()


def frame_of(n: int) -> Callable[[socket.socket], None]:
    def serve(conn: socket.socket) -> None:
        conn.sendall(struct.pack("<Q", n) + b"\0" * 64)      # and then nothing more
    return serve


def silent(conn: socket.socket) -> None:
    """Accept and never answer (the connection stays open until the test ends)."""


def run_cli(address: str, tmp_path: Path) -> subprocess.CompletedProcess:
    (tmp_path / "in").mkdir(exist_ok=True)
    np.save(tmp_path / "in" / "a.npy", np.ones((2, 3), np.float32))
    env = {**os.environ, "CI": "true"}
    return subprocess.run([sys.executable, "-m", "irrun", str(MODEL), "--input", str(tmp_path / "in"),
                           "--output", str(tmp_path / "out"), "--cluster", address],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=10)


@pytest.mark.parametrize("serve, why", [
    (http, "announces"),                          # "HTTP/1.1" read as a length
    (garbage, "announces"),
    (frame_of(5 << 60), "announces 5764607523034234880 bytes"),   # several exabytes
    (frame_of(3 << 30), "announces 3221225472 bytes"),            # a few GB: no longer allocated
    (silent, "sent no Dask handshake within"),
], ids=["http", "garbage", "exabyte_frame", "gigabyte_frame", "silent"])
def test_a_peer_that_is_not_a_scheduler_is_refused(serve, why, tmp_path):
    with peer(serve) as address:
        r = run_cli(address, tmp_path)
    assert r.returncode == 2, r.stderr
    assert address in r.stderr and why in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_closed_port_is_refused_naming_it(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                               # nothing listens there now
    r = run_cli(f"tcp://127.0.0.1:{port}", tmp_path)
    assert r.returncode == 2 and f"127.0.0.1:{port}" in r.stderr and "cannot reach" in r.stderr, r.stderr


def test_a_real_scheduler_passes_the_probe():
    """The probe accepts what distributed's own scheduler sends (then closes without harm)."""
    distributed = pytest.importorskip("distributed")
    from irrun.distributed.cluster import probe

    async def main() -> None:
        async with distributed.Scheduler(host="127.0.0.1", port=0, dashboard_address=None) as s:
            import asyncio
            await asyncio.get_running_loop().run_in_executor(None, probe, s.address)
    import asyncio
    asyncio.run(main())
