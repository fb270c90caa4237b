"""Starts a real balancer (file mode) and two real sidecars from the built agent jar, or skips with the reason."""
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REPO = Path(__file__).resolve().parents[3]
JAR = Path(os.environ.get("BALLAST_AGENT_JAR", REPO / "balancer-sidecar/app/target/quarkus-app/quarkus-run.jar"))
VECTORS_DIR = REPO / "contracts/vectors"


def vectors(name):
    """A golden vector file of contracts/vectors (docs/contracts.md), parsed; a missing file fails the test."""
    path = VECTORS_DIR / name
    if not path.is_file():
        pytest.fail(f"golden vector file {path} is missing")
    return json.loads(path.read_text(encoding="utf-8"))

JOB, NS, TOKEN = "pyjob", "default", "py-token"
SPEC = {"parallelism": {"expert": 4, "pipeline": 1},
        "model": {"moeLayers": 2, "experts": 8, "topK": 2, "sharedExperts": 0, "hiddenSize": 2048, "ffnHiddenSize": 1024,
                  "bytesPerParam": 2},
        "balancer": {"mode": "replicate", "planner": "ballast", "redundantSlotsPerGpu": 1, "replanEverySteps": 3,
                     "memoryBudgetBytes": 0}}


def free_port():
    """An unused port below the kernel's ephemeral range. A client that dials a port from that range before its
    server listens can be given the same port as its source port and connect to itself, and the server's bind then
    fails (see LocalPorts in the Java contracts, dev.ballast.contracts.env)."""
    try:
        low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError):
        low = 32768
    for _ in range(200 if low > 10000 else 0):
        port = random.randrange(10000, low)
        with socket.socket() as s:
            try:
                s.bind(("", port))
                return port
            except OSError:
                continue
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def balancer_get(agents, path):
    """GET on the balancer's HTTP API with the job's token (it answers 401 without), parsed as JSON."""
    request = urllib.request.Request(agents["balancer"] + path, headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as r:
        return json.loads(r.read())


def wait_http(url, deadline):
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


# One set of processes per test module: modules that restart processes or change the world do not affect others,
# whatever order they run in. A module may name the balancer's planner (PLANNER = "..."; default ballast).
@pytest.fixture(scope="module")
def agents(tmp_path_factory, request):
    if not JAR.exists():
        pytest.skip(f"agent jar not built ({JAR}); build it with: ./mvnw -B -pl balancer-sidecar/app -am package -DskipTests")
    if shutil.which("java") is None:
        pytest.skip("java not on PATH")
    work = tmp_path_factory.mktemp("agents")
    spec = json.loads(json.dumps(SPEC))
    spec["balancer"]["planner"] = getattr(request.module, "PLANNER", "ballast")
    world = {"job": JOB, "namespace": NS, "generation": 1, "gpusPerWorker": 2, "spec": spec, "nodes": [
        {"index": 0, "pod": f"{JOB}-worker-0", "nodeRank": 0, "node": "n0", "domain": "d0", "rack": "r0"},
        {"index": 1, "pod": f"{JOB}-worker-1", "nodeRank": 1, "node": "n1", "domain": "d0", "rack": "r0"}]}
    (work / "world.json").write_text(json.dumps(world))
    grpc, bal_http, bal_health = free_port(), free_port(), free_port()
    base_env = dict(os.environ, BALLAST_JOB=JOB, BALLAST_NAMESPACE=NS, BALLAST_TOKEN=TOKEN)
    procs = []

    def start(role, env, log):
        p = subprocess.Popen(["java", "-Xmx192m", "-XX:TieredStopAtLevel=1", "-jar", str(JAR), role],
                             env=env, stdout=open(work / log, "w"), stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    balancer_env = dict(base_env, BALLAST_BIND_ADDRESS="127.0.0.1", BALLAST_GRPC_PORT=str(grpc), BALLAST_HTTP_PORT=str(bal_http),
                        BALLAST_HEALTH_PORT=str(bal_health),
                        BALLAST_WORLD_FILE=str(work / "world.json"),
                        BALLAST_STATUS_FILE=str(work / "status.json"))
    ports = [free_port(), free_port()]
    # The sidecars listen where they would in a pod (no address set): the trainer API on loopback, health on every
    # interface; each agent's health listener on a port of its own, as they share this host's network.
    health_ports = [free_port(), free_port()]
    sidecar_envs = [dict(base_env, BALLAST_POD_INDEX=str(i), BALLAST_SIDECAR_PORT=str(port),
                         BALLAST_HEALTH_PORT=str(health_ports[i]),
                         BALLAST_BALANCER_ADDRESS=f"127.0.0.1:{grpc}") for i, port in enumerate(ports)]
    roles = {"balancer": start("balancer", balancer_env, "balancer.log")}
    for i in range(2):
        roles[f"sidecar{i}"] = start("sidecar", sidecar_envs[i], f"sidecar{i}.log")

    def restart(name):
        """Kills one agent process (SIGKILL) and starts it again with the same environment."""
        roles[name].kill()
        roles[name].wait(10)
        env = balancer_env if name == "balancer" else sidecar_envs[int(name[-1])]
        roles[name] = start("balancer" if name == "balancer" else "sidecar", env, f"{name}-restarted.log")
    deadline = time.time() + 120
    ok = wait_http(f"http://127.0.0.1:{bal_health}/q/health/ready", deadline) and all(
        wait_http(f"http://127.0.0.1:{p}/healthz", deadline) for p in ports)
    if not ok:
        for p in procs:
            p.kill()
        logs = "\n".join((work / f).read_text()[-2000:] for f in ("balancer.log", "sidecar0.log", "sidecar1.log"))
        pytest.fail("agents did not start within 120 s:\n" + logs)
    yield {"sidecars": [f"http://127.0.0.1:{p}" for p in ports], "balancer": f"http://127.0.0.1:{bal_http}",
           "balancer_health": f"http://127.0.0.1:{bal_health}", "sidecar_ports": ports,
           "sidecar_health_ports": health_ports,
           "work": work, "restart": restart}
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
