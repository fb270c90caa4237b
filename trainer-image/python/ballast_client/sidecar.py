"""The trainer API of the pod's sidecar over HTTP/JSON on localhost (docs/protocol.md, "Trainer API").

``report`` never blocks the training loop: it puts the report in a bounded queue that one daemon thread sends;
when the queue is full the oldest report is dropped and counted. A report may carry what the rank measured of the
step (``step_seconds``, ``compute_seconds``); the balancer reports the slowest rank's times under the static layout
and under its plan in ``status.balancer.measured``.
"""
from __future__ import annotations

import collections
import json
import math
import os
import threading
import urllib.error
import urllib.request
from typing import Optional, Sequence, Tuple

from . import env, versions
from .versions import PlanVersion

QUEUE_CAPACITY = 256


def check_seconds(field: str, seconds) -> None:
    """Refuses a timing that is not a finite number of seconds >= 0, naming the field."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{field} must be a finite number of seconds >= 0, got {seconds!r}")


def _seconds_text(seconds: float) -> str:
    """Seconds rounded to the nanosecond in plain decimal, trailing zeros trimmed but one digit kept (the Java
    client's form, pinned by contracts/vectors/load-reports.json)."""
    nanos = math.floor(seconds * 1e9 + 0.5)
    text = f"{nanos // 1_000_000_000}.{nanos % 1_000_000_000:09d}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def encode_report(world_generation: int, step: int, gpu_rank: int, counts, first_layer: int = 0,
                  adopted: Optional[PlanVersion] = None, step_seconds: Optional[float] = None,
                  compute_seconds: Optional[float] = None) -> str:
    """The ``POST /v1/loads`` body in its canonical form (docs/protocol.md): the fields in order, no spaces."""
    body = (f'{{"worldGeneration":{int(world_generation)},"step":{int(step)},"gpuRank":{int(gpu_rank)},'
            f'"firstLayer":{int(first_layer)}')
    if adopted is not None:
        body += f',"adopted":"{adopted}"'
    if step_seconds is not None:
        check_seconds("stepSeconds", step_seconds)
        body += f',"stepSeconds":{_seconds_text(step_seconds)}'
    if compute_seconds is not None:
        check_seconds("computeSeconds", compute_seconds)
        body += f',"computeSeconds":{_seconds_text(compute_seconds)}'
    rows = ",".join("[" + ",".join(str(int(x)) for x in row) + "]" for row in counts)
    return body + ',"counts":[' + rows + "]}"


class SidecarError(RuntimeError):
    """The sidecar answered with an error status; ``status`` is the HTTP code, the message its explanation."""

    def __init__(self, status: int, message: str):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class SidecarClient:
    def __init__(self, base_url: Optional[str] = None, timeout: float = 2.0):
        self.base_url = (base_url or os.environ.get(env.SIDECAR_URL, env.DEFAULT_SIDECAR_URL)).rstrip("/")
        self.timeout = timeout
        self._queue: collections.deque = collections.deque()
        self._cv = threading.Condition()
        self._closed = False
        self._sending = False  # a report is being sent (flush waits for it)
        self.sent = 0
        self.dropped = 0
        self.refused = 0
        self.last_error: Optional[str] = None
        self._thread = threading.Thread(target=self._send_loop, name="ballast-report-sender", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ reports (asynchronous)

    def report(self, world_generation: int, step: int, gpu_rank: int, counts: Sequence[Sequence[int]],
               first_layer: int = 0, adopted: Optional[PlanVersion] = None, step_seconds: Optional[float] = None,
               compute_seconds: Optional[float] = None) -> None:
        """Queues one GPU's per-layer counts for one step and returns at once.

        ``step_seconds``: the step's wall time on this rank; ``compute_seconds``: its compute time outside
        communication; either may be left out, and a value that is not a finite number >= 0 raises ValueError at
        once. The client takes ``counts`` as it is (no copy, so the call stays cheap): pass a fresh list, e.g.
        ``tensor.tolist()``, and do not modify it afterwards. It is encoded and checked on the sender thread.
        """
        if step_seconds is not None:
            check_seconds("stepSeconds", step_seconds)
        if compute_seconds is not None:
            check_seconds("computeSeconds", compute_seconds)
        body = (world_generation, step, gpu_rank, first_layer, counts, adopted, step_seconds, compute_seconds)
        with self._cv:
            if len(self._queue) >= QUEUE_CAPACITY:
                self._queue.popleft()
                self.dropped += 1
            self._queue.append(body)
            self._cv.notify()

    def flush(self, timeout: float = 5.0) -> bool:
        """Waits until every queued report was handed to the sidecar (for tests and shutdown)."""
        with self._cv:
            return self._cv.wait_for(lambda: not self._queue and not self._sending, timeout)

    def _send_loop(self) -> None:
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._queue or self._closed)
                if self._closed and not self._queue:
                    return
                body = self._queue.popleft()
                self._sending = True
            try:
                generation, step, rank, first, counts, adopted, step_seconds, compute_seconds = body
                self.send_report_now(generation, step, rank, counts, first, adopted, step_seconds, compute_seconds)
                self.sent += 1
            except SidecarError as e:
                self.refused += 1
                self.last_error = str(e)
            except (OSError, TypeError, ValueError) as e:
                self.dropped += 1
                self.last_error = str(e)
            finally:
                with self._cv:
                    self._sending = False
                    self._cv.notify_all()

    def send_report_now(self, world_generation: int, step: int, gpu_rank: int, counts, first_layer: int = 0,
                        adopted: Optional[PlanVersion] = None, step_seconds: Optional[float] = None,
                        compute_seconds: Optional[float] = None) -> dict:
        """Synchronous variant that raises :class:`SidecarError` on refusal (diagnostics and tests)."""
        return self._request("POST", "/v1/loads", encode_report(world_generation, step, gpu_rank, counts, first_layer,
                                                                adopted, step_seconds, compute_seconds))

    # ------------------------------------------------------------------ plans and world

    def heads(self, generation: int, step: int) -> Tuple[Optional[PlanVersion], Optional[PlanVersion]]:
        """(newest eligible plan of the generation, oldest held plan); either may be None."""
        return versions.parse_heads(self._request("GET", f"/v1/plans/heads?generation={generation}&step={step}"))

    def plan(self, version: PlanVersion) -> Optional[dict]:
        """The plan as the ballast-plan/v1 (to v4) JSON object, or None when the sidecar does not hold it."""
        try:
            return self._request("GET", f"/v1/plans/{version}")
        except SidecarError as e:
            if e.status == 404:
                return None
            raise

    def world(self) -> dict:
        return self._request("GET", "/v1/world")

    def health(self) -> dict:
        return self._request("GET", "/healthz")

    def status(self) -> dict:
        return self._request("GET", "/v1/status")

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify_all()

    def _request(self, method: str, path: str, body: Optional[str] = None) -> dict:
        data = None if body is None else body.encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode() or "{}")
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                message = json.loads(text).get("error", text)
            except ValueError:
                message = text
            raise SidecarError(e.code, message) from None
