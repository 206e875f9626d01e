"""The README's first Python example runs as written."""

import re
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_phi_psi_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "README.md has no python example"
    code = blocks[0].replace("RandomForestRegressor()", "RandomForestRegressor(n_estimators=20)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "Data-based prediction stability (phi)" in out
    assert "Model-based prediction stability (psi)" in out
