"""Build, test and lint Autograd Notes: ``nox -l`` lists the sessions.

Every session installs through two constraint files:

* ``constraints/toolchain.txt``, the lock of the build and test tool chain
  (Sphinx, sphinx-gallery, myst-nb, furo, pytest, ...), resolved from the
  dependency groups of ``pyproject.toml`` by ``nox -s lock``: a new release
  of a tool reaches the site only through a reviewed change of that file;
* ``constraints/torch.txt``, the PyTorch of CI and default builds. To build
  or test against another release (a drift check), set
  ``AUTOGRAD_NOTES_TORCH=<version>``: the session then installs that version
  instead (the registry's other versions are CUDA builds of several GB).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import time
import types
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "venv"
# environments are kept between runs; _install skips what is installed already
nox.options.reuse_venv = "yes"
nox.options.sessions = ["lint", "tests", "docs"]

ROOT = Path(__file__).parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
CONSTRAINTS = ROOT / "constraints" / "torch.txt"
TOOLCHAIN = ROOT / "constraints" / "toolchain.txt"
# the groups constraints/toolchain.txt is resolved from: every group of pyproject.toml
LOCKED_GROUPS = tuple(PYPROJECT["dependency-groups"])
DOCS = ROOT / "docs"
BUILD = ROOT / "build"
HTML = BUILD / "html"
TORCH_VARIABLE = "AUTOGRAD_NOTES_TORCH"
SPHINX_FLAGS = ("-n", "-W", "--keep-going", "-b", "html", "-d", str(BUILD / "doctrees"))


def _install(session: nox.Session, *groups: str) -> None:
    """Install torch (pinned, or the override), the project and dependency groups, all locked.

    Environments are kept between runs (``reuse_venv``); the install is skipped
    when the environment was installed from the same lock, PyTorch pin,
    ``pyproject.toml`` and groups (a stamp in the environment says which):
    an unchanged second ``nox -s docs`` goes straight to the build. The project
    is installed editable, so a change to its code needs no install.
    """
    override = os.environ.get(TORCH_VARIABLE)
    stamp = _install_stamp(session)
    key = _install_key(override, groups)
    if stamp is not None and stamp.is_file() and stamp.read_text(encoding="utf-8") == key:
        session.log("The environment is installed from the same lock and pins: no install")
        return
    # The torch constraints keep any dependency from replacing the pinned torch.
    pins = ["-c", str(TOOLCHAIN), *([] if override else ["-c", str(CONSTRAINTS)])]
    session.install(*pins, f"torch=={override}" if override else "torch")
    requirements = [req for group in groups for req in nox.project.dependency_groups(PYPROJECT, group)]
    session.install(*pins, "-e", ".", *requirements)
    _quiet_kernel(session)
    if stamp is not None:
        stamp.write_text(key, encoding="utf-8")


def _environment(session: nox.Session) -> Path | None:
    """The session's virtual environment folder (``None`` when it runs without one)."""
    if isinstance(session.virtualenv, nox.virtualenv.VirtualEnv):
        return Path(session.virtualenv.location)
    return None


def _install_stamp(session: nox.Session) -> Path | None:
    """Where the environment records what it was installed from (``None`` outside a virtualenv)."""
    location = _environment(session)
    return None if location is None else location / "autograd-notes-installed.txt"


def _install_key(override: str | None, groups: tuple[str, ...]) -> str:
    """What an environment's packages follow from: the lock, the pins, ``pyproject.toml``, the groups."""
    digest = hashlib.sha256()
    for path in (TOOLCHAIN, CONSTRAINTS, ROOT / "pyproject.toml"):
        digest.update(path.read_bytes())
    digest.update(f"{override}|{','.join(groups)}|{sys.version}".encode())
    return digest.hexdigest() + "\n"


def _quiet_kernel(session: nox.Session) -> None:
    """Keep the Jupyter kernels that myst-nb starts from logging on every page.

    ipykernel warns "Kernel is running over TCP without encryption" each time
    it starts (the kernel runs on loopback, for one notebook). IPython reads
    kernel settings from ``<environment>/etc/ipython``: there, its log level
    is raised to errors.
    """
    location = _environment(session)
    if location is None:
        return
    config = location / "etc" / "ipython" / "ipython_kernel_config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"IPKernelApp": {"log_level": "ERROR"}}) + "\n", encoding="utf-8")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site into build/html (examples run once; unchanged ones are cached)."""
    _install(session, "docs")
    session.run("python", "-m", "autograd_notes.site.build.sitebuild", str(DOCS), str(HTML), *session.posargs)
    session.log(f"Open the site: {(HTML / 'index.html').as_uri()}")


@nox.session(name="docs-live")
def docs_live(session: nox.Session) -> None:
    """Serve the English site with live reload while writing (examples re-run when edited)."""
    _install(session, "live")
    session.run(
        "sphinx-autobuild",
        *SPHINX_FLAGS,
        "--watch",
        str(ROOT / "gallery"),
        "--watch",
        str(ROOT / "src"),
        "--re-ignore",
        r"(examples|jupyter_execute)/",
        *session.posargs,
        str(DOCS),
        str(HTML / "en"),
    )


@nox.session
def translations(session: nox.Session) -> None:
    """Re-extract messages, merge them into docs/locale, and print coverage per language.

    ``nox -s translations -- gallery/14_training_state/plot_x.py docs/index.md``
    merges only those pages' catalogs (gallery scripts, with the indexes that list
    them, or pages of docs/), so that a change to one page leaves every other
    catalog as it is.
    """
    _install(session, "i18n")
    only = sorted(set().union(*(_catalog_names(Path(argument)) for argument in session.posargs)))
    gettext = BUILD / "gettext"
    shutil.rmtree(gettext, ignore_errors=True)
    # plot_gallery=0: the messages come from the pages, never from an execution
    session.run(
        "sphinx-build",
        "-q",
        "-b",
        "gettext",
        "-D",
        "plot_gallery=0",
        "-d",
        str(BUILD / "doctrees" / "gettext"),
        str(DOCS),
        str(gettext),
    )
    listed = session.run(
        "python", "-m", "autograd_notes.site.build.sitebuild", "--list-languages", str(DOCS), silent=True
    )
    languages = [code for code in str(listed).split() if code != "en"]
    # sphinx.po (the theme's and the extension's interface strings) is kept by hand and
    # checked by tests/site/test_interface_strings.py: the templates alone would mark the
    # extension's strings obsolete
    (gettext / "sphinx.pot").unlink(missing_ok=True)
    if only:
        templates = {
            pot.relative_to(gettext).with_suffix("").as_posix(): pot for pot in gettext.rglob("*.pot")
        }
        unknown = [name for name in only if name not in templates]
        if unknown:
            pages = "docs/**/*.md, gallery/*/*.py, gallery/*/GALLERY_HEADER.rst"
            session.error(f"no page to translate for {', '.join(unknown)} (pages: {pages})")
        for name, pot in templates.items():
            if name not in only:
                pot.unlink()
    session.run(
        "sphinx-intl",
        "update",
        "-p",
        str(gettext),
        "-d",
        str(DOCS / "locale"),
        *(f"-l{code}" for code in languages),
    )
    session.run(
        "python",
        "-m",
        "autograd_notes.site.i18n.catalogs",
        str(DOCS / "locale"),
        "--pot",
        str(gettext),
        "--purge-obsolete",
        *(f"--language={code}" for code in languages),
    )


def _catalog_names(page: Path) -> set[str]:
    """The catalogs a page's text is in: ``gallery/05_inplace/plot_x.py`` -> ``examples/05_inplace/plot_x``.

    A gallery page is also listed on its section's index and on the gallery's index, which
    repeats every section's header: a new or edited page or header changes those two too.
    """
    parts = page.with_suffix("").parts
    if parts and parts[0] == "gallery":
        # a section's GALLERY_HEADER.rst is its index page
        tail = ["index" if part == "GALLERY_HEADER" else part for part in parts[1:]]
        indexes = {"examples/index", f"examples/{tail[0]}/index"} if len(tail) > 1 else set()
        return {"/".join(["examples", *tail]), *indexes}
    if parts and parts[0] == "docs":
        return {"/".join(parts[1:])}
    return {"/".join(parts)}


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite: helpers, every example on CPU, real site builds, a real browser."""
    _install(session, "test")
    _ensure_chromium(session)
    session.run("pytest", *session.posargs)


CHROMIUM = Path(os.environ.get("AUTOGRAD_NOTES_CHROMIUM", "/usr/bin/chromium"))
# Debian's Chromium for the browser tests (Playwright cannot download its own
# browser here), CJK fonts so that Chinese pages render in screenshots, and GNU
# gettext, whose msgfmt -c checks every catalog as translation platforms do
BROWSER_PACKAGES = ("chromium", "fonts-noto-cjk", "gettext")


def _ensure_chromium(session: nox.Session) -> None:
    """Install Debian's Chromium for tests/site/test_browser.py when it is missing and apt can.

    It says so first: apt-get changes the host (it upgrades what the packages
    need). ``AUTOGRAD_NOTES_CHROMIUM`` names a Chromium instead.
    """
    if CHROMIUM.exists() and shutil.which("msgfmt"):
        return
    if shutil.which("apt-get") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        session.warn(
            f"No Chromium at {CHROMIUM} or no msgfmt: the browser and catalog tests will fail. Install "
            "Debian's chromium and gettext (apt-get install chromium fonts-noto-cjk gettext), or set "
            "AUTOGRAD_NOTES_CHROMIUM to a Chromium."
        )
        return
    packages = " ".join(BROWSER_PACKAGES)
    session.log(
        f"No Chromium at {CHROMIUM} or no msgfmt: installing {packages} with apt-get now, for the browser "
        "and catalog tests. "
        "This changes the host: apt-get also installs or upgrades the system packages they need "
        "(15 on a fresh Debian). To keep the host as it is, stop here (Ctrl-C) and set "
        "AUTOGRAD_NOTES_CHROMIUM to a Chromium you have."
    )
    session.run(
        "apt-get",
        "install",
        "-y",
        "-qq",
        *BROWSER_PACKAGES,
        external=True,
        env={"DEBIAN_FRONTEND": "noninteractive"},
    )


@nox.session
def lint(session: nox.Session) -> None:
    """Check style, formatting, types and the package's layers (ruff, mypy, import-linter)."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("lint-imports")


@nox.session
def drift(session: nox.Session) -> None:
    """Re-run every example on this machine's runners and compare with records/ (-- --torch X.Y.Z)."""
    args = list(session.posargs)
    if "--torch" not in args:
        _install(session)
        # one report per PyTorch: a check of another release never overwrites this one
        release = os.environ.get(TORCH_VARIABLE) or _pinned_torch()
        report = ["--json", str(BUILD / "drift" / f"torch-{release}.json")]
        session.run("python", "-m", "autograd_notes", "drift", *report, *args)
        return
    at = args.index("--torch")
    if at + 1 >= len(args):
        session.error("--torch needs a version, e.g. nox -s drift -- --torch 2.15.0")
    version = args[at + 1]
    del args[at : at + 2]
    report = ["--json", str(BUILD / "drift" / f"torch-{version}.json")]
    python, seconds, problem = _release_env(session, version, _installer())
    if python is None:
        session.error(problem)
    session.log(f"comparing the records with torch {version} (installed in {seconds:.0f} s)")
    # compared with records/releases/<version> where the timeline has them (what it shows for it)
    session.run(str(python), "-m", "autograd_notes", "drift", *report, *args, external=True)


RELEASE_ENVS = ROOT / ".nox"


def _load_records_module(name: str) -> types.ModuleType:
    """autograd_notes/records/<name>.py (``history/releases``), loaded alone.

    Logic that needs ``packaging``, not PyTorch or the package.
    """
    path = ROOT / "src" / "autograd_notes" / "records" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"autograd_notes_{name.replace('/', '_')}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # registered before it runs, as an import does: a dataclass looks its module up there
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


RELEASES = _load_records_module("history/releases")
PIP_CAPS = _load_records_module("exchange/pip_caps")
TIMELINE_RELEASES: list[str] = RELEASES.default_releases(ROOT / "pyproject.toml")


def _pip_settings_for_uv(session: nox.Session, *, find_links: bool = True) -> list[str]:
    """The pip configuration of this machine (find-links, index URLs), as uv arguments.

    uv does not read pip's configuration; here the local find-links hold the pinned
    CPU wheel and the extra indexes local packages. ``unsafe-best-match`` resolves
    across indexes as pip does (uv's default takes a package from the first index
    that has it, where the wanted release may be missing).
    """
    listed = session.run(sys.executable, "-m", "pip", "config", "list", silent=True, external=True)
    flags = {"find-links": "--find-links", "index-url": "--index-url", "extra-index-url": "--extra-index-url"}
    arguments = ["--index-strategy", "unsafe-best-match"]
    for line in str(listed).splitlines():
        key, _, value = line.partition("=")
        option = flags.get(key.rpartition(".")[2])
        if option is not None and (find_links or option != "--find-links"):
            arguments += [part for url in value.strip("'\"").split() for part in (option, url)]
    return arguments


def _release_env(
    session: nox.Session, version: str, installer: str, *, registry_build: bool = False
) -> tuple[Path | None, float, str]:
    """The environment of one PyTorch release, ``.nox/torch-<version>``, made and installed if missing.

    Returns its Python, the seconds the install took (0 when reused) and, if the install
    failed, why (the Python is then ``None`` and the broken environment removed). Its own
    environment per release, beside nox's: the pinned one stays as it is. ``installer``
    is ``uv`` (several times faster: it installs a release's CUDA packages from its cache
    by links) or ``pip``, which reads this machine's configuration itself. With
    ``registry_build``, the local find-links are left out: the pinned release then comes
    as the registry builds it (CUDA), as every other release of the timeline does.
    """
    env = RELEASE_ENVS / f"torch-{version}{'-registry' if registry_build else ''}"
    python = env / "bin" / "python"
    ready = env / ".installed"
    if ready.exists():
        return python, 0.0, ""
    start = time.perf_counter()
    pins = ["-c", str(TOOLCHAIN)]
    wanted = [f"torch=={version}", "-e", "."]
    try:
        if installer == "uv":
            session.run("uv", "venv", "-q", "--python", sys.executable, str(env), external=True)
            settings = _pip_settings_for_uv(session, find_links=not registry_build)
            target = ["--python", str(python)]
            session.run("uv", "pip", "install", "-q", *target, *settings, *pins, *wanted, external=True)
        else:
            # no configuration file and no find-links: the registry's own build
            plain = {"PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": ""} if registry_build else {}
            capped = _pip_cap(session, version, plain)
            if capped:
                return None, 0.0, capped
            session.run(sys.executable, "-m", "venv", str(env), external=True, silent=True)
            # silent, not -q: quiet when it works, pip's whole reason printed when it fails
            session.run(
                str(python), "-m", "pip", "install", *pins, *wanted, external=True, env=plain, silent=True
            )
    except nox.command.CommandFailed as error:
        shutil.rmtree(env, ignore_errors=True)
        return None, time.perf_counter() - start, f"torch {version} could not be installed: {error.reason}"
    ready.write_text(version + "\n", encoding="utf-8")
    return python, time.perf_counter() - start, ""


def _pip_cap(session: nox.Session, version: str, env: dict[str, str]) -> str:
    """Why pip cannot install torch ``version`` here, when a constraint file of its caps torch; else ""."""
    try:
        listed = session.run(
            sys.executable, "-m", "pip", "config", "list", silent=True, external=True, env=env
        )
    except nox.command.CommandFailed:
        return ""
    caps = PIP_CAPS.torch_caps(version, PIP_CAPS.pip_constraint_files(str(listed)))
    return str(PIP_CAPS.cap_message(version, caps)) if caps else ""


def _installable_torch(session: nox.Session) -> list[str]:
    """The torch releases pip can install here, newest first (``pip index versions``), [] if it cannot say."""
    try:
        listed = session.run(
            sys.executable, "-m", "pip", "index", "versions", "torch", silent=True, external=True
        )
    except nox.command.CommandFailed:
        return []
    for line in str(listed).splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.partition(":")[2].split(",") if "+" not in v]
    return []


def _installer(asked: str | None = None) -> str:
    """``uv`` when asked or, by default, when it is on the PATH; else ``pip``."""
    if asked is not None:
        return asked
    return "uv" if shutil.which("uv") else "pip"


def _timeline_arguments(session: nox.Session) -> tuple[list[str], list[str], bool, str]:
    """Split ``nox -s timeline -- ...``: releases, capture options, --remove-envs, --installer pip|uv."""
    releases, options, remove, asked = [], [], False, None
    arguments = list(session.posargs)
    while arguments:
        argument = arguments.pop(0)
        if argument == "--remove-envs":
            remove = True
        elif argument == "--installer":
            asked = arguments.pop(0) if arguments else ""
            if asked not in ("pip", "uv"):
                session.error("--installer takes pip or uv")
        elif RELEASES.is_release(argument):
            releases.append(argument)
        else:
            options.append(argument)
    return releases or TIMELINE_RELEASES, options, remove, _installer(asked)


DIFFERS = "differs from its records (kept; --accept replaces them)"


def _capture_ratio(session: nox.Session, python: Path) -> dict[str, float] | None:
    """benchmarks/capture_ratio.py in a release's environment; None (said) if it could not measure."""
    try:
        output = session.run(str(python), "benchmarks/capture_ratio.py", "--json", external=True, silent=True)
        line = next(line for line in reversed(str(output).splitlines()) if line.startswith("{"))
        measured: dict[str, float] = json.loads(line)
    except (nox.command.CommandFailed, StopIteration, ValueError) as error:
        session.warn(f"the capture against a plain run could not be measured: {error}")
        return None
    return measured


@nox.session(venv_backend="none")
def timeline(session: nox.Session) -> None:
    """Record every example under PyTorch releases: records/releases/<version> (-- 2.4.1 2.6.0 ...).

    Without releases, the default list (``timeline-releases`` in pyproject.toml).
    Each release gets its own environment, ``.nox/torch-<version>``, reused when it
    exists; ``--remove-envs`` removes each after its capture (a release's CUDA build
    takes about 5 GB); ``--installer pip|uv`` chooses the installer (uv when on the
    PATH). A release that fails to install is reported and the others go on.
    Existing release records that differ are kept unless ``--accept`` is given;
    example names after ``--`` limit the capture. Per release it prints what changed
    against the recorded release before it (``python -m autograd_notes changes``),
    the install and capture times and the capture against a plain run of the
    examples in one process (benchmarks/capture_ratio.py, goal <= 1.5). With pip, a
    constraint file of pip's that caps torch below a release is named, with how to
    lift it for one command (records/exchange/pip_caps.py).
    """
    releases, options, remove, installer = _timeline_arguments(session)
    session.log(f"installing with {installer}")
    pinned = _pinned_torch()
    installable = _installable_torch(session)
    problem = RELEASES.unknown_releases(releases, installable, TIMELINE_RELEASES[0])
    if problem:
        session.error(problem)
    rows: list[tuple[str, str, str, str, str, str]] = []
    for release in releases:
        # the pinned release's CPU build is records/cpu; its registry (CUDA) build is recorded
        # here, so that the timeline tells a difference of the build from one of the release
        python, install_s, problem = _release_env(
            session, release, installer, registry_build=release == pinned
        )
        if python is None:
            session.warn(problem)
            rows.append((release, f"{install_s:.0f}", "-", "-", "-", "install failed (see above)"))
            continue
        start = time.perf_counter()
        outcome = "recorded"
        try:
            # exit status 1: a committed release record differs and was kept (no --accept)
            session.run(str(python), "-m", "autograd_notes", "capture", "--release", *options, external=True)
        except nox.command.CommandFailed as error:
            differs = str(error.reason).endswith(" 1")
            outcome = DIFFERS if differs else f"capture failed: {error.reason}"
        capture_s = time.perf_counter() - start
        if outcome in ("recorded", DIFFERS):
            # what changed, against the recorded release before it, as the changelog page says it
            try:
                session.run(str(python), "-m", "autograd_notes", "changes", release, external=True)
            except nox.command.CommandFailed as error:
                session.warn(f"what changed in torch {release} could not be said: {error.reason}")
        ratio = _capture_ratio(session, python)
        rows.append(
            (
                release,
                f"{install_s:.0f}" if install_s else "reused",
                f"{capture_s:.0f}",
                f"{ratio['plain_s']:.1f}" if ratio else "-",
                f"{ratio['ratio']:.2f}" if ratio else "-",
                outcome,
            )
        )
        if remove:
            shutil.rmtree(python.parents[1])
    header = ("release", "install s", "capture s", "plain run s", "capture/plain", "")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    session.log("timeline (capture/plain goal <= 1.5):")
    for row in [header, *rows]:
        session.log("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    failed = [row[0] for row in rows if row[-1] not in ("recorded", DIFFERS)]
    if failed:
        # after the others ran: a failed install or capture is reported, never silently skipped
        session.error(RELEASES.not_recorded(failed, [row[0] for row in rows]))


def _pinned_torch() -> str:
    """The version constraints/torch.txt pins (``torch==X``)."""
    pinned = RELEASES.pinned_torch(ROOT)
    if pinned is None:
        raise ValueError(f"{CONSTRAINTS} pins no torch version (a line torch==X)")
    return str(pinned)


@nox.session
def benchmark(session: nox.Session) -> None:
    """Measure build times and example executions per build, as ratios."""
    _install(session, "docs")
    session.run("python", "benchmarks/build_speed.py", *session.posargs)


@nox.session(name="benchmark-errors")
def benchmark_errors(session: nox.Session) -> None:
    """How often the paste box finds the page for errors users posted (tests/site/error_holdout.json)."""
    _install(session, "docs")
    session.run("python", "benchmarks/error_search_quality.py", *session.posargs)


@nox.session(name="benchmark-questions")
def benchmark_questions(session: nox.Session) -> None:
    """The search page on questions asked in public (tests/site/question_holdout.json)."""
    _install(session, "test")
    _ensure_chromium(session)
    session.run("python", "benchmarks/question_search_quality.py", *session.posargs)


@nox.session(name="benchmark-tests")
def benchmark_tests(session: nox.Session) -> None:
    """Measure the test suite against a clean build, and the inner loop (-m "not build")."""
    _install(session, "test")
    _ensure_chromium(session)
    session.run("python", "benchmarks/suite_speed.py", *session.posargs)


@nox.session(default=False)
def lock(session: nox.Session) -> None:
    """Resolve constraints/toolchain.txt from pyproject's dependency groups (-- --upgrade: newest)."""
    session.install("-c", str(TOOLCHAIN), *nox.project.dependency_groups(PYPROJECT, "lock"))
    # uv resolves for every platform and Python the tool chain runs on (3.11+, as
    # Sphinx 9). PyTorch is not in the groups: constraints/torch.txt pins it apart,
    # so that a drift check can install another release.
    groups = [f"--group=pyproject.toml:{group}" for group in LOCKED_GROUPS]
    session.run(
        "uv",
        "pip",
        "compile",
        *groups,
        "--universal",
        "--python-version=3.11",
        "--quiet",
        f"--output-file={TOOLCHAIN.relative_to(ROOT)}",
        *session.posargs,
        env={"UV_CUSTOM_COMPILE_COMMAND": "nox -s lock"},
    )
    session.log(f"wrote {TOOLCHAIN.relative_to(ROOT)}: review its diff, then build and test")


@nox.session
def package(session: nox.Session) -> None:
    """Build the sdist and wheel into dist/ and check them (twine check, what a reader installs)."""
    _install(session, "release")
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    session.run("python", "-m", "build", "--no-isolation", "--outdir", str(dist))
    session.run("twine", "check", "--strict", *map(str, sorted(dist.iterdir())))


@nox.session(default=False)
def clean(session: nox.Session) -> None:
    """Remove built pages and sphinx-gallery's generated files and caches."""
    for path in (BUILD, DOCS / "examples", DOCS / "jupyter_execute"):
        if path.exists():
            session.log(f"removing {path.relative_to(ROOT)}")
            shutil.rmtree(path)


@nox.session(name="capture-cuda")
def capture_cuda(session: nox.Session) -> None:
    """CI's GPU job: record the examples on CUDA, compare them with records/cuda (REQUIRE_CUDA=1 needs CUDA).

    It installs the pinned PyTorch from the network, as CI's cuda-records job
    does. A GPU machine that has its own PyTorch (any release from 2.4) and no
    network needs neither nox nor this session: CONTRIBUTING.md's "Record on a GPU
    machine" command runs there from a plain copy of the source tree
    (``PYTHONPATH=src timeout 540 python3 -m autograd_notes capture --device cuda --release
    --archive ...``), and tests/records/test_rehearsal.py runs it as written.
    """
    # constraints/torch.txt pins the version only: on a GPU machine pip takes PyPI's CUDA wheel of it.
    _install(session)
    # REQUIRE_CUDA reaches both commands through the environment nox passes on. capture writes
    # the missing records and exits 1 where a committed one differs (it keeps it): drift then
    # fails on that difference, with its report in build/drift-cuda.json. Arguments after --
    # (examples, --accept) go to both.
    session.run(
        "python",
        "-m",
        "autograd_notes",
        "capture",
        "--device",
        "cuda",
        *session.posargs,
        success_codes=[0, 1],
    )
    report = ["--json", str(BUILD / "drift-cuda.json")]
    session.run("python", "-m", "autograd_notes", "drift", "--device", "cuda", *report, *session.posargs)
