"""A small LSP client over a subprocess's stdio, for the protocol tests
(tests/lsp/lsp_protocol_test.py, lsp_worst_cases_test.py,
tests/planner/test_profile_lsp.py) and the latency benchmark (bench/lsp/),
with the tests' check helpers.
Messages are framed with Content-Length as LSP specifies; a reader thread
collects everything the server sends so tests can wait for notifications."""
import json
import os
import queue
import subprocess
import threading
import time


class LspError(Exception):
    def __init__(self, error):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = error.get("message")


# Every failed check of the running test, in order (the test's exit status).
FAILED = []


def check(cond, what):
    """Prints one check; a failed one is remembered in FAILED."""
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILED.append(what)


def expect_error(code, fn, what):
    """Runs a request that must fail with LSP error `code`; returns the error
    (None when the server did not answer in time)."""
    try:
        fn()
    except LspError as e:
        check(e.code == code, f"{what}: error {e.code} ({e.message})")
        return e
    except TimeoutError as e:
        check(False, f"{what}: {e}")
        return None
    check(False, f"{what}: expected error {code}, got a result")
    return None


class LspClient:
    def __init__(self, argv, cwd=None, env=None, stderr=None, preexec_fn=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr if stderr is not None else subprocess.DEVNULL,
                                     cwd=cwd, env=env, preexec_fn=preexec_fn)
        self.next_id = 1
        self.responses = {}
        self.notifications = []
        self.cond = threading.Condition()
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # -- framing --
    def send_raw(self, body: bytes):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, msg):
        self.send_raw(json.dumps(msg).encode())

    def send_many(self, msgs):
        """Several messages in one write: the server reads them back to back."""
        data = b""
        for msg in msgs:
            body = json.dumps(msg).encode()
            data += b"Content-Length: %d\r\n\r\n" % len(body) + body
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = out.read(length)
                msg = json.loads(body)
                msg["_received"] = time.monotonic()
                with self.cond:
                    if "method" in msg and "id" not in msg:
                        self.notifications.append(msg)
                    elif "id" in msg and "method" not in msg:
                        self.responses[json.dumps(msg["id"])] = msg
                    else:  # a request from the server: not used by Nestor
                        self.notifications.append(msg)
                    self.cond.notify_all()
        finally:
            with self.cond:
                self.closed = True
                self.cond.notify_all()

    # -- requests --
    def request_async(self, method, params=None, id=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def wait_response(self, id, timeout=60):
        key = json.dumps(id)
        deadline = time.monotonic() + timeout
        with self.cond:
            while key not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise TimeoutError(f"no response to request {id}" + (" (server exited)" if self.closed else ""))
                self.cond.wait(left)
            return self.responses.pop(key)

    def request(self, method, params=None, timeout=60):
        msg = self.wait_response(self.request_async(method, params), timeout)
        if "error" in msg:
            raise LspError(msg["error"])
        return msg.get("result")

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # -- notifications --
    def wait_notification(self, pred, timeout=60, start=0):
        """The first notification at index >= start that satisfies pred."""
        deadline = time.monotonic() + timeout
        with self.cond:
            i = start
            while True:
                while i < len(self.notifications):
                    if pred(self.notifications[i]):
                        return self.notifications[i]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    raise TimeoutError("notification not received" + (" (server exited)" if self.closed else ""))
                self.cond.wait(left)

    def mark(self):
        with self.cond:
            return len(self.notifications)

    def wait_diagnostics(self, uri, version=None, timeout=60, start=0):
        def pred(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        return self.wait_notification(pred, timeout, start)["params"]

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def close(self, timeout=10):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def file_uri(path):
    return "file://" + os.path.abspath(path)


def apply_edits(text, edits):
    """Applies LSP TextEdits (UTF-16 positions; ASCII in these tests)."""
    lines = text.split("\n")
    def offset(pos):
        return sum(len(l) + 1 for l in lines[:pos["line"]]) + pos["character"]
    for e in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        b, en = offset(e["range"]["start"]), offset(e["range"]["end"])
        text = text[:b] + e["newText"] + text[en:]
    return text
