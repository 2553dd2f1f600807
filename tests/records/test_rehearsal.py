"""The rehearsal of a GPU machine: the maintainer guide's recipe, run as written, nothing of ours installed.

A borrowed GPU machine has its own PyTorch, NumPy and matplotlib, and a copy
of the source tree. This test makes one: a fresh virtual environment with
only those three (and what they pull in), the project *not* installed, and a
plain copy of the working tree. It runs the capture command of the maintainer guide's
"Record on a GPU machine" section exactly as written there, with ``--device
cpu``, a temporary records folder and two examples added, then checks the
records and the archive, and ingests the archive into another copy of the
project, as step 3 of the recipe does. Installing takes about a minute: the
test is marked ``build`` (it builds an environment), out of the inner loop.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import torch
from _venvs import bare_environment, venv_on

from autograd_notes.records.format.record import load_record, record_text
from autograd_notes.records.format.schema import check_record, gallery_cells
from autograd_notes.records.history.releases import pinned_torch, release_of

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Record on a GPU machine"
EXAMPLES = ("02_backward/plot_retain_graph.py", "01_graph_basics/plot_requires_grad_no_grad.py")
# what a machine with "only PyTorch, NumPy and matplotlib" has: those and their own requirements
ALLOWED = {
    "torch", "numpy", "matplotlib", "contourpy", "cycler", "fonttools", "kiwisolver", "packaging",
    "pillow", "pyparsing", "python-dateutil", "six", "filelock", "typing-extensions", "sympy",
    "mpmath", "networkx", "jinja2", "markupsafe", "fsspec", "setuptools", "pip", "tzdata",
    "triton", "importlib-resources",
}  # fmt: skip


def readme_section() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert SECTION in text, f"CONTRIBUTING.md has no {SECTION!r} section"
    return text.split(SECTION, 1)[1].split("\n## ", 1)[0]


def readme_capture_command() -> str:
    """The one capture command of the maintainer guide's GPU recipe, as a reader copies it."""
    lines = [line.strip() for line in readme_section().splitlines() if "-m autograd_notes capture" in line]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_readme_recipe_is_one_command_with_an_archive() -> None:
    words = shlex.split(readme_capture_command())
    assert words[0] == "PYTHONPATH=src"
    # under a time limit shorter than the machine's, with the python a stock machine has
    assert words[1] == "timeout"
    assert 0 < int(words[2]) < 600
    assert words[3:6] == ["python3", "-m", "autograd_notes"]
    assert words[6:9] == ["capture", "--device", "cuda"]
    assert "--release" in words
    archive = words[words.index("--archive") + 1]
    # into the folder the machine brings back
    assert archive.startswith("$OUT/")
    section = readme_section()
    # the same file is brought back and ingested, and the tree it runs in is the archive of HEAD
    assert f"python -m autograd_notes ingest {archive.removeprefix('$OUT/')}" in section
    assert "git archive --format=tar.gz -o autograd-notes-src.tar.gz HEAD" in section
    assert "tar -xzf autograd-notes-src.tar.gz -C autograd-notes" in section


def copy_tree(destination: Path) -> Path:
    """A plain copy of the working tree: its tracked and new files, no environment, nothing built."""
    # the tree as git lists it (a checkout is what the recipe packs): without git, the test fails
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def make_venv(torch_site: Path, folder: Path) -> Path:
    """A fresh environment with only PyTorch (pinned, shared install), NumPy and matplotlib, from the lock."""
    python = venv_on(torch_site, folder)
    subprocess.run(
        [
            str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "numpy", "matplotlib", "-c", str(ROOT / "constraints" / "toolchain.txt"),
        ],
        check=True,
        timeout=600,
        env=bare_environment(),
    )  # fmt: skip
    return python


def installed(python: Path) -> set[str]:
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
        env=bare_environment(),
    ).stdout
    return {re.split("[=@ ]", line)[0].lower().replace("_", "-") for line in listed.splitlines() if line}


def test_the_gpu_recipe_runs_where_only_torch_numpy_and_matplotlib_are(
    torch_site: Path, tmp_path: Path
) -> None:
    python = make_venv(torch_site, tmp_path / "venv")
    assert installed(python) <= ALLOWED, installed(python) - ALLOWED
    tree = copy_tree(tmp_path / "tree")
    scratch = copy_tree(tmp_path / "scratch")
    env = bare_environment()
    probe = subprocess.run([str(python), "-c", "import autograd_notes"], cwd=tmp_path, env=env, check=False)
    assert probe.returncode != 0, "the project must not be installed in the rehearsal's environment"

    # step 2 of the recipe, as written, on the CPU, into a temporary records folder, two examples
    words = shlex.split(readme_capture_command().replace("$OUT", str(tmp_path / "out")))
    assignments = dict(word.split("=", 1) for word in words if re.match(r"^[A-Z_]+=", word))
    command = words[len(assignments) :]
    assert command[2] == "python3"
    command[2] = str(python)
    command[command.index("--device") + 1] = "cpu"
    records = tmp_path / "records-here"
    command += ["--records", str(records), *EXAMPLES]
    result = subprocess.run(
        command,
        cwd=tree,
        env={**env, **assignments},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout.splitlines()
    # a line as each example ends, side by side (--jobs: the machine's CPUs), in the order they end
    ended = [found[1] for line in out if (found := re.match(r"^\[\d/2\] (\S+)  \d+\.\d s  recorded$", line))]
    assert sorted(ended) == sorted(EXAMPLES), out
    assert any(
        re.match(r"^captured 2 example\(s\) on cpu in \d+\.\d s \(\d+ at a time\)$", line) for line in out
    )

    # the records: on the CPU runner of this PyTorch, in their place, of this gallery
    release = release_of(torch.__version__)
    own_build = release == pinned_torch(ROOT) and torch.version.cuda is None
    place = "cpu" if own_build else f"releases/{release}/cpu"
    known = gallery_cells(ROOT / "gallery")
    made = {}
    for example in EXAMPLES:
        name = f"{place}/{Path(example).with_suffix('.json').as_posix()}"
        record = load_record(records / name)
        assert record is not None, name
        check_record(record, example, known)
        assert record["runner"]["torch"] == torch.__version__
        assert record["runner"]["device"] == "cpu"
        made[f"records/{name}"] = (records / name).read_text(encoding="utf-8")

    # the archive: the manifest and those records, byte for byte
    archive_name = words[words.index("--archive") + 1]
    archive = tree / archive_name
    with tarfile.open(archive) as tar:
        assert sorted(tar.getnames()) == sorted(["manifest.json", *made])
        for name, text in made.items():
            member = tar.extractfile(name)
            assert member is not None
            assert member.read().decode() == text

    # step 3: ingest into a copy of the project without those records
    for name in made:
        (scratch / name).unlink(missing_ok=True)
    brought = shutil.copy(archive, tmp_path / Path(archive_name).name)  # what the machine brings back
    ingest = subprocess.run(
        [sys.executable, "-m", "autograd_notes", "ingest", str(brought)],
        cwd=scratch,
        env={**env, "PYTHONPATH": str(scratch / "src")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (ingest.returncode, ingest.stderr) == (0, ""), ingest.stdout + ingest.stderr
    assert sorted(line for line in ingest.stdout.splitlines() if line.startswith("added: ")) == sorted(
        f"added: {name}" for name in made
    )
    for name, text in made.items():
        arrived = load_record(scratch / name)
        assert arrived is not None
        assert record_text(arrived) == text
