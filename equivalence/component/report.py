"""The component check's report: the `--method` report (its JSON shape, Markdown and terminal
renderings), with what each pair compared (the methods the sequences call, the moved state, what
the owner rebinds between calls) and each divergence's sequence of calls."""

from __future__ import annotations

from equivalence.engine.report import report as method_report


def _component_lines(p: dict, code=str) -> list[str]:
    c = p.get("component", {})
    return [f"sequences of each method alone and of every ordered pair of {', '.join(code(m) for m in c.get('methods', []))}; moved state "
            f"{', '.join(code(s) for s in c.get('state', [])) or 'none'}; the owner rebinds between calls "
            f"{', '.join(code(r) for r in c.get('rebound', [])) or 'nothing'}"]


def markdown(report: dict) -> str:
    text = method_report.markdown(report)
    extra = []
    for p in report["pairs"]:
        extra.append(f"- {p['before']} → {p['after']}: " + _component_lines(p, lambda s: f"`{s}`")[0])
        for d in p["divergences"]:
            if d.get("sequence"):
                extra.append(f"  - {d['kind']}: smallest sequence {' → '.join(d['sequence'])}")
    head, sep, rest = text.partition("\n\n")
    return head + sep + "\n".join(extra) + "\n\n" + rest if extra else text


def terminal(report: dict) -> str:
    lines = method_report.terminal(report).splitlines()
    out = []
    for line in lines:
        out.append(line)
        for p in report["pairs"]:
            if line.startswith(f"{p['before']} -> {p['after']}"):
                out.append("  " + _component_lines(p)[0])
                for d in p["divergences"]:
                    if d.get("sequence"):
                        out.append(f"  {d['kind']}: sequence {' -> '.join(d['sequence'])}")
    return "\n".join(out)
