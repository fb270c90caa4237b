"""Stand-in for the Ballast sidecar: answers the startup probe until stopped."""
import http.server
import os


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path == "/healthz"
        self.send_response(200 if ok else 404)
        self.end_headers()
        self.wfile.write(b"ok\n" if ok else b"not found\n")

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    address = (os.environ["BALLAST_POD_IP"], int(os.environ.get("BALLAST_SIDECAR_PORT", "8470")))
    print(f"stand-in sidecar for pod {os.environ.get('BALLAST_POD_NAME')} on {address[0]}:{address[1]}", flush=True)
    http.server.ThreadingHTTPServer(address, Health).serve_forever()
