// The live page: every market's mid, and the selected coin's 1m candles (lightweight-charts), book and trades, all
// from the router's GraphQL subscriptions over graphql-ws (the candles' history by a query on the same socket).
// The key comes from the page's address (`?api_key=`), else from its key field (kept in this browser's localStorage);
// it goes in connection_init. Without one where one is needed, the page says how to get one instead of connecting.
/* global LightweightCharts, graphqlWs, LIVE_CONFIG */

const $ = (id) => document.getElementById(id);
const HISTORY_MS = 3 * 3_600_000;
const MAX_TRADES = 40;
const BOOK_LEVELS = 12;

const state = { coin: new URLSearchParams(location.search).get('coin') || 'BTC', stops: [], client: null };

function setStatus(text, kind) {
  const el = $('status');
  el.textContent = text;
  el.className = `status ${kind ?? ''}`;
}

/** What to do about the key, above the panels (null: nothing to say). */
function showNotice(lead) {
  const el = $('notice');
  el.hidden = !lead;
  if (!lead) return;
  const command = document.createElement('code');
  command.textContent = LIVE_CONFIG.createKeyCommand;
  el.replaceChildren(
    `${lead}: add ?api_key=YOUR_KEY to the address or enter it in the key field, or create one with `,
    command,
    '.',
  );
}

// ---- the chart ----

const chart = LightweightCharts.createChart($('chart'), {
  layout: { background: { color: '#0f1419' }, textColor: '#8fa1b3' },
  grid: { vertLines: { color: '#1b232b' }, horzLines: { color: '#1b232b' } },
  timeScale: { timeVisible: true, secondsVisible: false },
});
const candles = chart.addSeries(LightweightCharts.CandlestickSeries, {});
const bar = (c) => ({ time: c.t / 1000, open: +c.o, high: +c.h, low: +c.l, close: +c.c });

// ---- GraphQL over graphql-ws ----

/** Runs an operation on the socket; `onData` gets each result's data; returns its stop function. */
function run(query, variables, onData) {
  return state.client.subscribe(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) setStatus(result.errors[0].message, 'error');
        else onData(result.data);
      },
      error: (err) => setStatus(err?.reason || err?.message || 'connection failed', 'error'),
      complete: () => {},
    },
  );
}

function connect() {
  for (const stop of state.stops.splice(0)) stop();
  state.client?.dispose();
  state.client = null;
  const key = $('key').value.trim();
  const graphiql = new URL(LIVE_CONFIG.graphqlHttp);
  if (key) graphiql.searchParams.set('api_key', key);
  $('graphiql').href = graphiql.href;
  if (LIVE_CONFIG.keyRequired && !key) {
    showNotice('This server needs an API key');
    setStatus('needs an API key', 'error');
    return;
  }
  showNotice(null);
  state.client = graphqlWs.createClient({
    url: LIVE_CONFIG.graphqlWs,
    connectionParams: key ? { apiKey: key } : {},
    retryAttempts: 1000,
    shouldRetry: (event) => !(event && [4401, 4403].includes(event.code)),
    on: {
      connected: () => setStatus('live', 'live'),
      closed: (event) => {
        setStatus(event?.reason || 'disconnected', event?.code === 1000 ? '' : 'error');
        if ([4401, 4403].includes(event?.code)) showNotice(`The key was refused (${event.reason})`);
      },
    },
  });
  run('subscription { allMids { coin mid } }', {}, (data) => showMids(data.allMids));
  select(state.coin);
}

// ---- markets ----

function showMids(mids) {
  // Perps by name first, then HIP-4 outcome sides (#N); spot pairs' @N ids say nothing to a reader.
  const rank = (coin) => (coin.startsWith('#') ? 1 : 0);
  const rows = mids
    .filter((m) => !m.coin.startsWith('@'))
    .sort((a, b) => rank(a.coin) - rank(b.coin) || a.coin.localeCompare(b.coin, 'en', { numeric: true }));
  const body = $('markets').tBodies[0];
  body.replaceChildren(
    ...rows.map((m) => {
      const tr = document.createElement('tr');
      tr.dataset.coin = m.coin;
      if (m.coin === state.coin) tr.className = 'selected';
      tr.innerHTML = `<td></td><td>${m.mid}</td>`;
      tr.firstChild.textContent = m.coin;
      tr.onclick = () => select(m.coin);
      return tr;
    }),
  );
}

// ---- the selected coin ----

function select(coin) {
  for (const stop of state.stops) stop();
  state.coin = coin;
  $('coin').textContent = coin;
  for (const tr of $('markets').tBodies[0].rows) tr.className = tr.dataset.coin === coin ? 'selected' : '';
  candles.setData([]);
  $('trades').tBodies[0].replaceChildren();
  const chartEl = $('chart');
  chartEl.dataset.updates = '0';
  let loaded = false;
  const pending = [];
  const update = (c) => {
    candles.update(bar(c));
    chartEl.dataset.updates = String(Number(chartEl.dataset.updates) + 1);
  };
  state.stops = [
    run(
      'query ($coin: String!, $start: Timestamp!) { market(coin: $coin) { candles(interval: _1m, startTime: $start) { t o h l c } } }',
      { coin, start: Date.now() - HISTORY_MS },
      (data) => {
        candles.setData((data.market?.candles ?? []).map(bar));
        loaded = true;
        for (const c of pending.splice(0)) update(c);
      },
    ),
    run('subscription ($coin: String!) { candle(coin: $coin, interval: _1m) { t o h l c } }', { coin }, (data) =>
      loaded ? update(data.candle) : pending.push(data.candle),
    ),
    run(
      'subscription ($coin: String!) { l2Book(coin: $coin) { bids { px sz n } asks { px sz n } } }',
      { coin },
      (data) => showBook(data.l2Book),
    ),
    run('subscription ($coin: String!) { trades(coin: $coin) { side px sz time } }', { coin }, (data) =>
      showTrades(data.trades),
    ),
  ];
}

const levelRow = (l) => `<tr><td>${l.px}</td><td>${l.sz}</td><td>${l.n}</td></tr>`;

function showBook(book) {
  $('asks').tBodies[0].innerHTML = book.asks.slice(0, BOOK_LEVELS).reverse().map(levelRow).join('');
  $('bids').tBodies[0].innerHTML = book.bids.slice(0, BOOK_LEVELS).map(levelRow).join('');
}

function showTrades(trades) {
  const body = $('trades').tBodies[0];
  for (const t of trades) {
    const tr = document.createElement('tr');
    tr.className = t.side === 'B' ? 'buy' : 'sell';
    tr.innerHTML = `<td>${new Date(t.time).toISOString().slice(11, 19)}</td><td>${t.px}</td><td>${t.sz}</td>`;
    body.prepend(tr);
  }
  while (body.rows.length > MAX_TRADES) body.lastChild.remove();
}

// ---- start ----

// A key in the address is used even where none is required (the visitor chose it), and is not stored.
const addressKey = new URLSearchParams(location.search).get('api_key')?.trim() || '';
$('key-field').hidden = !LIVE_CONFIG.keyRequired && !addressKey;
$('key').value = addressKey || (LIVE_CONFIG.keyRequired ? (localStorage.getItem('hl-api-key') ?? '') : '');
$('key').onchange = () => {
  localStorage.setItem('hl-api-key', $('key').value.trim());
  connect();
};
connect();
