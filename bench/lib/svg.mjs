// report.svg: grouped bars of MB/s per fixture, one panel per operation, on
// one shared log scale, so that panels compare with each other. Plain SVG
// 1.1 with no script and no external font, so any browser draws it.

import { lookup, tableSpecs } from './report.mjs';

const COLORS = {
  js: '#E69F00',
  'wasm-simd': '#0072B2',
  'wasm-scalar': '#56B4E9',
  simdjson: '#009E73',
  'simdjson-decode': '#A6DBC8',
  'simdjson-native': '#CC79A7',
  bare: '#8C8C8C',
};

const LEGEND = [
  ['js', 'js (the pure-JS path)'],
  ['wasm-simd', 'wasm-simd (the WebAssembly core, SIMD build)'],
  ['wasm-scalar', 'wasm-scalar (the core, scalar build)'],
  ['simdjson', 'simdjson isValid (string given)'],
  ['simdjson-decode', 'simdjson isValid + TextDecoder'],
  ['simdjson-native', 'native simdjson (the limit)'],
  ['bare', 'bare JSON.parse / JSON.stringify + encodeInto (+ copy)'],
];

/** One panel per table of report.md (tableSpecs): a bar per column but memcpy, which is each group's black line. */
function panels(wasm) {
  const color = (prefix, backend) => (prefix === 'peer/isvalid-decode' ? 'simdjson-decode' : backend.startsWith('JSON.') ? 'bare' : backend);
  return tableSpecs(wasm).map((t) => ({
    title: t.panel,
    groups: t.fixtures.map((f) => ({ label: f, fixture: f })),
    bars: t.columns.filter((c) => c[2] !== 'memcpy').map(([, prefix, backend]) => [color(prefix, backend), prefix, backend]),
  }));
}

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function short(x) {
  if (x >= 1e6) return `${Math.round(x / 1e6)}M`;
  if (x >= 10000) return `${Math.round(x / 1000)}k`;
  if (x >= 1000) return `${(x / 1000).toFixed(1)}k`;
  if (x >= 100) return String(Math.round(x));
  if (x >= 10) return x.toFixed(0);
  if (x >= 1) return x.toFixed(1);
  return x.toFixed(2);
}

function sizeLabel(bytes) {
  if (bytes == null) return '';
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(bytes % (1 << 20) ? 2 : 0)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} B`;
}

export function renderSvg(report) {
  const wasm = report.backends.wasm;
  const cases = report.cases;
  const specs = panels(wasm);

  // Resolve every bar's value, and the memcpy mark of each group.
  const resolved = specs.map((p) => ({
    ...p,
    groups: p.groups.map((g) => ({
      ...g,
      bytes: report.fixtures.find((f) => f.name === g.fixture)?.bytes,
      memcpy: lookup(cases, `peer/memcpy/${g.fixture}`, 'memcpy'),
      bars: p.bars.map(([key, prefix, backend]) => {
        const name = `${prefix}/${g.fixture}`;
        return { key, r: lookup(cases, name, backend) };
      }),
    })),
  }));
  const values = resolved.flatMap((p) => p.groups.flatMap((g) => [...g.bars.map((b) => b.r?.mbPerSec), g.memcpy?.mbPerSec])).filter((x) => x > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...values, 1)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...values, 10)));

  const W = 1320;
  const cols = 2;
  const margin = { top: 118, left: 20, right: 20, bottom: 40 };
  const panelW = (W - margin.left - margin.right) / cols;
  const panelH = 330;
  const inner = { left: 62, right: 14, top: 34, bottom: 52 };
  const rows = Math.ceil(resolved.length / cols);
  const H = margin.top + rows * panelH + margin.bottom;

  const s = [];
  s.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="11">`,
  );
  s.push(`<title>${esc(`${report.title}: MB/s per fixture and operation`)}</title>`);
  s.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  s.push(
    `<text x="${W / 2}" y="28" text-anchor="middle" font-size="19" font-weight="bold">mcp-frames: throughput per fixture and operation (MB/s, log scale, higher is better)</text>`,
  );
  const machine = `${report.machine.cpu}, ${report.machine.cores} cores · Node ${report.runtime.version} (V8 ${report.runtime.v8}) · ${report.mode} run, benchmark.js ${report.benchmark.statistics === "benchmark.js's defaults" ? 'defaults' : 'quick'} · ${report.generatedAt.slice(0, 10)} · wasm = ${wasm}`;
  s.push(`<text x="${W / 2}" y="48" text-anchor="middle" font-size="12" fill="#333">${esc(machine)}</text>`);
  s.push(
    `<text x="${W / 2}" y="64" text-anchor="middle" font-size="11" fill="#555">MB = 10^6 bytes of input per second. Numbers on bars are MB/s. Whiskers: 95% margin of error. Black line over a group: memcpy of the same bytes (the physical limit).</text>`,
  );

  // Legend.
  const items = [...LEGEND.map(([k, label]) => ({ k, label })), { k: 'memcpy', label: 'memcpy (Uint8Array.set)' }];
  const itemW = (W - 80) / 4;
  items.forEach((it, k) => {
    const x = 40 + (k % 4) * itemW;
    const y = 80 + Math.floor(k / 4) * 18;
    if (it.k === 'memcpy') s.push(`<line x1="${x}" y1="${y}" x2="${x + 14}" y2="${y}" stroke="#000" stroke-width="2.5"/>`);
    else s.push(`<rect x="${x}" y="${y - 6}" width="14" height="12" fill="${COLORS[it.k]}"/>`);
    s.push(`<text x="${x + 20}" y="${y + 4}">${esc(it.label)}</text>`);
  });

  resolved.forEach((p, k) => {
    const px = margin.left + (k % cols) * panelW;
    const py = margin.top + Math.floor(k / cols) * panelH;
    const x0 = px + inner.left;
    const x1 = px + panelW - inner.right;
    const y0 = py + inner.top;
    const y1 = py + panelH - inner.bottom;
    const y = (v) => y1 - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (y1 - y0);

    s.push(`<g>`);
    s.push(`<text x="${px + panelW / 2}" y="${py + 20}" text-anchor="middle" font-size="13" font-weight="bold">${esc(p.title)}</text>`);
    // Grid and axis.
    for (let d = lo; d <= hi; d *= 10) {
      for (const m of [1, 2, 5]) {
        const v = d * m;
        if (v > hi) break;
        const yy = y(v).toFixed(1);
        s.push(`<line x1="${x0}" y1="${yy}" x2="${x1}" y2="${yy}" stroke="${m === 1 ? '#c8c8c8' : '#ececec'}" stroke-width="1"/>`);
        if (m === 1) s.push(`<text x="${x0 - 5}" y="${Number(yy) + 4}" text-anchor="end" fill="#333">${short(v)}</text>`);
      }
    }
    s.push(`<line x1="${x0}" y1="${y0}" x2="${x0}" y2="${y1}" stroke="#333"/>`);
    s.push(`<line x1="${x0}" y1="${y1}" x2="${x1}" y2="${y1}" stroke="#333"/>`);
    const cy = (y0 + y1) / 2;
    s.push(`<text x="${px + 16}" y="${cy}" text-anchor="middle" transform="rotate(-90 ${px + 16} ${cy})" fill="#333">MB/s (log scale)</text>`);

    // Groups.
    const gw = (x1 - x0) / p.groups.length;
    const pad = Math.min(14, gw * 0.14);
    p.groups.forEach((g, gi) => {
      const gx = x0 + gi * gw;
      const n = g.bars.length;
      const bw = (gw - 2 * pad) / n;
      g.bars.forEach((b, bi) => {
        if (!b.r) return;
        const v = b.r.mbPerSec;
        const bx = gx + pad + bi * bw;
        const top = y(Math.max(v, lo));
        s.push(
          `<rect x="${bx.toFixed(1)}" y="${top.toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${(y1 - top).toFixed(1)}" fill="${COLORS[b.key] ?? '#444'}"><title>${esc(`${b.r.name} @${b.r.backend}: ${v.toFixed(1)} MB/s ±${b.r.rme.toFixed(1)}%, ${Math.round(b.r.opsPerSec)} ops/s`)}</title></rect>`,
        );
        const e = (v * b.r.rme) / 100;
        if (e > 0 && v - e > 0) {
          const cx = (bx + (bw - 1) / 2).toFixed(1);
          s.push(`<line x1="${cx}" y1="${y(v + e).toFixed(1)}" x2="${cx}" y2="${y(v - e).toFixed(1)}" stroke="#222" stroke-width="1"/>`);
        }
        const lx = bx + (bw - 1) / 2 + 3;
        const ly = top - 3;
        s.push(
          `<text x="${lx.toFixed(1)}" y="${ly.toFixed(1)}" font-size="9" fill="#222" transform="rotate(-90 ${lx.toFixed(1)} ${ly.toFixed(1)})">${short(v)}</text>`,
        );
      });
      if (g.memcpy) {
        const my = y(g.memcpy.mbPerSec).toFixed(1);
        s.push(
          `<line x1="${(gx + pad / 2).toFixed(1)}" y1="${my}" x2="${(gx + gw - pad / 2).toFixed(1)}" y2="${my}" stroke="#000" stroke-width="2.5"><title>${esc(`memcpy of ${g.fixture}: ${g.memcpy.mbPerSec.toFixed(0)} MB/s`)}</title></line>`,
        );
      }
      const lxc = gx + gw / 2;
      s.push(`<text x="${lxc.toFixed(1)}" y="${y1 + 16}" text-anchor="middle" font-size="${gw < 80 ? 10 : 11}">${esc(g.label)}</text>`);
      s.push(`<text x="${lxc.toFixed(1)}" y="${y1 + 29}" text-anchor="middle" font-size="10" fill="#555">${esc(sizeLabel(g.bytes))}</text>`);
    });
    s.push(`<text x="${(x0 + x1) / 2}" y="${y1 + 46}" text-anchor="middle" fill="#333">fixture</text>`);
    s.push(`</g>`);
  });
  s.push(
    `<text x="${W - margin.right}" y="${H - 12}" text-anchor="end" font-size="10" fill="#777">${esc(`bench/report/report.json has every number; report.md has the ratios and the targets. ${report.cases.length} cases, seed 0x${report.seed.toString(16)}.`)}</text>`,
  );
  s.push(`</svg>`);
  return `${s.join('\n')}\n`;
}
