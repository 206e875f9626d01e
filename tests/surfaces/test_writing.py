"""Files out (``predstab._core._writing``), in-process: outputs written atomically with the
mode ``open`` would give them under the process's umask, no overwriting without ``--force``,
the rules for output folders, and JSON of NumPy values. Every expected value is written out
by hand or re-derived in the test.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import struct
from pathlib import Path

import numpy as np
import pytest

from predstab._core import _writing
from predstab._core._reading import InputError


@pytest.fixture(params=[0o027, 0o002])
def umask(request):
    """Run the test under umask 027 (new files 0o640) or 002 (0o664), restoring the process's own
    afterwards."""
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


# ----------------------------------------------------------------------------- output paths
def test_check_output_file(tmp_path):
    target = tmp_path / "out.csv"
    assert _writing.check_output_file(str(target)) == target
    assert not target.exists() and list(tmp_path.iterdir()) == []  # the write probe is removed
    target.write_text("keep")
    messages = {}
    for name, call in {
        "exists": lambda: _writing.check_output_file(target),
        "folder": lambda: _writing.check_output_file(tmp_path, option="--plot"),
        "no parent": lambda: _writing.check_output_file(tmp_path / "new" / "o.csv", option="--plot"),
        "parent is a file": lambda: _writing.check_output_file(target / "o.csv"),
        "unwritable": lambda: _writing.check_output_file("/proc/o.csv", option="--plot"),
    }.items():
        with pytest.raises(InputError) as err:
            call()
        messages[name] = str(err.value)
    assert messages == {
        "exists": f"'{target}' already exists; use --force to overwrite it",
        "folder": f"--plot '{tmp_path}' is a folder; give a file name",
        "no parent": f"--plot '{tmp_path / 'new' / 'o.csv'}': the folder '{tmp_path / 'new'}' does not "
                     "exist; create it first (predstab does not create folders for output files)",
        "parent is a file": f"--out '{target / 'o.csv'}': '{target}' is not a folder",
        "unwritable": "cannot write to --plot '/proc/o.csv': No such file or directory",
    }
    assert _writing.check_output_file(target, force=True) == target
    assert target.read_text() == "keep" and sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    assert not (tmp_path / "new").exists()


def test_check_output_dir(tmp_path):
    new = tmp_path / "new"
    assert _writing.check_output_dir(str(new)) == new and not new.exists()  # checked, not created
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _writing.check_output_dir(empty) == empty and list(empty.iterdir()) == []
    full = tmp_path / "full"
    full.mkdir()
    (full / "stability.csv").write_text("x")
    (tmp_path / "full-2").mkdir()
    (tmp_path / "full-3").write_text("a file also takes the name")
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.csv").write_text("x")
    (tmp_path / "other-2").mkdir()
    messages = {}
    for name, call in {
        "full": lambda: _writing.check_output_dir(full, option="--dir"),
        "other": lambda: _writing.check_output_dir(other),
        "file": lambda: _writing.check_output_dir(full / "stability.csv"),
        "no parent": lambda: _writing.check_output_dir(tmp_path / "a" / "b"),
        "parent is a file": lambda: _writing.check_output_dir(full / "stability.csv" / "x"),
        "unwritable": lambda: _writing.check_output_dir("/proc", force=True),
        "unwritable parent": lambda: _writing.check_output_dir("/proc/x"),
    }.items():
        with pytest.raises(InputError) as err:
            call()
        messages[name] = str(err.value)
    assert messages == {
        "full": f"--dir '{full}' already holds files; use --force to write into it (files of the same "
                f"names are replaced) or choose a new folder, e.g. --out {tmp_path / 'full-4'}",
        "other": f"--out '{other}' already holds files; use --force to write into it (files of the same "
                 f"names are replaced) or choose a new folder, e.g. --out {tmp_path / 'other-3'}",
        "file": f"--out '{full / 'stability.csv'}' is a file, not a folder",
        "no parent": f"--out '{tmp_path / 'a' / 'b'}': the folder '{tmp_path / 'a'}' does not exist; "
                     "create it first (predstab creates only the output folder itself, not its parents)",
        "parent is a file": f"--out '{full / 'stability.csv' / 'x'}': '{full / 'stability.csv'}' is not "
                            "a folder",
        "unwritable": "cannot write to --out '/proc': No such file or directory",
        "unwritable parent": "cannot write to --out '/proc/x': No such file or directory",
    }
    assert _writing.check_output_dir(full, force=True) == full
    assert sorted(p.name for p in full.iterdir()) == ["stability.csv"]  # probe removed, nothing touched
    assert not (tmp_path / "a").exists()


def test_make_output_dir(tmp_path):
    made = _writing.make_output_dir(str(tmp_path / "out"))
    assert made == tmp_path / "out" and made.is_dir()
    assert _writing.make_output_dir(made) == made  # existing and empty: used as it is
    (made / "x.csv").write_text("x")
    assert _writing.make_output_dir(made, force=True) == made
    with pytest.raises(InputError, match="already holds files"):
        _writing.make_output_dir(made)
    with pytest.raises(InputError, match=r"^--tune-out .* does not exist"):
        _writing.make_output_dir(tmp_path / "a" / "b", option="--tune-out")
    with pytest.raises(InputError, match=r"^--out .* does not exist"):
        _writing.make_output_dir(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()


def test_fresh_directory(tmp_path):
    out = tmp_path / "out"
    assert _writing.fresh_directory(str(out)) == (out, False) and out.is_dir()
    assert _writing.fresh_directory(out) == (out, False)  # still empty
    (out / "a.csv").write_text("x")
    assert _writing.fresh_directory(out, force=True) == (out, False)
    assert _writing.fresh_directory(out) == (tmp_path / "out-2", True) and (tmp_path / "out-2").is_dir()
    assert _writing.fresh_directory(out) == (tmp_path / "out-3", True)  # out-2 is empty but taken
    (tmp_path / "f").write_text("a file")
    assert _writing.fresh_directory(tmp_path / "f") == (tmp_path / "f-2", True)
    assert (tmp_path / "f").read_text() == "a file"
    with pytest.raises(InputError, match="does not exist"):
        _writing.fresh_directory(tmp_path / "x" / "y")


# ----------------------------------------------------------------------------- atomic writes
def test_new_files_get_the_mode_open_gives_them(tmp_path, umask):
    mode = {0o027: 0o640, 0o002: 0o664}[umask]
    assert _writing._mode_for_new_file() == mode
    assert os.umask(umask) == umask  # the process's umask is left as it was
    reference = tmp_path / "opened.txt"
    reference.write_text("x")  # what open() gives under this umask
    target = _writing.write_text(str(tmp_path / "a.txt"), "caf\u00e9\n")
    assert target == tmp_path / "a.txt"
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(reference.stat().st_mode) == mode
    assert target.read_bytes() == "caf\u00e9\n".encode()


def test_replaced_file_keeps_its_mode_and_refusal_to_overwrite(tmp_path, umask):
    target = tmp_path / "a.txt"
    target.write_text("one")
    target.chmod(0o604)
    with pytest.raises(InputError) as err:
        _writing.write_text(target, "two")
    assert str(err.value) == f"'{target}' already exists; use --force to overwrite it"
    with pytest.raises(InputError, match="already exists"):
        _writing.atomic_write(target, lambda tmp: tmp.write_text("three"))
    assert target.read_text() == "one"
    _writing.write_text(target, "two", force=True)
    assert target.read_text() == "two" and stat.S_IMODE(target.stat().st_mode) == 0o604
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_atomic_write_goes_through_a_hidden_file_beside_the_target(tmp_path, umask):
    target = tmp_path / "stability.csv"
    seen = []

    def write(tmp):
        seen.append((tmp, stat.S_IMODE(tmp.stat().st_mode), target.exists()))
        tmp.write_text("a,b\n")

    assert _writing.atomic_write(target, write) == target
    (tmp, mode, existed), = seen
    assert tmp.parent == tmp_path and tmp.name.startswith(".stability.csv.") and tmp.suffix == ".csv"
    # the final mode before any byte is written; the target appears only at the end
    assert mode == {0o027: 0o640, 0o002: 0o664}[umask] and not existed
    assert target.read_text() == "a,b\n" and not tmp.exists()


def test_atomic_write_never_clobbers_another_temporary_file(tmp_path, monkeypatch):
    names = iter(["aaaa", "aaaa", "bbbb"])
    monkeypatch.setattr(_writing.secrets, "token_hex", lambda n: next(names))
    (tmp_path / ".o.txt.aaaa.tmp.txt").write_text("another run's")
    _writing.write_text(tmp_path / "o.txt", "mine")
    assert (tmp_path / "o.txt").read_text() == "mine"
    assert (tmp_path / ".o.txt.aaaa.tmp.txt").read_text() == "another run's"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".o.txt.aaaa.tmp.txt", "o.txt"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError, ValueError])
def test_atomic_write_leaves_nothing_behind_when_writing_fails(tmp_path, error):
    target = tmp_path / "o.csv"
    target.write_text("old")

    def write(tmp):
        tmp.write_text("half")
        raise error

    with pytest.raises(error):
        _writing.atomic_write(target, write, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.csv"] and target.read_text() == "old"

    def removes(tmp):  # a writer that removed its file itself: the original error still comes out
        tmp.unlink()
        raise error

    with pytest.raises(error):
        _writing.atomic_write(target, removes, force=True)


def test_atomic_write_makes_only_the_last_folder(tmp_path):
    target = tmp_path / "out" / "s.csv"
    _writing.write_text(target, "x")
    assert target.read_text() == "x"
    with pytest.raises(InputError) as err:
        _writing.write_text(tmp_path / "a" / "b" / "s.csv", "x")
    assert str(err.value) == (f"'{tmp_path / 'a' / 'b' / 's.csv'}': the folder '{tmp_path / 'a'}' does not "
                              "exist; create it first")
    assert not (tmp_path / "a").exists()


def _png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_write_figure_format_from_the_suffix_and_dpi(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    expected = {}
    for dpi in (120, 60):
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
        expected[dpi] = _png_size(buffer.getvalue())
    assert _writing.write_figure(tmp_path / "f.png", fig) == tmp_path / "f.png"
    assert _png_size((tmp_path / "f.png").read_bytes()) == expected[120]
    _writing.write_figure(tmp_path / "noext", fig, dpi=60)  # no suffix: PNG
    assert _png_size((tmp_path / "noext").read_bytes()) == expected[60]
    _writing.write_figure(tmp_path / "f.svg", fig)
    assert b"<svg" in (tmp_path / "f.svg").read_bytes()[:500]
    with pytest.raises(InputError, match="already exists"):
        _writing.write_figure(tmp_path / "f.svg", fig)
    _writing.write_figure(tmp_path / "f.svg", fig, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png", "f.svg", "noext"]


# ----------------------------------------------------------------------------- JSON
def test_dumps_numpy_values_and_missing_numbers():
    obj = {"int": np.int64(3), "f32": np.float32(0.5), "f64": np.float64(0.25), "nan": float("nan"),
           "nan32": np.float32("nan"), "inf": np.float64("inf"), "ninf32": np.float32("-inf"),
           "array": np.array([[1, 2], [3, 4]]), "tuple": (1, (np.int32(2), float("nan"))),
           "path": Path("out") / "s.csv", 7: {"nested": [np.nan]}, "flag": True, "none": None}
    text = _writing.dumps(obj)
    assert text.endswith("}\n") and text.startswith('{\n  "int": 3,\n')  # indented by 2
    assert json.loads(text) == {
        "int": 3, "f32": 0.5, "f64": 0.25, "nan": None, "nan32": None, "inf": None, "ninf32": None,
        "array": [[1, 2], [3, 4]], "tuple": [1, [2, None]], "path": str(Path("out") / "s.csv"),
        "7": {"nested": [None]}, "flag": True, "none": None}
    assert _writing.dumps([1.5, np.float16(2.0)]) == "[\n  1.5,\n  2.0\n]\n"


def test_dumps_is_valid_json_for_arrays_and_numpy_booleans():
    text = _writing.dumps({"a": np.array([0.5, np.nan, np.inf]), "b": np.bool_(True), "c": np.array([True])})
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {"a": [0.5, None, None], "b": True, "c": [True]}


def test_write_probe_never_touches_a_file_of_its_name(tmp_path, monkeypatch):
    names = iter(["aaaa", "bbbb"])
    monkeypatch.setattr(_writing.secrets, "token_hex", lambda n: next(names))
    (tmp_path / ".predstab-probe-aaaa").write_text("a user's file")
    assert _writing.check_output_file(tmp_path / "o.csv") == tmp_path / "o.csv"
    assert (tmp_path / ".predstab-probe-aaaa").read_text() == "a user's file"
    assert [p.name for p in tmp_path.iterdir()] == [".predstab-probe-aaaa"]


def test_staged_output_dir_puts_a_new_folder_in_place_at_once(tmp_path, umask):
    # a new folder: the hidden stage beside it is renamed into place when the block ends, with the
    # mode mkdir would give it under the umask (mkdtemp makes it 0o700)
    out = tmp_path / "new"
    with _writing.staged_output_dir(out, names=("a.csv", "b.csv")) as stage:
        assert stage.parent == tmp_path and stage.name.startswith(".new.") and stage.name.endswith(".tmp")
        (stage / "a.csv").write_text("x")
        assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["new"]
    assert [p.name for p in out.iterdir()] == ["a.csv"] and (out / "a.csv").read_text() == "x"
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask
    assert _writing.COMMITTED[-1] == out


def test_staged_output_dir_refuses_files_another_run_put_in_meanwhile(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    with pytest.raises(InputError) as info, \
            _writing.staged_output_dir(out, names=("a.csv",), option="--out") as stage:
        (stage / "a.csv").write_text("mine")
        (out / "theirs.csv").write_text("theirs")  # another run, while this one computes
    assert str(info.value) == (f"--out '{out}' received files from another run while this one was computing; "
                               "nothing was written (use --force to replace them)")
    assert [p.name for p in out.iterdir()] == ["theirs.csv"]


def test_non_regular_files_are_named_in_words(tmp_path):
    fifo, link, target = tmp_path / "fifo", tmp_path / "link", tmp_path / "t"
    os.mkfifo(fifo)
    target.write_text("x")
    link.symlink_to(target)
    tail = "; predstab writes only regular files and never replaces anything else (also not with --force): " \
           "give another path"
    for path, words in ((fifo, "a named pipe (FIFO)"), (link, f"a symbolic link (to '{target}')")):
        with pytest.raises(InputError) as info:
            _writing.check_output_file(path, force=True)
        assert str(info.value) == f"--out '{path}' is {words}{tail}"
    for mode, words in ((stat.S_IFCHR, "a character device"), (stat.S_IFBLK, "a block device"),
                        (stat.S_IFSOCK, "a socket"), (stat.S_IFDIR, "a folder"),
                        (stat.S_IFLNK, "a symbolic link")):
        assert _writing._kind(mode | 0o644) == words


def test_interrupted_names_its_signal():
    import signal

    exc = _writing.Interrupted(signal.SIGTERM)
    assert isinstance(exc, KeyboardInterrupt) and exc.signum == signal.SIGTERM and str(exc) == "SIGTERM"


# ----------------------------------------------------------------------------- report.html
def _sections(text):
    """The page's ``(heading, body)`` pairs, in order."""
    return re.findall(r"<section><h2>(.*?)</h2>(.*?)</section>", text, flags=re.S)


def test_report_beside_names_the_report_after_the_output_file(tmp_path):
    assert _writing.REPORT == "report.html"
    assert _writing.report_beside(tmp_path / "res.csv") == tmp_path / "res.report.html"
    assert _writing.report_beside("runs/a.b.csv") == Path("runs/a.b.report.html")
    assert _writing.report_beside("plain") == Path("plain.report.html")


def test_write_report_sections_in_order_escaped(tmp_path):
    import base64
    import datetime
    import platform
    from importlib import metadata

    import pandas as pd

    import predstab
    from predstab._core import _html

    png = tmp_path / "fig.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n not really a picture")
    frame = pd.DataFrame({"n <learners>": [1, 2], "phi": [0.5, 0.75]})
    rng = np.random.default_rng(3)
    stab = predstab.phi(rng.normal(size=(12, 1)) + rng.normal(size=(12, 5)), rng.normal(size=30))
    agreement = predstab.icc(rng.normal(size=(10, 3)))
    path = tmp_path / "report.html"
    before = datetime.datetime.now(datetime.timezone.utc)
    out = _writing.write_report(path, title="run <1>", command="predstab agree 'a&b.csv'",
                                text="line one\nline <two>\n\n", reading=["Read <this>", "then that"],
                                warnings=["w & 1", "w2"], figures=[("cap <1>", png)],
                                results=[(frame, True), (stab, True), (agreement, False)],
                                files=["a.csv", "b<c>.png"])
    after = datetime.datetime.now(datetime.timezone.utc)
    assert out == path
    text = path.read_text(encoding="utf-8")
    assert "<title>run &lt;1&gt;</title>" in text and "<h1>run &lt;1&gt;</h1>" in text
    sections = _sections(text)
    assert [h for h, _ in sections] == ["How to read it", "Warnings", "Figures", "Result: DataFrame",
                                        "Result: StabilityResult", "Result: ICCResult",
                                        "What the terminal printed", "Files", "Command and versions"]
    body = dict(sections)
    assert body["How to read it"] == "<p>Read &lt;this&gt;</p><p>then that</p>"
    assert body["Warnings"] == ('<div class="warn">&#9888; w &amp; 1</div>'
                                '<div class="warn">&#9888; w2</div>')
    uri = "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")
    assert body["Figures"] == (f'<figure><img alt="cap &lt;1&gt;" src="{uri}">'
                               "<figcaption>cap &lt;1&gt;</figcaption></figure>")
    # a frame as a table captioned "table"; a result with its own figure when asked, never its print
    table = _html.frame_html(frame, caption="table")
    assert body["Result: DataFrame"] == f'<div class="predstab">{table}</div>'
    assert "n &lt;learners&gt;" in body["Result: DataFrame"]
    shown = body["Result: StabilityResult"]
    assert shown.count('<img alt="StabilityResult.plot()" src="data:image/png;base64,') == 1
    assert "R-style print" not in shown
    assert body["Result: ICCResult"] == (f'<div class="predstab">'
                                         f'{_html.render(agreement, figure=False, text=False)}</div>')
    assert "R-style print" not in body["Result: ICCResult"] and "<img" not in body["Result: ICCResult"]
    assert body["What the terminal printed"] == "<pre>line one\nline &lt;two&gt;</pre>"
    assert body["Files"] == "<ul><li>a.csv</li><li>b&lt;c&gt;.png</li></ul>"
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in
                         ("predstab", "numpy", "scipy", "pandas", "scikit-learn", "matplotlib"))
    written = re.fullmatch(r"<pre>predstab agree &#x27;a&amp;b\.csv&#x27;</pre>"
                           rf"<p>Python {re.escape(platform.python_version())}, {re.escape(versions)}; "
                           r"written (\d{4}-\d\d-\d\d \d\d:\d\d) UTC</p>", body["Command and versions"])
    assert written is not None, body["Command and versions"]
    stamp = datetime.datetime.strptime(written[1], "%Y-%m-%d %H:%M").replace(tzinfo=datetime.timezone.utc)
    assert before.replace(second=0, microsecond=0) <= stamp <= after
    # an existing report is kept without force, replaced with it
    with pytest.raises(InputError, match="already exists; use --force"):
        _writing.write_report(path, title="again", command="c", text="t")
    assert path.read_text(encoding="utf-8") == text
    _writing.write_report(path, title="again", command="c", text="t", force=True)
    assert [h for h, _ in _sections(path.read_text(encoding="utf-8"))] == [
        "What the terminal printed", "Command and versions"]


def test_report_versions_name_a_missing_package(monkeypatch):
    import platform

    monkeypatch.setattr(_writing, "_VERSIONS", ("numpy", "no-such-package-predstab"))
    assert _writing._versions() == (f"Python {platform.python_version()}, numpy {np.__version__}, "
                                    "no-such-package-predstab (not installed)")


def test_check_output_dir_refuses_a_dangling_link_and_an_input_inside_it(tmp_path):
    link = tmp_path / "results"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(InputError) as info:
        _writing.check_output_dir(link, force=True, option="--dir")
    assert str(info.value) == (f"--dir '{link}' is a dangling symbolic link (to '{tmp_path / 'gone'}'); "
                               "give an existing folder or a new name")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stability.csv").write_text("the input")
    inputs = {"training data": None, "predictions": str(out / "stability.csv")}
    with pytest.raises(InputError) as info:
        _writing.check_output_dir(out, force=True, names=("report.html", "stability.csv"), inputs=inputs)
    assert str(info.value) == (f"--out '{out}': '{out / 'stability.csv'}' is the input predictions "
                               f"'{out / 'stability.csv'}'; predstab never overwrites its input (also not "
                               "with --force): give another path")
    assert (out / "stability.csv").read_text() == "the input"
    inputs = {"predictions": str(tmp_path / "elsewhere.csv")}  # another file (even a missing one): fine
    assert _writing.check_output_dir(out, force=True, names=("stability.csv",), inputs=inputs) == out
