"""PEP 517 build backend for toolregistry_rs: runs cargo, then writes a platform wheel, stdlib only.

Why a backend of our own rather than maturin or setuptools: the package is pure Python over the C
ABI (ctypes), so all a wheel needs is the Python files plus ``libtoolregistry.so`` from
``cargo build --release --lib`` of this repository. maturin builds Rust extension modules (its
cffi mode generates a cffi module we would not use) and setuptools needs a custom build step plus
``bdist_wheel`` tag overrides to mark a wheel without compiled Python code as platform-specific.
This file needs neither: ``requires = []`` in pyproject.toml, so pip's isolated build environment
installs nothing and the build works with no network at all. The library is shared with every
other binding's build (same ``target/`` directory, same cargo command as scripts/test-parts), so
an already built library is reused.

Hooks: ``build_wheel``, ``build_editable`` (PEP 660), ``build_sdist`` (carries the Rust sources
needed to build the library under ``rust/``), and the ``get_requires_for_*`` hooks (nothing).

Environment: ``CARGO`` (the cargo to run), ``CARGO_TARGET_DIR`` (honoured like cargo does),
``TOOLREGISTRY_CARGO_DIR`` (the crate to build, when it is not ``../..`` of this package),
``TOOLREGISTRY_SHIPPED_LIB`` (a library already stripped for shipping, put in the wheel as it is,
without running cargo: scripts/dist.sh passes the one of the release tarball, so both artifacts
carry the same bytes and one debug file serves both), ``TOOLREGISTRY_SHIPPED_BIN`` (the
``toolregistry`` program built with the ``mcp`` feature: the wheel carries it as a script, in
``toolregistry_rs-X.Y.Z.data/scripts/``, as ruff and uv ship theirs, and pip puts it on PATH;
scripts/dist.sh passes the tarball's ``bin/toolregistry``. Without it the wheel carries the library
only: building the program here would compile the crate a second time with the feature).

The library in the wheel is stripped of debug info (cargo's release profile keeps line tables), with
a ``.gnu_debuglink`` to ``libtoolregistry.so.X.Y.Z.debug``, the name of the debug file beside the
library in the release tarball and in a CMake install: copied next to the wheel's library, gdb and
valgrind find it.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # bindings/python (or the sdist root)
SOURCE = PACKAGE_DIR / "src" / "toolregistry_rs"
DIST_NAME = "toolregistry_rs"


# ---- project facts ----------------------------------------------------------------------------


def _project_field(key: str) -> str:
    """A ``key = "value"`` line of pyproject.toml's [project] table (no toml parser before 3.11)."""
    text = (PACKAGE_DIR / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    match = section and re.search(rf'^{re.escape(key)}\s*=\s*"([^"]*)"', section.group(1), re.M)
    if not match:
        raise RuntimeError(f"pyproject.toml: [project] has no {key}")
    return match.group(1)


def _cargo_dir() -> Path:
    """The toolregistry crate: $TOOLREGISTRY_CARGO_DIR, ``rust/`` in an sdist, or ../.. in a checkout."""
    candidates = []
    if os.environ.get("TOOLREGISTRY_CARGO_DIR"):
        candidates.append(Path(os.environ["TOOLREGISTRY_CARGO_DIR"]))
    candidates += [PACKAGE_DIR / "rust", PACKAGE_DIR.parent.parent]
    for c in candidates:
        manifest = c / "Cargo.toml"
        if manifest.is_file() and re.search(r'^name = "toolregistry"', manifest.read_text(), re.M):
            return c.resolve()
    raise RuntimeError(
        "toolregistry_rs: cannot find the toolregistry crate (Cargo.toml) to build the library; "
        "build from a checkout of toolregistry-rs or set TOOLREGISTRY_CARGO_DIR"
    )


def _version() -> str:
    """The package version is the library's: [package] version of Cargo.toml."""
    text = (_cargo_dir() / "Cargo.toml").read_text()
    return re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def _platform_tag() -> str:
    return re.sub(r"[^\w]", "_", sysconfig.get_platform())


def _library_name() -> str:
    if sys.platform == "darwin":
        return "libtoolregistry.dylib"
    if sys.platform == "win32":
        return "toolregistry.dll"
    return "libtoolregistry.so"


# ---- cargo ------------------------------------------------------------------------------------


def _cargo() -> str:
    for candidate in (os.environ.get("CARGO"), shutil.which("cargo"), str(Path.home() / ".cargo/bin/cargo")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise RuntimeError(
        "toolregistry_rs: cargo not found (set CARGO or install Rust from https://rustup.rs); "
        "it builds libtoolregistry from the repository"
    )


def _build_library() -> Path:
    """Runs ``cargo build --release --lib --locked`` on the crate and returns the shared library."""
    crate = _cargo_dir()
    cmd = [_cargo(), "build", "--release", "--lib", "--locked"]
    print(f"toolregistry_rs: {' '.join(cmd)} (in {crate})", file=sys.stderr, flush=True)
    # cargo's progress goes to stderr; keep stdout clean for the PEP 517 frontend.
    subprocess.run(cmd, cwd=crate, check=True, stdout=sys.stderr)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or "target")
    if not target.is_absolute():
        target = crate / target
    lib = target / "release" / _library_name()
    if not lib.is_file():
        raise RuntimeError(f"toolregistry_rs: cargo succeeded but {lib} is missing")
    return lib


def _shipped_library(lib: Path, workdir: Path) -> Path:
    """The library as shipped: debug info stripped, a debug link to the file that would hold it.

    Without ``objcopy`` (binutils) the library goes in as cargo built it, with a warning.
    """
    objcopy = shutil.which("objcopy")
    if sys.platform != "linux":
        return lib
    if not objcopy:
        print("toolregistry_rs: objcopy not found; the wheel carries the library with its debug info",
              file=sys.stderr, flush=True)
        return lib
    # The same two steps as cmake/SplitDebug.cmake; the debug file itself is not shipped here.
    debug = workdir / f"{lib.name}.{_version()}.debug"
    out = workdir / lib.name
    subprocess.run([objcopy, "--only-keep-debug", str(lib), str(debug)], check=True)
    subprocess.run([objcopy, "--strip-debug", f"--add-gnu-debuglink={debug}", str(lib), str(out)], check=True)
    return out


# ---- wheel writing ----------------------------------------------------------------------------


def _extras() -> list[tuple[str, list[str]]]:
    """[project.optional-dependencies] of pyproject.toml: ``name = ["req", ...]`` lines (the
    one shape this file writes; no toml parser before 3.11)."""
    text = (PACKAGE_DIR / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\.optional-dependencies\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if not section:
        return []
    extras = []
    for m in re.finditer(r"^([A-Za-z0-9_.-]+)\s*=\s*\[(.*?)\]\s*$", section.group(1), re.M):
        extras.append((m.group(1), re.findall(r'"([^"]+)"', m.group(2))))
    return extras


def _metadata(version: str) -> str:
    readme = PACKAGE_DIR / "README.md"
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {_project_field('name')}",
        f"Version: {version}",
        f"Summary: {_project_field('description')}",
        f"License: {_project_field('license')}",
        f"Requires-Python: {_project_field('requires-python')}",
        "Description-Content-Type: text/markdown",
    ]
    for extra, requirements in _extras():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    body = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    return "\n".join(lines) + "\n\n" + body


class _Wheel:
    """A wheel being written: files plus the RECORD of their hashes."""

    def __init__(self, path: Path, dist_info: str) -> None:
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.dist_info = dist_info
        self.record: list[str] = []

    def add(self, arcname: str, data: bytes, executable: bool = False) -> None:
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o755 if executable else 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{arcname},sha256={digest},{len(data)}")

    def close(self, version: str, tag: str) -> None:
        wheel = f"Wheel-Version: 1.0\nGenerator: toolregistry_rs_build\nRoot-Is-Purelib: false\nTag: {tag}\n"
        self.add(f"{self.dist_info}/METADATA", _metadata(version).encode())
        self.add(f"{self.dist_info}/WHEEL", wheel.encode())
        self.record.append(f"{self.dist_info}/RECORD,,")
        self.zip.writestr(f"{self.dist_info}/RECORD", "\n".join(self.record) + "\n")
        self.zip.close()


def _python_files() -> list[Path]:
    return sorted(
        p
        for p in SOURCE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".typed")
    )


def _write_wheel(wheel_directory: str, editable: bool) -> str:
    version = _version()
    # ctypes code runs on any Python 3 but the library is native: py3-none-<platform>.
    tag = f"py3-none-{_platform_tag()}"
    name = f"{DIST_NAME}-{version}-{tag}.whl"
    prebuilt = os.environ.get("TOOLREGISTRY_SHIPPED_LIB")
    lib = Path(prebuilt) if prebuilt else _build_library()
    if not lib.is_file():
        raise RuntimeError(f"toolregistry_rs: TOOLREGISTRY_SHIPPED_LIB={lib} is not a file")
    wheel = _Wheel(Path(wheel_directory) / name, f"{DIST_NAME}-{version}.dist-info")
    with tempfile.TemporaryDirectory() as tmp:
        shipped = lib if prebuilt else _shipped_library(lib, Path(tmp))
        if editable:
            # The package is imported from src/; the library goes beside it (ignored by git).
            shutil.copyfile(shipped, SOURCE / _library_name())
            wheel.add(f"{DIST_NAME}.pth", (str(SOURCE.parent) + "\n").encode())
        else:
            for path in _python_files():
                wheel.add(f"toolregistry_rs/{path.relative_to(SOURCE).as_posix()}", path.read_bytes())
            wheel.add(f"toolregistry_rs/{_library_name()}", shipped.read_bytes(), executable=True)
            program = os.environ.get("TOOLREGISTRY_SHIPPED_BIN")
            if program:
                if not Path(program).is_file():
                    raise RuntimeError(f"toolregistry_rs: TOOLREGISTRY_SHIPPED_BIN={program} is not a file")
                # A wheel's scripts are installed into the environment's bin/ (Scripts\ on
                # Windows) with their executable bit; a native program is copied as it is.
                script = "toolregistry.exe" if sys.platform == "win32" else "toolregistry"
                wheel.add(f"{DIST_NAME}-{version}.data/scripts/{script}", Path(program).read_bytes(), executable=True)
    wheel.close(version, tag)
    return name


# ---- PEP 517 / PEP 660 hooks ------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=True)


#: What of the crate an sdist carries, relative to the crate root: enough for
#: ``cargo build --release --lib`` (Cargo.toml names the benches and examples, so their sources too).
_RUST_FILES = [
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
    "src",
    "benches",
    "bench/gen.rs",
    "bench/mem.rs",
    "bench/workload.rs",
]


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{DIST_NAME}-{version}"
    name = f"{base}.tar.gz"
    crate = _cargo_dir()

    def add_tree(tar: tarfile.TarFile, src: Path, arc: str) -> None:
        paths = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
        for p in paths:
            if "__pycache__" in p.parts or p.suffix in (".so", ".dylib", ".dll", ".pyc"):
                continue
            rel = p.relative_to(src).as_posix() if src.is_dir() else ""
            tar.add(str(p), arcname=f"{arc}/{rel}".rstrip("/"), recursive=False)

    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for item in ["pyproject.toml", "README.md", "build_backend/toolregistry_rs_build.py", "src", "tests"]:
            path = PACKAGE_DIR / item
            if path.exists():
                add_tree(tar, path, f"{base}/{item}")
        for item in _RUST_FILES:
            add_tree(tar, crate / item, f"{base}/rust/{item}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(version).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
