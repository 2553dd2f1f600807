"""Hosting: the GitHub Pages workflow and the Read the Docs configuration.

Both run the project's own nox sessions; these tests read the YAML files and
``noxfile.py`` (with ``ast``: nothing needs nox installed) and check that the
two agree: the sessions named exist, the folder published is the one the
``docs`` session builds into, and the jobs run on the events they should.
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
NOXFILE = ROOT / "noxfile.py"
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
READTHEDOCS = ROOT / ".readthedocs.yaml"
SHELL_SEPARATORS = {"&&", "||", ";", "|", "&"}
SESSION_OPTIONS = {"-s", "--session", "--sessions", "-e"}
# the events the jobs' if: conditions are evaluated for
PUSH_MAIN = {"github_event_name": "push", "github_ref": "refs/heads/main"}
PUSH_BRANCH = {"github_event_name": "push", "github_ref": "refs/heads/topic"}
PULL_REQUEST = {"github_event_name": "pull_request", "github_ref": "refs/pull/1/merge"}
DISPATCH = {"github_event_name": "workflow_dispatch", "github_ref": "refs/heads/main"}
SCHEDULE = {"github_event_name": "schedule", "github_ref": "refs/heads/main"}


# -- what noxfile.py defines ---------------------------------------------------------


def _noxfile() -> ast.Module:
    return ast.parse(NOXFILE.read_text(encoding="utf-8"), filename=str(NOXFILE))


def _is_nox_session(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (
        isinstance(target, ast.Attribute)
        and target.attr == "session"
        and isinstance(target.value, ast.Name)
        and target.value.id == "nox"
    )


def nox_sessions() -> set[str]:
    """The session names noxfile.py registers: ``name=`` when given, else the function's name."""
    names: set[str] = set()
    for node in _noxfile().body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if not _is_nox_session(decorator):
                continue
            name = node.name
            if isinstance(decorator, ast.Call):
                for keyword in decorator.keywords:
                    if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                        name = str(keyword.value.value)
            names.add(name)
    return names


def noxfile_path(variable: str) -> str:
    """A ``ROOT / "a" / "b"`` constant of noxfile.py, as the repo-relative path ``a/b``."""
    assignments = {
        target.id: node.value
        for node in _noxfile().body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def resolve(expression: ast.expr) -> PurePosixPath:
        if isinstance(expression, ast.Name) and expression.id == "ROOT":
            return PurePosixPath()
        if isinstance(expression, ast.Name) and expression.id in assignments:
            return resolve(assignments[expression.id])
        if (
            isinstance(expression, ast.BinOp)
            and isinstance(expression.op, ast.Div)
            and isinstance(expression.right, ast.Constant)
        ):
            return resolve(expression.left) / str(expression.right.value)
        raise AssertionError(f"noxfile.py: cannot read {ast.unparse(expression)} as a path under ROOT")

    return resolve(ast.Name(id=variable)).as_posix()


# -- commands in the YAML files ------------------------------------------------------


def load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name} is not a YAML mapping"
    return data


def strings(value: object) -> list[str]:
    """Every string in a parsed YAML document, depth first, in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def commands(text: str) -> list[list[str]]:
    """The simple shell commands in ``text`` (a run block), split into words."""
    found: list[list[str]] = []
    for line in text.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        command: list[str] = []
        for token in lexer:
            if token in SHELL_SEPARATORS:
                found.append(command)
                command = []
            else:
                command.append(token)
        found.append(command)
    return [command for command in found if command]


def is_nox(command: list[str]) -> bool:
    """``nox ...``, ``python -m nox ...``, possibly after ``VAR=value`` assignments."""
    words = [word for word in command if not re.fullmatch(r"[A-Za-z_]\w*=.*", word)]
    if words and PurePosixPath(words[0]).name == "nox":
        return True
    return (
        len(words) >= 3
        and re.fullmatch(r"python[\d.]*", PurePosixPath(words[0]).name) is not None
        and (words[1:3] == ["-m", "nox"])
    )


def sessions_run(command: list[str]) -> list[str]:
    """The sessions a nox command names after ``-s``/``--sessions``/``-e`` (none for other commands)."""
    if not is_nox(command):
        return []
    names: list[str] = []
    taking = False
    for word in command:
        if word == "--":
            break
        if word in SESSION_OPTIONS:
            taking = True
        elif word.startswith("-"):
            taking = False
        elif taking:
            names.append(word)
    return names


def all_sessions_run(document: object) -> list[str]:
    return [name for text in strings(document) for c in commands(text) for name in sessions_run(c)]


_TOKEN = re.compile(r"\s*('(?:[^']|'')*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][\w.-]*)")


def _tokens(condition: str) -> list[str]:
    """The tokens of a condition: string literals, operators, parentheses and names."""
    tokens, at = [], 0
    while condition[at:].strip():
        match = _TOKEN.match(condition, at)
        if match is None:
            raise AssertionError(f"cannot read {condition[at:]!r} in the condition {condition!r}")
        tokens.append(match[1])
        at = match.end()
    return tokens


def evaluate(condition: str, **context: str) -> bool:
    """Evaluate a GitHub Actions ``if:`` over ``context`` (``github.ref`` given as ``github_ref``).

    The forms the workflows use: ``||`` over ``&&`` over ``!``, parentheses,
    ``==`` and ``!=`` between a context value and a string literal, ``true``
    and ``false``. Anything else (a function such as ``always()``, a name not
    in ``context``) is refused rather than guessed.
    """
    tokens = _tokens(condition.strip().removeprefix("${{").removesuffix("}}"))

    def take(expected: str | None = None) -> str:
        if not tokens or (expected is not None and tokens[0] != expected):
            raise AssertionError(f"expected {expected or 'more'} in the condition {condition!r}")
        return tokens.pop(0)

    def either() -> bool | str:  # a || b || ...
        value = both()
        while tokens and tokens[0] == "||":
            take()
            right = both()
            value = bool(value) or bool(right)
        return value

    def both() -> bool | str:  # a && b && ...
        value = negated()
        while tokens and tokens[0] == "&&":
            take()
            right = negated()
            value = bool(value) and bool(right)
        return value

    def negated() -> bool | str:  # !a
        if tokens and tokens[0] == "!":
            take()
            return not negated()
        return comparison()

    def comparison() -> bool | str:  # a == b, a != b
        left = operand()
        if tokens and tokens[0] in ("==", "!="):
            operator, right = take(), operand()
            return (left == right) == (operator == "==")
        return left

    def operand() -> bool | str:
        token = take()
        if token == "(":
            value = either()
            take(")")
            return value
        if token.startswith("'"):
            return token[1:-1].replace("''", "'")
        if token in ("true", "false"):
            return token == "true"
        if token.replace(".", "_") in context:
            return context[token.replace(".", "_")]
        raise AssertionError(f"cannot evaluate {token!r} in the condition {condition!r}")

    result = either()
    if tokens:
        raise AssertionError(f"cannot evaluate {' '.join(tokens)!r} in the condition {condition!r}")
    return bool(result)


def job_runs(job: dict[str, Any], **context: str) -> bool:
    return "if" not in job or evaluate(str(job["if"]), **context)


def step_running(job: dict[str, Any], session: str) -> int:
    """The index of the job's step whose commands run ``nox -s <session>``."""
    for index, step in enumerate(job["steps"]):
        if any(session in sessions_run(c) for c in commands(str(step.get("run", "")))):
            return index
    raise AssertionError(f"no step runs nox -s {session}")


def step_using(job: dict[str, Any], action: str) -> tuple[int, dict[str, Any]]:
    for index, step in enumerate(job["steps"]):
        if str(step.get("uses", "")).split("@")[0] == action:
            return index, step
    raise AssertionError(f"no step uses {action}")


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    return load(WORKFLOW)


@pytest.fixture(scope="module")
def readthedocs() -> dict[Any, Any]:
    return load(READTHEDOCS)


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the key `on` as the boolean True
    on = workflow.get("on", workflow.get(True))
    assert isinstance(on, dict), "the workflow's `on:` is not a mapping of events"
    return on


# -- the helpers themselves ----------------------------------------------------------


def test_helpers_find_sessions_and_commands() -> None:
    """If the readers were wrong, every other test here could pass on files that name nothing."""
    assert {"docs", "tests", "lint", "drift", "docs-live", "capture-cuda"} <= nox_sessions()
    assert "docs_live" not in nox_sessions()
    assert noxfile_path("HTML") == "build/html"
    run = 'python -m pip install "nox>=2025.2.9"\nX="$Y" python3 -m nox -s docs tests -- -k x && nox -e lint'
    assert [sessions_run(c) for c in commands(run)] == [[], ["docs", "tests"], ["lint"]]
    assert evaluate("github.event_name == 'push' && github.ref == 'refs/heads/main'", **PUSH_MAIN)
    assert not evaluate("${{ !(github.event_name == 'push') }}", **PUSH_MAIN)
    assert evaluate("github.event_name == 'workflow_dispatch' || github.event_name == 'schedule'", **SCHEDULE)
    assert not evaluate("github.event_name != 'schedule'", **SCHEDULE)
    # && binds tighter than ||, parentheses tighter still
    assert evaluate("github.event_name == 'push' || true && github.ref == 'refs/heads/topic'", **PUSH_MAIN)
    assert not evaluate(
        "(github.event_name == 'push' || true) && github.ref == 'refs/heads/topic'", **PUSH_MAIN
    )
    assert evaluate("github.ref == 'it''s'", github_ref="it's")
    for unknown in ("always()", "github.actor == 'x'", "github.ref == 'a' 'b'", "(true"):
        with pytest.raises(AssertionError, match="condition"):
            evaluate(unknown, **PUSH_MAIN)


# -- both files ----------------------------------------------------------------------


@pytest.mark.parametrize("path", [WORKFLOW, READTHEDOCS], ids=lambda p: p.name)
def test_nox_commands_name_existing_sessions(path: Path) -> None:
    """Renaming or removing a nox session would otherwise break the hosted builds silently.

    Each file must run at least one session, and every ``nox -s NAME`` in it
    must be a session noxfile.py defines.
    """
    named = all_sessions_run(load(path))
    assert named, f"{path.name} runs no nox session"
    missing = sorted(set(named) - nox_sessions())
    assert not missing, f"{path.name} runs nox sessions noxfile.py does not define: {missing}"


# -- GitHub Pages --------------------------------------------------------------------


def test_workflow_triggers(workflow: dict[Any, Any]) -> None:
    """Without these events, pull requests go unbuilt, main is never published, or the CUDA job never runs."""
    on = triggers(workflow)
    assert set(on) >= {"push", "pull_request", "workflow_dispatch", "schedule"}
    assert "main" in on["push"]["branches"]
    assert all(len(entry["cron"].split()) == 5 for entry in on["schedule"])


def test_pages_publishes_the_folder_docs_builds(workflow: dict[Any, Any]) -> None:
    """Publishing another folder than noxfile.py's HTML would deploy an empty or stale site.

    The docs job builds with ``nox -s docs``, then uploads noxfile.py's
    ``HTML`` folder as the Pages artifact, on pushes and pull requests alike.
    """
    docs = workflow["jobs"]["docs"]
    built = step_running(docs, "docs")
    uploaded, upload = step_using(docs, "actions/upload-pages-artifact")
    assert uploaded > built, "the Pages artifact is uploaded before the site is built"
    assert PurePosixPath(upload["with"]["path"]).as_posix() == noxfile_path("HTML")
    for event in (PUSH_MAIN, PULL_REQUEST, DISPATCH):
        assert job_runs(docs, **event), f"the docs job does not run on {event['github_event_name']}"


def test_pages_build_knows_its_address(workflow: dict[Any, Any]) -> None:
    """Without AUTOGRAD_NOTES_SITE_URL, canonical links, sitemap and 404 page would point elsewhere.

    The address must reach the step that builds, and end with a slash (the
    language folders are joined onto it).
    """
    docs = workflow["jobs"]["docs"]
    step = docs["steps"][step_running(docs, "docs")]
    env = {**workflow.get("env", {}), **docs.get("env", {}), **step.get("env", {})}
    address = str(env.get("AUTOGRAD_NOTES_SITE_URL", ""))
    assert address.startswith("https://"), address
    assert address.endswith("/"), address
    assert "github.io" in address


def test_deploy_needs_docs_and_runs_only_on_push_to_main(workflow: dict[Any, Any]) -> None:
    """A deploy without the docs job has no artifact; one from a branch or pull request would publish it."""
    deploy = workflow["jobs"]["deploy"]
    needs = deploy["needs"]
    assert "docs" in ([needs] if isinstance(needs, str) else needs)
    assert job_runs(deploy, **PUSH_MAIN)
    for event in (PUSH_BRANCH, PULL_REQUEST, DISPATCH, SCHEDULE):
        assert not job_runs(deploy, **event), f"deploy runs on {event}"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    _, step = step_using(deploy, "actions/deploy-pages")
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["environment"]["url"].replace(" ", "") == f"${{{{steps.{step['id']}.outputs.page_url}}}}"


def test_actions_are_pinned_to_a_major_version(workflow: dict[Any, Any]) -> None:
    """An unpinned action (or @main) changes under the workflow without a commit."""
    used = [step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step]
    assert used
    for action in used:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", action), action


def test_cuda_job_requires_cuda_and_skips_pull_requests(workflow: dict[Any, Any]) -> None:
    """The GPU job must fail without CUDA, run capture-cuda, and never run a pull request's code.

    A self-hosted runner executing a pull request's code is a security hole;
    a CUDA run that silently skips CUDA checks nothing; records not uploaded
    when the comparison fails cannot be reviewed.
    """
    job = workflow["jobs"]["cuda-records"]
    assert {"self-hosted", "gpu"} <= set(job["runs-on"])
    assert str({**workflow.get("env", {}), **job.get("env", {})}.get("REQUIRE_CUDA")) == "1"
    captured = step_running(job, "capture-cuda")
    assert not job_runs(job, **PULL_REQUEST)
    assert not job_runs(job, **PUSH_MAIN)
    assert job_runs(job, **DISPATCH)
    assert job_runs(job, **SCHEDULE)
    uploaded, upload = step_using(job, "actions/upload-artifact")
    assert uploaded > captured
    assert upload["with"]["name"] == "cuda-records"
    assert "records/cuda" in str(upload["with"]["path"]).split()
    assert upload.get("if") == "always()", "the records are not uploaded when the comparison fails"


# -- Read the Docs -------------------------------------------------------------------


def test_readthedocs_builds_with_nox_into_its_output(readthedocs: dict[Any, Any]) -> None:
    """Read the Docs would serve nothing (or a site built another way) if this config drifted.

    Version 2; nox installed; ``nox -s docs`` run with the site address from
    READTHEDOCS_CANONICAL_URL on the same command (each command is a shell of
    its own); then noxfile.py's HTML folder copied into
    ``$READTHEDOCS_OUTPUT/html``.
    """
    assert readthedocs["version"] == 2
    build = readthedocs["build"]
    assert build["os"]
    assert build["tools"]["python"] == "3.11"
    jobs = build["jobs"]
    installs = [c for text in jobs["install"] for c in commands(text)]
    assert any(c[-1] == "nox" or c[-1].startswith("nox>") for c in installs if "install" in c)
    html = [c for text in jobs["build"]["html"] for c in commands(text)]
    built = next(i for i, c in enumerate(html) if "docs" in sessions_run(c))
    assert "AUTOGRAD_NOTES_SITE_URL=$READTHEDOCS_CANONICAL_URL" in html[built]
    source = noxfile_path("HTML")
    output = {"$READTHEDOCS_OUTPUT/html", "${READTHEDOCS_OUTPUT}/html"}
    copies = [
        i
        for i, c in enumerate(html)
        if c[0] == "cp" and PurePosixPath(c[-2]).as_posix() == source and c[-1].rstrip("/") in output
    ]
    assert copies, f"no command copies {source} into $READTHEDOCS_OUTPUT/html"
    copy = copies[-1]
    assert copy > built, "the site is copied before it is built"
    if html[copy][-2].endswith("/."):
        # `cp -r build/html/. DEST` copies the contents: DEST must exist
        made = [c[-1].rstrip("/") for c in html[:copy] if c[:2] == ["mkdir", "-p"]]
        assert html[copy][-1].rstrip("/") in made, "the copy's destination is never created"


def test_capture_cuda_sends_a_gpu_machine_with_its_own_pytorch_to_the_readme_recipe() -> None:
    """``nox -s capture-cuda`` installs the pinned PyTorch from the network (CI's job); the recipe does not.

    The recipe (in the maintainer guide) is run as written by tests/records/test_rehearsal.py.
    """
    readme = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    (row,) = [line for line in readme.splitlines() if line.startswith("| `nox -s capture-cuda` |")]
    assert "(#record-on-a-gpu-machine)" in row
    assert "its own PyTorch" in row
    recipe = readme.split("## Record on a GPU machine", 1)[1].split("\n## ", 1)[0]
    (command,) = [line.strip() for line in recipe.splitlines() if "-m autograd_notes capture" in line]
    assert not {"nox", "pip", "uv"} & set(shlex.split(command))
    (session,) = [f for f in _noxfile().body if isinstance(f, ast.FunctionDef) and f.name == "capture_cuda"]
    docstring = " ".join((ast.get_docstring(session) or "").split())
    assert '"Record on a GPU machine"' in docstring
    assert command.split(" --archive")[0] in docstring.replace("``", "")
