"""patched_reads.patches_missing_moved_code: patches of OLD.NAME, for a NAME the moved function
reads, would no longer reach it once it reads NAME from the new module."""

from __future__ import annotations

import pytest

from codemods.checkout.patched_reads import patches_missing_moved_code
from tests.checkouts import OLD, make_checkout

NEW = "sglang.srt.utils.numa_utils"
READS = {"get_cpu_ids_by_node", "_use_aiter", "torch", "logger"}
COPIES = {"_use_aiter", "logger"}  # module globals the new module holds its own copy of

# id: (text, line or None when the place still reaches the moved code, how; the name is in the id's text)
PLACES = {
    "mock-patch-string": (f"from unittest import mock\n\nmock.patch(\"{OLD}.get_cpu_ids_by_node\")\n", 3, "patches"),
    "patch-decorator": (f"from unittest.mock import patch\n\n\n@patch('{OLD}._use_aiter', True)\ndef test():\n"
                        f"    pass\n", 4, "patches"),
    "monkeypatch-string": (f"def test(monkeypatch):\n    monkeypatch.setattr(\"{OLD}.torch\", None)\n", 2, "patches"),
    "patch-object": ("from unittest import mock\n\nfrom sglang.srt.model_executor import model_runner\n\n"
                     "mock.patch.object(model_runner, \"_use_aiter\", True)\n", 5, "patches"),
    "monkeypatch-object": (f"import {OLD} as mr\n\n\ndef test(monkeypatch):\n"
                           f"    monkeypatch.setattr(\n        mr, 'get_cpu_ids_by_node', list\n    )\n", 5, "patches"),
    "attribute-write": (f"import {OLD} as mr\n\nmr._use_aiter = True\n", 3, "sets"),
    "patch-multiple": (f"from unittest import mock\n\nimport {OLD} as mr\n\nmock.patch.multiple(mr, torch=None)\n",
                       5, "patches"),
    "inside-a-copy": (f"from unittest.mock import patch\n\npatch(\"{OLD}.logger.info\")\n", 3, "patches"),
    # the shared object itself changes: the moved code sees it
    "inside-an-import": (f"from unittest.mock import patch\n\npatch(\"{OLD}.torch.cuda.is_available\")\n", None, ""),
    "patch-dict-of-an-import": (f"from unittest.mock import patch\n\npatch.dict(\"{OLD}.torch\", {{}})\n", None, ""),
    "read-not-patch": ("from sglang.srt.model_executor import model_runner\n\nX = model_runner._use_aiter\n",
                       None, ""),
    "name-not-read": (f"from unittest.mock import patch\n\npatch(\"{OLD}.something_else\")\n", None, ""),
    "comment": (f"# patch(\"{OLD}.get_cpu_ids_by_node\")\nX = 1\n", None, ""),
    "other-module": ("from unittest import mock\n\nfrom sglang.srt.utils import numa_utils\n\n"
                     "mock.patch.object(numa_utils, \"get_cpu_ids_by_node\", list)\n", None, ""),
}


@pytest.mark.parametrize("case", PLACES)
def test_patches_that_would_miss_the_moved_function(tmp_path, case):
    text, line, how = PLACES[case]
    checkout = make_checkout(tmp_path, {"test/srt/test_numa.py": text})
    found = patches_missing_moved_code(checkout, OLD, NEW, "init_threads_binding", READS, COPIES)
    if line is None:
        assert found == []
        return
    [place] = found
    assert (place.path, place.line) == (checkout.root / "test/srt/test_numa.py", line)
    name = next(n for n in READS if f"{OLD}.{n}" in text or f"'{n}'" in text or f'"{n}"' in text
                or f".{n} =" in text or f"{n}=" in text)
    assert place.what == (f"{how} {OLD}.{name}, but init_threads_binding will read {name} from {NEW}: "
                          f"patch \"{NEW}.{name}\" instead (or as well)")


def test_every_place_in_every_file_is_listed(tmp_path):
    files = {f"test/test_{i}.py": text for i, (text, line, _) in enumerate(PLACES.values())}
    checkout = make_checkout(tmp_path, files)
    found = patches_missing_moved_code(checkout, OLD, NEW, "init_threads_binding", READS, COPIES)
    assert {(p.path.name, p.line) for p in found} == {
        (f"test_{i}.py", line) for i, (_, line, _) in enumerate(PLACES.values()) if line is not None}


def test_nothing_read_nothing_listed(tmp_path):
    checkout = make_checkout(tmp_path, {"test/t.py": PLACES["mock-patch-string"][0]})
    assert patches_missing_moved_code(checkout, OLD, NEW, "f", ()) == []
