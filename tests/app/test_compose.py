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


@pytest.mark.skipif(shutil.which("docker-compose") is None and shutil.which("docker") is None,
                    reason="no docker compose client on this machine")
def test_docker_compose_accepts_the_file() -> None:
    if shutil.which("docker-compose"):
        command = ["docker-compose", "config", "-q"]
    else:
        command = ["docker", "compose", "config", "-q"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if "unknown command" in result.stderr or "is not a docker command" in result.stderr:
        pytest.skip("docker has no compose plugin here")
    assert result.returncode == 0, result.stderr
