"""docker-compose.yml: the app, Redis and PostgreSQL, wired together."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_compose_runs_app_redis_and_postgres_with_healthchecks_and_volumes() -> None:
    spec = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = spec["services"]
    assert {"app", "app2", "redis", "postgres"} <= set(services)
    # Two replicas of the same app on the same Redis and PostgreSQL.
    assert services["app2"]["environment"] == services["app"]["environment"]
    assert services["app2"]["command"] == services["app"]["command"]
    app = services["app"]
    assert "app.migrate" in app["command"] and "python -m app " in app["command"]
    assert app["environment"]["REDIS_URL"].startswith("redis://redis")
    assert "@postgres:5432/" in app["environment"]["DATABASE_URL"]
    assert app["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    for name in ("app", "app2", "redis", "postgres"):
        assert "healthcheck" in services[name], name
    assert set(spec["volumes"]) >= {"pgdata", "redisdata"}


def compose_command() -> list[str] | None:
    """The compose client this machine has: ``docker-compose``, or the docker plugin."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return None


def test_docker_compose_accepts_the_file() -> None:
    command = compose_command()
    if command is None:
        pytest.skip("no docker compose client on this machine (.ci/run installs one)")
    result = subprocess.run([*command, "config", "-q"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
