#!/usr/bin/env python3
"""A local stand-in of the Telegram Bot API for interop checks: POST
/bot<token>/<method> with JSON or multipart params, answered in the
documented {ok, result} / {ok:false, error_code, description} shapes.
Each call is appended to LOG as one JSON line. Usage: telegram-standin.py PORT TOKEN LOG"""
import cgi, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, token, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lock = threading.Lock()
counter = [100]

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_POST(self):
        prefix = "/bot" + token + "/"
        if not self.path.startswith(prefix):
            return self.answer(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
        method = self.path[len(prefix):]
        ctype = self.headers.get("Content-Type", "")
        n = int(self.headers.get("Content-Length", "0") or 0)
        params, files = {}, {}
        if ctype.startswith("multipart/form-data"):
            form = cgi.FieldStorage(fp=self.rfile, headers=self.headers, environ={"REQUEST_METHOD": "POST", "CONTENT_TYPE": ctype})
            for k in form.keys():
                f = form[k]
                if f.filename:
                    files[k] = {"filename": f.filename, "size": len(f.value)}
                else:
                    params[k] = f.value
        else:
            raw = self.rfile.read(n) if n else b"{}"
            params = json.loads(raw or b"{}")
        if method == "getUpdates":  # the gateway's receiving loop: no messages, not logged
            return self.answer(200, {"ok": True, "result": []})
        with lock:
            counter[0] += 1
            mid = counter[0]
            with open(log, "a") as fh:
                fh.write(json.dumps({"method": method, "params": params, "files": files}) + "\n")
        if method == "getMe":
            return self.answer(200, {"ok": True, "result": {"id": 42, "is_bot": True, "first_name": "Claw", "username": "claw_bot"}})
        if method.startswith("send"):
            return self.answer(200, {"ok": True, "result": {"message_id": mid, "date": 0, "chat": {"id": params.get("chat_id"), "type": "supergroup"}}})
        return self.answer(200, {"ok": True, "result": True})

ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
