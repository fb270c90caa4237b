"""Stand-in for a trainer: checks its sidecar, then runs for a while and exits with a chosen code."""
import os
import sys
import time
import urllib.request


def main():
    sidecar = os.environ["BALLAST_SIDECAR_URL"] + "/healthz"
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(sidecar, timeout=1).read()
            break
        except OSError:
            if time.time() > deadline:
                print(f"sidecar at {sidecar} did not answer within 30s", file=sys.stderr, flush=True)
                return 2
            time.sleep(0.2)
    rank = os.environ.get("NODE_RANK")
    print(f"stand-in trainer: node rank {rank} of {os.environ.get('NNODES')}, master {os.environ.get('MASTER_ADDR')}",
          flush=True)
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
