"""The page shell: escaping, the inline stylesheet and script, and a Content-Security-Policy that
forbids every network request.

Recorded text is untrusted, so every string goes through ``esc`` (control characters stripped,
``& < > " '`` escaped) and nothing recorded ever becomes a URL or an attribute name. The CSP
allows only this page's own style and script, by hash, so even markup that slipped past escaping
could not run a script or load anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable

from agentbisect.render.safetext import clean

COLLAPSE_AFTER = 100  # rows shown before a list is folded into a <details> with a count


def esc(value: object) -> str:
    """``value`` as HTML text: scrubbed of control characters, every markup character escaped."""
    return html.escape(clean("" if value is None else value, keep_newlines=True), quote=True)


def num(value: object) -> str:
    """A count or measure with thousands separators; an em dash for a missing value."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.3g}"
    return esc(value)


# The terminal tables (render.tables.genui) format numbers the same, with an en dash for none.
def ms(value: object, dash: str = "—") -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return dash
    return f"{value:,.0f} ms" if value < 10_000 else f"{value / 1000:,.1f} s"


def pct(rate: float | None, dash: str = "—") -> str:
    return dash if rate is None else f"{rate * 100:.1f}%"


def usd(value: float | None, dash: str = "—") -> str:
    if value is None:
        return dash
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:,.4f}" if value >= 0.0001 or value == 0 else f"${value:.2e}"


def table(
    head: Iterable[str], rows: list[str], *, what: str, cls: str = "", empty: str | None = None
) -> str:
    """A table whose body is folded after ``COLLAPSE_AFTER`` rows into a second, collapsed table
    (a <details> cannot sit inside a <tbody>); with no rows, the ``empty`` sentence if given."""
    if not rows and empty is not None:
        return f'<p class="muted">{esc(empty)}</p>'
    header = "<thead><tr>" + "".join(head) + "</tr></thead>"
    attr = f' class="{cls}"' if cls else ""
    keep = COLLAPSE_AFTER
    out = f"<table{attr}>{header}<tbody>{''.join(rows[:keep])}</tbody></table>"
    if len(rows) > keep:
        out += (
            f'<details class="more"><summary>{len(rows) - keep:,} more {esc(what)}</summary>'
            f"<table{attr}>{header}<tbody>{''.join(rows[keep:])}</tbody></table></details>"
        )
    return out


def th(label: str, numeric: bool = False) -> str:
    return f'<th class="n">{esc(label)}</th>' if numeric else f"<th>{esc(label)}</th>"


def totals(tiles: Iterable[tuple[str, str]], attr: str = "") -> str:
    """The row of headline numbers: each tile a value (already formatted) over its label."""
    cells = "".join(f'<div class="tot"><b>{v}</b><span>{esc(k)}</span></div>' for v, k in tiles)
    return f'<div class="totals"{attr}>{cells}</div>'


def ths(*labels: str) -> list[str]:
    """Header cells; a label written with a leading ``>`` is a numeric (right-aligned) column."""
    return [th(x[1:], True) if x.startswith(">") else th(x) for x in labels]


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def document(title: str, body: str) -> str:
    """The whole self-contained page."""
    csp = (
        "default-src 'none'; "
        f"style-src '{_sha256(CSS)}'; "
        f"script-src '{_sha256(SCRIPT)}'; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; "
        "object-src 'none'; frame-src 'none'; worker-src 'none'; manifest-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>"
        f'<body class="nojs">{body}<script>{SCRIPT}</script></body></html>\n'
    )


CSS = """
:root{--fg:#1d232b;--muted:#5d6773;--line:#d5dae0;--bg:#fff;--soft:#f4f6f8;--accent:#1f5fbf;
--llm:#3b6fd4;--tool:#1c8a5a;--err:#c62828;--trig:#d81b60;--warn-bg:#fff4d6;--warn:#8a5a00}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg)}
main{max-width:1280px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;padding-bottom:4px;
border-bottom:1px solid var(--line)}h3{font-size:14px;margin:12px 0 6px}
.sub{color:var(--muted);margin:0 0 12px;overflow-wrap:anywhere}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.totals{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}
.tot{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:6px 12px;
min-width:120px}.tot b{display:block;font-size:18px}.tot span{color:var(--muted);font-size:12px}
.flags{border:1px solid #e0b84c;background:var(--warn-bg);border-radius:6px;padding:8px 12px;
margin:10px 0}.flags h2{border:0;margin:0 0 4px;padding:0;color:var(--warn);font-size:15px}
.flags ul{margin:0;padding-left:18px}.flags li{margin:2px 0}
.flags.none{background:var(--soft);border-color:var(--line)}.flags.none h2{color:var(--muted)}
details.flags{padding:4px 12px}details.flags>summary{cursor:pointer;color:var(--warn)}
details.flags>summary b{font-weight:600}details.flags ul{margin:6px 0 2px}
mark{background:#fde68a;color:inherit;padding:0 1px;border-radius:2px}mark.best{background:#fbbf24}
.mode{display:inline-block;font-weight:600;border-radius:4px;padding:1px 8px;margin-right:6px}
.mode.corr{background:#fff0c2;color:#6d4a00}.mode.causal{background:#d8f1e0;color:#0e5a2e}
.verdict-line{font-size:15px;margin:6px 0}
.answer p{margin:4px 0;white-space:pre-wrap}.answer .label{color:#666;margin-right:6px}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;font-size:12.5px;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.txt{overflow-wrap:anywhere;max-width:520px}
tr.dim td{color:var(--muted)}
.d1{padding-left:22px}.d2{padding-left:38px}.d3{padding-left:54px}.d4{padding-left:70px}
.d5{padding-left:86px}.d6{padding-left:102px}.d7{padding-left:118px}.d8{padding-left:134px}
details.more{margin:4px 0 10px}details.more>summary{cursor:pointer;color:var(--accent)}
.tl{overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
.tl svg{display:block}
.legend{color:var(--muted);font-size:12px;margin:4px 0 0}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px;
vertical-align:-1px}.legend i.l{background:var(--llm)}.legend i.t{background:var(--tool)}
.legend i.e{background:var(--err)}.legend i.g{background:var(--trig)}.legend i.b{background:#9fb3c8}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.lane-label{font-size:11px;fill:#333}.axis{font-size:10px;fill:#777}
.bar{fill:#9fb3c8}.bar.k-run{fill:#c9d3de}.bar.k-internal{fill:#b8c2cc}.bar.open{fill:#e6a23c}
.bar.k-Agent,.bar.k-LLMCall{fill:#7e9cc0}.bar.slot{fill:#a9c7b8}
.mk-llm{fill:var(--llm)}.mk-tool{fill:var(--tool)}.mk-error{fill:var(--err)}
.mk-trigger{fill:var(--trig);stroke:#7a0032;stroke-width:1}
.trig-line{fill:var(--trig);opacity:.85}
.trig-label{fill:var(--trig);font-size:11px;font-weight:700}
.gridline{stroke:#eef0f3}
.onpath{stroke:#0b2e6f;stroke-width:2.5px;paint-order:stroke}
tr.trigger td{background:#fde7ef}
.suspects{display:grid;grid-template-columns:minmax(0,1fr);gap:6px}
table.sus tbody tr[data-suspect]{cursor:pointer}
table.sus tbody tr[data-suspect]:hover td{background:#f0f5ff}
table.sus tr.sel td{background:#e3ecfb}
details.suspect{border:1px solid var(--line);border-radius:6px;padding:0 12px;margin:6px 0}
details.suspect[open]{border-color:var(--accent);box-shadow:0 0 0 1px var(--accent) inset}
details.suspect>summary{cursor:pointer;padding:8px 0;font-weight:600}
.evidence{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);
border-left:3px solid var(--accent);padding:6px 10px;margin:6px 0}
.claim{font-style:italic}
table.sus tr.grp th{white-space:normal;background:none;font-weight:400;font-size:13px;
padding:12px 8px 4px;border-bottom:2px solid var(--accent)}table.sus tr.grp th b{font-weight:700}
table.sus tr.grp.bare th{border-bottom:2px dashed #9aa5b1}table.sus tr.bare td{color:var(--muted)}
table.sus tr.bare td b{color:var(--fg)}
.tag{display:inline-block;margin-left:8px;padding:0 6px;border-radius:4px;font-size:12px;
font-weight:400;background:#e3ecfb;color:#16417f}.tag.bare{background:var(--soft);color:var(--muted);
border:1px dashed #9aa5b1}
td.ident{min-width:11em}
td.said{overflow-wrap:anywhere;min-width:200px;max-width:520px}
.lead{margin:8px 0 0;font-size:12.5px;font-weight:600;color:var(--muted)}
details.suspect.bare .evidence{border-left:3px dashed #9aa5b1}
table.signals{width:auto;margin:4px 0 10px}
table.signals th,table.signals td{border:0;padding:1px 10px 1px 0;background:none;font-size:12.5px}
table.signals svg{display:block;margin-top:3px}.sbg{fill:#e8ecf1}.sfill{fill:var(--accent)}
.v-confirmed{color:#b71c1c;font-weight:700}.v-not-confirmed{color:#2e7d32}
.v-inconclusive{color:#8a5a00}
.path svg{max-width:100%;height:auto}
.node rect{fill:#fff;stroke:#8a97a6;stroke-width:1.2}.node.trig rect{stroke:var(--trig);
stroke-width:2;fill:#fde7ef}.node.src rect{stroke:var(--accent);stroke-width:2;fill:#e3ecfb}
.node .id{font-size:12px;font-weight:700;fill:#1d232b}.node .nm{font-size:11px;fill:#5d6773}
.edge line{stroke:#5d6773;stroke-width:1.5}.edge.control line{stroke-dasharray:5 3}
.edge text{font-size:11px;fill:#333}.arrow{fill:#5d6773}
.chart .bar{fill:#7e9cc0}.chart .rate{fill:none;stroke:var(--tool);stroke-width:2}
.chart .dot{fill:var(--tool)}.chart .lab{font-size:10px;fill:#555}
.hero{margin:8px 0 4px}.wpos{fill:var(--err)}.wneg{fill:var(--tool)}.wzero{fill:#999}.wmid{stroke:#777}
.big{font-size:28px;font-weight:700;margin-right:6px}
.muted{color:var(--muted)}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{details.more{display:block}}
"""

SCRIPT = """
(function(){
document.body.classList.remove('nojs');
var rows=document.querySelectorAll('table.sus tbody tr[data-suspect]');
var marks=document.querySelectorAll('#timeline [data-step]:not(.trig-line),#timeline [data-stage]');
function outline(n){
  var d=document.getElementById('suspect-'+n);
  var ids=d?(d.getAttribute('data-path')||'').split('\\n'):[];
  marks.forEach(function(m){
    var id=m.getAttribute('data-step')||m.getAttribute('data-stage');
    m.classList.toggle('onpath',ids.indexOf(id)>=0);});
}
function show(n){
  document.querySelectorAll('details.suspect').forEach(function(d){
    d.open=(d.getAttribute('data-suspect')===n);});
  rows.forEach(function(r){r.classList.toggle('sel',r.getAttribute('data-suspect')===n);});
  var d=document.getElementById('suspect-'+n);
  if(d){d.scrollIntoView({block:'nearest'});}
  outline(n);
}
rows.forEach(function(r){r.addEventListener('click',function(){show(r.getAttribute('data-suspect'));});});
document.querySelectorAll('details.suspect').forEach(function(d){
  d.addEventListener('toggle',function(){
    if(d.open){var n=d.getAttribute('data-suspect');
      rows.forEach(function(r){r.classList.toggle('sel',r.getAttribute('data-suspect')===n);});
      outline(n);}
  });
});
if(rows.length){outline('1');}
document.querySelectorAll('button[data-expand]').forEach(function(b){
  b.addEventListener('click',function(){
    var open=b.getAttribute('aria-pressed')!=='true';
    document.querySelectorAll(b.getAttribute('data-expand')+' details.more').forEach(function(d){d.open=open;});
    b.setAttribute('aria-pressed',open?'true':'false');
    b.textContent=open?'Collapse long lists':'Expand long lists';
  });
});
})();
"""
