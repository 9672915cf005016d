"""A local Dask cluster whose worker processes never import from the user's working directory."""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from ..errors import InputError, UnsupportedError, printable

INSTALL_HINT = "pip install 'irrun[dask]'"

#: Dask's statistical profiler samples every thread's stack every 10 ms under the GIL: on a
#: Python-heavy interpreter like irrun that cost up to half the throughput (README "Many inputs").
WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


def require_dask():
    """Import ``distributed`` or say how to install it (exit code 3, like ``--plot``)."""
    try:
        import distributed
    except ImportError:
        raise UnsupportedError(f"running on several workers needs Dask: {INSTALL_HINT}") from None
    return distributed


def _findable(name: str, path: list[str]) -> bool:
    """Whether a fresh interpreter with ``sys.path == path`` would find the package ``name``
    (through ``path`` or a meta-path finder such as an editable install's)."""
    from importlib.machinery import PathFinder
    if PathFinder.find_spec(name, path) is not None:
        return True
    for finder in sys.meta_path:
        if finder is PathFinder or not hasattr(finder, "find_spec"):
            continue
        with contextlib.suppress(Exception):
            if finder.find_spec(name, None) is not None and "frozen" not in repr(finder).lower():
                return True
    return False


@contextlib.contextmanager
def safe_spawn() -> Iterator[None]:
    """Worker processes must not import from the user's working directory. Dask starts them with
    multiprocessing's *spawn*: a fresh ``python -c ...`` (which puts the current directory first
    on ``sys.path`` while it boots) that then copies this process's ``sys.path``, where ``''``
    stands for the working directory. While the cluster runs, ``PYTHONSAFEPATH=1`` (Python 3.11+)
    keeps the booting child's path clean and ``sys.path`` here leaves out ``''`` and the working
    directory; both are restored afterwards. (On Python 3.10 only the second applies.)

    One exception: a user's script run as ``python script.py`` from its own directory. Spawn
    runs that script again in every worker (as ``__mp_main__``, for its ``if __name__ ==
    "__main__"`` guard), so its directory stays: the user chose to run code from there."""
    cwd = os.path.realpath(os.getcwd())
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    script_dir = os.path.realpath(os.path.dirname(main_file)) if main_file else None
    clean = [p for p in sys.path if p and (os.path.realpath(p) != cwd or os.path.realpath(p) == script_dir)]
    if not _findable("irrun", clean):
        raise UnsupportedError("irrun is imported from the working directory, which the worker "
                               "processes must not import from; install it (pip install -e .) first")
    saved_path, saved_env = sys.path[:], os.environ.get("PYTHONSAFEPATH")
    sys.path[:] = clean
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = saved_env


@contextlib.contextmanager
def local_cluster(workers: int, threads_per_worker: int = 1) -> Iterator[Any]:
    """A Dask ``Client`` on a new local cluster of ``workers`` processes, closed on exit. The
    workers never import from the working directory (:func:`safe_spawn`); the cluster talks TLS
    with throw-away certificates when ``cryptography`` is installed, so other local users cannot
    submit work to it; scratch space is a private temporary directory; no dashboard, and Dask's
    statistical profiler off (:data:`WORKER_CONFIG`)."""
    distributed = require_dask()
    import dask
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    try:
        import cryptography  # noqa: F401
        security = True          # Security.temporary(): TLS with certificates made for this cluster
    except ImportError:
        security = None          # plain TCP on 127.0.0.1
    scratch = tempfile.mkdtemp(prefix="irrun-dask-")
    try:
        with safe_spawn(), dask.config.set(WORKER_CONFIG):
            try:
                cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
                    dashboard_address=None, local_directory=scratch, security=security,
                    silence_logs=logging.CRITICAL)
            except Exception as e:       # e.g. a worker whose __main__ script cannot import
                cause = e.__cause__ or e
                raise InputError(f"could not start a local Dask cluster: {type(cause).__name__}: {cause}"
                                 ) from None
            with cluster, distributed.Client(cluster) as client:
                yield client
    finally:
        shutil.rmtree(scratch, ignore_errors=True)




#: Seconds a scheduler has to accept a connection and send its handshake (a few ms on a LAN).
PROBE_SECONDS = 4.0
#: The most a handshake frame may announce: Dask's is under 100 bytes (its compression, Python
#: version and pickle protocol); anything bigger is not a scheduler's first message.
HANDSHAKE_MAX = 64 << 10


def probe(address: str, timeout: float = PROBE_SECONDS) -> None:
    """Check that ``address`` (``tcp://``/``tls://``/``host:port``) speaks Dask before
    ``distributed.Client`` sees it. Dask reads a peer's first frame as "8-byte length, then that
    many bytes" with no bound and no timeout on the handshake: an HTTP server or garbage makes it
    fail with a traceback, a frame header announcing exabytes or gigabytes is allocated, a peer
    that accepts and says nothing hangs the client for ever. Here a raw socket, under one
    ``timeout`` for the connection, the (TLS and) Dask handshakes, reads the peer's first frame
    header, refuses one over :data:`HANDSHAKE_MAX`, reads the frame and checks it is a msgpack
    map as a scheduler sends. Other schemes (``ucx://``, ``ws://``...) go to Dask unprobed.
    Raises :class:`InputError` (exit 2) naming the address."""
    import socket
    import ssl
    import struct
    import time

    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp", "tls"):
        return
    where = printable(address)
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise InputError(f"the Dask scheduler address {where} is not host:port (e.g. tcp://10.0.0.5:8786)")
    deadline = time.monotonic() + timeout

    def fail(why: str) -> InputError:
        return InputError(f"the peer at {where} is not a Dask scheduler: {why} (a cluster is "
                          "trusted: see README \"Many inputs\")")

    def read(n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(min(n - len(buf), 1 << 16))
            if not chunk:
                raise fail(f"it closed the connection after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    try:
        sock = socket.create_connection((host, int(port)), timeout=timeout)
    except (OSError, ValueError, OverflowError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {where}: {printable(str(e))}") from None
    try:
        if scheme == "tls":
            ctx = _tls_context()
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            sock = ctx.wrap_socket(sock, server_hostname=host if ctx.check_hostname else None)
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        sock.sendall(_handshake())           # what a Client sends first: an HTTP server answers
        (n,) = struct.unpack("<Q", read(8))
        if n > HANDSHAKE_MAX:
            raise fail(f"its first frame announces {n} bytes, a handshake has at most {HANDSHAKE_MAX}")
        _check_handshake(read(n), fail)
    except (socket.timeout, TimeoutError):
        raise InputError(f"the peer at {where} sent no Dask handshake within {timeout:g} s "
                         "(is it a Dask scheduler?)") from None
    except ssl.SSLError as e:
        raise InputError(f"TLS with the peer at {where} failed: {printable(str(e))}") from None
    except OSError as e:
        raise fail(printable(str(e))) from None
    finally:
        sock.close()


def _handshake() -> bytes:
    """A Dask client's first message (distributed.comm.core.connect), framed as comm/tcp.py
    frames it: total length, frame count, frame lengths, the msgpack of the handshake info."""
    import pickle
    import struct
    import sys

    import msgpack
    info = msgpack.dumps({"compression": None, "python": tuple(sys.version_info[:3]),
                          "pickle-protocol": pickle.HIGHEST_PROTOCOL}, use_bin_type=True)
    body = struct.pack("<QQ", 1, len(info)) + info
    return struct.pack("<Q", len(body)) + body


def _tls_context():
    """The client TLS context Dask's own config gives (``distributed.comm.tls.*``)."""
    from distributed.security import Security
    ctx = Security().get_connection_args("client").get("ssl_context")
    if ctx is None:
        raise InputError("a tls:// address needs distributed's TLS config (distributed.comm.tls.ca-file, "
                         ".client.cert, .client.key; see README \"Many inputs\")")
    return ctx


def _check_handshake(body: bytes, fail) -> None:
    """A scheduler's handshake: Dask frames (a count, their lengths, all within ``body``) whose
    first is a msgpack map."""
    import struct

    import msgpack
    if len(body) < 16:
        raise fail(f"its first frame has {len(body)} bytes, too few for Dask frames")
    (count,) = struct.unpack_from("<Q", body)
    if not 1 <= count <= 16 or len(body) < 8 * (count + 1):
        raise fail(f"its first frame does not hold Dask frames ({count} announced)")
    sizes = struct.unpack_from(f"<{count}Q", body, 8)
    start = 8 * (count + 1)
    if sum(sizes) != len(body) - start:
        raise fail("its first frame's lengths do not add up")
    try:
        msg = msgpack.loads(body[start:start + sizes[0]], raw=False, strict_map_key=False)
    except Exception:
        msg = None
    if not isinstance(msg, dict):
        raise fail("its handshake is not a msgpack map")


def connect(address: str, timeout: float = 10) -> Any:
    """A Dask ``Client`` on the existing scheduler at ``address`` (``tcp://host:8786``...), after
    :func:`probe` checked that it is one. The cluster itself is trusted: Dask moves pickles."""
    distributed = require_dask()
    probe(address)
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, ValueError, TypeError) as e:
        raise InputError(f"cannot reach the Dask scheduler at {printable(address)}: {e}") from None
