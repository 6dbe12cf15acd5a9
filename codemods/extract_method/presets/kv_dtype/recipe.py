"""sglang PR #31147's values for the generic extraction steps, and its method shapes.

The preset spells out what the generic engine would otherwise infer: its parameter names and
annotations (`self.dtype` arrived as `model_dtype`), the `is_dflash=self.spec_algorithm.is_dflash()`
read, the result and the recorded string, the narrowed `server_args.kv_cache_dtype`, the moved
table. It is strict (`strict_analysis`): any other `self.` use is refused, as the #31147
harness covers exactly these inputs.
"""

from __future__ import annotations

import re

from codemods.extract_method.presets.kv_dtype import strict_analysis
from codemods.extract_method.recipe import Narrow, Read, Record, Recipe, Result

RECIPE = Recipe(
    class_name="ModelRunner",
    method_name="configure_kv_cache_dtype",
    source_file="sglang/srt/model_executor/model_runner.py",
    target_module="sglang.srt.mem_cache.kv_cache_dtype",
    reads=(
        Read("self.server_args.kv_cache_dtype", "server_args",
             replacement="server_args.kv_cache_dtype", argument="self.server_args"),
        Read("self.model", "model", "nn.Module"),
        Read("self.dtype", "model_dtype", "torch.dtype"),
        Read("self.is_draft_worker", "is_draft_worker", "bool"),
        Read("self.spec_algorithm.is_dflash()", "is_dflash", "bool"),
        Read("self.server_args.speculative_draft_attention_backend", "speculative_draft_attention_backend", "str"),
    ),
    analysis=strict_analysis.analyse,
    results=(Result(attribute="self.kv_cache_dtype", local="kv_cache_dtype"),),
    record=Record(local="resolved_kv_cache_dtype", annotation="Optional[str]",
                  attribute="self.server_args.kv_cache_dtype", method="self._record_kv_cache_dtype"),
    narrows=(Narrow(param="server_args", attribute="kv_cache_dtype",
                    new_param="server_args_kv_cache_dtype", annotation="str"),),
    return_annotation="tuple[Optional[str], torch.dtype]",
    moved_globals=("TORCH_DTYPE_TO_KV_CACHE_STR",),
    new_target=True,
    package_inits=False,  # mem_cache/ exists in every release; our fixture trees leave it out
    future_annotations=False,  # #31147's kv_cache_dtype.py imports what its annotations name
    tidy_globals=False,  # #31147 kept `_is_hip = is_hip()` in the runner (the harness needs it there)
    subjects={
        1: "Make ModelRunner.configure_kv_cache_dtype a keyword-only static method",
        2: "Move configure_kv_cache_dtype into sglang/srt/mem_cache/kv_cache_dtype.py",
        3: "Restore a ModelRunner.configure_kv_cache_dtype wrapper",
        4: "Pass server_args_kv_cache_dtype instead of ServerArgs to configure_kv_cache_dtype",
    },
)


def classify(text: str) -> str:
    """Name the method's shape (see fixtures/trees): how it records, whether it logs, DFLASH."""
    start = text.find("    def configure_kv_cache_dtype(self")
    if start < 0:
        return "unknown"
    nxt = re.compile(r"^    (?:def |@|async def )", re.M).search(text, start + 10)
    body = text[start: nxt.start() if nxt else len(text)]
    if "self._record_kv_cache_dtype(" in body:
        return "record_dflash" if "is_dflash()" in body else "record_call"
    logs = "log_info_on_rank0(" in body
    if re.search(r"self\.server_args\.kv_cache_dtype\s*=(?!=)", body):
        return "server_args_write_log" if logs else "server_args_write"
    return "instance_log" if logs else "instance"
