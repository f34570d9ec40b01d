"""Bar charts of daily figures as inline SVG, drawn on the server (no script, no CDN)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString


@dataclass(frozen=True)
class Series:
    name: str
    values: list[int]
    color: str


def daily_bars_svg(
    days: list[dt.date], series: list[Series], *, title: str, height: int = 150
) -> SafeString:
    """Bars per day, the series stacked; day labels at month starts (or weekly within two
    months). Scales to its box's width (viewBox), so it fits a phone too."""
    width, left, bottom = 720, 34, 18
    totals = [sum(s.values[i] for s in series) for i in range(len(days))]
    peak = max(totals, default=0) or 1
    slot = (width - left) / max(len(days), 1)
    parts = []
    for index, day in enumerate(days):
        x = left + index * slot
        base = float(height - bottom)
        tip = [f"{day.isoformat()}"]
        for one in series:
            value = one.values[index]
            bar = (height - bottom - 8) * value / peak
            base -= bar
            tip.append(f"{one.name}: {value}")
            if value:
                parts.append(
                    f'<rect x="{x + 0.5:.1f}" y="{base:.1f}" width="{max(slot - 1, 0.6):.1f}" '
                    f'height="{bar:.1f}" fill="{one.color}"></rect>'
                )
        parts.append(
            f'<rect x="{x:.1f}" y="0" width="{slot:.1f}" height="{height - bottom}" '
            f'fill="transparent"><title>{escape(", ".join(tip))}</title></rect>'
        )
        if _labelled(day, len(days)):
            parts.append(
                f'<text x="{x:.1f}" y="{height - 4}" font-size="10" fill="currentColor">'
                f"{day:%b %-d}</text>"
            )
    legend = " ".join(
        f'<tspan fill="{one.color}">■</tspan> {escape(one.name)}' for one in series if series
    )
    return SafeString(
        f'<svg class="insights-chart" role="img" aria-label="{escape(title)}" '
        f'viewBox="0 0 {width} {height + 14}" width="100%" style="max-width:{width}px" '
        f'xmlns="http://www.w3.org/2000/svg">'
        f'<text x="0" y="10" font-size="10" fill="currentColor">{max(totals, default=0)}</text>'
        f'<text x="{left}" y="{height + 12}" font-size="10" fill="currentColor">{legend}</text>'
        f'<line x1="{left}" y1="{height - bottom}" x2="{width}" y2="{height - bottom}" '
        f'stroke="#999"/>' + "".join(parts) + "</svg>"
    )


def _labelled(day: dt.date, count: int) -> bool:
    if count <= 62:
        return day.weekday() == 0
    return day.day == 1
