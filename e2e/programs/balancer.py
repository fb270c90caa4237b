"""Stand-in for the Ballast balancer: answers its readiness probe until stopped."""
import http.server
import os


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path == "/q/health/ready"
        self.send_response(200 if ok else 404)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    address = (os.environ["BALLAST_POD_IP"], 8472)
    print(f"stand-in balancer for job {os.environ.get('BALLAST_JOB')} on {address[0]}:{address[1]}", flush=True)
    http.server.ThreadingHTTPServer(address, Health).serve_forever()
