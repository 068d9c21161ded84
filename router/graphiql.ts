// GraphiQL at the router's /graphql: opened on an example operation of this graph, with the key of its own address
// (`?api_key=`) sent on every request it makes, and a plain message when a key is needed and the address has none.
import type { GraphiQLOptions } from 'graphql-yoga';
import type { KeyChecker } from '../access/auth.ts';
import { CREATE_KEY_COMMAND } from '../access/keys.ts';
import { graphiqlBundle } from './graphiql-bundle.ts';

/**
 * The operation GraphiQL opens on (when the address brings none): one query across two subgraphs, a market from
 * markets and its traders' fills from accounts, that answers on any data (no address to know). Its names are
 * checked against the composed supergraph by router/graphiql.test.ts.
 */
export const DEFAULT_OPERATION = `# The Hyperliquid data graph: markets, accounts, HIP-4, HyperEVM and analytics in one schema.
# Run this with the button above (or Ctrl-Enter); the Docs (book icon) describe every field.
#
# BTC's mid, its latest trades with each trade's buyer and seller and their last fills, and its
# book: the market comes from the markets subgraph, the users' fills from accounts.
# Live data: \`subscription { trades(coin: "BTC") { px sz side } }\` (also l2Book, candle, allMids, userFills).
query MarketAndTraders {
  market(coin: "BTC") {
    coin
    mid
    trades(limit: 3) {
      time
      side
      px
      sz
      users {
        address
        fills(first: 3) {
          edges {
            node { time coin dir px sz closedPnl }
          }
        }
      }
    }
    book {
      bids { px sz n }
      asks { px sz n }
    }
  }
}
`;

const KEY_NEEDED =
  'This server needs an API key: add ?api_key=YOUR_KEY to the address, or create one with ' +
  `<code>${CREATE_KEY_COMMAND}</code>.`;

const KEY_MALFORMED =
  'The api_key in the address is not a key of this server (keys are letters, digits, _ and -): correct it, or ' +
  `create one with <code>${CREATE_KEY_COMMAND}</code>.`;

/** A key as `keys create` makes them; anything else is not echoed into the page (it would be a script injection). */
const KEY_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;

/** The page's options, and a notice (trusted HTML) shown above GraphiQL. */
type PageOptions = GraphiQLOptions & {
  notice?: string;
  connectionParams?: Record<string, string>;
  /** null: GraphiQL does not introspect. */
  schema?: null;
};

const BASE: GraphiQLOptions = {
  title: 'Hyperliquid data graph',
  // Subscriptions run over graphql-ws, as the router serves them.
  subscriptionsProtocol: 'WS',
  defaultQuery: DEFAULT_OPERATION,
};

/** Whether a request without a key would be refused (storage down or thread trouble: unknown, so no notice). */
async function keyNeeded(auth: KeyChecker | undefined): Promise<boolean> {
  if (!auth) return false;
  // No key presented: nothing is counted, only whether keys are configured is looked up.
  const outcome = await auth.check({ headers: {} }, 'graphql').catch(() => null);
  return outcome?.ok === false && outcome.status === 401;
}

/**
 * GraphiQL's options for one page request. The page's key goes as `X-API-Key` on its HTTP requests (queries,
 * introspection, SSE) and as `apiKey` in graphql-ws's `connection_init`: GraphiQL builds both from these options.
 * Without a key where one is needed, the page does not introspect (it would only show the refusal) and says what to
 * do.
 */
async function pageOptions(request: Request, auth: KeyChecker | undefined): Promise<PageOptions> {
  const key = new URL(request.url).searchParams.get('api_key');
  if (key && KEY_SHAPE.test(key)) {
    return { ...BASE, additionalHeaders: { 'x-api-key': key }, connectionParams: { apiKey: key } };
  }
  if (key) return { ...BASE, notice: KEY_MALFORMED };
  if (await keyNeeded(auth)) return { ...BASE, schema: null, notice: KEY_NEEDED };
  return BASE;
}

const NOTICE_STYLE = `<style>
  body { display: flex; flex-direction: column; height: 100vh; margin: 0; }
  #root { flex: 1; min-height: 0; }
  #root .graphiql-container { height: 100%; }
  .hl-notice { padding: 10px 16px; background: #fff4d6; color: #3d2e00; border-bottom: 1px solid #e6c75c;
    font: 14px/1.4 system-ui, sans-serif; }
  .hl-notice code { background: #f3e3b0; padding: 1px 4px; border-radius: 3px; }
</style>`;

/**
 * A key refused later (unknown, revoked, an mcp key) is only known from the router's answers: GraphiQL's requests
 * go through `fetch`, so a 401 or 403 answer puts its reason in the notice, beside the error GraphiQL shows.
 */
const REFUSAL_WATCH = `<script>
  (() => {
    const fetchFirst = window.fetch.bind(window);
    window.fetch = async (...args) => {
      const answer = await fetchFirst(...args);
      if (answer.status === 401 || answer.status === 403) {
        const body = await answer.clone().json().catch(() => null);
        const notice = document.querySelector('.hl-notice');
        const command = document.createElement('code');
        command.textContent = ${JSON.stringify(CREATE_KEY_COMMAND)};
        notice.replaceChildren(
          'The server refused the key (' + (body?.error ?? answer.status) + '): correct the api_key in the address, or create one with ',
          command,
          '.',
        );
        notice.hidden = false;
      }
      return answer;
    };
  })();
</script>`;

/** Yoga's offline page (its bundle served beside it: graphiql-bundle.ts), with the notice above it (hidden: none). */
function renderPage(options: PageOptions): string {
  const { notice, ...graphiql } = options;
  const noticeBox = `<div class="hl-notice" role="alert"${notice ? '' : ' hidden'}>${notice ?? ''}</div>`;
  return graphiqlBundle()
    .render(graphiql)
    .replace('</head>', `${NOTICE_STYLE}</head>`)
    .replace('<div id="root"></div>', `${noticeBox}${REFUSAL_WATCH}<div id="root"></div>`);
}

/**
 * The gateway's GraphiQL settings: `createGatewayRuntime({ ...graphiqlPage(auth), ... })`, with `useGraphiQLAssets()`
 * among its plugins to serve the files the page loads.
 */
export function graphiqlPage(auth: KeyChecker | undefined) {
  return {
    graphiql: (request: Request) => pageOptions(request, auth),
    renderGraphiQL: (options: GraphiQLOptions) => renderPage(options),
  };
}
