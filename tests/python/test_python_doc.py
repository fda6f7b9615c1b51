"""docs/PYTHON.md's study runs as written (and draws its plot)."""
import os
import re

from conftest import SOURCE_DIR


def test_the_documented_study_runs(tmp_path, capsys):
    text = (SOURCE_DIR / "docs" / "PYTHON.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/PYTHON.md: expected one python block"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(blocks[0], "docs/PYTHON.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "paths_by_hidden.png").stat().st_size > 10_000
    assert capsys.readouterr().out.startswith("fastest: ")
