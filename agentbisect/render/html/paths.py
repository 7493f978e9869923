"""A suspect's evidence path as an inline SVG graph: the trigger at the top, one box per step the
backward slice walked, down to the suspect's source, each arrow labelled with the dependence it
followed (data key or control) and its weight (every key, each with its weight, when an imported
run's hop carries several).
"""

from __future__ import annotations

from msgspec import UNSET

from agentbisect.core.js import to_fixed
from agentbisect.render.html.page import esc
from agentbisect.results.report import Suspect

BOX_W = 380
BOX_H = 40
GAP = 42
LINE_H = 13  # one more line of an arrow's label (11px text)
X0 = 10
WIDTH = 760


def _cut(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _weight(w: float) -> str:
    return "1" if w == 1 else to_fixed(w, 3)  # as the terminal's evidence-path tree rounds


def path_svg(s: Suspect, trigger: str) -> str:
    """The graph for one suspect (a lone box when its path is empty: the trigger itself)."""
    nodes: list[tuple[str, str]] = []
    if s.edgePath:
        h0 = s.edgePath[0]
        nodes.append((h0.from_, h0.fromName if isinstance(h0.fromName, str) else ""))
        nodes.extend((h.to, h.toName if isinstance(h.toName, str) else "") for h in s.edgePath)
    else:
        nodes.append((s.source, s.stageName if isinstance(s.stageName, str) else ""))
    parts: list[str] = []
    y = 6.0
    for i, (node_id, name) in enumerate(nodes):
        ends = (("trig", i == 0 and node_id == trigger), ("src", i == len(nodes) - 1))
        role = [r for r, here in ends if here]
        cls = " ".join(["node", *role])
        tag = " (trigger)" if "trig" in role else (" (source)" if "src" in role else "")
        parts.append(
            f'<g class="{cls}" data-node="{esc(node_id)}"><rect x="{X0}" y="{y:.0f}" '
            f'width="{BOX_W}" height="{BOX_H}" rx="5"/>'
            f'<text class="id" x="{X0 + 10}" y="{y + 17:.0f}">{esc(_cut(node_id, 52))}'
            f'<tspan class="nm">{esc(tag)}</tspan></text>'
            f'<text class="nm" x="{X0 + 10}" y="{y + 32:.0f}">{esc(_cut(name, 58))}</text>'
            f"<title>{esc(node_id)} {esc(name)}</title></g>"
        )
        gap = GAP
        if i < len(nodes) - 1:
            hop = s.edgePath[i]
            # an imported run's hop that carries several keys: a line each
            if hop.keys is not UNSET:
                lines = [f"{hop.kind}: {k.key} · weight {_weight(k.weight)}" for k in hop.keys]
            else:
                key = hop.key if hop.key is not UNSET else ""
                lines = [f"{hop.kind}{': ' + key if key else ''} · weight {_weight(hop.weight)}"]
            gap = GAP + LINE_H * (len(lines) - 1)
            cx = X0 + BOX_W / 2
            y1, y2 = y + BOX_H, y + BOX_H + gap
            if len(lines) == 1:
                text = (
                    f'<text x="{cx + 10:.0f}" y="{y1 + GAP / 2 + 4:.0f}">{esc(_cut(lines[0], 70))}'
                )
            else:
                top = y1 + gap / 2 + 4 - LINE_H * (len(lines) - 1) / 2
                text = "<text>" + "".join(
                    f'<tspan x="{cx + 10:.0f}" y="{top + LINE_H * j:.0f}">{esc(_cut(ln, 70))}</tspan>'
                    for j, ln in enumerate(lines)
                )
            parts.append(
                f'<g class="edge {esc(hop.kind)}"><line x1="{cx:.0f}" y1="{y1:.0f}" '
                f'x2="{cx:.0f}" y2="{y2 - 7:.0f}"/><polygon class="arrow" '
                f'points="{cx - 5:.0f},{y2 - 8:.0f} {cx + 5:.0f},{y2 - 8:.0f} {cx:.0f},{y2:.0f}"/>'
                f"{text}<title>{esc(', '.join(lines))}</title></text></g>"
            )
        y += BOX_H + gap
    height = y - GAP + 6
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label="evidence path from {esc(trigger)} to {esc(s.source)}">'
        f"{''.join(parts)}</svg>"
    )
