"""A method moved along with the checked one whose wrapper stays in the class, while the moved
function calls the function by name (equivalence.engine.check._moved_along_units): the function
is what runs after, and is measured; the wrapper, never called from there, is not. On our fixture
`method_moved_along_wrapper`: `Warden.sweep` was "could not run" (the wrapper measured, 2/2
branches after), now equivalent with every branch (6/6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "fixtures" / "trees" / "method_moved_along_wrapper"


def test_the_function_moved_along_is_measured_not_the_wrapper(tmp_path):
    out = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "equivalence", str(FIXTURE / "before"), str(FIXTURE / "after"),
                    "--json", str(out)], cwd=REPO, capture_output=True, text=True, timeout=900)
    report = json.loads(out.read_text())
    (sweep,) = [c for c in report["checks"] if c["moves"] == ["Warden.sweep"]]
    (pair,) = sweep["report"]["pairs"]
    assert pair["verdict"] == "equivalent"
    for side in ("before", "after"):
        assert (pair["coverage"][side]["hit"], pair["coverage"][side]["branches"]) == (6, 6)


def test_the_instance_passed_whole_to_a_function_moved_along_is_the_receiver(tmp_path):
    """`self._pick_donor(flags=...)` before, `_pick_donor(flags=..., warden=warden)` after (the
    function takes the instance whole, `--pass-self`): no residual difference."""
    import shutil

    shutil.copytree(FIXTURE, tmp_path / "t")
    courier = tmp_path / "t" / "after" / "sglang" / "srt" / "pool" / "courier.py"
    text = courier.read_text()
    for old, new in (("_pick_donor(flags=warden.slots)", "_pick_donor(flags=warden.slots, warden=warden)"),
                     ("def _pick_donor(*, flags):", "def _pick_donor(*, warden, flags):")):
        assert text.count(old) == 1
        text = text.replace(old, new)
    courier.write_text(text)
    warden = tmp_path / "t" / "after" / "sglang" / "srt" / "pool" / "warden.py"
    warden.write_text(warden.read_text().replace("courier._pick_donor(flags=flags)",
                                                 "courier._pick_donor(warden=self, flags=flags)"))
    out = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "equivalence", str(tmp_path / "t" / "before"), str(tmp_path / "t" / "after"),
                    "--json", str(out)], cwd=REPO, capture_output=True, text=True, timeout=900)
    report = json.loads(out.read_text())
    (sweep,) = [c for c in report["checks"] if c["moves"] == ["Warden.sweep"]]
    (pair,) = sweep["report"]["pairs"]
    assert pair["static"]["residuals"] == []
    assert pair["verdict"] == "equivalent"
