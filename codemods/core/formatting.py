"""Format only what a step touched, the way sglang formats (black + isort, profile black).

Whole-file formatting of a 3400-line runner costs about a second and may touch lines the
refactoring is not about; instead a touched statement is wrapped in `if True:` blocks to
its nesting depth, formatted alone, and parsed back.
"""

from __future__ import annotations

import configparser
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import black
import isort
import libcst as cst

from pysource import parsing


# Black detects the target versions from the code it formats; formatting one statement alone,
# it would miss the file's f-strings and keep from adding trailing commas after keyword-only
# parameters. Python 3.6+ is what a whole sglang module's features tell it.
PY36_AND_LATER = tuple(v.name.lower() for v in black.TargetVersion if v.value >= black.TargetVersion.PY36.value)


@dataclass(frozen=True)
class Style:
    enabled: bool = True
    line_length: int = 88
    isort_settings: dict = field(default_factory=dict)
    target_versions: tuple[str, ...] = PY36_AND_LATER  # black's, e.g. ("py310",)

    def black_mode(self) -> black.Mode:
        return self._black_mode

    def isort_config(self) -> isort.Config:
        return self._isort_config

    def black(self, code: str) -> str:
        """`black.format_str(code)` in this style, once per text in a run (`pysource.parsing`)."""
        return parsing.once(f"black {self.line_length} {self.target_versions}", code,
                            lambda c: black.format_str(c, mode=self._black_mode))

    def isort(self, code: str) -> str:
        """`isort.code(code)` in this style, once per text in a run."""
        return parsing.once(f"isort {sorted(self.isort_settings.items())}", code,
                            lambda c: isort.code(c, config=self._isort_config))

    # made once per style (a run asks for them for every import line it places): not fields
    @cached_property
    def _black_mode(self) -> black.Mode:
        versions = {black.TargetVersion[v.upper()] for v in self.target_versions if v.upper() in
                    black.TargetVersion.__members__}
        return black.Mode(line_length=self.line_length, target_versions=versions)

    @cached_property
    def _isort_config(self) -> isort.Config:
        settings = {"profile": "black", "known_first_party": ["sglang"], **self.isort_settings}
        firsts = set(settings.get("known_first_party") or ()) | {"sglang"}
        settings["known_first_party"] = sorted(firsts)
        return isort.Config(**settings)


def find_style(root: Path, enabled: bool = True) -> Style:
    """The tree's own black/isort settings, looked up in `root` and its parent (checkout)."""
    line_length, isort_settings, versions = 88, {}, PY36_AND_LATER
    for folder in (root, root.parent):
        py = folder / "pyproject.toml"
        if py.is_file():
            try:
                tool = tomllib.loads(py.read_text()).get("tool", {})
            except (OSError, tomllib.TOMLDecodeError):
                tool = {}
            if "black" in tool:
                line_length = int(tool["black"].get("line-length", line_length))
                versions = tuple(tool["black"].get("target-version", versions))
            if "isort" in tool and not isort_settings:
                isort_settings = {k.replace("-", "_"): v for k, v in tool["isort"].items()}
        cfg = folder / ".isort.cfg"
        if cfg.is_file() and not isort_settings:
            parser = configparser.ConfigParser()
            parser.read(cfg)
            if parser.has_section("settings"):
                isort_settings = {k: _cfg_value(v) for k, v in parser["settings"].items()}
        if isort_settings and line_length != 88:
            break
    isort_settings = {k: v for k, v in isort_settings.items() if k in _ISORT_KEYS}
    return Style(enabled=enabled, line_length=line_length, isort_settings=isort_settings, target_versions=versions)


_ISORT_KEYS = {"profile", "line_length", "known_first_party", "known_third_party", "multi_line_output",
               "include_trailing_comma", "force_grid_wrap", "use_parentheses", "ensure_newline_before_comments",
               "force_sort_within_sections", "combine_as_imports", "skip_gitignore"}


def _cfg_value(v: str):
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    if v.isdigit():
        return int(v)
    if "," in v:
        return [x.strip() for x in v.split(",") if x.strip()]
    return v


def format_statement(node: cst.BaseStatement, depth: int, style: Style) -> cst.BaseStatement:
    """`node` as black lays it out at nesting `depth`; its leading lines are kept as they were."""
    if not style.enabled:
        return node
    bare = node.with_changes(leading_lines=())
    wrapped: cst.BaseStatement = bare
    for _ in range(depth):
        wrapped = cst.If(test=cst.Name("True"), body=cst.IndentedBlock(body=[wrapped]))
    out = parsing.once("libcst", style.black(cst.Module(body=[wrapped]).code), cst.parse_module).body[0]
    for _ in range(depth):
        out = out.body.body[0]
    return out.with_changes(leading_lines=node.leading_lines)


def format_import(node: cst.SimpleStatementLine, style: Style) -> cst.SimpleStatementLine:
    """An import statement as isort writes it (wrapping, parentheses)."""
    if not style.enabled:
        return node
    code = cst.Module(body=[node.with_changes(leading_lines=())]).code
    return cst.parse_statement(style.isort(code)).with_changes(leading_lines=node.leading_lines)


def format_module(code: str, style: Style) -> str:
    if not style.enabled:
        return code
    return style.black(style.isort(code))
