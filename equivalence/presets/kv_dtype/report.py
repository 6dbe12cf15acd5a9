"""The verdict report: JSON (the contract other tools read), Markdown for a PR comment, and a
short terminal summary.  Built only from the results; computes nothing itself."""

from __future__ import annotations

import json

from ...engine.report import missed_lines, pair_line, revision_lines, summary_table
from .compare import CLASSIFIED
from .findings import Finding
from .pairs import PairResult

EXPLAIN = {
    "deferred-writes": "the refactored code returns the results and the caller applies them: the "
    "writes of kv_cache_dtype / the resolved string happen after the function's other effects "
    "(same relative order), and not at all when it raises",
    "eager-read": "the new call site reads a runner attribute up front that the old body read only "
    "on some paths; with that attribute missing it raises AttributeError where the old one did not",
    "input-not-modelled": "the code used a value the harness only stubs: the configuration is not modelled",
    "intended-difference": "the fix changes behaviour here, and only the configurations its finding named differ",
    "unintended-divergence": "the fix changes behaviour outside the configurations its finding named",
    "fix-incomplete": "the finding named this configuration, but the fix left its behaviour unchanged",
    "finding-still-holds": "after the fix the finding still holds here",
    "fix-not-as-specified": "the fix changes behaviour here, but not into what its finding asks for (for "
    "kv-str-keyerror: a ValueError naming the dtype and the accepted ones)",
}


def overall(verdicts: list[str]) -> str:
    """divergent if any pair is; else inconclusive if any pair is (a branch never run); else
    equivalent.  "inconclusive" appears only when branch coverage is incomplete."""
    for verdict in ("divergent", "inconclusive"):
        if verdict in verdicts:
            return verdict
    return "equivalent"


def pair_json(result: PairResult) -> dict:
    def entry(kind):
        diff = result.differences[kind]
        example = result.smallest(kind)
        before, after = diff.observations[example]
        return {
            "kind": kind,
            "count": len(diff.configs),
            "example": example.to_json(result.active),
            "before": before.summary(),
            "after": after.summary(),
            **({"explanation": EXPLAIN[kind]} if kind in EXPLAIN else {}),
        }

    real = [entry(k) for k in sorted(result.differences) if k not in CLASSIFIED]
    classified = [entry(k) for k in sorted(result.differences) if k in CLASSIFIED]
    if result.uncovered:
        real.append({"kind": "input-not-covered", "count": len(result.configs), "example": {},
                     "before": {}, "after": {}, "inputs": result.uncovered})
    return {
        "before": result.before.label,
        "after": result.after.label,
        "verdict": result.verdict,
        "configs": len(result.configs),
        "divergences": real,
        "classified": classified,
        "coverage": {k: c.to_json() for k, c in result.coverage.items()},
        **({"intended": result.intended} if result.intended else {}),
        "inputs": sorted(result.active) + ["server_args.kv_cache_dtype", "model", "model_dtype", "_is_hip",
                                             "fp8_dtype", "torch_has_float4_e2m1fn_x2"],
    }


def finding_json(finding: Finding) -> dict:
    out = {
        "id": finding.id,
        "summary": finding.summary,
        "configs": len(finding.configs),
        "example": finding.example.to_json(set()) if finding.example else {},
        "observed": finding.observed,
        "expected": finding.expected,
        "per_version": finding.per_version,
        "holds_in_every_version": len(set(finding.per_version.values())) == 1,
        "config_set": sorted((c.to_json(set()) for c in finding.configs), key=json.dumps),
    }
    if finding.settings:
        out["settings"] = finding.settings
        out["reachable_with_sglang_values"] = any(s["set_by_sglang"] for s in finding.settings)
    return out


def build(pairs: list[PairResult], findings: list[Finding], mutants: dict | None) -> dict:
    report = {
        "verdict": overall([p.verdict for p in pairs]),
        "pairs": [pair_json(p) for p in pairs],
        "findings": [finding_json(f) for f in findings if not f.fixed_in],
    }
    wrong = {p.intended["finding"] for p in pairs if p.intended and p.intended.get("not_as_specified")}
    fixed = [{**finding_json(f), "fixed_in": f.fixed_in, "now": f.now, "fix_as_specified": f.id not in wrong}
             for f in findings if f.fixed_in]
    if fixed:
        report["fixed_findings"] = fixed
    if mutants is not None:
        report["mutants"] = mutants
    return report


def _config_line(example: dict) -> str:
    return ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in example.items())


def _not_applicable(mutants: dict) -> str:
    skipped = mutants.get("not_applicable")
    rejected = [r["id"] for r in mutants.get("rejected_at_load", [])]
    out = f", {len(rejected)} of them refused at load: {', '.join(rejected)}" if rejected else ""
    return out + (f" ({len(skipped)} not applicable to this shape: {', '.join(skipped)})" if skipped else "")


def markdown(report: dict) -> str:
    out = summary_table(report)
    for p in report["pairs"]:
        if "intended" in p:
            out += ["", f"- {p['before']} → {p['after']}: {_intended_line(p['intended'])}"]
    for p in report["pairs"]:
        for title, items in (("Divergences", p["divergences"]), ("Classified differences", p["classified"])):
            if not items:
                continue
            out += ["", f"### {title}: {p['before']} → {p['after']}"]
            for d in items:
                out.append(f"- **{d['kind']}** in {d['count']} configurations. " + d.get("explanation", ""))
                if d.get("inputs"):
                    out.append(f"  - inputs the harness does not vary: {', '.join(d['inputs'])}")
                if d["example"]:
                    out.append(f"  - smallest: `{_config_line(d['example'])}`")
                    out.append(f"  - before: `{json.dumps(d['before'])}`")
                    out.append(f"  - after: `{json.dumps(d['after'])}`")
        for side, cov in p["coverage"].items():
            if cov["missed"]:
                out.append(f"- {p['before']} → {p['after']}, {side}: branches not hit: {'; '.join(cov['missed'])}")
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
        out += ["", f"### Self-check: {m['killed']}/{m['total']} mutants killed" + _not_applicable(m)]
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
    lines = revision_lines(report)
    for p in report["pairs"]:
        lines.append(pair_line(p, report))
        if "intended" in p:
            lines.append(f"  {_intended_line(p['intended'])}")
        for d in p["divergences"]:
            lines.append(f"  {d['kind']} x{d['count']}: {_config_line(d['example']) or d.get('inputs')}")
        lines += missed_lines(p)
    for f in report["findings"]:
        lines.append(f"finding {f['id']}: {f['configs']} configs, e.g. {_config_line(f['example'])}")
    for f in report.get("fixed_findings", []):
        lines.append(f"fixed {f['id']} in {f['fixed_in']}: was {f['configs']} configs"
                     + ("" if f["fix_as_specified"] else " (but NOT as the finding asks: fix-not-as-specified)"))
    if "mutants" in report:
        m = report["mutants"]
        lines.append(f"mutants: {m['killed']}/{m['total']} killed" + _not_applicable(m)
                     + "".join(f"; survived {s['id']}" for s in m["survivors"]))
    lines.append(f"verdict: {report['verdict']}")
    return "\n".join(lines)
