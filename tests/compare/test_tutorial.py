"""The "Did B beat A?" tutorial runs as written."""

import re
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "did-b-beat-a.md"


@pytest.mark.slow  # fits a dozen scikit-learn models (about 3 s)
def test_tutorial_code_runs(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever a block writes stays out of the checkout
    text = TUTORIAL.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 8
    namespace = {}
    for block in blocks:
        exec(compile(block, str(TUTORIAL), "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    # the figures the text quotes
    for figure in ("0.030884", "0.342833", "0.4236 0.6769", "46.5 26.3333", "786 0.8013 782.53"):
        assert figure in out, figure
    # the new vocabulary's figures: the CD at significance=0.01, seeds at significance=0.01
    assert {"1.19", "96"} <= set(out.splitlines())
    # each R-style block starts on a line of its own (print(a, b) ran two of them together)
    titles = [line for line in out.splitlines() if "Mean with Student's t confidence interval" in line]
    assert titles == [" Mean with Student's t confidence interval"] * 2
    # the CD diagrams are Figures of predstab.plotting (no pyplot figure is left open)
    from matplotlib.figure import Figure

    assert isinstance(namespace["fig"], Figure)
    assert "CD = 0.92" in {t.get_text() for t in namespace["fig"].axes[0].texts}   # the Bonferroni-Dunn one


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
