"""A stand-in for the RCSB services on 127.0.0.1, for the search and fetch tests: it speaks the
Search API (POST JSON, 200 with a result set or 204 for none), the Data API's entry JSON and the
file download URLs, serving real files from Tests/Fixtures, and misbehaves on purpose for some ids:
  FLKY  500 on the first request, then 1bna.pdb
  STAL  answers nothing for 8 s (a stalled server)
  TRUN  half of a gzip file
  NONE  (and any other unknown id) 404
Prints "PORT n" once listening; stops when its standard input closes."""
import gzip, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
files = {("1crn", "cif"): "1CRN.cif", ("1crn", "pdb"): "1crn.pdb", ("1bna", "pdb"): "1bna.pdb", ("flky", "pdb"): "1bna.pdb",
         ("trun", "cif"): "1CRN.cif"}
entries = {
    "1CRN": {"struct": {"title": "WATER STRUCTURE OF A HYDROPHOBIC PROTEIN AT ATOMIC RESOLUTION"},
             "exptl": [{"method": "X-RAY DIFFRACTION"}], "rcsb_entry_info": {"resolution_combined": [1.5]}},
    "1BNA": {"struct": {"title": "STRUCTURE OF A B-DNA DODECAMER"}, "exptl": [{"method": "X-RAY DIFFRACTION"}],
             "rcsb_entry_info": {"resolution_combined": [1.9]}},
}
seen = {}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, body=b"", kind="application/octet-stream"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        query = json.loads(self.rfile.read(length) or b"{}")
        value = query.get("query", {}).get("parameters", {}).get("value", "")
        rows = query.get("request_options", {}).get("paginate", {}).get("rows", 10)
        if self.path != "/search" or query.get("return_type") != "entry":
            return self.send(400, b'{"message": "bad request"}', "application/json")
        if value == "crambin":
            hits = [{"identifier": "1CRN", "score": 1.0}, {"identifier": "1BNA", "score": 0.5}][:rows]
            return self.send(200, json.dumps({"total_count": 2, "result_set": hits}).encode(), "application/json")
        if value == "broken":
            return self.send(500, b"{}", "application/json")
        return self.send(204)

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "entry":
            entry = entries.get(parts[1].upper())
            return self.send(200, json.dumps(entry).encode(), "application/json") if entry else self.send(404)
        if len(parts) == 2 and parts[0] == "files" and parts[1].endswith(".gz"):
            name = parts[1][:-3]
            ident, _, fmt = name.partition(".")
            ident = ident.lower()
            with lock:
                seen[ident] = seen.get(ident, 0) + 1
                count = seen[ident]
            if ident == "stal":
                time.sleep(8)
                return self.send(404)
            if ident == "flky" and count == 1:
                return self.send(500, b"try again")
            source = files.get((ident, fmt))
            if not source:
                return self.send(404, b"not found")
            with open(os.path.join(fixtures, source), "rb") as f:
                body = gzip.compress(f.read())
            if ident == "trun":
                body = body[: len(body) // 2]
            return self.send(200, body, "application/gzip")
        return self.send(404)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"PORT {server.server_address[1]}", flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
