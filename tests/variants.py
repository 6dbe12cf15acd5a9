"""Variants of `ModelRunner.configure_kv_cache_dtype`, made from the fixture shapes.

Maintainers run the codemod on branches whose method is not byte-for-byte any
release. Each `Edit` below is one such deviation, written as a plain text edit
of a fixture's `model_runner.py`; `variants()` applies them alone and in
combinations to every shape. An edit that cannot apply to a shape (the text it
anchors on is absent) is skipped for that shape, never half-applied.

`Edit.construct` names what a refusal must mention when the codemod refuses the
variant; edits with `construct=None` are cosmetic, and the codemod is expected
to handle them (the robustness test checks what actually happens either way).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "trees"
SHAPES = ("instance_log", "server_args_write_log", "server_args_write", "record_call", "record_dflash")
# Shapes whose pairs of cosmetic edits are left out: record_dflash's check runs about 50,000
# configurations (its DFLASH inputs crossed with every other), ten seconds a variant, and its 36
# pairs took five minutes of the suite's 18 on two cores (CI stops at 20). Its single edits, the
# semantic edits hidden among cosmetic ones and all cosmetic edits at once still run; every other
# shape runs every pair of the same edits through the same codemod.
NO_PAIRS = {"record_dflash"}
RUNNER = Path("sglang/srt/model_executor/model_runner.py")

DEF = "    def configure_kv_cache_dtype(self):\n"
BF16 = '        elif self.server_args.kv_cache_dtype in ("bf16", "bfloat16"):\n'


class NotApplicable(Exception):
    """The edit's anchor text is not in this shape."""


def replace_once(src: str, old: str, new: str) -> str:
    if src.count(old) < 1:
        raise NotApplicable(old[:40])
    return src.replace(old, new, 1)


def method_bounds(src: str) -> tuple[int, int]:
    start = src.index(DEF.rstrip("\n"))
    end = src.index("\n    def ", start + len(DEF)) + 1
    return start, end


def after_def_line(src: str, lines: str) -> str:
    """Insert `lines` as the first statements of the method's body."""
    start, _ = method_bounds(src)
    cut = src.index("\n", start) + 1
    return src[:cut] + lines + src[cut:]


def edit_method(src: str, fn: Callable[[str], str]) -> str:
    start, end = method_bounds(src)
    return src[:start] + fn(src[start:end]) + src[end:]


def swap_blocks(text: str, first: str, second: str) -> str:
    """Swap two consecutive `elif` blocks that start with the given lines."""
    a = text.index(first)
    b = text.index(second)
    c = text.index("\n        el", b + len(second)) + 1
    return text[:a] + text[b:c] + text[a:b] + text[c:]


# --- cosmetic edits: the codemod should carry them through -------------------------


def extra_elif_fp8_e8m0(src: str) -> str:
    branch = '        elif self.server_args.kv_cache_dtype == "fp8_e8m0":\n            self.kv_cache_dtype = torch.float8_e8m0fnu\n'
    return replace_once(src, BF16, branch + BF16)


def extra_elif_two_names(src: str) -> str:
    branch = (
        '        elif self.server_args.kv_cache_dtype in ("fp16", "float16", "half"):\n'
        "            self.kv_cache_dtype = torch.float16\n"
    )
    return replace_once(src, BF16, branch + BF16)


def rename_locals(src: str) -> str:
    return edit_method(src, lambda m: m.replace("kv_cache_quant_algo =", "algo =")
                       .replace("isinstance(kv_cache_quant_algo", "isinstance(algo")
                       .replace("and kv_cache_quant_algo.upper()", "and algo.upper()")
                       .replace("quant_config = getattr", "qcfg = getattr")
                       .replace("getattr(quant_config,", "getattr(qcfg,"))


def reorder_branches(src: str) -> str:
    return edit_method(src, lambda m: swap_blocks(
        m,
        '        elif self.server_args.kv_cache_dtype == "fp8_e5m2":\n',
        '        elif self.server_args.kv_cache_dtype == "fp8_e4m3":\n',
    ))


def comments_odd_places(src: str) -> str:
    src = replace_once(
        src,
        '            quant_config = getattr(self.model, "quant_config", None)\n',
        "            quant_config = getattr(\n"
        "                self.model,  # may be a bare nn.Module\n"
        '                "quant_config",\n'
        "                None,\n"
        "            )\n",
    )
    src = replace_once(src, BF16, "\n        # bf16 has two spellings\n" + BF16)

    def trailing(m: str) -> str:
        return m.rstrip("\n") + "\n        # nothing else to decide\n\n"

    src = edit_method(src, trailing)
    return replace_once(src, DEF, "    def configure_kv_cache_dtype(self):  # picks the KV cache dtype\n")


def quotes_and_wrapping(src: str) -> str:
    def fn(m: str) -> str:
        m = m.replace('== "auto"', "== 'auto'").replace('"FP8"', "'FP8'")
        return m.replace(
            "            if (\n"
            "                isinstance(kv_cache_quant_algo, str)\n"
            '                and kv_cache_quant_algo.upper() == \'FP8\'\n'
            "            ):\n",
            "            if isinstance(kv_cache_quant_algo, str) and kv_cache_quant_algo.upper() == 'FP8':\n",
        )

    return edit_method(src, fn)


def table_used_elsewhere(src: str) -> str:
    if "TORCH_DTYPE_TO_KV_CACHE_STR = {" not in src:
        raise NotApplicable("no table in this shape")
    method = (
        "    def kv_cache_dtype_str(self) -> str:\n"
        "        return TORCH_DTYPE_TO_KV_CACHE_STR.get(self.kv_cache_dtype, \"auto\")\n\n"
    )
    return replace_once(src, "    def profile_max_num_token", method + "    def profile_max_num_token")


def second_class_same_method(src: str) -> str:
    return src.rstrip("\n") + (
        "\n\n\nclass DraftRunner:\n"
        "    def configure_kv_cache_dtype(self):\n"
        "        self.kv_cache_dtype = torch.float16\n\n"
        "    def setup(self):\n"
        "        self.configure_kv_cache_dtype()\n"
    )


# --- edits that change what the method means: refuse, or prove equivalent --------


def unmapped_self_read(src: str) -> str:
    return after_def_line(
        src, "        if self.server_args.tp_size > 8:\n            logger.info(\"large tensor parallel group\")\n"
    )


def second_write(src: str) -> str:
    return after_def_line(src, "        self.kv_cache_dtype = self.dtype\n")


def early_return(src: str) -> str:
    return edit_method(src, lambda m: replace_once(
        m,
        "            else:\n                self.kv_cache_dtype = self.dtype\n",
        "            else:\n                self.kv_cache_dtype = self.dtype\n                return\n",
    ))


def read_before_write(src: str) -> str:
    return after_def_line(src, '        logger.debug("previous KV cache dtype: %s", self.kv_cache_dtype)\n')


def read_server_args_after_write(src: str) -> str:
    if "self.server_args.kv_cache_dtype = TORCH" not in src:
        raise NotApplicable("no server_args write")
    return edit_method(src, lambda m: m.rstrip("\n") + (
        '\n        logger.info("KV cache dtype string: %s", self.server_args.kv_cache_dtype)\n\n'
    ))


def defined_twice(src: str) -> str:
    start, end = method_bounds(src)
    return src[:end] + src[start:end] + src[end:]


def decorated(src: str) -> str:
    start, _ = method_bounds(src)
    return src[:start] + "    @torch.no_grad()\n" + src[start:]


def nested_function(src: str) -> str:
    return edit_method(src, lambda m: replace_once(
        m,
        "            else:\n                self.kv_cache_dtype = self.dtype\n",
        "            else:\n\n                def model_dtype():\n                    return self.dtype\n\n"
        "                self.kv_cache_dtype = model_dtype()\n",
    ))


def startswith_on_mapped_read(src: str) -> str:
    branch = ('        elif self.server_args.kv_cache_dtype.startswith("int8_"):\n'
              "            self.kv_cache_dtype = torch.int8\n")
    return replace_once(src, BF16, branch + BF16)


RECORD_CALL = "                self._record_kv_cache_dtype(\n                    TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]\n                )\n"
RECORD_WRITE = ("                    self.server_args.kv_cache_dtype = TORCH_DTYPE_TO_KV_CACHE_STR[\n"
                "                        self.kv_cache_dtype\n                    ]\n")


def record_may_be_none(src: str) -> str:
    return replace_once(src, "TORCH_DTYPE_TO_KV_CACHE_STR[self.kv_cache_dtype]",
                        "TORCH_DTYPE_TO_KV_CACHE_STR.get(self.kv_cache_dtype)") \
        if RECORD_CALL in src else replace_once(src, RECORD_WRITE, RECORD_WRITE.replace(
            "TORCH_DTYPE_TO_KV_CACHE_STR[\n                        self.kv_cache_dtype\n                    ]",
            "TORCH_DTYPE_TO_KV_CACHE_STR.get(self.kv_cache_dtype)"))


def record_twice(src: str) -> str:
    if RECORD_CALL in src:
        return replace_once(src, RECORD_CALL, RECORD_CALL + '                self._record_kv_cache_dtype("fp8")\n')
    return replace_once(src, RECORD_WRITE, RECORD_WRITE + '                    self.server_args.kv_cache_dtype = "fp8"\n')


def record_before_write(src: str) -> str:
    write = "                self.kv_cache_dtype = fp8_dtype if _is_hip else torch.float8_e4m3fn\n"
    if write + RECORD_CALL in src:
        return replace_once(src, write + RECORD_CALL, RECORD_CALL.replace(
            "self.kv_cache_dtype]", "fp8_dtype if _is_hip else torch.float8_e4m3fn]") + write)
    write = "                    self.kv_cache_dtype = torch.float8_e4m3fn\n"
    record = RECORD_WRITE.replace("self.kv_cache_dtype\n", "torch.float8_e4m3fn\n")
    return replace_once(src, write + RECORD_WRITE, record + write)


def global_rebound(src: str) -> str:
    src = replace_once(src, "\nclass ModelRunner", "\n_KV_OVERRIDE = None\n\n\ndef override_kv_cache_dtype(dtype):\n"
                       "    global _KV_OVERRIDE\n    _KV_OVERRIDE = dtype\n\n\nclass ModelRunner")
    return after_def_line(src, "        if _KV_OVERRIDE is not None:\n            logger.info(\"override %s\", _KV_OVERRIDE)\n")


@dataclass(frozen=True)
class Edit:
    name: str
    apply: Callable[[str], str]
    construct: str | None  # what a refusal must name; None: cosmetic


# Ordered so that edits anchored on the original text come before those that rewrite it.
COSMETIC = (
    Edit("extra-elif-fp8_e8m0", extra_elif_fp8_e8m0, None),
    Edit("extra-elif-fp16", extra_elif_two_names, None),
    Edit("comments-odd-places", comments_odd_places, None),
    Edit("quotes-and-wrapping", quotes_and_wrapping, None),
    Edit("renamed-locals", rename_locals, None),
    Edit("reordered-branches", reorder_branches, None),
    Edit("table-used-elsewhere", table_used_elsewhere, None),
    Edit("second-class-same-method", second_class_same_method, None),
    Edit("startswith-on-mapped-read", startswith_on_mapped_read, None),
)
SEMANTIC = (
    Edit("unmapped-self-read", unmapped_self_read, "self.server_args.tp_size"),
    Edit("second-write", second_write, "kv_cache_dtype"),
    Edit("early-return", early_return, "return"),
    Edit("read-before-write", read_before_write, "self.kv_cache_dtype"),
    Edit("read-back-after-write", read_server_args_after_write, "self.server_args.kv_cache_dtype"),
    Edit("defined-twice", defined_twice, "configure_kv_cache_dtype"),
    Edit("decorated", decorated, "decorator"),
    Edit("nested-function", nested_function, "nested"),
    Edit("record-may-be-none", record_may_be_none, "may be None"),
    Edit("record-twice", record_twice, "second record"),
    Edit("record-before-write", record_before_write, "may come before its first write"),
    Edit("global-rebound", global_rebound, "global _KV_OVERRIDE"),
)


@dataclass(frozen=True)
class Variant:
    id: str
    shape: str
    edits: tuple[Edit, ...]
    source: str  # the whole model_runner.py

    @property
    def constructs(self) -> tuple[str, ...]:
        return tuple(e.construct for e in self.edits if e.construct)

    def write(self, root: Path) -> Path:
        """Write this variant as an sglang tree under `root`; returns `root`."""
        for f in (FIXTURES / self.shape).rglob("*"):
            if f.is_file():
                dest = root / f.relative_to(FIXTURES / self.shape)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(f.read_text())
        (root / RUNNER).write_text(self.source)
        return root


def edit_sets(pairs: bool = True) -> Iterator[tuple[Edit, ...]]:
    for edit in COSMETIC + SEMANTIC:
        yield (edit,)
    if pairs:
        yield from itertools.combinations(COSMETIC, 2)
    for semantic in SEMANTIC:  # a semantic edit hidden among cosmetic ones
        yield (COSMETIC[2], COSMETIC[5], semantic)
    yield COSMETIC


def variants() -> list[Variant]:
    out = []
    for shape in SHAPES:
        original = (FIXTURES / shape / RUNNER).read_text()
        for edits in edit_sets(pairs=shape not in NO_PAIRS):
            src = original
            try:
                for edit in edits:
                    src = edit.apply(src)
            except (NotApplicable, ValueError):
                continue
            if src == original:
                continue
            ident = f"{shape}:{'+'.join(e.name for e in edits)}"
            out.append(Variant(ident, shape, edits, src))
    return out


if __name__ == "__main__":
    vs = variants()
    print(len(vs), "variants")
    for v in vs[:5]:
        print(v.id)
