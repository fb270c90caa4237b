"""Where a sidecar listens with no address set, as in a real pod: its trainer API on loopback only, its health and
readiness on every interface, on a port of their own that serves nothing else. Read from the kernel's socket tables."""
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

LISTEN = "0A"


def ipv4(word):
    """One 32-bit word of /proc/net/tcp* (host byte order, little-endian here) as dotted quad."""
    return ".".join(str(int(word[i:i + 2], 16)) for i in (6, 4, 2, 0))


def address(hex_address):
    if len(hex_address) == 8:
        return ipv4(hex_address)
    words = [hex_address[i:i + 8] for i in range(0, 32, 8)]
    if words == ["00000000"] * 4:
        return "::"
    if words[:3] == ["00000000", "00000000", "FFFF0000"]:
        return ipv4(words[3])
    return ":".join(words)


def listening_addresses(port):
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            host, hex_port = local.split(":")
            if state == LISTEN and int(hex_port, 16) == port:
                found.add(address(host))
    return found


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux's /proc/net/tcp")
def test_the_trainer_api_listens_on_loopback_only_and_health_on_its_own_port(agents):
    for port, health in zip(agents["sidecar_ports"], agents["sidecar_health_ports"]):
        assert listening_addresses(port) == {"127.0.0.1"}, f"trainer API port {port}"
        assert listening_addresses(health) and listening_addresses(health) <= {"0.0.0.0", "::"}, f"health port {health}"
        status, body = get(f"http://127.0.0.1:{health}/q/health/ready")
        assert status == 200 and json.loads(body)["status"] == "UP"
        # the health listener serves health only: no trainer API there, no health on the trainer API's port
        assert get(f"http://127.0.0.1:{health}/v1/world")[0] == 404
        assert get(f"http://127.0.0.1:{port}/q/health/ready")[0] == 404
