"""The durability workload and its checker, shared by scripts/crash-test, scripts/power-cut,
scripts/fsync-eio and scripts/dr-check (Python standard library only).

Writers drive `clipctl serve` over HTTP on 127.0.0.1 (creates, updates, deactivations and
200-line imports) and record every write the server acknowledged (a 2xx) and when; `Workload.check`
then reads the database file and says what an acknowledged write lost, which import was
half-applied, and what `PRAGMA integrity_check` says. `Workload.recovered` does the same for a
copy restored from a replica, which may lack what was acknowledged shortly before the loss.
"""
import copy, http.client, json, random, re, select, sqlite3, subprocess, threading, time

CLIP = "ABCDE12345.com.example.crash.Clip"
IMPORT_LINES = 200


def create_token(clipctl, db, env=None):
    return subprocess.run([clipctl, "--db", db, "token", "create", "--admin", "--name", "durability"],
                          check=True, capture_output=True, text=True, env=env, timeout=60).stdout.strip()


def start_server(clipctl, db, prefix=(), env=None, name="durability"):
    """Starts `clipctl serve` on port 0 (behind `prefix`, e.g. fiu-run) and returns (process, port)."""
    proc = subprocess.Popen([*prefix, clipctl, "--db", db, "serve", "--listen", "127.0.0.1:0", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    # The first line names the address; a server that has not printed it in 60 s is stuck.
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    match = re.search(r":(\d+)\s*$", line)
    if not match:
        proc.kill()
        raise SystemExit(f"{name}: the server did not start: {line!r}")
    return proc, int(match.group(1))


class Workload:
    def __init__(self, token, seed):
        self.token = token
        self.seed = seed
        self.lock = threading.Lock()
        # url -> {"acked": value or None, "attempts": [values after the acked one],
        #         "log": [[value, acknowledged at (time.monotonic()) or None], ...] in the order sent}
        # value = (subtitle, status)
        self.state = {}
        self.imports = {}   # batch -> {"count": n, "acked": bool, "acked_at": time.monotonic() or None}
        self.acked = 0
        self.statuses = {}  # HTTP status -> count (writes only)

    def request(self, port, method, path, body=None, content_type="application/json"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"Authorization": f"Bearer {self.token}"}
        if body is not None:
            headers["Content-Type"] = content_type
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        with self.lock:
            self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
        return response.status, data

    def attempt(self, url, value):
        with self.lock:
            entry = self.state.setdefault(url, {"acked": None, "attempts": [], "log": []})
            entry["attempts"].append(value)
            entry["log"].append([value, None])

    def ack(self, url, value):
        with self.lock:
            entry = self.state[url]
            entry["acked"] = value
            # Only attempts after this acknowledgement may legitimately have replaced it.
            entry["attempts"] = entry["attempts"][entry["attempts"].index(value) + 1:]
            for sent in reversed(entry["log"]):
                if sent[0] == value and sent[1] is None:
                    sent[1] = time.monotonic()
                    break
            self.acked += 1

    def writer(self, port, cycle, index, stop, on_status=None):
        """Writes until `stop` is set. `on_status(status)` sees every write's answer."""
        local = random.Random(self.seed * 1000 + cycle * 10 + index)
        ids = {}
        n = 0
        while not stop.is_set():
            n += 1
            try:
                roll = local.random()
                if roll < 0.45 or not ids:
                    url = f"https://crash.example/c{cycle}/w{index}/{n}"
                    value = (f"created {n}", "ACTIVE")
                    self.attempt(url, value)
                    body = json.dumps({"url": url, "clip": CLIP, "title": "Crash", "subtitle": value[0]})
                    status, data = self.request(port, "POST", "/v1/experiences", body)
                    if status == 201:
                        ids[url] = json.loads(data)["id"]
                        self.ack(url, value)
                elif roll < 0.8:
                    url = local.choice(list(ids))
                    with self.lock:
                        current = self.state[url]["acked"]
                    value = (f"updated {n}", current[1])
                    self.attempt(url, value)
                    status, _ = self.request(port, "PATCH", f"/v1/experiences/{ids[url]}", json.dumps({"subtitle": value[0]}))
                    if status == 200:
                        self.ack(url, value)
                elif roll < 0.97:
                    url = local.choice(list(ids))
                    with self.lock:
                        current = self.state[url]["acked"]
                    value = (current[0], "DEACTIVATED" if current[1] == "ACTIVE" else "ACTIVE")
                    self.attempt(url, value)
                    status, _ = self.request(port, "PATCH", f"/v1/experiences/{ids[url]}", json.dumps({"status": value[1]}))
                    if status == 200:
                        self.ack(url, value)
                else:
                    batch = f"c{cycle}w{index}n{n}"
                    lines = "".join(json.dumps({"url": f"https://import.example/{batch}/{i}", "clip": CLIP, "title": "Imported",
                                                "subtitle": "bulk"}) + "\n" for i in range(IMPORT_LINES))
                    with self.lock:
                        self.imports[batch] = {"count": IMPORT_LINES, "acked": False, "acked_at": None}
                    status, _ = self.request(port, "POST", "/v1/experiences/import", lines, "application/x-ndjson")
                    if status == 200:
                        with self.lock:
                            self.imports[batch]["acked"] = True
                            self.imports[batch]["acked_at"] = time.monotonic()
                if on_status:
                    on_status(status)
            except (OSError, http.client.HTTPException):
                if stop.is_set():
                    return
                time.sleep(0.01)

    def run_writers(self, port, cycle, count, stop, on_status=None):
        threads = [threading.Thread(target=self.writer, args=(port, cycle, i, stop, on_status)) for i in range(count)]
        for t in threads:
            t.start()
        return threads

    @staticmethod
    def read(db):
        """(integrity, {url: (subtitle, status)}) of the database file at `db`."""
        conn = sqlite3.connect(db, timeout=30)
        try:
            integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
            rows = conn.execute("""SELECT e.url, l.subtitle, e.status FROM advanced_experience e
                                   JOIN advanced_experience_localization l ON l.experience_id = e.id AND l.language = e.default_language
                                   WHERE e.removed_at IS NULL""").fetchall()
        finally:
            conn.close()
        return integrity, {url: (subtitle, status) for url, subtitle, status in rows}

    @staticmethod
    def import_counts(stored):
        per_batch = {}
        for url in stored:
            if url.startswith("https://import.example/"):
                batch = url.split("/")[3]
                per_batch[batch] = per_batch.get(batch, 0) + 1
        return per_batch

    def check(self, db):
        """(integrity, lost, half-applied imports) for the database file at `db`."""
        integrity, stored = self.read(db)
        lost = []
        with self.lock:
            for url, entry in self.state.items():
                if entry["acked"] is None:
                    continue
                allowed = [entry["acked"]] + entry["attempts"]
                if stored.get(url) not in allowed:
                    lost.append((url, entry["acked"], stored.get(url)))
            per_batch = self.import_counts(stored)
            half = []
            for batch, info in self.imports.items():
                present = per_batch.get(batch, 0)
                if present not in (0, info["count"]) or (info["acked"] and present != info["count"]):
                    half.append((batch, present, info))
        return integrity, lost, half

    def recovered(self, db, lost_at):
        """(integrity, lost, half-applied imports) for a copy restored after a loss at `lost_at`
        (time.monotonic()): lost lists (what, seconds between its acknowledgement and the loss)
        for every acknowledged write the copy lacks, so a caller can hold the copy to a recovery
        point. An import is never half there."""
        integrity, stored = self.read(db)
        lost = []
        with self.lock:
            for url, entry in self.state.items():
                found = stored.get(url)
                # The copy holds the value of the write at `position` (or nothing): every write
                # acknowledged after it is lost. A value sent twice counts as its latest sending.
                position = max((i for i, (value, _) in enumerate(entry["log"]) if value == found), default=-1)
                if found is not None and position < 0:
                    lost.append((url, float("inf")))  # a value never sent: no recovery point excuses it
                    continue
                for value, acked_at in entry["log"][position + 1:]:
                    if acked_at is not None:
                        lost.append((url, lost_at - acked_at))
            per_batch = self.import_counts(stored)
            half = []
            for batch, info in self.imports.items():
                present = per_batch.get(batch, 0)
                if present not in (0, info["count"]):
                    half.append((batch, present, info))
                elif info["acked"] and present == 0:
                    lost.append((f"import {batch}", lost_at - info["acked_at"]))
        return integrity, lost, half

    def rebase(self, db):
        """After `recovered` accepted a restored copy: the record becomes what the copy holds, so
        that the next loss is judged against it (what the last one took is no longer expected)."""
        _, stored = self.read(db)
        with self.lock:
            for url in list(self.state):
                if url in stored:
                    self.state[url] = {"acked": stored[url], "attempts": [], "log": [[stored[url], float("-inf")]]}
                else:
                    del self.state[url]
            per_batch = self.import_counts(stored)
            for batch in list(self.imports):
                if per_batch.get(batch, 0):
                    self.imports[batch].update(acked=True, acked_at=float("-inf"))
                else:
                    del self.imports[batch]

    def snapshot(self):
        """The record as it is now, for `reset` after the database is restored to this moment."""
        with self.lock:
            return copy.deepcopy((self.state, self.imports))

    def reset(self, snapshot):
        with self.lock:
            self.state, self.imports = copy.deepcopy(snapshot)

    def acked_imports(self):
        with self.lock:
            return sum(1 for i in self.imports.values() if i["acked"])
