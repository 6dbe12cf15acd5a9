"""PR #31147's report: the engine's pairs (examples under the review's names, kv effects first)
plus the findings, the fixes' deltas and the preset's mutants. JSON (the contract other tools
read), Markdown for a PR comment, and a short terminal summary; computes nothing itself."""

from __future__ import annotations

import json
from dataclasses import replace

from equivalence.engine.report.report import EXPLAIN as ENGINE_EXPLAIN
from equivalence.engine.report.report import (Render, compared_lines, controls_markdown, controls_terminal,
                                              difference_sections, missed_lines, pair_entry, pair_line, revision_lines,
                                              self_check_heading, static_items, static_lines, summary_table,
                                              verdict_line, why_missed_lines)
from equivalence.engine.report.verdict import Report
from equivalence.engine.results import Checked
from equivalence.engine.run.pairs import PairResult
from equivalence.presets.kv_dtype.findings import Finding
from equivalence.presets.kv_dtype.hints import size_key, to_json
from equivalence.presets.kv_dtype.observed import summary

EXPLAIN = {
    **ENGINE_EXPLAIN,
    "deferred-writes": "the refactored code returns the results and the caller applies them: the "
    "writes of kv_cache_dtype / the resolved string happen after the function's other effects "
    "(same relative order), and not at all when it raises",
    "eager-read": "the new call site reads a runner attribute up front that the old body read only "
    "on some paths; with that attribute missing it raises AttributeError where the old one did not",
    "different-kv-cache-dtype": "the versions end with a different kv_cache_dtype",
    "different-resolved-string": "the versions record a different resolved --kv-cache-dtype string",
    "intended-difference": "the fix changes behaviour here, and only the configurations its finding named differ",
    "unintended-divergence": "the fix changes behaviour outside the configurations its findings named",
    "fix-incomplete": "the finding named this configuration, but the fix left its behaviour unchanged",
    "finding-still-holds": "after the fix the finding still holds here",
    "fix-not-as-specified": "the fix changes behaviour here, but not into what its finding asks for (for "
    "kv-str-keyerror: a ValueError naming the dtype and the accepted ones)",
}


def render(literals: list[str], fixed: set[str]) -> Render:
    """Examples ranked as the review ranks them: fewest choices away from the defaults among the
    keys the preset does not name, then hints.size_key."""

    def rank(config: dict) -> tuple:
        return (sum(1 for k in config if k not in fixed), size_key(config, literals))

    return Render(example=to_json, summary=summary, explain=EXPLAIN, rank=rank)


def finding_json(finding: Finding) -> dict:
    out = {
        "id": finding.id,
        "summary": finding.summary,
        "configs": len(finding.configs),
        "example": to_json(dict(finding.example)) if finding.example else {},
        "observed": finding.observed,
        "expected": finding.expected,
        "per_version": finding.per_version,
        "holds_in_every_version": len(set(finding.per_version.values())) == 1,
        "config_set": sorted((to_json(dict(c)) for c in finding.configs), key=json.dumps),
    }
    if finding.settings:
        out["settings"] = finding.settings
        out["reachable_with_sglang_values"] = any(s["set_by_sglang"] for s in finding.settings)
    return out


def build(results: list[Checked[PairResult]], findings: list[Finding], mutants: dict | None,
          literals: list[str]) -> Report:
    pairs = []
    for checked in results:
        result = checked.result
        pair = pair_entry(result, checked.static, render(literals, result.domains.fixed), judge_static=not result.intended)
        pairs.append(replace(pair, intended=tuple(result.intended)) if result.intended else pair)
    sections = [("findings", [finding_json(f) for f in findings if not f.fixed_in])]
    wrong = {i["finding"] for r in results for i in (r.result.intended or []) if i["not_as_specified"]}
    fixed = [{**finding_json(f), "fixed_in": f.fixed_in, "now": f.now, "fix_as_specified": f.id not in wrong}
             for f in findings if f.fixed_in]
    if fixed:
        sections.append(("fixed_findings", fixed))
    return Report.of(pairs, mutants, tuple(sections))


def _config_line(example: dict) -> str:
    return ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in example.items())


def _not_applicable(mutants: dict) -> str:
    skipped = mutants.get("not_applicable")
    return f" ({len(skipped)} not applicable to this shape: {', '.join(skipped)})" if skipped else ""


def markdown(report: dict) -> str:
    out = summary_table(report)
    for p in report["pairs"]:
        for i in p.get("intended", []):
            out += ["", f"- {p['before']} → {p['after']}: {_intended_line(i)}"]
    for i, p in enumerate(report["pairs"]):
        out += difference_sections(p, lambda d: _config_line(d["example"]), report["pairs"][:i])
        for side, cov in p["coverage"].items():
            if cov["missed"]:
                out.append(f"- {p['before']} → {p['after']}, {side}: branches not hit: {'; '.join(cov['missed'])}")
                out += why_missed_lines(cov, "  - ")
    static = [item for i, p in enumerate(report["pairs"]) for line in static_lines(p)[:1]  # the count; its items follow
              for item in [f"- {p['before']} → {p['after']}: {line.strip().removeprefix('static: ')}",
                           *static_items(p, report["pairs"][:i])]]
    if static:
        out += ["", "Static check (the moved code against the old body, modulo the substitution map):", *static]
    if report["findings"]:
        out += ["", "### Findings (hold in every version, contradict what the code says)"]
        for f in report["findings"]:
            out.append(f"- **{f['id']}**: {f['summary']}. {f['configs']} configurations "
                       f"(per version: {', '.join(f'{k}: {v}' for k, v in f['per_version'].items())}).")
            out.append(f"  - smallest: `{_config_line(f['example'])}`")
            out.append(f"  - observed: `{json.dumps(f['observed'])}`")
            out.append(f"  - expected: `{json.dumps(f['expected'])}`")
            if "settings" in f:
                settings = "; ".join(f"_is_hip={s['_is_hip']}, fp8_dtype={s['fp8_dtype']}" for s in f["settings"])
                reach = "reachable" if f["reachable_with_sglang_values"] else "not reachable"
                out.append(f"  - only under: {settings} ({reach} with the fp8_dtype values sglang sets)")
    if report.get("fixed_findings"):
        out += ["", "### Findings fixed (no longer hold in the last version)"]
    for f in report.get("fixed_findings", []):
        out.append(f"- **{f['id']}** fixed in {f['fixed_in']} ({f['configs']} configurations before); "
                   f"smallest example now: `{json.dumps(f['now'])}`"
                   + ("" if f["fix_as_specified"] else " — **not** the fix the finding asks for"))
    if "mutants" in report:
        m = report["mutants"]
        out += ["", f"### Self-check: {m['killed']}/{m['total']} mutants killed" + _not_applicable(m)
                + self_check_heading(report)]
        out += controls_markdown(m)
        for s in m["survivors"]:
            out.append(f"- survived: {s['id']} ({s['reason']})")
    return "\n".join(out) + "\n"


def _intended_line(i: dict) -> str:
    verdict = "equal" if i["equal"] else (
        f"NOT equal: {i['outside_finding']} outside the finding, {i['finding_unchanged']} of it unchanged")
    if i.get("not_as_specified"):
        verdict += f"; NOT the fix asked for in {i['not_as_specified']}"
    still = f"; finding still holds in {i['finding_configs_after']}" if i["finding_configs_after"] else ""
    return (f"intended difference for {i['finding']}: delta {i['delta_configs']} configs, "
            f"finding {i['finding_configs']} configs: {verdict}{still}")


def terminal(report: dict) -> str:
    lines = revision_lines(report) + compared_lines(report)
    for p in report["pairs"]:
        lines.append(pair_line(p, report))
        for i in p.get("intended", []):
            lines.append(f"  {_intended_line(i)}")
        for d in p["divergences"] + p.get("not_modelled", []):
            lines.append(f"  {d['kind']} x{d['count']}: "
                         + (_config_line(d["example"]) if "example" in d else ", ".join(g["name"] for g in d["globals"])))
        lines += missed_lines(p) + static_lines(p)
    for f in report["findings"]:
        lines.append(f"finding {f['id']}: {f['configs']} configs, e.g. {_config_line(f['example'])}")
    for f in report.get("fixed_findings", []):
        lines.append(f"fixed {f['id']} in {f['fixed_in']}: was {f['configs']} configs"
                     + ("" if f["fix_as_specified"] else " (but NOT as the finding asks: fix-not-as-specified)"))
    if "mutants" in report:
        m = report["mutants"]
        lines.append(f"mutants: {m['killed']}/{m['total']} killed" + _not_applicable(m)
                     + "".join(f"; survived {s['id']}" for s in m["survivors"]))
        lines += controls_terminal(m)
    lines.append(f"verdict: {verdict_line(report)}")
    return "\n".join(lines)
