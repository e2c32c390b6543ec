/**
 * The dashboard page: one self-contained HTML document (inline CSS and script, no CDN). It renders
 * the state embedded at load, then follows `/agent-compact/events`. Figures carry `data-figure`
 * attributes with raw numbers, so tests compare them with `/agent-compact/stats`.
 */

/** The page with `state` (the stats and every session) embedded. */
export function dashboardPage(state: unknown): string {
  // `<` escaped so no content can close the script element early.
  const json = JSON.stringify(state).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agent-compact dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body><header><h1>agent-compact</h1><div id="totals"></div></header>
<main id="sessions"></main>
<script id="state" type="application/json">${json}</script>
<script>${SCRIPT}</script></body></html>`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:12px 20px;display:flex;gap:24px;align-items:center;flex-wrap:wrap}
h1{font-size:18px;margin:0}h2{font-size:15px;margin:0 0 6px}
#totals{display:flex;gap:18px;flex-wrap:wrap}.figure b{display:block;font-size:18px}
.figure span{font-size:11px;opacity:.75;text-transform:uppercase}.fallback{flex-basis:100%;color:#b91c1c;font-size:12px}tr.fell-back td,tr.upstream-error td{color:#b91c1c}
main{padding:16px 20px;display:grid;gap:16px}
section.session{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:14px}
.meta{color:#5b6475;font-size:12px;margin-bottom:8px}
svg.chart{width:100%;height:160px;background:#fbfcfd;border:1px solid #eef0f3}
.legend span{margin-right:14px;font-size:12px}.sent{color:#c2410c}.fwd{color:#1d4ed8}
table{border-collapse:collapse;width:100%;margin-top:8px;font-size:12px}
th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #eef0f3}
details{margin-top:6px}pre{white-space:pre-wrap;background:#f3f4f6;padding:8px;max-height:300px;overflow:auto}
a{color:#1d4ed8}button.item{margin:2px;font-size:11px}
`;

const SCRIPT = `
(function () {
  var state = JSON.parse(document.getElementById('state').textContent);
  // The token, if any, is in an HttpOnly cookie the browser sends itself: no link carries it.
  var base = location.pathname.replace(/\\/?$/, '/');
  var fmt = function (n) { return Number(n).toLocaleString('en-US'); };
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.append(c); });
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  function figure(name, value, label) {
    return el('div', { class: 'figure' }, [el('b', { 'data-figure': name, 'data-value': String(value) }, [fmt(value)]), el('span', {}, [label])]);
  }
  function renderTotals() {
    var s = state.stats, box = document.getElementById('totals');
    var compactions = s.byLayer.micro + s.byLayer.mid + s.byLayer.hard;
    box.replaceChildren(figure('requests', s.requests, 'requests'), figure('tokensIn', s.tokensIn, 'tokens sent'),
      figure('tokensOut', s.tokensOut, 'tokens forwarded'), figure('compactions', compactions, 'compactions'),
      figure('sessions', state.sessions.length, 'sessions'), figure('fallbacks', s.fallbacks, 'fell back'));
    (s.fallbackReasons || []).forEach(function (r) {
      box.append(el('div', { class: 'fallback', 'data-fallback': r.kind }, [fmt(r.count) + ' ' + r.kind + ': ' + r.reason]));
    });
  }
  function chart(requests) {
    var w = 800, h = 160, pad = 6, root = svg('svg', { class: 'chart', viewBox: '0 0 ' + w + ' ' + h, preserveAspectRatio: 'none' });
    var max = Math.max(1, Math.max.apply(null, requests.map(function (r) { return Math.max(r.tokensIn, r.tokensOut); })));
    function line(key, color) {
      var points = requests.map(function (r, i) {
        var x = pad + (requests.length < 2 ? 0 : (i * (w - 2 * pad)) / (requests.length - 1));
        return x.toFixed(1) + ',' + (h - pad - (r[key] / max) * (h - 2 * pad)).toFixed(1);
      }).join(' ');
      root.append(svg('polyline', { points: points, fill: 'none', stroke: color, 'stroke-width': '2', 'data-series': key }));
    }
    line('tokensIn', '#c2410c'); line('tokensOut', '#1d4ed8');
    return root;
  }
  function showItem(sessionId, id, target) {
    fetch(base + 'sessions/' + encodeURIComponent(sessionId) + '/items/' + encodeURIComponent(id))
      .then(function (r) { return r.json(); })
      .then(function (item) { target.textContent = JSON.stringify(item, null, 2); });
  }
  function compactionRows(session) {
    var table = el('table', { class: 'timeline' }, [el('tr', {}, ['time', 'layer', 'before → after', 'took', 'cost', 'summary and archived items'].map(function (t) { return el('th', {}, [t]); }))]);
    session.compactions.forEach(function (c) {
      var shown = el('pre', { class: 'item-view', hidden: '' });
      var buttons = c.archived.map(function (id) {
        var b = el('button', { class: 'item', 'data-item': id }, ['recall ' + id]);
        b.onclick = function () { shown.hidden = false; showItem(session.id, id, shown); };
        return b;
      });
      var details = el('details', {}, [el('summary', {}, [c.summary ? 'summary' : c.archived.length + ' archived'])]
        .concat(c.summary ? [el('pre', { class: 'summary' }, [c.summary])] : []).concat(buttons).concat([shown]));
      table.append(el('tr', { class: 'compaction', 'data-layer': c.layer }, [el('td', {}, [new Date(c.time).toLocaleTimeString()]),
        el('td', {}, [c.layer]), el('td', {}, [fmt(c.tokensBefore) + ' → ' + fmt(c.tokensAfter)]),
        el('td', {}, [c.durationMs + ' ms']), el('td', {}, ['$' + c.costUsd.toFixed(4)]), el('td', {}, [details])]));
    });
    session.requests.forEach(function (r) {
      if (r.fallback) table.append(requestRow(r, 'fell-back', 'fell back', r.fallback));
      // A 200 whose answer failed upstream: the note beside its status tells it from one that went well.
      var failed = (r.answerBroken ? ['answer broke off upstream'] : []).concat(r.streamError ? ['stream error: ' + r.streamError] : []);
      if (failed.length) table.append(requestRow(r, 'upstream-error', String(r.status), failed.join('; ')));
    });
    return table;
  }
  function requestRow(r, kind, label, note) {
    return el('tr', { class: kind }, [el('td', {}, [new Date(r.time).toLocaleTimeString()]), el('td', {}, [label]),
      el('td', {}, [fmt(r.tokensIn) + ' → ' + fmt(r.tokensOut)]), el('td', { colspan: '3' }, [note])]);
  }
  function renderSession(session) {
    var reads = 0, writes = 0;
    session.requests.forEach(function (r) { reads += r.cacheRead; writes += r.cacheWrite; });
    var node = el('section', { class: 'session', id: 'session-' + session.id, 'data-session': session.id }, [
      el('h2', {}, ['session ' + session.id]),
      el('div', { class: 'meta' }, [session.agent + ' · ' + session.model + ' · ' + session.api + ' · ' + session.requests.length + ' requests · cache reads ',
        el('b', { 'data-figure': 'cacheRead', 'data-value': String(reads) }, [fmt(reads)]), ', writes ',
        el('b', { 'data-figure': 'cacheWrite', 'data-value': String(writes) }, [fmt(writes)]), ' · ',
        el('a', { href: base + 'sessions/' + encodeURIComponent(session.id) + '/export', download: 'agent-compact-' + session.id + '.json' }, ['export JSON'])]),
      el('div', { class: 'legend' }, [el('span', { class: 'sent' }, ['— tokens sent']), el('span', { class: 'fwd' }, ['— tokens forwarded'])]),
      chart(session.requests), compactionRows(session)]);
    return node;
  }
  function render() {
    renderTotals();
    document.getElementById('sessions').replaceChildren.apply(document.getElementById('sessions'), state.sessions.map(renderSession));
  }
  render();
  function resync() {
    // Events sent while disconnected are lost: the sessions are read again in full.
    fetch(base + 'sessions').then(function (r) { return r.json(); }).then(function (list) {
      return Promise.all(list.map(function (s) {
        return fetch(base + 'sessions/' + encodeURIComponent(s.id)).then(function (r) { return r.json(); });
      }));
    }).then(function (sessions) { state.sessions = sessions; refresh(); });
  }
  function refresh() {
    fetch(base + 'stats').then(function (r) { return r.json(); }).then(function (stats) { state.stats = stats; render(); });
  }
  if (window.EventSource) {
    var events = new EventSource(base + 'events'), opened = false;
    // data-live marks a page that receives events (a test waits for it before sending traffic).
    events.onopen = function () { if (opened) resync(); opened = true; document.documentElement.dataset.live = 'true'; };
    events.addEventListener('session', function (event) {
      // One request and at most one compaction: what changed, never the whole lists.
      var update = JSON.parse(event.data);
      var session = state.sessions.find(function (s) { return s.id === update.id; });
      if (!session) { session = { requests: [], compactions: [] }; state.sessions.push(session); }
      var request = update.request, compaction = update.compaction, count = update.requestCount;
      delete update.request; delete update.compaction; delete update.requestCount;
      Object.assign(session, update);
      if (request) session.requests.push(request);
      if (compaction) session.compactions.push(compaction);
      // An event this page missed (sent before its stream opened): read the session again in full.
      if (count !== undefined && session.requests.length !== count) {
        fetch(base + 'sessions/' + encodeURIComponent(update.id)).then(function (r) { return r.json(); }).then(function (full) {
          var index = state.sessions.indexOf(session);
          if (index >= 0) state.sessions[index] = full;
          refresh();
        });
      }
      refresh();
    });
  }
})();
`;
