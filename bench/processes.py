"""The benchmark's process plumbing: the warm invocation environments and the stand-in server, each a child
process driven over a pipe (bench/invoke.py) or HTTP (bench/standins_server.py). The scenarios that use them
are in bench/run.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


class WarmEnvironment:
    """A `python -m bench.invoke <flavour>` process: warm imports and clients, one forked child per job."""

    def __init__(self, flavour: str, env: dict[str, str], log: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = log.open("a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.invoke", flavour],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        if self._readline() != "ready":
            raise RuntimeError(f"the {flavour} environment did not start; see {log}")

    def _readline(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def invoke(self, job: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        line = self._readline()
        if not line:
            raise RuntimeError(f"bench.invoke ended (exit {self.process.poll()}); see {self._log.name}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


class StandinServer:
    """bench/standins_server.py in a child process, driven through RemoteAws."""

    def __init__(self) -> None:
        from local.standins.remote import RemoteAws, RemoteError

        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "lambdas")])}
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.standins_server", "--port", "0"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = process.stdout.readline().strip() if process.stdout is not None else ""
        if not line.startswith("http://"):
            process.kill()
            raise RemoteError(f"stand-in process did not start (exit code {process.wait()}, said {line!r})")
        self.aws = RemoteAws(line, process=process)

    def cpu_seconds(self) -> float:
        """CPU time the stand-in process has used so far (user + system, from /proc)."""
        assert self.aws.process is not None
        fields = Path(f"/proc/{self.aws.process.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def stop(self) -> None:
        self.aws.stop()
