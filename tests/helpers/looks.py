"""What the browser tests look for on a page (tests/test_visual.py and the pages
that have visual checks of their own): the sizes, the colour schemes, and the
script that lists what a reader would see wrong (overflow, overlap, tiny text)."""

from __future__ import annotations

# The sizes issue #36 measured the first screen at.
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SCHEMES = ("light", "dark")
MIN_TEXT_PX = 9.0

# Sets of elements that must not overlap one another (each selector is one set).
NO_OVERLAP = (
    ".site-header > *",
    "main > *",
    ".page-header > *",
    ".stats > *",
    ".row-filters > *",
    "table.rows thead th",
    ".timeline-chart .tl-day, .timeline-chart svg",
    ".tokens-chart .tk-row > *, .tokens-chart .tk-axis",
    ".activity .chart-axis > *",
    ".session-side, .session-top, .session-body",
    ".session-side, .outline, .find, .timeline, .toolbar, .neighbours",
)

# Runs in the page: every problem a reader would see, as text.
CHECK = """
(noOverlap) => {
  const problems = [];
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.getAttribute("class") ? "." + el.getAttribute("class").trim().split(/\\s+/).join(".") : "");
  const headings = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].filter(visible);
  const largest = Math.max(...headings.map((h) => parseFloat(getComputedStyle(h).fontSize)));
  if (!isFinite(largest)) problems.push("no visible heading");
  // Text: each element that holds text directly, at the size it is drawn.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || seen.has(el) || !node.textContent.trim()) continue;
    seen.add(el);
    if (el.closest("title, script, style, option") || !visible(el)) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      const scale = m ? Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : 1;
      if (Math.abs(scale - 1) > 0.01) {
        problems.push(`SVG text scaled ${scale.toFixed(2)}x with its chart: ${name(el)} "${node.textContent.trim().slice(0, 30)}"`);
      }
      size *= scale;
    }
    if (size > largest + 0.5) {
      problems.push(`text ${size.toFixed(1)}px, taller than the largest heading (${largest}px): ${name(el)} "${node.textContent.trim().slice(0, 30)}"`);
    }
    if (size < MIN_PX) {
      problems.push(`text ${size.toFixed(1)}px, too small to read: ${name(el)} "${node.textContent.trim().slice(0, 30)}"`);
    }
  }
  // A session page: the conversation starts on the first screen, the outline fits its width.
  const timeline = document.querySelector(".timeline");
  if (timeline) {
    const first = timeline.querySelector(":scope > .item.prompt, :scope > .item.command") ||
      timeline.querySelector(":scope > .item");
    const top = first ? first.getBoundingClientRect().top + scrollY : 0;
    if (first && top >= innerHeight) problems.push(`the first prompt starts at ${Math.round(top)}px, below the first screen (${innerHeight}px)`);
    for (const el of document.querySelectorAll(".session-side, nav.outline, nav.outline ol")) {
      if (visible(el) && el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} scrolls sideways: ${el.scrollWidth}px in ${el.clientWidth}px`);
    }
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    const wide = [...document.querySelectorAll("body *")].filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5)
      .slice(0, 3).map(name);
    problems.push(`the page scrolls sideways: ${root.scrollWidth}px wide in ${root.clientWidth}px (${wide.join(", ")})`);
  }
  for (const selector of noOverlap) {
    const els = [...document.querySelectorAll(selector)].filter(visible);
    for (let i = 0; i < els.length; i++) {
      const a = els[i].getBoundingClientRect();
      for (let j = i + 1; j < els.length; j++) {
        if (els[i].contains(els[j]) || els[j].contains(els[i])) continue;
        const b = els[j].getBoundingClientRect();
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > 1) problems.push(`${name(els[i])} and ${name(els[j])} overlap (${selector})`);
      }
    }
  }
  return problems;
}
""".replace("MIN_PX", str(MIN_TEXT_PX))
