"""Stand-in for a trainer: checks its sidecar, optionally drives the data path, then exits with a chosen code."""
import os
import pathlib
import random
import sys
import threading
import time
import traceback
import urllib.request

# The real Python client (trainer-image/python), standard library only.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "trainer-image" / "python"))


def wait_for_sidecar():
    sidecar = os.environ["BALLAST_SIDECAR_URL"] + "/healthz"
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(sidecar, timeout=1).read()
            return True
        except OSError:
            if time.time() > deadline:
                print(f"sidecar at {sidecar} did not answer within 30s", file=sys.stderr, flush=True)
                return False
            time.sleep(0.2)


def wait_for_world(client, generation):
    """Waits until the sidecar serves this pod's world (a trainer reads the live world before its first step); the
    balancer sends a world's first plan ahead of the world, so a plan made from the load history is adopted at step 0."""
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if client.world().get("generation") == generation:
                return
        except Exception:  # noqa: BLE001 - 503 until the balancer sent the world, or not up yet
            pass
        time.sleep(0.1)
    print(f"sidecar did not serve world generation {generation} within 60s; starting anyway", flush=True)


def drive_data_path(spec):
    """BALLAST_TEST_LOADS="layers,experts,step_ms[,shared][,slow=RANKxFACTOR]": every step, adopt plans by the adoption rule and report one
    skewed load per local GPU rank through the Python client, as a trainer does between optimizer steps.

    Without a collective across pods the rule's all-reduce covers this pod's ranks only; pods still adopt at the same
    step because every plan reaches the sidecars before its earliest step (a real trainer all-reduces over the job).

    Each pod counts its steps from 0 on its own clock, so pods drift apart by whole steps and the balancer sees no
    complete step. With "shared", steps keep a shared clock instead of a collective: step n is the n-th step_ms
    boundary of the Unix epoch, so every rank of every pod reports the same step numbers and steps complete (a step
    this pod is too late for is skipped, as a lagging rank's would be). Each report carries this rank's step time
    (since its previous step) and compute time (making the counts). "slow=5x4" plays a slow GPU: global rank 5 reports
    4 times the compute time its pod measured (a straggler for the balancer to flag). With "slow=", every pod's compute
    also includes a steady fifth of a step (a sleep standing in for the GPU's work): making the counts alone takes well
    under a millisecond, so on a busy machine scheduling noise could make one pod's compute several times the other's
    and hide the straggler, or clear its flag."""
    from ballast_client import PlanAdopter, SidecarClient  # noqa: PLC0415

    fields = spec.split(",")
    layers, experts, step_ms = (int(x) for x in fields[:3])
    shared_clock = "shared" in fields[3:]
    slow = dict(tuple(int(x) for x in f[len("slow="):].split("x")) for f in fields[3:] if f.startswith("slow="))
    generation = int(os.environ["BALLAST_WORLD_GENERATION"])
    gpus = int(os.environ["BALLAST_GPUS_PER_WORKER"])
    node_rank = int(os.environ["NODE_RANK"])
    # The same skew on every pod (a Zipf-like popularity, s = 1.2, shuffled by layer), noisy per rank and step.
    weights = []
    for layer in range(layers):
        w = [(e + 1) ** -1.2 for e in range(experts)]
        random.Random(layer).shuffle(w)
        total = sum(w)
        weights.append([x / total for x in w])
    noise = random.Random(node_rank)
    client = SidecarClient()
    wait_for_world(client, generation)
    adopter = PlanAdopter(client, lambda values: values, generation)
    tokens = 8192 * 8
    step_ns = step_ms * 1_000_000
    step = time.time_ns() // step_ns + 1 if shared_clock else 0
    started = None
    while True:
        if shared_clock:
            time.sleep(max(0, step * step_ns - time.time_ns()) / 1e9)  # the step's wall-clock boundary
        now = time.perf_counter()
        step_seconds = None if started is None else now - started
        started = now
        adopter.at_step_boundary(step)
        adopted = adopter.current_version if adopter.current_plan is not None else None
        counts = [[[int(tokens * p * (0.9 + 0.2 * noise.random())) for p in w] for w in weights] for _ in range(gpus)]
        if slow:
            time.sleep(step_ns / 5e9)
        compute_seconds = time.perf_counter() - now
        for local in range(gpus):
            rank = node_rank * gpus + local
            client.report(generation, step, rank, counts[local], adopted=adopted,
                          step_seconds=step_seconds, compute_seconds=compute_seconds * slow.get(rank, 1))
        if step % 50 == 0:
            print(f"stand-in trainer: step {step}, plan {adopter.current_version}", flush=True)
        if shared_clock:
            step = max(step + 1, time.time_ns() // step_ns + 1)  # the next boundary not yet passed
        else:
            step += 1
            time.sleep(step_ms / 1000)


def training_loop(spec):
    try:
        drive_data_path(spec)
    except BaseException:  # a broken data path fails the pod, visibly, instead of idling
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(3)


def main():
    with_sidecar = "BALLAST_SIDECAR_URL" in os.environ  # absent with balancer.mode: off (no sidecar at all)
    if with_sidecar and not wait_for_sidecar():
        return 2
    rank = os.environ.get("NODE_RANK")
    print(f"stand-in trainer: node rank {rank} of {os.environ.get('NNODES')}, master {os.environ.get('MASTER_ADDR')}",
          flush=True)
    loads = os.environ.get("BALLAST_TEST_LOADS")
    if not with_sidecar:
        print("stand-in trainer: no sidecar (balancer.mode off): the static expert layout", flush=True)
    elif loads:
        threading.Thread(target=training_loop, args=(loads,), name="training-loop", daemon=True).start()
    run = os.environ.get("BALLAST_TEST_RUN_SECONDS")
    if run is None:
        while True:
            time.sleep(3600)
    time.sleep(float(run))
    code = int(os.environ.get("BALLAST_TEST_EXIT_CODE", "0"))
    print(f"stand-in trainer: exiting with code {code}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
