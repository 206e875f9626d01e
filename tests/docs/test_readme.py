"""README.md: its Python examples run as written and print what the text says; its set-up
block holds the two commands .ci/run runs verbatim."""

import re
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_examples_run(capsys, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 2, "README.md has fewer python examples than it shows"
    monkeypatch.chdir(tmp_path)
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, code in enumerate(blocks):
            exec(compile(code, f"README.md (python block {k + 1})", "exec"), namespace)
    out = capsys.readouterr().out
    assert "Data-based prediction stability (phi)" in out
    assert "Model-based prediction stability (psi)" in out
    assert "\n \n" not in out  # print(a, b) put a line of one space between APS's blocks
    assert re.search(r"stability +ci_low +ci_high +observed_instability", out)  # per_object_frame()


def test_readme_setup_block_holds_the_two_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- setup:start -->\s*```bash\n(.*?)```\s*<!-- setup:end -->", text, flags=re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2  # what .ci/run expects
    assert commands[0].endswith("pip install -e . && predstab demo")
    assert commands[1].endswith("python -m pytest")
